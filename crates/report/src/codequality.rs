//! GitLab Code Quality: the subset of the CodeClimate issue format GitLab reads
//! from a job's `codequality` report artifact. An array of objects, each with
//! `description`, `check_name`, `fingerprint`, `severity` (info, minor, major,
//! critical or blocker) and `location` (`path`, `lines.begin`; `lines.end` is
//! part of the CodeClimate format too).
//!
//! GitLab shows `description` as plain text (its merge-request widget and diff
//! badges interpolate it, escaping HTML), so the claim goes in through
//! [`crate::plain`]: one line, control and reordering characters shown as
//! escapes, capped. Markdown escapes would show up as stray backslashes.
//!
//! Only published findings are entries: an entry is a degradation on a line,
//! and an unverified finding must never look like one. What the review did not
//! cover has no file and line to sit on, so it is not an entry; the command
//! line says it on stderr, as for the other machine formats.

use crate::plain;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::Published;
use serde_json::{Value, json};

/// Characters of a claim kept in `description`.
pub const DESCRIPTION_LIMIT: usize = 1_000;

/// The five severities GitLab accepts.
pub const SEVERITIES: [&str; 5] = ["info", "minor", "major", "critical", "blocker"];

/// The report for `findings`, as GitLab reads it: a JSON array, newline-ended.
pub fn report<'a>(findings: impl IntoIterator<Item = &'a Published>) -> String {
    let entries: Vec<Value> = findings.into_iter().map(entry).collect();
    let mut out = serde_json::to_string_pretty(&entries).expect("a JSON value always serialises");
    out.push('\n');
    out
}

/// `blocker` stays unused: gauntlet's own scale tops out at high, and whether a
/// finding blocks is `--fail-on`'s call, not the report's.
pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::High => "critical",
        Severity::Medium => "major",
        Severity::Low => "minor",
    }
}

fn entry(p: &Published) -> Value {
    let (path, begin, end) = match Location::parse(&p.location) {
        Some(l) => (l.path, l.start, l.end),
        None => (p.location.clone(), 1, 1),
    };
    json!({
        "description": plain::line(&p.claim, DESCRIPTION_LIMIT),
        "check_name": plain::line(&format!("gauntlet/{}/{}", p.reviewer, p.lens.as_str()), 200),
        // The finding's own fingerprint: stable across runs, so GitLab tells a
        // finding that stayed from a new one.
        "fingerprint": p.id,
        "severity": severity(p.severity),
        "location": { "path": plain::line(&path, 1_000), "lines": { "begin": begin, "end": end } },
    })
}
