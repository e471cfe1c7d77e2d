//! The backtest's result: each case, the totals, the baseline beside them. Serialises
//! to the JSON report (`schema_version` 1); [`crate::markdown`] renders it for people.

use crate::corpus::{Case, Kind};
use crate::judge::Judged;
use crate::score::{CaseScore, Comparison, Reported, ReviewerNoise, Spend, Totals, compare, noise_of, totals};
use gauntlet_review::review::{Funnel, Sessions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;

/// One case's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    pub name: String,
    pub kind: Kind,
    pub description: String,
    /// The revision reviewed (the case's `head`), for links to its lines.
    #[serde(default)]
    pub head: String,
    /// Why the case could not be run; such a case is left out of every total.
    pub error: Option<String>,
    /// The reason the gate would have skipped this change (the backtest reviews it anyway).
    pub gate_would_skip: Option<String>,
    pub gauntlet: Option<PipelineResult>,
    pub baseline: Option<BaselineResult>,
    /// Mined cases: the miner's confidence and the fixing commits (never shown to a model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<crate::mine::Confidence>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fix: Vec<crate::mine::FixRef>,
    /// What the blind judge's sessions spent on this case (`--judge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_spend: Option<Spend>,
    /// What a person said of the case (`gauntlet backtest curate`).
    #[serde(default)]
    pub curation: crate::curate::state::Curation,
    /// Not run: some case of the corpus is accepted and this one is not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_out: bool,
}

impl CaseResult {
    pub fn new(case: &Case) -> CaseResult {
        CaseResult {
            name: case.name.clone(),
            kind: case.kind,
            description: case.description.clone(),
            head: case.head.clone(),
            error: None,
            gate_would_skip: None,
            gauntlet: None,
            baseline: None,
            confidence: case.confidence,
            fix: case.fix.clone(),
            judge_spend: None,
            curation: case.curation.clone(),
            left_out: false,
        }
    }

    /// Whether the case counts in the totals.
    pub fn scored(&self) -> bool {
        self.error.is_none() && self.gauntlet.is_some()
    }
}

/// What the pipeline did on a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PipelineResult {
    pub funnel: Funnel,
    #[serde(default)]
    pub validator_sessions: Sessions,
    #[serde(flatten)]
    pub score: CaseScore,
    pub spend: Spend,
    /// Units of work that failed (`step: message`): coverage not to assume.
    pub gaps: Vec<String>,
    /// Candidates and published findings per reviewer.
    pub reviewers: Vec<ReviewerNoise>,
    /// What was published (location, reviewer, claim), for the HTML report.
    #[serde(default)]
    pub findings: Vec<Reported>,
    /// The same verdicts adjudicated at each threshold of the sweep.
    #[serde(default)]
    pub sweep: Vec<crate::sweep::CaseSweep>,
    /// Known defects at which some finder proposed a candidate, before grounding
    /// and validation (what validation could at best have kept).
    #[serde(default)]
    pub candidates_caught: usize,
    /// What the blind judge said of the published findings that matched nothing
    /// known (`--judge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judged>,
}

/// What the single-pass baseline did on a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineResult {
    #[serde(flatten)]
    pub score: CaseScore,
    pub spend: Spend,
    /// Set when its answer could not be read (then it counts as publishing nothing).
    pub error: Option<String>,
    /// What the blind judge said of its findings that matched nothing known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judged>,
    /// What it published (location, claim), in its order, for the HTML report.
    #[serde(default)]
    pub findings: Vec<Reported>,
}

/// One side of the comparison, over every scored case.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Side {
    #[serde(flatten)]
    pub totals: Totals,
    /// Known defects matched by some candidate before validation; for the
    /// baseline, which validates nothing, its findings are its candidates.
    pub candidates_caught: usize,
    /// `candidates_caught / defects`; `null` when the corpus has no escape.
    pub candidate_recall: Option<f64>,
    pub spend: Spend,
    /// The judge's answers about this side's unmatched findings, added up over the
    /// scored cases; absent when the judge did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judged>,
}

/// The whole backtest.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Backtest {
    pub schema_version: u32,
    pub corpus: String,
    /// `provider:model` of the standard tier (pipeline and baseline alike).
    pub provider: String,
    pub tolerance: u32,
    pub max_span: u32,
    pub threshold: u8,
    pub cases: Vec<CaseResult>,
    /// Cases that could not be run (listed with their error in `cases`).
    pub failed: usize,
    /// The pipeline's funnel summed over the scored cases.
    pub funnel: Funnel,
    /// Validator sessions over the scored cases.
    pub validation: Validation,
    pub gauntlet: Side,
    pub baseline: Option<Side>,
    pub comparison: Option<Comparison>,
    /// Per-reviewer noise over the corpus: candidates proposed vs published.
    pub reviewers: Vec<ReviewerNoise>,
    /// Precision, recall, false positives per case and the silent-clean share at
    /// thresholds 0 to 100, from the same verdicts.
    pub threshold_sweep: crate::sweep::Sweep,
    /// `K/N` when this report covers one shard of the corpus (`--shard`).
    pub shard: Option<String>,
    pub notes: Vec<String>,
    /// What the blind judge spent over every case; absent when it did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_spend: Option<Spend>,
    /// Accepted, rejected and unreviewed cases, and whether only the accepted ones
    /// were scored (the others are in `cases`, not run).
    pub curation: crate::curate::state::Selection,
}

/// The pipeline's validator sessions over a backtest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub sessions: usize,
    /// Sessions over defects caught (target on the sample corpus: at most 1.5).
    pub per_caught_defect: Option<f64>,
    /// Sessions clustering saved against one per grounded candidate.
    pub saved: usize,
    /// Cases on which the rubber-stamp re-check fired.
    pub rechecks: usize,
}

/// What describes the run besides its cases.
pub struct Meta {
    pub corpus: String,
    pub provider: String,
    pub tolerance: u32,
    pub max_span: u32,
    pub threshold: u8,
    pub baseline: bool,
    pub shard: Option<String>,
    pub notes: Vec<String>,
}

/// Add the cases up.
pub fn summarise(meta: Meta, cases: Vec<CaseResult>) -> Backtest {
    let mut curation = crate::curate::state::Selection::of(cases.iter().map(|c| &c.curation.status));
    // A shard may hold no accepted case of a corpus that has some.
    curation.only_accepted |= cases.iter().any(|c| c.left_out);
    let scored: Vec<&CaseResult> = cases.iter().filter(|c| c.scored()).collect();
    let pipeline: Vec<(Kind, &PipelineResult)> =
        scored.iter().filter_map(|c| c.gauntlet.as_ref().map(|g| (c.kind, g))).collect();
    let mut gauntlet = Side { totals: totals(pipeline.iter().map(|(k, g)| (*k, &g.score))), ..Side::default() };
    let mut noise: BTreeMap<String, ReviewerNoise> = BTreeMap::new();
    gauntlet.spend.cost = Some(0.0);
    let mut funnel = Funnel::default();
    let mut validation = Validation::default();
    for (_, g) in &pipeline {
        gauntlet.spend.add(&g.spend);
        gauntlet.candidates_caught += g.candidates_caught;
        funnel.candidates += g.funnel.candidates;
        funnel.grounded += g.funnel.grounded;
        funnel.clustered += g.funnel.clustered;
        validation.sessions += g.validator_sessions.run;
        validation.saved += g.validator_sessions.saved;
        validation.rechecks += usize::from(g.validator_sessions.rechecked);
        funnel.survived += g.funnel.survived;
        funnel.published += g.funnel.published;
        for r in &g.reviewers {
            let e = noise_of(&mut noise, &r.reviewer);
            e.candidates += r.candidates;
            e.published += r.published;
            e.true_positives += r.true_positives;
        }
    }
    let baseline = meta.baseline.then(|| {
        let runs: Vec<(Kind, &BaselineResult)> =
            scored.iter().filter_map(|c| c.baseline.as_ref().map(|b| (c.kind, b))).collect();
        let mut side = Side { totals: totals(runs.iter().map(|(k, b)| (*k, &b.score))), ..Side::default() };
        side.candidates_caught = side.totals.caught;
        side.candidate_recall = side.totals.recall;
        side.spend.cost = Some(0.0);
        for (_, b) in &runs {
            side.spend.add(&b.spend);
        }
        side
    });
    gauntlet.candidate_recall = crate::score::ratio(gauntlet.candidates_caught, gauntlet.totals.defects);
    gauntlet.judge = judged(pipeline.iter().map(|(_, g)| g.judge.as_ref()));
    let baseline = baseline.map(|mut side| {
        side.judge = judged(scored.iter().map(|c| c.baseline.as_ref().and_then(|b| b.judge.as_ref())));
        side
    });
    let judge_spend = scored.iter().filter_map(|c| c.judge_spend.clone()).reduce(|mut a, b| {
        a.add(&b);
        a
    });
    let comparison = baseline.as_ref().map(|b| compare(&gauntlet.totals, &b.totals));
    let threshold_sweep = crate::sweep::totals(
        scored.iter().filter_map(|c| c.gauntlet.as_ref().map(|g| (c.kind, g.score.defects, g.sweep.as_slice()))),
    );
    Backtest {
        schema_version: SCHEMA_VERSION,
        corpus: meta.corpus,
        provider: meta.provider,
        tolerance: meta.tolerance,
        max_span: meta.max_span,
        threshold: meta.threshold,
        failed: cases.iter().filter(|c| c.error.is_some()).count(),
        cases,
        funnel,
        validation: Validation {
            per_caught_defect: crate::score::ratio(validation.sessions, gauntlet.totals.caught),
            ..validation
        },
        gauntlet,
        baseline,
        comparison,
        reviewers: noise.into_values().collect(),
        threshold_sweep,
        shard: meta.shard,
        notes: meta.notes,
        judge_spend,
        curation,
    }
}

/// The cases in the order a reader wants them: escapes first (where a defect
/// can be missed), then clean cases, each kind in the corpus' order.
pub fn reading_order(cases: &[CaseResult]) -> Vec<&CaseResult> {
    let mut out: Vec<&CaseResult> = cases.iter().collect();
    out.sort_by_key(|c| c.kind == Kind::Clean);
    out
}

/// The judge's tallies added up; `None` when no case was judged.
fn judged<'a>(tallies: impl Iterator<Item = Option<&'a Judged>>) -> Option<Judged> {
    tallies.flatten().fold(None, |sum, one| {
        let mut sum = sum.unwrap_or_default();
        sum.add(one);
        Some(sum)
    })
}
