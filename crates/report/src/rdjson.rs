//! reviewdog's diagnostic format: `rdjson` (one `DiagnosticResult` object) and
//! `rdjsonl` (one `Diagnostic` per line), so reviewdog users can post gauntlet's
//! findings anywhere reviewdog posts.
//!
//! reviewdog posts a diagnostic's message as a comment as it is, so the message
//! is escaped Markdown (no HTML, links, images or @-mentions), like every other
//! place gauntlet puts model text in front of a code host. Only published
//! findings are diagnostics with a location: unverified ones must never look
//! like a finding on a line. What the review did not cover (coverage gaps,
//! findings that could not be verified, files nobody reviewed) follows as `INFO`
//! diagnostics without a location, which reviewdog accepts, so a partial review
//! reaches the pull request as partial instead of as a clean one.

use crate::coverage::{self, Item};
use crate::markdown::text;
use gauntlet_review::Review;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::Published;
use serde_json::{Value, json};

fn source() -> Value {
    json!({ "name": "gauntlet" })
}

pub(crate) fn render(review: &Review) -> String {
    let diagnostics: Vec<Value> = all(review);
    let result = json!({ "source": source(), "diagnostics": diagnostics });
    let mut out = serde_json::to_string_pretty(&result).expect("a JSON value always serialises");
    out.push('\n');
    out
}

/// One diagnostic per line; nothing at all for a complete review with nothing
/// published (an empty line is not a diagnostic and reviewdog rejects it).
pub(crate) fn render_lines(review: &Review) -> String {
    let mut out = String::new();
    for d in all(review) {
        out.push_str(&d.to_string());
        out.push('\n');
    }
    out
}

/// The published findings, then what the review did not cover.
fn all(review: &Review) -> Vec<Value> {
    let findings = review.published.iter().map(diagnostic);
    findings.chain(coverage::items(review).iter().map(uncovered)).collect()
}

/// A statement about coverage: no location, so reviewdog never places it on a line.
fn uncovered(item: &Item) -> Value {
    json!({
        "message": text(&item.text),
        "severity": "INFO",
        "source": source(),
        "code": { "value": item.kind.code() },
    })
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::High => "ERROR",
        Severity::Medium => "WARNING",
        Severity::Low => "INFO",
    }
}

fn diagnostic(p: &Published) -> Value {
    let location = match Location::parse(&p.location) {
        Some(l) => json!({
            "path": l.path,
            "range": { "start": { "line": l.start }, "end": { "line": l.end } },
        }),
        None => json!({ "path": p.location }),
    };
    json!({
        "message": text(&p.claim),
        "location": location,
        "severity": severity(p.severity),
        "source": source(),
        "code": { "value": format!("{}/{}", p.reviewer, p.lens.as_str()) },
        "original_output": format!("{} confidence={} id={}", p.location, p.confidence, p.id),
    })
}
