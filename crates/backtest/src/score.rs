//! Scoring: pure functions from what a run published and what the case is known to
//! contain, to true and false positives, recall and the totals. No I/O here.
//!
//! A published finding is a **true positive** when its path is the path of a known
//! defect (or of one of the defect's `also` locations, or of an `also_real` bug) and
//! every line it names lies within `tolerance` lines of that range: with tolerance 3,
//! `a.py:40-44` matches a defect at `a.py:41-43`, `a.py:38-47` does not (a finding
//! that names half the file has not located anything). **Precision** is true-positive
//! findings over published findings; **recall** is defects matched by at least one
//! published finding over known defects (`also_real` bugs count for precision only).

use crate::corpus::{AlsoReal, Defect, Kind};
use gauntlet_review::Review;
use gauntlet_review::contract::Location;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Default `--tolerance`: lines a finding may sit away from a known range.
pub const DEFAULT_TOLERANCE: u32 = 3;

/// A published finding, as the scorer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {
    pub reviewer: String,
    /// `path:LINE` or `path:START-END` as the run reported it (may not parse).
    pub location: String,
    pub claim: String,
}

/// Whether a finding at `found` points at `known`: same path, and every line of
/// `found` within `tolerance` lines of `known`'s range.
pub fn matches(found: &Location, known: &Location, tolerance: u32) -> bool {
    found.path == known.path
        && found.start.saturating_add(tolerance) >= known.start
        && found.end <= known.end.saturating_add(tolerance)
}

fn matches_defect(found: &Location, defect: &Defect, tolerance: u32) -> bool {
    std::iter::once(&defect.at).chain(&defect.also).any(|k| matches(found, k, tolerance))
}

/// One run on one case, scored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseScore {
    pub published: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    /// Published findings whose location does not parse (counted as false positives).
    pub unscoreable: usize,
    pub defects: usize,
    /// Known defects matched by at least one published finding.
    pub caught: usize,
    /// Descriptions of the known defects nothing matched.
    pub missed: Vec<String>,
    /// Published findings that match nothing known.
    pub unmatched: Vec<Reported>,
    /// True positives per reviewer.
    #[serde(skip)]
    pub true_positives_by_reviewer: BTreeMap<String, usize>,
}

/// Score what one run published on one case.
pub fn score_case(defects: &[Defect], also_real: &[AlsoReal], found: &[Reported], tolerance: u32) -> CaseScore {
    let mut score = CaseScore { published: found.len(), defects: defects.len(), ..CaseScore::default() };
    let mut caught = vec![false; defects.len()];
    for f in found {
        let Some(at) = Location::parse(&f.location) else {
            score.unscoreable += 1;
            score.false_positives += 1;
            score.unmatched.push(f.clone());
            continue;
        };
        let mut hit = false;
        for (i, d) in defects.iter().enumerate() {
            if matches_defect(&at, d, tolerance) {
                caught[i] = true;
                hit = true;
            }
        }
        hit |= also_real.iter().any(|a| matches(&at, &a.at, tolerance));
        if hit {
            score.true_positives += 1;
            *score.true_positives_by_reviewer.entry(f.reviewer.clone()).or_default() += 1;
        } else {
            score.false_positives += 1;
            score.unmatched.push(f.clone());
        }
    }
    score.caught = caught.iter().filter(|c| **c).count();
    score.missed = defects.iter().zip(&caught).filter(|(_, c)| !**c).map(|(d, _)| d.description.clone()).collect();
    score
}

/// `part / whole`, or `None` when there is nothing to divide.
pub fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Sums over every scored case of one run kind (the pipeline, or the baseline).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Cases scored (cases that failed to run are not).
    pub cases: usize,
    pub published: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    /// True positives / published; `null` when nothing was published.
    pub precision: Option<f64>,
    pub defects: usize,
    pub caught: usize,
    /// Caught / known defects; `null` when the corpus has no escape.
    pub recall: Option<f64>,
    /// False positives / cases scored.
    pub fp_per_case: Option<f64>,
    pub clean_cases: usize,
    /// Clean cases on which nothing was published.
    pub silent_clean: usize,
}

/// Add up scored cases.
pub fn totals<'a>(cases: impl IntoIterator<Item = (Kind, &'a CaseScore)>) -> Totals {
    let mut t = Totals::default();
    for (kind, s) in cases {
        t.cases += 1;
        t.published += s.published;
        t.true_positives += s.true_positives;
        t.false_positives += s.false_positives;
        t.defects += s.defects;
        t.caught += s.caught;
        if kind == Kind::Clean {
            t.clean_cases += 1;
            t.silent_clean += usize::from(s.published == 0);
        }
    }
    t.precision = ratio(t.true_positives, t.published);
    t.recall = ratio(t.caught, t.defects);
    t.fp_per_case = ratio(t.false_positives, t.cases);
    t
}

/// The pipeline against the single-pass baseline.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Comparison {
    /// Share of the baseline's false positives the pipeline did not publish
    /// (0.75 = four times fewer); negative when it published more. `null` when the
    /// baseline published no false positive.
    pub fp_reduction: Option<f64>,
    /// Pipeline recall minus baseline recall (-0.1 = ten points fewer defects caught).
    pub recall_change: Option<f64>,
    /// Pipeline precision minus baseline precision.
    pub precision_change: Option<f64>,
}

pub fn compare(gauntlet: &Totals, baseline: &Totals) -> Comparison {
    let diff = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a - b);
    Comparison {
        fp_reduction: (baseline.false_positives > 0)
            .then(|| 1.0 - gauntlet.false_positives as f64 / baseline.false_positives as f64),
        recall_change: diff(gauntlet.recall, baseline.recall),
        precision_change: diff(gauntlet.precision, baseline.precision),
    }
}

/// Tokens, cost and time of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// Input (cached included) plus output tokens.
    pub tokens: u64,
    /// USD; `null` when a model's price is unknown.
    pub cost: Option<f64>,
    pub wall_ms: u64,
}

impl Spend {
    /// What a pipeline run spent.
    pub fn of(review: &Review) -> Spend {
        let mut s = Spend { cost: Some(0.0), wall_ms: review.wall_ms, ..Spend::default() };
        for u in &review.usage {
            s.tokens += u.input + u.output;
            s.cost = s.cost.zip(u.cost).map(|(a, b)| a + b);
        }
        s
    }

    pub fn add(&mut self, other: &Spend) {
        self.tokens += other.tokens;
        self.cost = self.cost.zip(other.cost).map(|(a, b)| a + b);
        self.wall_ms += other.wall_ms;
    }
}

/// How noisy one reviewer was over the corpus.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewerNoise {
    pub reviewer: String,
    /// Findings it proposed (before grounding).
    pub candidates: usize,
    pub published: usize,
    /// Published findings that were true positives.
    pub true_positives: usize,
}

/// The tally entry of `name`, created empty.
pub fn noise_of<'a>(tally: &'a mut BTreeMap<String, ReviewerNoise>, name: &str) -> &'a mut ReviewerNoise {
    tally.entry(name.to_string()).or_insert_with(|| ReviewerNoise { reviewer: name.to_string(), ..Default::default() })
}

/// Add one pipeline run to the per-reviewer tally. Every candidate ends in exactly
/// one of published, unverified or dropped, so those three lists count them.
pub fn tally_reviewers(
    tally: &mut BTreeMap<String, ReviewerNoise>,
    review: &Review,
    true_positives: &BTreeMap<String, usize>,
) {
    for name in &review.reviewers {
        noise_of(tally, name);
    }
    for p in &review.published {
        let e = noise_of(tally, &p.reviewer);
        e.candidates += 1;
        e.published += 1;
    }
    for name in review.unverified.iter().map(|u| &u.reviewer).chain(review.dropped.iter().map(|d| &d.reviewer)) {
        noise_of(tally, name).candidates += 1;
    }
    for (name, n) in true_positives {
        noise_of(tally, name).true_positives += n;
    }
}

#[cfg(test)]
mod tests;
