//! Scoring: pure functions from what a run published and what the case is known to
//! contain, to what a reader saw: comments that point at a real defect, comments
//! that point at nothing, and comments that repeat one already made. No I/O here.
//!
//! **The match rule.** A published finding (a comment) hits a known defect when it
//! names the defect's path (or an `also` location's, or an `also_real` bug's), its
//! range intersects one contiguous run of the defect's lines widened by `tolerance`
//! on each side, and it spans at most `max_span` lines. So `cache.py:46-55` hits a
//! defect at `cache.py:42-50` (they share 46-50), while `cache.py:1-200` has located
//! nothing. A comment may hit several defects; each counts as caught.
//!
//! **The figures.** Per comment: *precision* is comments that hit something over
//! comments. Per defect: *recall* is defects hit over known defects (`also_real`
//! bugs count for precision only); *comments per caught defect* is comments that
//! hit a known defect over defects caught (1.0 when each defect got one comment);
//! a *duplicate* is a comment that hits only defects an earlier comment (in the
//! published order) already hit; *precision per distinct defect* is distinct real
//! things hit (defects and `also_real` bugs) over those plus the comments that hit
//! nothing, so repeating a true comment neither helps nor hurts it.

use crate::corpus::{AlsoReal, Defect, Kind};
use gauntlet_review::Review;
use gauntlet_review::contract::Location;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Default `--tolerance`: lines a finding may sit away from a known range.
pub const DEFAULT_TOLERANCE: u32 = 3;
/// Default `--max-span`: the widest range (in lines) a finding may name and still
/// count as locating a defect.
pub const DEFAULT_MAX_SPAN: u32 = 25;

/// How findings are matched to known locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MatchRule {
    pub tolerance: u32,
    pub max_span: u32,
}

impl Default for MatchRule {
    fn default() -> MatchRule {
        MatchRule { tolerance: DEFAULT_TOLERANCE, max_span: DEFAULT_MAX_SPAN }
    }
}

/// A published finding, as the scorer sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {
    pub reviewer: String,
    /// `path:LINE` or `path:START-END` as the run reported it (may not parse).
    pub location: String,
    pub claim: String,
    /// Every reviewer that raised it (empty: `reviewer` alone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raised_by: Vec<String>,
    /// Other locations of the same comment (a cross-file defect).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
}

impl Reported {
    /// The reviewers to credit.
    pub fn credited(&self) -> Vec<&str> {
        if self.raised_by.is_empty() {
            vec![self.reviewer.as_str()]
        } else {
            self.raised_by.iter().map(String::as_str).collect()
        }
    }
}

/// Whether a finding at `found` hits `known` under `rule` (see the module docs).
pub fn hits(found: &Location, known: &Location, rule: MatchRule) -> bool {
    found.path == known.path
        && found.end - found.start < rule.max_span
        && found.start <= known.end.saturating_add(rule.tolerance)
        && known.start.saturating_sub(rule.tolerance) <= found.end
}

/// [`hits`] with the default span cap.
pub fn matches(found: &Location, known: &Location, tolerance: u32) -> bool {
    hits(found, known, MatchRule { tolerance, ..MatchRule::default() })
}

fn hits_defect(found: &[Location], defect: &Defect, rule: MatchRule) -> bool {
    let runs = std::iter::once(&defect.at).chain(&defect.also);
    runs.flat_map(|k| found.iter().map(move |f| (f, k))).any(|(f, k)| hits(f, k, rule))
}

/// A known defect nothing published matched.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "MissedWire")]
pub struct Missed {
    /// `path:LINE` or `path:START-END` in head lines (the defect's first run);
    /// empty in a report written before misses were located.
    pub at: String,
    pub description: String,
}

/// A miss as reports store it: an object, or a bare description from a report
/// written before misses carried their location (so `backtest merge` still reads
/// those).
#[derive(Deserialize)]
#[serde(untagged)]
enum MissedWire {
    Located { at: String, description: String },
    Described(String),
}

impl From<MissedWire> for Missed {
    fn from(w: MissedWire) -> Missed {
        match w {
            MissedWire::Located { at, description } => Missed { at, description },
            MissedWire::Described(description) => Missed { at: String::new(), description },
        }
    }
}

/// Misses grouped for reading: each distinct description once, in first-seen
/// order, with every distinct location it has (a mined case gives one
/// description to every line its fix changed).
pub fn missed_by_description(missed: &[Missed]) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for m in missed {
        let at = m.at.as_str();
        match out.iter_mut().find(|(d, _)| *d == m.description) {
            Some((_, places)) => {
                if !at.is_empty() && !places.contains(&at) {
                    places.push(at);
                }
            }
            None => out.push((&m.description, if at.is_empty() { vec![] } else { vec![at] })),
        }
    }
    out
}

/// One run on one case, scored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseScore {
    /// Comments published.
    pub published: usize,
    /// Comments that hit a known defect or an `also_real` bug.
    pub true_positives: usize,
    /// Comments that hit nothing.
    pub false_positives: usize,
    /// Published findings whose location does not parse (counted as false positives).
    pub unscoreable: usize,
    /// Comments that hit nothing only because they span more than `max_span` lines.
    pub too_wide: usize,
    pub defects: usize,
    /// Known defects hit by at least one comment.
    pub caught: usize,
    /// Comments that hit at least one known defect (the numerator of comments per
    /// caught defect).
    pub defect_comments: usize,
    /// Comments that hit only what an earlier comment already hit.
    pub duplicates: usize,
    /// Distinct real things hit: caught defects plus `also_real` bugs hit.
    pub distinct_hits: usize,
    /// The known defects nothing matched, where they are and what they are.
    pub missed: Vec<Missed>,
    /// Published findings that match nothing known.
    pub unmatched: Vec<Reported>,
    /// True positives per reviewer (every reviewer a comment was raised by).
    #[serde(skip)]
    pub true_positives_by_reviewer: BTreeMap<String, usize>,
}

/// Score what one run published on one case, with the default span cap.
pub fn score_case(defects: &[Defect], also_real: &[AlsoReal], found: &[Reported], tolerance: u32) -> CaseScore {
    score_with(defects, also_real, found, MatchRule { tolerance, ..MatchRule::default() })
}

/// Score what one run published on one case, in its published order.
pub fn score_with(defects: &[Defect], also_real: &[AlsoReal], found: &[Reported], rule: MatchRule) -> CaseScore {
    let mut score = CaseScore { published: found.len(), defects: defects.len(), ..CaseScore::default() };
    let mut caught = vec![false; defects.len()];
    let mut real_hit = vec![false; also_real.len()];
    for f in found {
        let Some(at) = Location::parse(&f.location) else {
            score.unscoreable += 1;
            score.false_positives += 1;
            score.unmatched.push(f.clone());
            continue;
        };
        let mut places = vec![at];
        places.extend(f.also_at.iter().filter_map(|a| Location::parse(a)));
        let hit_defects: Vec<usize> = (0..defects.len()).filter(|&i| hits_defect(&places, &defects[i], rule)).collect();
        let hit_real: Vec<usize> =
            (0..also_real.len()).filter(|&i| places.iter().any(|p| hits(p, &also_real[i].at, rule))).collect();
        if hit_defects.is_empty() && hit_real.is_empty() {
            score.false_positives += 1;
            let unbounded = MatchRule { max_span: u32::MAX, ..rule };
            let wide = defects.iter().any(|d| hits_defect(&places, d, unbounded))
                || also_real.iter().any(|a| places.iter().any(|p| hits(p, &a.at, unbounded)));
            score.too_wide += usize::from(wide);
            score.unmatched.push(f.clone());
            continue;
        }
        let repeat = hit_defects.iter().all(|&i| caught[i]) && hit_real.iter().all(|&i| real_hit[i]);
        score.duplicates += usize::from(repeat);
        score.true_positives += 1;
        score.defect_comments += usize::from(!hit_defects.is_empty());
        for i in hit_defects {
            caught[i] = true;
        }
        for i in hit_real {
            real_hit[i] = true;
        }
        for reviewer in f.credited() {
            *score.true_positives_by_reviewer.entry(reviewer.to_string()).or_default() += 1;
        }
    }
    score.caught = caught.iter().filter(|c| **c).count();
    score.distinct_hits = score.caught + real_hit.iter().filter(|h| **h).count();
    score.missed = defects
        .iter()
        .zip(&caught)
        .filter(|(_, c)| !**c)
        .map(|(d, _)| Missed { at: d.at.to_string(), description: d.description.clone() })
        .collect();
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
    /// Comments that hit a known defect / defects caught (target: at most 1.1).
    pub comments_per_caught_defect: Option<f64>,
    /// Comments that repeat what an earlier comment already hit.
    pub duplicates: usize,
    /// Comments that hit nothing only because they were too wide (`--max-span`).
    pub too_wide: usize,
    /// Distinct real things hit / (those + comments that hit nothing).
    pub precision_per_defect: Option<f64>,
    #[serde(skip)]
    pub defect_comments: usize,
    #[serde(skip)]
    pub distinct_hits: usize,
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
        t.defect_comments += s.defect_comments;
        t.duplicates += s.duplicates;
        t.too_wide += s.too_wide;
        t.distinct_hits += s.distinct_hits;
        if kind == Kind::Clean {
            t.clean_cases += 1;
            t.silent_clean += usize::from(s.published == 0);
        }
    }
    t.precision = ratio(t.true_positives, t.published);
    t.recall = ratio(t.caught, t.defects);
    t.fp_per_case = ratio(t.false_positives, t.cases);
    t.comments_per_caught_defect = ratio(t.defect_comments, t.caught);
    t.precision_per_defect = ratio(t.distinct_hits, t.distinct_hits + t.false_positives);
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// Input (cached included) plus output tokens.
    pub tokens: u64,
    /// The cost as the provider bills it (cache reads and writes at their own
    /// prices), in USD; `null` when a model's price is unknown.
    pub cost: Option<f64>,
    pub wall_ms: u64,
    /// The same, step by step (`find`, `validate`, `baseline`, ...), in the order
    /// first seen.
    #[serde(default)]
    pub steps: Vec<StepSpend>,
}

/// What one step spent: the raw tokens and the cost billed for them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSpend {
    pub step: String,
    pub calls: u32,
    /// Input tokens, cached or not.
    pub input: u64,
    pub output: u64,
    /// The part of `input` read from the provider's cache.
    pub cache_read: u64,
    /// The part of `input` written to the provider's cache.
    pub cache_write: u64,
    /// USD as billed; `null` when a model's price is unknown.
    pub billed: Option<f64>,
}

impl Spend {
    /// What a pipeline run spent.
    pub fn of(review: &Review) -> Spend {
        let mut s = Spend { cost: Some(0.0), wall_ms: review.wall_ms, ..Spend::default() };
        for u in &review.usage {
            s.tokens += u.input + u.output;
            s.cost = s.cost.zip(u.cost).map(|(a, b)| a + b);
            s.add_step(&StepSpend {
                step: u.step.clone(),
                calls: u.calls,
                input: u.input,
                output: u.output,
                cache_read: u.cached,
                cache_write: u.cache_write,
                billed: u.cost,
            });
        }
        s
    }

    /// What one call of `step` spent (the baseline's single call).
    pub fn of_call(step: &str, u: &gauntlet_model::Usage, billed: Option<f64>, wall_ms: u64) -> Spend {
        let input = u.input + u.cache_read + u.cache_write;
        let one = StepSpend {
            step: step.to_string(),
            calls: 1,
            input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            billed,
        };
        Spend { tokens: input + u.output, cost: billed, wall_ms, steps: vec![one] }
    }

    pub fn add(&mut self, other: &Spend) {
        self.tokens += other.tokens;
        self.cost = self.cost.zip(other.cost).map(|(a, b)| a + b);
        self.wall_ms += other.wall_ms;
        for s in &other.steps {
            self.add_step(s);
        }
    }

    fn add_step(&mut self, s: &StepSpend) {
        let Some(mine) = self.steps.iter_mut().find(|m| m.step == s.step) else {
            self.steps.push(s.clone());
            return;
        };
        mine.calls += s.calls;
        mine.input += s.input;
        mine.output += s.output;
        mine.cache_read += s.cache_read;
        mine.cache_write += s.cache_write;
        mine.billed = mine.billed.zip(s.billed).map(|(a, b)| a + b);
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
/// one of published, minor, unverified or dropped, so those four lists count them.
pub fn tally_reviewers(
    tally: &mut BTreeMap<String, ReviewerNoise>,
    review: &Review,
    true_positives: &BTreeMap<String, usize>,
) {
    for name in &review.reviewers {
        noise_of(tally, name);
    }
    for p in &review.published {
        noise_of(tally, &p.reviewer).candidates += 1;
        let credited: Vec<&String> =
            if p.raised_by.is_empty() { vec![&p.reviewer] } else { p.raised_by.iter().collect() };
        for name in credited {
            noise_of(tally, name).published += 1;
        }
    }
    let listed = review.minor.iter().chain(&review.unverified).map(|u| &u.reviewer);
    for name in listed.chain(review.dropped.iter().map(|d| &d.reviewer)) {
        noise_of(tally, name).candidates += 1;
    }
    for (name, n) in true_positives {
        noise_of(tally, name).true_positives += n;
    }
}

#[cfg(test)]
mod tests;
