//! The threshold sweep: what the pipeline would have published at thresholds 0,
//! 25, 50, 75 and 100, recomputed from the verdicts of the same run. The
//! adjudicator is a pure function of the verdicts and the threshold, so no model
//! is asked again; the verdicts themselves were made once, at the configured
//! threshold (a rubber-stamp re-check, when one ran, is part of them).
//!
//! Each threshold is scored twice, by impact: once as the pipeline publishes
//! (consequential survivors only) and once counting the survivors the validator
//! called minor as published too, so the report shows what listing minor findings
//! instead of publishing them costs in recall and buys in precision.

use crate::corpus::{Case, Kind};
use crate::score::{MatchRule, Reported, ratio, score_with};
use gauntlet_review::Review;
use gauntlet_review::adjudicate::adjudicate;
use serde::{Deserialize, Serialize};

/// The thresholds the sweep recomputes.
pub const THRESHOLDS: [u8; 5] = [0, 25, 50, 75, 100];

/// What it says about where its numbers come from (in the JSON report).
pub const BASIS: &str = "recomputed by the pure adjudicator from the verdicts of this run, which were made once at \
                         the configured threshold (rubber-stamp re-checks included); no model was asked again";

/// Which survivors at or above a threshold a sweep row counts as published.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// The consequential ones: what the pipeline publishes.
    #[default]
    Consequential,
    /// The minor ones too: what publishing every verified survivor would give.
    WithMinor,
}

/// Both ways of counting, the published one first.
pub const COUNTED: [Counted; 2] = [Counted::Consequential, Counted::WithMinor];

/// One case at one threshold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseSweep {
    pub threshold: u8,
    /// Records written before impact existed counted only what was published.
    #[serde(default)]
    pub counted: Counted,
    pub published: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    pub caught: usize,
}

/// Score `review`'s verdicts at every threshold of the sweep, both ways of counting.
pub fn of_case(case: &Case, review: &Review, rule: MatchRule) -> Vec<CaseSweep> {
    COUNTED
        .iter()
        .flat_map(|&counted| THRESHOLDS.iter().map(move |&threshold| (counted, threshold)))
        .map(|(counted, threshold)| {
            let adjudicated = adjudicate(&review.judged, threshold);
            let minor = if counted == Counted::WithMinor { adjudicated.minor.as_slice() } else { &[] };
            let published: Vec<Reported> = adjudicated
                .published
                .iter()
                .chain(minor)
                .map(|j| Reported {
                    reviewer: j.finding.reviewer.clone(),
                    location: j.finding.location.to_string(),
                    claim: j.finding.claim.clone(),
                    raised_by: j.raised_by.clone(),
                    also_at: j.also_at.clone(),
                })
                .collect();
            let s = score_with(&case.defects, &case.also_real, &published, rule);
            CaseSweep {
                threshold,
                counted,
                published: s.published,
                true_positives: s.true_positives,
                false_positives: s.false_positives,
                caught: s.caught,
            }
        })
        .collect()
}

/// The corpus at one threshold.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub threshold: u8,
    pub published: usize,
    pub true_positives: usize,
    pub precision: Option<f64>,
    pub caught: usize,
    pub recall: Option<f64>,
    pub fp_per_case: Option<f64>,
    /// Clean cases on which nothing was published, over clean cases.
    pub silent_clean_share: Option<f64>,
}

/// The sweep over the corpus.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub basis: String,
    /// As published: consequential survivors only.
    pub points: Vec<Point>,
    /// The same thresholds, counting minor survivors as published too.
    #[serde(default)]
    pub with_minor: Vec<Point>,
}

/// Add the cases up at each threshold. `cases` are the scored cases: their kind,
/// known defects and sweep.
pub fn totals<'a>(cases: impl IntoIterator<Item = (Kind, usize, &'a [CaseSweep])> + Clone) -> Sweep {
    Sweep {
        basis: BASIS.to_string(),
        points: points(cases.clone(), Counted::Consequential),
        with_minor: points(cases, Counted::WithMinor),
    }
}

/// The corpus at each threshold, counting survivors as `counted` says.
fn points<'a>(cases: impl IntoIterator<Item = (Kind, usize, &'a [CaseSweep])> + Clone, counted: Counted) -> Vec<Point> {
    THRESHOLDS
        .iter()
        .map(|&threshold| {
            let mut p = Point { threshold, ..Point::default() };
            let (mut defects, mut fps, mut scored, mut clean, mut silent) = (0, 0, 0, 0, 0);
            for (kind, known, sweep) in cases.clone() {
                let Some(at) = sweep.iter().find(|s| s.threshold == threshold && s.counted == counted) else {
                    continue;
                };
                scored += 1;
                p.published += at.published;
                p.true_positives += at.true_positives;
                p.caught += at.caught;
                fps += at.false_positives;
                defects += known;
                if kind == Kind::Clean {
                    clean += 1;
                    silent += usize::from(at.published == 0);
                }
            }
            p.precision = ratio(p.true_positives, p.published);
            p.recall = ratio(p.caught, defects);
            p.fp_per_case = ratio(fps, scored);
            p.silent_clean_share = ratio(silent, clean);
            p
        })
        .collect()
}

/// The sweep as a Markdown table (empty when no case was scored).
pub fn markdown(sweep: &Sweep) -> String {
    if sweep.points.iter().all(|p| p.published == 0 && p.recall.is_none()) {
        return String::new();
    }
    let mut out = String::from("\n## By threshold\n\n");
    table(&mut out, &sweep.points);
    if !sweep.with_minor.is_empty() {
        out.push_str("\nThe same thresholds, counting the survivors the validator judged minor as published too:\n\n");
        table(&mut out, &sweep.with_minor);
    }
    out.push_str(&format!("\nEach row is {}.\n", sweep.basis));
    out
}

fn table(out: &mut String, points: &[Point]) {
    use gauntlet_report::number::{percent as pct, ratio};
    out.push_str(
        "| threshold | published | precision | recall | FP per case | silent clean |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    );
    for p in points {
        let fp = ratio(p.fp_per_case);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {fp} | {} |\n",
            p.threshold,
            p.published,
            pct(p.precision),
            pct(p.recall),
            pct(p.silent_clean_share)
        ));
    }
}
