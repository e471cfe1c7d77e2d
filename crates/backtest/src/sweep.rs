//! The threshold sweep: what the pipeline would have published at thresholds 0,
//! 25, 50, 75 and 100, recomputed from the verdicts of the same run. The
//! adjudicator is a pure function of the verdicts and the threshold, so no model
//! is asked again; the verdicts themselves were made once, at the configured
//! threshold (a rubber-stamp re-check, when one ran, is part of them).

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

/// One case at one threshold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseSweep {
    pub threshold: u8,
    pub published: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    pub caught: usize,
}

/// Score `review`'s verdicts at every threshold of the sweep.
pub fn of_case(case: &Case, review: &Review, rule: MatchRule) -> Vec<CaseSweep> {
    THRESHOLDS
        .iter()
        .map(|&threshold| {
            let published: Vec<Reported> = adjudicate(&review.judged, threshold)
                .published
                .iter()
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
    pub points: Vec<Point>,
}

/// Add the cases up at each threshold. `cases` are the scored cases: their kind,
/// known defects and sweep.
pub fn totals<'a>(cases: impl IntoIterator<Item = (Kind, usize, &'a [CaseSweep])> + Clone) -> Sweep {
    let points = THRESHOLDS
        .iter()
        .map(|&threshold| {
            let mut p = Point { threshold, ..Point::default() };
            let (mut defects, mut fps, mut scored, mut clean, mut silent) = (0, 0, 0, 0, 0);
            for (kind, known, sweep) in cases.clone() {
                let Some(at) = sweep.iter().find(|s| s.threshold == threshold) else { continue };
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
        .collect();
    Sweep { basis: BASIS.to_string(), points }
}

/// The sweep as a Markdown table (empty when no case was scored).
pub fn markdown(sweep: &Sweep) -> String {
    if sweep.points.iter().all(|p| p.published == 0 && p.recall.is_none()) {
        return String::new();
    }
    let pct = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{:.0}%", v * 100.0));
    let mut out = String::from(
        "\n## By threshold\n\n| threshold | published | precision | recall | FP per case | silent clean |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    );
    for p in &sweep.points {
        let fp = p.fp_per_case.map_or("–".to_string(), |v| format!("{v:.2}"));
        out.push_str(&format!(
            "| {} | {} | {} | {} | {fp} | {} |\n",
            p.threshold,
            p.published,
            pct(p.precision),
            pct(p.recall),
            pct(p.silent_clean_share)
        ));
    }
    out.push_str(&format!("\nEach row is {}.\n", sweep.basis));
    out
}
