//! SARIF 2.1.0, the static-analysis interchange format that code-scanning
//! services (GitHub's `upload-sarif`, Azure's SARIF viewer, GitLab's converters)
//! accept.
//!
//! Only published findings become results: a result is an alert in those
//! services, and unverified findings must never be shown as one. Unverified
//! findings, coverage gaps and files nobody reviewed travel as tool execution
//! notifications instead, so a consumer still learns what was not covered.

use gauntlet_review::Review;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::Published;
use serde_json::{Value, json};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key under which each result carries gauntlet's own fingerprint; services
/// that track alerts across runs use it to tell a moved finding from a new one.
pub const FINGERPRINT_KEY: &str = "gauntlet/v1";

pub(crate) fn render(review: &Review) -> String {
    let rules = rule_ids(&review.published);
    let results: Vec<Value> = review.published.iter().map(|p| result(p, &rules)).collect();
    let run = json!({
        "tool": { "driver": {
            "name": "gauntlet",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "rules": rules.iter().map(|id| rule(id)).collect::<Vec<_>>(),
        }},
        "invocations": [invocation(review)],
        "results": results,
        "properties": {
            "base": review.base,
            "head": review.head,
            "rulesVersion": review.rules_version,
            "provider": review.provider,
            "funnel": review.funnel,
            "skipped": review.skipped.as_ref().map(|s| s.reason.as_str()),
        },
    });
    let log = json!({ "$schema": SCHEMA, "version": "2.1.0", "runs": [run] });
    let mut out = serde_json::to_string_pretty(&log).expect("a JSON value always serialises");
    out.push('\n');
    out
}

/// A rule per reviewer and lens, in first-seen order: services group alerts by
/// rule, and "correctness, failure scenario" is the grouping a reader expects.
fn rule_ids(published: &[Published]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for p in published {
        let id = rule_id(p);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

fn rule_id(p: &Published) -> String {
    format!("{}/{}", p.reviewer, p.lens.as_str())
}

fn rule(id: &str) -> Value {
    let (reviewer, lens) = id.rsplit_once('/').unwrap_or((id, ""));
    let lens = lens.replace('_', " ");
    json!({
        "id": id,
        "name": id,
        "shortDescription": { "text": format!("Reviewer {reviewer}, {lens} lens") },
    })
}

/// SARIF's three result levels, by severity.
pub(crate) fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

fn result(p: &Published, rules: &[String]) -> Value {
    let id = rule_id(p);
    let mut result = json!({
        "ruleId": id,
        "ruleIndex": rules.iter().position(|r| *r == id),
        "level": level(p.severity),
        "message": { "text": p.claim },
        "partialFingerprints": { FINGERPRINT_KEY: p.id },
        "properties": {
            "severity": p.severity.as_str(),
            "confidence": p.confidence,
            "reviewer": p.reviewer,
            "raisedBy": crate::fmt::raised_by(p).split(", ").collect::<Vec<_>>(),
            "lens": p.lens.as_str(),
            "inline": p.inline,
            "validatorEvidence": p.validator_evidence,
        },
    });
    let related: Vec<Value> = p
        .also_at
        .iter()
        .filter_map(|a| Location::parse(a))
        .enumerate()
        .map(|(i, at)| {
            json!({ "id": i + 1, "message": { "text": "the same defect shows here too" }, "physicalLocation": {
                "artifactLocation": { "uri": uri(&at.path), "uriBaseId": "%SRCROOT%" },
                "region": { "startLine": at.start, "endLine": at.end },
            }})
        })
        .collect();
    if !related.is_empty() {
        result["relatedLocations"] = json!(related);
    }
    if let Some(location) = Location::parse(&p.location) {
        result["locations"] = json!([{ "physicalLocation": {
            "artifactLocation": { "uri": uri(&location.path), "uriBaseId": "%SRCROOT%" },
            "region": {
                "startLine": location.start,
                "endLine": location.end,
                "snippet": { "text": p.evidence },
            },
        }}]);
    }
    result
}

/// Whether the run covered what it set out to, and the notifications that say
/// what it did not: gaps (errors), unverified findings (warnings), files not
/// reviewed (notes).
fn invocation(review: &Review) -> Value {
    let mut notes = Vec::new();
    for g in &review.gaps {
        let who = g.reviewer.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        notes.push(notification("error", format!("coverage gap in {}{who}: {}", g.step, g.message)));
    }
    for u in &review.unverified {
        let text = format!("could not be verified either way, not published: {} {}", u.location, u.claim);
        notes.push(notification("warning", text));
    }
    for m in &review.minor {
        let text = format!("minor, verified, not published: {} {}", m.location, m.claim);
        notes.push(notification("note", text));
    }
    for n in &review.not_reviewed {
        notes.push(notification("note", format!("not reviewed: {} ({})", n.path, n.reason)));
    }
    json!({
        // A run that left any part of the change unreviewed or unvalidated did
        // not do its job, whatever it found.
        "executionSuccessful": review.complete(),
        "toolExecutionNotifications": notes,
    })
}

fn notification(level: &str, text: String) -> Value {
    json!({ "level": level, "message": { "text": text } })
}

/// A repository-relative path as a URI reference: every byte outside the
/// unreserved set and `/` percent-encoded, so spaces and `#` survive.
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("src/a b#1.rs"), "src/a%20b%231.rs");
        assert_eq!(uri("docs/ü.md"), "docs/%C3%BC.md");
    }
}
