//! reviewdog's diagnostic format: `rdjson` (one `DiagnosticResult` object) and
//! `rdjsonl` (one `Diagnostic` per line), so reviewdog users can post gauntlet's
//! findings anywhere reviewdog posts.
//!
//! reviewdog posts a diagnostic's message as a comment as it is, so the message
//! is escaped Markdown (no HTML, links, images or @-mentions), like every other
//! place gauntlet puts model text in front of a code host. Only published
//! findings are diagnostics: unverified ones must never be posted.

use crate::markdown::text;
use gauntlet_review::Review;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::Published;
use serde_json::{Value, json};

fn source() -> Value {
    json!({ "name": "gauntlet" })
}

pub(crate) fn render(review: &Review) -> String {
    let diagnostics: Vec<Value> = review.published.iter().map(diagnostic).collect();
    let result = json!({ "source": source(), "diagnostics": diagnostics });
    let mut out = serde_json::to_string_pretty(&result).expect("a JSON value always serialises");
    out.push('\n');
    out
}

/// One diagnostic per line; nothing at all when nothing was published (an
/// empty line is not a diagnostic and reviewdog rejects it).
pub(crate) fn render_lines(review: &Review) -> String {
    let mut out = String::new();
    for p in &review.published {
        out.push_str(&diagnostic(p).to_string());
        out.push('\n');
    }
    out
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
