//! What became of each finding the pipeline published, decided from the host's
//! own records, and the figures built on that: precision in the wild and the
//! action rate, overall, per reviewer, per severity and per month.
//!
//! Everything here is pure. [`crate::history`] reads the records from a host;
//! `gauntlet stats` prints the figures, and a later `ci` that blocks only when
//! precision was earned can call [`last_decided`] and [`Tally::precision`] on the
//! same records.
//!
//! The record covers every finding the pipeline published: those with an inline
//! comment, and those only the overview showed (outside the diff, over the cap,
//! carried over), which its marker holds and, once a later run no longer finds
//! them, remembers as gone ([`crate::marker::Gone`]). For an overview finding,
//! "resolved by the pipeline" means gone, and "lines changed" means the push
//! between the run that held it and the run that dropped it touched its line.
//!
//! A published finding ends in exactly one [`Outcome`], checked in this order:
//! 1. **dismissed**: [`crate::dismissal::assess`] counts a dismissal on its thread
//!    (the one definition; nothing here re-decides it);
//! 2. **fixed**: the pipeline itself marked the thread resolved (its marker says
//!    `state=resolved`: a later review no longer found the finding) and the host
//!    reports that the flagged lines changed after the comment was placed;
//! 3. **withdrawn**: the pipeline marked it resolved, and the lines did not
//!    change (the model changed its mind); counted, but outside precision;
//! 4. **open**: the pull request is still open;
//! 5. **ignored**: the pull request was merged or closed with the thread open.

use crate::body;
use crate::marker::FindingMarker;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The end of one published finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Fixed,
    Withdrawn,
    Dismissed,
    Ignored,
    Open,
}

impl Outcome {
    pub const ALL: [Outcome; 5] =
        [Outcome::Fixed, Outcome::Withdrawn, Outcome::Dismissed, Outcome::Ignored, Outcome::Open];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Fixed => "fixed",
            Outcome::Withdrawn => "withdrawn",
            Outcome::Dismissed => "dismissed",
            Outcome::Ignored => "ignored",
            Outcome::Open => "open",
        }
    }

    /// Whether the finding counts toward precision (fixed or dismissed).
    pub fn decided(self) -> bool {
        matches!(self, Outcome::Fixed | Outcome::Dismissed)
    }
}

/// Where a pull request stands, as the host reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrState {
    Open,
    Merged,
    Closed,
}

/// The facts one outcome is decided from, all read from the host's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// A dismissal on the thread counts ([`crate::dismissal::Dismissals::is_dismissed`]).
    pub dismissed: bool,
    /// The pipeline's own comment carries `state=resolved` in its marker: a later
    /// review no longer found the finding.
    pub resolved_by_pipeline: bool,
    /// The host reports the flagged lines changed after the comment was placed
    /// (GitHub `isOutdated`, GitLab's system note "changed this line", Azure DevOps'
    /// file diff between the comment's iteration and the last one).
    pub lines_changed: bool,
    /// The pull request is still open.
    pub pr_open: bool,
}

/// The one outcome `facts` lead to (see the module's order).
pub fn decide(facts: Facts) -> Outcome {
    if facts.dismissed {
        Outcome::Dismissed
    } else if facts.resolved_by_pipeline && facts.lines_changed {
        Outcome::Fixed
    } else if facts.resolved_by_pipeline {
        Outcome::Withdrawn
    } else if facts.pr_open {
        Outcome::Open
    } else {
        Outcome::Ignored
    }
}

/// What the pipeline's comment says about its finding, read from a body only the
/// pipeline wrote (callers check the edit history first): the finding id from the
/// marker, whether the marker says the pipeline resolved it, and the severity and
/// reviewers from the header line [`body::header`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    pub id: String,
    pub resolved: bool,
    pub severity: String,
    /// Every reviewer that raised the finding (`raised_by`), or the one reviewer.
    pub reviewers: Vec<String>,
    /// The era its marker records ([`crate::marker::era_tag`]), if any.
    pub era: Option<String>,
}

/// The finding a pipeline comment body describes; `None` when it has no finding
/// marker or no header to read.
pub fn posted(text: &str) -> Option<Posted> {
    let marker = FindingMarker::parse(text)?;
    let header = body::parse(text)?.header;
    let mut parts = header.split(" · ");
    let severity = parts.next()?.trim().trim_matches('*').to_string();
    let who = parts.nth(1)?.trim();
    let spans = code_spans(who);
    let one = who.starts_with("reviewer ") && spans.len() == 1;
    let many = who.starts_with("raised by ") && !spans.is_empty();
    (one || many).then_some(Posted {
        id: marker.id,
        resolved: marker.resolved,
        severity,
        reviewers: spans,
        era: marker.era,
    })
}

/// The contents of the Markdown code spans in `text`, in order.
fn code_spans(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start..];
        let ticks = after.len() - after.trim_start_matches('`').len();
        let fence = &after[..ticks];
        let inner = &after[ticks..];
        let Some(end) = find_run(inner, ticks) else { break };
        let content = &inner[..end];
        let content = if content.starts_with(' ') && content.ends_with(' ') && content.len() > 1 {
            &content[1..content.len() - 1]
        } else {
            content
        };
        out.push(content.to_string());
        rest = &inner[end + fence.len()..];
    }
    out
}

/// Where in `text` a run of exactly `n` backticks starts.
fn find_run(text: &str, n: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            if run == n {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// One published finding and its outcome: the unit every figure counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The pull request's number (GitLab: its iid).
    pub pr: u64,
    pub finding: String,
    pub severity: String,
    pub reviewers: Vec<String>,
    /// When the pull request was merged or closed (`YYYY-MM-DD...`, as the host
    /// writes it); empty while it is open.
    pub closed_at: String,
    pub outcome: Outcome,
    /// The rules version and standard-tier model that raised it
    /// ([`crate::marker::era_tag`]); `None` for a comment that does not say.
    pub era: Option<String>,
    /// The file the finding's comment sits on; `None` for a finding only the
    /// overview showed, and in records kept before this was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The host's ids of the finding's comment thread, for a link to it; `None`
    /// as for `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<crate::host::Handle>,
}

impl Record {
    /// `YYYY-MM` of [`Record::closed_at`], or `open`.
    pub fn month(&self) -> String {
        self.closed_at.get(..7).map_or_else(|| "open".to_string(), str::to_string)
    }
}

/// Counts per outcome, and the figures built on them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub fixed: usize,
    pub withdrawn: usize,
    pub dismissed: usize,
    pub ignored: usize,
    pub open: usize,
}

impl Tally {
    pub fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Fixed => self.fixed += 1,
            Outcome::Withdrawn => self.withdrawn += 1,
            Outcome::Dismissed => self.dismissed += 1,
            Outcome::Ignored => self.ignored += 1,
            Outcome::Open => self.open += 1,
        }
    }

    pub fn count(&self, outcome: Outcome) -> usize {
        match outcome {
            Outcome::Fixed => self.fixed,
            Outcome::Withdrawn => self.withdrawn,
            Outcome::Dismissed => self.dismissed,
            Outcome::Ignored => self.ignored,
            Outcome::Open => self.open,
        }
    }

    /// Every finding published.
    pub fn published(&self) -> usize {
        self.fixed + self.withdrawn + self.dismissed + self.ignored + self.open
    }

    /// Findings that count toward precision: fixed or dismissed.
    pub fn decided(&self) -> usize {
        self.fixed + self.dismissed
    }

    /// Precision in the wild, fixed / (fixed + dismissed); `None` with nothing decided.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.fixed, self.decided())
    }

    /// Action rate, fixed / published; `None` with nothing published.
    pub fn action_rate(&self) -> Option<f64> {
        ratio(self.fixed, self.published())
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// The figures over a set of records.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub total: Tally,
    /// Each reviewer credited once per finding it raised.
    pub per_reviewer: BTreeMap<String, Tally>,
    pub per_severity: BTreeMap<String, Tally>,
    /// `YYYY-MM` of the pull request's close.
    pub per_month: BTreeMap<String, Tally>,
}

pub fn figures(records: &[Record]) -> Figures {
    let mut f = Figures::default();
    for r in records {
        f.total.add(r.outcome);
        let mut credited: Vec<&String> = r.reviewers.iter().collect();
        credited.sort();
        credited.dedup();
        for reviewer in credited {
            f.per_reviewer.entry(reviewer.clone()).or_default().add(r.outcome);
        }
        f.per_severity.entry(r.severity.clone()).or_default().add(r.outcome);
        f.per_month.entry(r.month()).or_default().add(r.outcome);
    }
    f
}

/// The tally over the newest `window` decided findings of `records` (given newest
/// first), optionally only those `reviewer` raised: what a blocking rule that must
/// be earned compares against its bar.
pub fn last_decided(records: &[Record], window: usize, reviewer: Option<&str>) -> Tally {
    let mut t = Tally::default();
    let raised = |r: &&Record| reviewer.is_none_or(|name| r.reviewers.iter().any(|x| x == name));
    for r in records.iter().filter(raised).filter(|r| r.outcome.decided()).take(window) {
        t.add(r.outcome);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(dismissed: bool, resolved: bool, changed: bool, open: bool) -> Facts {
        Facts { dismissed, resolved_by_pipeline: resolved, lines_changed: changed, pr_open: open }
    }

    #[test]
    fn each_combination_of_facts_has_one_outcome() {
        assert_eq!(decide(facts(true, true, true, false)), Outcome::Dismissed);
        assert_eq!(decide(facts(true, false, false, true)), Outcome::Dismissed);
        assert_eq!(decide(facts(false, true, true, false)), Outcome::Fixed);
        assert_eq!(decide(facts(false, true, true, true)), Outcome::Fixed);
        assert_eq!(decide(facts(false, true, false, false)), Outcome::Withdrawn);
        assert_eq!(decide(facts(false, false, true, true)), Outcome::Open);
        assert_eq!(decide(facts(false, false, false, false)), Outcome::Ignored);
        // Lines changed, but the pipeline still found it: the finding stood.
        assert_eq!(decide(facts(false, false, true, false)), Outcome::Ignored);
    }

    fn record(pr: u64, reviewers: &[&str], severity: &str, closed: &str, outcome: Outcome) -> Record {
        Record {
            path: None,
            thread: None,
            pr,
            finding: format!("f{pr}"),
            severity: severity.into(),
            reviewers: reviewers.iter().map(|r| r.to_string()).collect(),
            closed_at: closed.into(),
            outcome,
            era: None,
        }
    }

    #[test]
    fn figures_by_hand() {
        use Outcome::*;
        let records = vec![
            record(5, &["logic", "security"], "high", "2024-03-02T10:00:00Z", Fixed),
            record(5, &["logic"], "low", "2024-03-02T10:00:00Z", Dismissed),
            record(4, &["security"], "high", "2024-02-20T10:00:00Z", Fixed),
            record(4, &["logic"], "medium", "2024-02-20T10:00:00Z", Withdrawn),
            record(3, &["logic", "logic"], "medium", "2024-02-01T10:00:00Z", Ignored),
            record(2, &["security"], "high", "2024-01-31T10:00:00Z", Dismissed),
            record(1, &["logic"], "low", "", Open),
        ];
        let f = figures(&records);
        assert_eq!(f.total, Tally { fixed: 2, withdrawn: 1, dismissed: 2, ignored: 1, open: 1 });
        assert_eq!(f.total.precision(), Some(0.5));
        assert_eq!(f.total.action_rate(), Some(2.0 / 7.0));
        let logic = f.per_reviewer["logic"];
        assert_eq!(logic, Tally { fixed: 1, withdrawn: 1, dismissed: 1, ignored: 1, open: 1 });
        let security = f.per_reviewer["security"];
        assert_eq!((security.fixed, security.dismissed, security.precision()), (2, 1, Some(2.0 / 3.0)));
        assert_eq!(f.per_severity["high"].precision(), Some(2.0 / 3.0));
        assert_eq!(f.per_month["2024-02"], Tally { fixed: 1, withdrawn: 1, ignored: 1, ..Tally::default() });
        assert_eq!(f.per_month["open"].open, 1);
        assert_eq!(Tally::default().precision(), None);
        // The newest two decided findings, and those of one reviewer.
        assert_eq!(last_decided(&records, 2, None), Tally { fixed: 1, dismissed: 1, ..Tally::default() });
        assert_eq!(last_decided(&records, 10, Some("security")), Tally { fixed: 2, dismissed: 1, ..Tally::default() });
    }

    #[test]
    fn the_header_gives_severity_and_every_reviewer() {
        let one = "<!-- gauntlet:finding v1 id=ab12 -->\n\n**high** · failure scenario · reviewer `logic`\n\nclaim";
        let p = posted(one).unwrap();
        assert_eq!((p.id.as_str(), p.severity.as_str(), p.reviewers.clone()), ("ab12", "high", vec!["logic".into()]));
        assert!(!p.resolved);
        let many = "<!-- gauntlet:finding v1 id=cd state=resolved -->\n\n**Resolved:** gauntlet no longer finds this at `abc`.\n\n**low** · blast radius · raised by `a`, ``b`c``\n\nclaim";
        let p = posted(many).unwrap();
        assert_eq!(p.reviewers, vec!["a".to_string(), "b`c".to_string()]);
        assert!(p.resolved);
        assert_eq!(posted("<!-- gauntlet:finding v1 id=x -->\n\nno header here\n\nclaim"), None);
        assert_eq!(posted("**high** · x · reviewer `a`\n\nclaim"), None);
    }
}
