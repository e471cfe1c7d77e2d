//! The result of a run, as every report format reads it. Serialises to the JSON
//! report (`schema_version` 1); later features fill fields, they do not reshape them.

use crate::contract::{Lens, Severity};
use crate::finding::{Dropped, Judged};
use serde::Serialize;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Review {
    pub schema_version: u32,
    pub base: String,
    pub head: String,
    /// `provider:model` of the standard tier (the one reviewers and validator use).
    pub provider: String,
    pub rules_version: String,
    pub skipped: Option<Skip>,
    pub published: Vec<Published>,
    pub unverified: Vec<Published>,
    pub dropped: Vec<Dropped>,
    pub not_reviewed: Vec<NotReviewed>,
    pub gaps: Vec<Gap>,
    pub funnel: Funnel,
    pub usage: Vec<StepUsage>,
    /// Reviewers that ran, in order.
    pub reviewers: Vec<String>,
    /// Things the reader should know about how the run went (rubber-stamp re-check, ...).
    pub notes: Vec<String>,
    pub wall_ms: u64,
    /// Reviewer sessions scheduled (reviewers x parts of the change); with
    /// `find_failures` this tells whether anything was reviewed at all.
    #[serde(skip)]
    pub find_units: usize,
    /// Reviewer sessions that failed (a session that answered after spending its
    /// tool steps did not fail, though it leaves a gap too).
    #[serde(skip)]
    pub find_failures: usize,
    /// The run's time limit cut it short (a note and the gaps say what was not done).
    #[serde(skip)]
    pub timed_out: bool,
}

impl Review {
    /// True when no reviewer session completed: nothing was reviewed.
    pub fn nothing_reviewed(&self) -> bool {
        self.find_units == self.find_failures
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skip {
    pub reason: String,
}

/// A finding as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Published {
    pub id: String,
    pub reviewer: String,
    pub lens: Lens,
    pub location: String,
    pub inline: bool,
    pub claim: String,
    pub evidence: String,
    pub severity: Severity,
    pub confidence: u8,
    pub validator_evidence: String,
    /// Set when the validator's answer was overridden by code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
    /// Files the validator read through its tools (absent when it read none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
}

impl From<&Judged> for Published {
    fn from(j: &Judged) -> Published {
        let f = &j.finding;
        Published {
            id: f.id.clone(),
            reviewer: f.reviewer.clone(),
            lens: f.lens,
            location: f.location.to_string(),
            inline: f.inline,
            claim: f.claim.clone(),
            evidence: f.evidence.clone(),
            severity: f.severity,
            confidence: j.confidence,
            validator_evidence: j.validator_evidence.clone(),
            gap: j.gap.clone(),
            read: j.read.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotReviewed {
    pub path: String,
    pub reason: String,
}

/// A unit of work that failed: coverage the reader must not assume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub step: String,
    pub reviewer: Option<String>,
    /// The finding concerned, for validation gaps.
    pub finding: Option<String>,
    pub message: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Funnel {
    pub candidates: usize,
    pub grounded: usize,
    pub survived: usize,
    pub published: usize,
}

/// Tokens and cost of one step on one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepUsage {
    pub step: String,
    pub tier: String,
    pub model: String,
    pub calls: u32,
    pub input: u64,
    pub output: u64,
    /// Input tokens served from the provider's cache.
    pub cached: u64,
    /// Estimated cost in USD; `null` when the model's price is unknown.
    pub cost: Option<f64>,
    pub wall_ms: u64,
}
