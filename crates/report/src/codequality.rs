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
//! Published findings are entries at their severity. A candidate that could
//! not be validated either way ([`Review::undecided`]) is an entry too, of
//! severity `info` and check `gauntlet/unverified`, saying so: it is not a
//! finding, but a report without it would be byte for byte what a clean review
//! writes, and GitLab would show a merge request whose blocking finding was
//! never judged as clean. The rest of what the review did not cover (a failed
//! reviewer, a file nobody saw) has no line to sit on, so it is not an entry;
//! the command line says it on stderr, as for the other machine formats.
//!
//! [`Review::undecided`]: gauntlet_review::Review::undecided

use crate::plain;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::{Published, Undecided};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Characters of a claim kept in `description`.
pub const DESCRIPTION_LIMIT: usize = 1_000;

/// The five severities GitLab accepts.
pub const SEVERITIES: [&str; 5] = ["info", "minor", "major", "critical", "blocker"];

/// The check name of an entry for a candidate that could not be validated.
pub const UNVERIFIED_CHECK: &str = "gauntlet/unverified";

/// The report for `findings`, then `undecided`, as GitLab reads it: a JSON
/// array, newline-ended.
pub fn report<'a>(findings: impl IntoIterator<Item = &'a Published>, undecided: &[Undecided<'_>]) -> String {
    let entries: Vec<Value> = findings.into_iter().map(entry).chain(undecided.iter().map(unverified)).collect();
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

/// An `info` entry for a candidate nobody could validate: its description says
/// what it is before what it claims, so nobody reads it as a finding.
fn unverified(u: &Undecided<'_>) -> Value {
    let (path, begin, end) = match Location::parse(u.location) {
        Some(l) => (l.path, l.start, l.end),
        None => (u.location.to_string(), 1, 1),
    };
    let what = format!(
        "Could not be validated either way, so this review is incomplete; check it by hand: {} finding by {}: {}",
        u.severity.as_str(),
        u.reviewer,
        u.claim
    );
    // No id survives a failed validation; where and what it claims tell one
    // such candidate from another, and stay the same when the run is repeated.
    let mut h = Sha256::new();
    for part in [UNVERIFIED_CHECK, u.location, u.claim] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let fingerprint: String = h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
    json!({
        "description": plain::line(&what, DESCRIPTION_LIMIT),
        "check_name": UNVERIFIED_CHECK,
        "fingerprint": fingerprint,
        "severity": "info",
        "location": { "path": plain::line(&path, 1_000), "lines": { "begin": begin, "end": end } },
    })
}
