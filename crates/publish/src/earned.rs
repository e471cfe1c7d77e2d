//! Whether blocking has been earned: precision in the wild over the newest
//! decided findings, against a bar, overall and for each reviewer on its own
//! findings. Pure: the records come from [`crate::history::read`] (the host's
//! own records, never text a pull request author can write), and this decides
//! nothing else.
//!
//! A finding may block only when the repository as a whole met the bar and at
//! least one reviewer that raised it met the bar on its own findings: that
//! reviewer would have raised it alone, and its record is what earned the
//! authority.

use crate::outcome::{Record, Tally, last_decided};
use std::collections::BTreeMap;

/// What precision must reach, over how many findings, before blocking applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// The newest this many decided (fixed or dismissed) findings are counted.
    pub window: usize,
    /// Precision (fixed / decided) at least this.
    pub min_precision: f64,
    /// At least this many decided findings in the window.
    pub min_findings: usize,
}

impl Default for Bar {
    fn default() -> Bar {
        Bar { window: 100, min_precision: 0.90, min_findings: 30 }
    }
}

impl Bar {
    /// Whether `tally` clears the bar.
    pub fn met_by(&self, tally: &Tally) -> bool {
        tally.decided() >= self.min_findings && tally.precision().is_some_and(|p| p >= self.min_precision)
    }
}

/// The figures blocking follows, and whether each cleared the bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Earned {
    pub bar: Bar,
    /// The newest [`Bar::window`] decided findings of every reviewer.
    pub overall: Tally,
    /// Each reviewer's newest [`Bar::window`] decided findings of its own.
    pub reviewers: BTreeMap<String, Tally>,
}

/// The figures over `records` (newest first, as [`crate::history::read`] gives them).
pub fn assess(records: &[Record], bar: Bar) -> Earned {
    let overall = last_decided(records, bar.window, None);
    let mut names: Vec<&String> = records.iter().flat_map(|r| r.reviewers.iter()).collect();
    names.sort();
    names.dedup();
    let reviewers = names.into_iter().map(|n| (n.clone(), last_decided(records, bar.window, Some(n)))).collect();
    Earned { bar, overall, reviewers }
}

/// The records of findings raised in `era` ([`crate::marker::era_tag`]): a new
/// rules version or standard-tier model starts a new record. A finding whose
/// comment records no era (written before eras were recorded) belongs to none.
pub fn of_era(records: &[Record], era: &str) -> Vec<Record> {
    records.iter().filter(|r| r.era.as_deref() == Some(era)).cloned().collect()
}

impl Earned {
    /// The repository as a whole cleared the bar.
    pub fn met(&self) -> bool {
        self.bar.met_by(&self.overall)
    }

    /// Whether `reviewer` cleared the bar on its own findings (one with no record
    /// has not).
    pub fn reviewer_met(&self, reviewer: &str) -> bool {
        self.reviewers.get(reviewer).is_some_and(|t| self.bar.met_by(t))
    }

    /// Whether a finding raised by `raised_by` may block: the whole cleared the
    /// bar, and so did at least one of its reviewers.
    pub fn may_block(&self, raised_by: &[String]) -> bool {
        self.met() && raised_by.iter().any(|r| self.reviewer_met(r))
    }

    /// One line saying which mode applies and why, e.g. `advisory: precision
    /// 0.84 over the last 41 decided findings; blocking needs 0.90`.
    pub fn reason(&self) -> String {
        let t = &self.overall;
        let bar = &self.bar;
        let n = t.decided();
        let figure =
            |p: f64| format!("precision {p:.2} over the last {n} decided finding{}", if n == 1 { "" } else { "s" });
        match t.precision() {
            None => format!(
                "advisory: no decided findings yet; blocking needs {} at precision {:.2}",
                bar.min_findings, bar.min_precision
            ),
            Some(_) if n < bar.min_findings => format!(
                "advisory: {n} decided finding{} so far; blocking needs at least {}",
                if n == 1 { "" } else { "s" },
                bar.min_findings
            ),
            Some(p) if p < bar.min_precision => {
                format!("advisory: {}; blocking needs {:.2}", figure(p), bar.min_precision)
            }
            Some(p) => {
                let met: Vec<&str> =
                    self.reviewers.iter().filter(|(_, t)| bar.met_by(t)).map(|(n, _)| n.as_str()).collect();
                let who = if met.is_empty() { "none".to_string() } else { met.join(", ") };
                format!(
                    "blocking: {} (bar {:.2}, at least {}); reviewers that met the bar on their own findings: {who}",
                    figure(p),
                    bar.min_precision,
                    bar.min_findings
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    fn records(reviewer: &str, fixed: usize, dismissed: usize) -> Vec<Record> {
        let one = |outcome| Record {
            pr: 1,
            finding: "f".into(),
            severity: "high".into(),
            reviewers: vec![reviewer.to_string()],
            closed_at: "2024-03-01".into(),
            outcome,
            era: None,
            path: None,
            thread: None,
        };
        let mut out: Vec<Record> = (0..fixed).map(|_| one(Outcome::Fixed)).collect();
        out.extend((0..dismissed).map(|_| one(Outcome::Dismissed)));
        out
    }

    fn bar() -> Bar {
        Bar::default()
    }

    #[test]
    fn below_the_bar_it_says_why() {
        let few = assess(&records("logic", 10, 0), bar());
        assert!(!few.met());
        assert_eq!(few.reason(), "advisory: 10 decided findings so far; blocking needs at least 30");
        let mut r = records("logic", 34, 0);
        r.extend(records("security", 0, 7));
        let low = assess(&r, bar());
        assert!(!low.met());
        assert_eq!(low.reason(), "advisory: precision 0.83 over the last 41 decided findings; blocking needs 0.90");
        assert_eq!(
            assess(&[], bar()).reason(),
            "advisory: no decided findings yet; blocking needs 30 at precision 0.90"
        );
    }

    #[test]
    fn above_the_bar_only_reviewers_that_met_it_block() {
        let mut r = records("logic", 40, 1);
        r.extend(records("style", 3, 1));
        r.extend(records("security", 5, 0));
        let e = assess(&r, bar());
        assert!(e.met(), "{e:?}");
        assert!(e.may_block(&["logic".into()]));
        assert!(!e.may_block(&["style".into()]), "its own record is too short and too noisy");
        assert!(!e.may_block(&["security".into()]), "five decided findings are too few");
        assert!(e.may_block(&["style".into(), "logic".into()]), "one reviewer that met the bar is enough");
        assert!(!e.may_block(&["unknown".into()]));
        assert!(e.reason().starts_with("blocking: precision 0.96 over the last 50 decided findings"), "{}", e.reason());
        assert!(e.reason().ends_with("on their own findings: logic"), "{}", e.reason());
    }

    #[test]
    fn only_the_newest_window_counts_and_open_or_ignored_findings_do_not() {
        // Newest first: 30 fixed, then 30 dismissed that fall outside a window of 30.
        let mut r = records("logic", 30, 30);
        let ignored = Record { outcome: Outcome::Ignored, ..r[0].clone() };
        r.insert(0, ignored);
        let e = assess(&r, Bar { window: 30, ..bar() });
        assert_eq!((e.overall.fixed, e.overall.dismissed), (30, 0));
        assert!(e.met());
        let all = assess(&r, bar());
        assert!(!all.met(), "over all 60 precision is 0.50");
    }

    #[test]
    fn a_new_era_starts_a_new_record() {
        let mut r = records("logic", 40, 0);
        r.iter_mut().take(10).for_each(|x| x.era = Some("new".into()));
        r.iter_mut().skip(10).for_each(|x| x.era = Some("old".into()));
        r.push(Record { era: None, ..r[0].clone() });
        assert_eq!(of_era(&r, "new").len(), 10);
        assert!(!assess(&of_era(&r, "new"), bar()).met(), "ten findings of the new era are too few");
        assert!(assess(&r, bar()).met(), "kept across eras, the old record counts");
    }
}
