//! The result of a run, as every report format reads it. Serialises to the JSON
//! report (`schema_version` 1); later features fill fields, they do not reshape them.

use crate::contract::{Lens, Severity};
use crate::finding::{DropReason, Dropped, Finding, Judged};
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
    /// Verified findings the validator judged minor (cosmetic, wording, style, a
    /// hypothetical): listed once, compactly, never inline, never gating.
    pub minor: Vec<Published>,
    pub unverified: Vec<Published>,
    pub dropped: Vec<Dropped>,
    pub not_reviewed: Vec<NotReviewed>,
    pub gaps: Vec<Gap>,
    pub funnel: Funnel,
    pub usage: Vec<StepUsage>,
    /// Validator sessions run, and how many clustering saved.
    pub validator_sessions: Sessions,
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
    /// Every validated finding with its verdict, as the adjudicator received them, so
    /// a caller can adjudicate again at another threshold (the backtest's sweep).
    #[serde(skip)]
    pub judged: Vec<Judged>,
    /// The related code the run's shared blocks drew from, so a caller that shows
    /// the same change to another reviewer (the backtest's baseline) need not read
    /// every file at head again to build it.
    #[serde(skip)]
    pub related: crate::related::Related,
}

impl Review {
    /// True when no reviewer session completed: nothing was reviewed.
    pub fn nothing_reviewed(&self) -> bool {
        self.find_units == self.find_failures
    }

    /// True when no reviewer session was even scheduled although the review ran:
    /// no changed file could be shown to a model (too large, binary, a submodule
    /// pointer, a name not in UTF-8: every such file is in `not_reviewed`).
    pub fn nothing_reviewable(&self) -> bool {
        self.skipped.is_none() && self.find_units == 0
    }

    /// Whether the whole change was covered: every file reviewed (or left out on
    /// purpose by the ignore lists), every unit run, every finding validated and
    /// every disproof checked. Anything less is a partial review, whatever was found.
    /// (A run where no reviewer completed has a gap per reviewer, or every file in
    /// `not_reviewed` when nothing could be shown, so it is never complete.)
    pub fn complete(&self) -> bool {
        self.gaps.is_empty()
            && self.unverified.is_empty()
            && !self.dropped.iter().any(|d| d.reason == DropReason::NotValidated)
            && self.not_reviewed.iter().all(|n| n.ignored)
    }

    /// The candidates nobody could decide on, for or against: high-severity
    /// findings whose disproof could not be checked (`unverified`), then every
    /// candidate whose validation failed (a provider error, answers off the
    /// verdict contract). Neither was judged on its merits, so either may be a
    /// real defect; `gauntlet ci --fail-on` never passes a run holding one at or
    /// above its severity. A finding dropped on a checked verdict (disproved,
    /// under the threshold) or a lower-severity uncheckable disproof (which the
    /// design drops, as it would a low confidence) is decided, not listed here.
    pub fn undecided(&self) -> Vec<Undecided<'_>> {
        let unverified = self.unverified.iter().map(|p| Undecided {
            severity: p.severity,
            location: &p.location,
            claim: &p.claim,
            reviewer: &p.reviewer,
            raised_by: &p.raised_by,
        });
        let failed = self.dropped.iter().filter(|d| d.reason == DropReason::NotValidated).map(|d| Undecided {
            severity: d.severity,
            location: &d.location,
            claim: &d.claim,
            reviewer: &d.reviewer,
            raised_by: &[],
        });
        unverified.chain(failed).collect()
    }

    /// The reviewer sessions that did not run to the end (see [`Gap::failed`]):
    /// what they would have found is unknown, so `gauntlet ci --fail-on` never
    /// passes a run holding one, whatever else it found.
    pub fn failed_sessions(&self) -> Vec<&Gap> {
        self.gaps.iter().filter(|g| g.failed).collect()
    }
}

/// A candidate that could not be validated either way (see [`Review::undecided`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undecided<'a> {
    pub severity: Severity,
    /// `path:LINE` or `path:START-END`.
    pub location: &'a str,
    /// Model text: every output escapes it its own way.
    pub claim: &'a str,
    pub reviewer: &'a str,
    /// Every reviewer that raised it, when the cluster is known (empty otherwise:
    /// then `reviewer` alone raised it as far as this run can tell).
    pub raised_by: &'a [String],
}

impl Undecided<'_> {
    /// The reviewers that raised it: `raised_by`, or `reviewer` alone.
    pub fn reviewers(&self) -> Vec<String> {
        if self.raised_by.is_empty() { vec![self.reviewer.to_string()] } else { self.raised_by.to_vec() }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skip {
    pub reason: String,
}

/// A finding as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Published {
    /// The cluster's fingerprint: stable across runs whoever raised the defect.
    pub id: String,
    /// The reviewer whose wording was validated and is shown.
    pub reviewer: String,
    /// Every reviewer that raised this defect, sorted; agreement never raises confidence.
    pub raised_by: Vec<String>,
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
    /// Other files the same defect shows in (a cross-file twin), as `path:LINE`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// Test gaps about this defect, folded in without validation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unvalidated: Vec<String>,
}

impl From<&Judged> for Published {
    fn from(j: &Judged) -> Published {
        let f = &j.finding;
        Published {
            id: f.id.clone(),
            reviewer: f.reviewer.clone(),
            raised_by: j.raised_by.clone(),
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
            also_at: j.also_at.clone(),
            unvalidated: j.unvalidated.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotReviewed {
    pub path: String,
    pub reason: String,
    /// Left out on purpose by the gate's ignore lists (lockfiles, generated,
    /// vendored, `[gate] ignore`), not for want of a way to review it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
}

impl NotReviewed {
    /// A file nobody could review (binary, a submodule pointer, too large, ...).
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> NotReviewed {
        NotReviewed { path: path.into(), reason: reason.into(), ignored: false }
    }

    /// A file the ignore lists set aside.
    pub fn ignored(path: impl Into<String>, reason: impl Into<String>) -> NotReviewed {
        NotReviewed { ignored: true, ..NotReviewed::new(path, reason) }
    }
}

/// A unit of work that failed: coverage the reader must not assume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub step: String,
    pub reviewer: Option<String>,
    /// The finding concerned, for validation gaps.
    pub finding: Option<String>,
    pub message: String,
    /// The unit did not run to the end, so its reviewer's share of the change
    /// went unreviewed: a reviewer session that failed (a provider error, answers
    /// off the contract), or a reviewer left out because its context could not be
    /// gathered. A session that answered after spending its tool steps, or a
    /// re-check whose first answer stands, finished. (A failed validation is a
    /// gap too, but its candidate is [`Review::undecided`].)
    #[serde(skip)]
    pub failed: bool,
}

/// Longest claim quoted in a gap's message.
const GAP_CLAIM_CHARS: usize = 160;

/// Say in each gap about a finding where that finding is and what it claims, so a
/// reader can check it by hand: a finding that could not be validated is exactly
/// what must be looked at, and its id alone says nothing.
pub fn name_findings<'a>(gaps: &mut [Gap], findings: impl IntoIterator<Item = &'a Finding>) {
    let findings: Vec<&Finding> = findings.into_iter().collect();
    for gap in gaps.iter_mut() {
        let Some(f) = gap.finding.as_deref().and_then(|id| findings.iter().find(|f| f.id == id)) else {
            continue;
        };
        let claim: String = f.claim.chars().take(GAP_CLAIM_CHARS).collect();
        let cut = if claim.len() < f.claim.len() { "…" } else { "" };
        gap.message = format!("{} finding at {}, \"{claim}{cut}\": {}", f.severity.as_str(), f.location, gap.message);
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Funnel {
    pub candidates: usize,
    pub grounded: usize,
    /// Clusters the grounded candidates formed (one per defect, validated once).
    pub clustered: usize,
    pub survived: usize,
    pub published: usize,
    /// Survivors at or above the threshold listed as minor instead of published.
    #[serde(default)]
    pub minor: usize,
}

/// Tokens and cost of one step on one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepUsage {
    pub step: String,
    pub tier: String,
    pub model: String,
    pub calls: u32,
    /// Input tokens, cached or not: `cached` and `cache_write` are part of it.
    pub input: u64,
    pub output: u64,
    /// Input tokens served from the provider's cache.
    pub cached: u64,
    /// Input tokens written to the provider's cache (billed above the input price
    /// by some providers).
    pub cache_write: u64,
    /// The cost as the provider bills it, in USD: uncached input, output, cache
    /// reads and cache writes each at its own price; `null` when the model's price
    /// is unknown.
    pub cost: Option<f64>,
    pub wall_ms: u64,
}

/// Validator sessions of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Sessions {
    /// Sessions started: representatives, next members after a disproof, re-checks.
    pub run: usize,
    /// Sessions one per grounded candidate (and per re-check) would have added.
    pub saved: usize,
    /// Whether the rubber-stamp re-check ran.
    pub rechecked: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Location;

    fn finding(id: &str, claim: &str) -> Finding {
        Finding {
            id: id.into(),
            reviewer: "correctness".into(),
            lens: Lens::FailureScenario,
            location: Location::parse("src/pay.py:12").unwrap(),
            inline: true,
            claim: claim.into(),
            evidence: "pay(order)".into(),
            severity: Severity::High,
        }
    }

    fn gap(finding: Option<&str>) -> Gap {
        Gap {
            step: "validate".into(),
            reviewer: Some("correctness".into()),
            finding: finding.map(str::to_string),
            message: "the answer broke the verdict contract twice".into(),
            failed: false,
        }
    }

    #[test]
    fn a_gap_about_a_finding_says_where_it_is_and_what_it_claims() {
        let mut gaps = vec![gap(Some("aa11")), gap(None), gap(Some("unknown"))];
        let long = "x".repeat(GAP_CLAIM_CHARS + 40);
        let findings = [finding("aa11", "The refund is paid twice."), finding("bb22", &long)];
        name_findings(&mut gaps, &findings);
        assert_eq!(
            gaps[0].message,
            "high finding at src/pay.py:12, \"The refund is paid twice.\": the answer broke the verdict contract twice"
        );
        assert_eq!(gaps[1].message, gap(None).message, "a gap about no finding is left alone");
        assert_eq!(gaps[2].message, gap(None).message);

        let mut cut = vec![gap(Some("bb22"))];
        name_findings(&mut cut, &findings);
        assert!(cut[0].message.contains(&format!("{}…\"", "x".repeat(GAP_CLAIM_CHARS))), "{}", cut[0].message);
    }

    #[test]
    fn only_a_review_that_covered_everything_is_complete() {
        assert!(Review::default().complete());
        let ignored =
            Review { not_reviewed: vec![NotReviewed::ignored("Cargo.lock", "lockfile")], ..Review::default() };
        assert!(ignored.complete());
        let binary = Review { not_reviewed: vec![NotReviewed::new("a.png", "binary")], ..Review::default() };
        assert!(!binary.complete());
        assert!(!Review { gaps: vec![gap(None)], ..Review::default() }.complete());
    }

    fn dropped(reason: DropReason, severity: Severity, location: &str) -> Dropped {
        Dropped {
            reason,
            detail: String::new(),
            reviewer: "security".into(),
            location: location.into(),
            claim: "claim".into(),
            severity,
            confidence: None,
        }
    }

    #[test]
    fn undecided_holds_what_could_not_be_validated_and_nothing_judged_on_its_merits() {
        let judged = Judged {
            finding: finding("aa11", "The refund is paid twice."),
            verdict: crate::contract::VerdictKind::Survives,
            confidence: 25,
            impact: crate::contract::Impact::Consequential,
            validator_evidence: String::new(),
            capped: None,
            gap: Some("the disproof cites text never shown".into()),
            read: Vec::new(),
            raised_by: vec!["correctness".into(), "security".into()],
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        };
        let review = Review {
            unverified: vec![Published::from(&judged)],
            dropped: vec![
                dropped(DropReason::Disproved, Severity::High, "a.py:1"),
                dropped(DropReason::BelowThreshold, Severity::High, "a.py:2"),
                dropped(DropReason::UnverifiedDisproof, Severity::Medium, "a.py:3"),
                dropped(DropReason::NotValidated, Severity::Low, "a.py:4"),
                dropped(DropReason::Clustered, Severity::High, "a.py:5"),
            ],
            ..Review::default()
        };
        let undecided = review.undecided();
        let at: Vec<(&str, Severity)> = undecided.iter().map(|u| (u.location, u.severity)).collect();
        assert_eq!(at, [("src/pay.py:12", Severity::High), ("a.py:4", Severity::Low)]);
        assert_eq!(undecided[0].reviewers(), ["correctness", "security"]);
        assert_eq!(undecided[1].reviewers(), ["security"], "a failed validation names the candidate's reviewer");
        assert!(Review::default().undecided().is_empty());
    }
}
