//! Findings as they move through the pipeline: grounded [`Finding`]s, then
//! [`Judged`] findings carrying the validator's verdict, then the adjudicator's
//! published / unverified / dropped split.

use crate::contract::{Impact, Lens, Location, Severity, VerdictKind};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// A finding that passed grounding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable id: a fingerprint of reviewer, path, lens and normalised evidence
    /// (no line numbers, no claim wording), so re-runs agree on identity.
    pub id: String,
    pub reviewer: String,
    pub lens: Lens,
    pub location: Location,
    /// Whether the location lies inside a hunk's new-side range (postable inline).
    pub inline: bool,
    pub claim: String,
    pub evidence: String,
    pub severity: Severity,
}

impl Finding {
    pub fn fingerprint(reviewer: &str, path: &str, lens: Lens, evidence: &str) -> String {
        let mut h = Sha256::new();
        for part in [reviewer, path, lens.as_str(), &crate::shown::normalize(evidence)] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        hex::encode(&h.finalize()[..8])
    }
}

/// A grounded finding with the validator's (possibly code-corrected) verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Judged {
    pub finding: Finding,
    pub verdict: VerdictKind,
    pub confidence: u8,
    /// Whether the flaw matters if it is real (the validator's second answer).
    pub impact: Impact,
    pub validator_evidence: String,
    /// Set when code held a survivor's confidence down because its verdict rests
    /// on code the validator never saw (see [`crate::ground::check_certainty`]).
    pub capped: Option<String>,
    /// Set when code overrode the validator: a disproof that cited text never shown.
    pub gap: Option<String>,
    /// Files the validator read through its tools, sorted.
    pub read: Vec<String>,
    /// Every reviewer whose candidate is in this finding's cluster, sorted (the
    /// finding's own reviewer alone when it was not clustered).
    pub raised_by: Vec<String>,
    /// Where else the defect shows: the cluster's locations in other files.
    pub also_at: Vec<String>,
    /// Test gaps folded into this finding, never validated: "`tests` at path:LINE: claim".
    pub unvalidated: Vec<String>,
}

/// Why a finding was not published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Location or evidence not found in what the finder was shown.
    Ungrounded,
    /// The validator disproved it with grounded evidence.
    Disproved,
    /// Survived, but under the publish threshold.
    BelowThreshold,
    /// A twin of a higher-ranked finding.
    Duplicate,
    /// The validator's disproof could not be checked against what it read.
    UnverifiedDisproof,
    /// The validator failed twice (contract violation or provider error).
    NotValidated,
    /// Describes the same defect as another candidate of its cluster, which was
    /// validated (and published, when it survived) in its place.
    Clustered,
}

/// A finding that was not published, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dropped {
    pub reason: DropReason,
    /// Human-readable detail ("evidence not found near src/a.rs:12", "twin of 3f2a…").
    pub detail: String,
    pub reviewer: String,
    pub location: String,
    pub claim: String,
    pub severity: Severity,
    pub confidence: Option<u8>,
}

impl Dropped {
    pub fn of(judged: &Judged, reason: DropReason, detail: impl Into<String>) -> Dropped {
        let f = &judged.finding;
        Dropped {
            reason,
            detail: detail.into(),
            reviewer: f.reviewer.clone(),
            location: f.location.to_string(),
            claim: f.claim.clone(),
            severity: f.severity,
            confidence: Some(judged.confidence),
        }
    }
}
