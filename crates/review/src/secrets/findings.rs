//! The deterministic check's findings: one per secret the change adds.

use super::{REVIEWER, Secret};
use crate::contract::{Lens, Severity};
use crate::finding::Finding;
use crate::review::Published;

/// What a `secrets` finding shows instead of the line: a rule can miss a second
/// secret on the same line, so no part of it is quoted, masked or not.
pub const NOT_QUOTED: &str = "(the line is not quoted, so that no part of the secret is shown)";

/// One finding per secret the change adds, high severity, published without a
/// model. It names the rule that matched and the value's length, nothing else.
pub fn findings(secrets: &[Secret]) -> Vec<Published> {
    secrets
        .iter()
        .map(|s| {
            let lens = Lens::BlastRadius;
            Published {
                // The masked line only feeds the hash, which keeps the id of a
                // finding the same across runs.
                id: Finding::fingerprint(REVIEWER, &s.path, lens, &format!("{} {}", s.hit.kind, s.masked_line)),
                reviewer: REVIEWER.into(),
                raised_by: vec![REVIEWER.into()],
                lens,
                location: format!("{}:{}", s.path, s.line),
                inline: true,
                claim: format!(
                    "A secret ({}, {}) is committed here: anyone who can read the repository or its history can \
                     use it. Revoke it, remove it from the history, and load it from the environment or a secret \
                     store.",
                    s.hit.kind, s.hit.redacted
                ),
                evidence: NOT_QUOTED.into(),
                severity: Severity::High,
                confidence: 100,
                validator_evidence: format!(
                    "Deterministic check: the line matches the `{}` rule. The value was masked before any model saw it.",
                    s.hit.kind
                ),
                gap: None,
                read: Vec::new(),
                also_at: Vec::new(),
                unvalidated: Vec::new(),
            }
        })
        .collect()
}
