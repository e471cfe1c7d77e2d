//! Grounding: a deterministic check that a finding points at a real place and
//! quotes text the finder was shown there.

use crate::contract::{Location, RawFinding};
use crate::finding::Finding;
use crate::shown::{Shown, normalize};
use gauntlet_change::Change;

pub use crate::repo::HeadFiles;

/// Slack, in lines, around a location when looking for its evidence.
pub const SLACK: u32 = 3;

/// How much quoted text a reason echoes back.
const ECHO_MAX: usize = 80;

/// Ground one raw finding of `reviewer`. `Err` carries a one-line reason for `dropped[]`.
pub fn ground(
    raw: &RawFinding,
    reviewer: &str,
    shown: &Shown,
    head: &dyn HeadFiles,
    change: &Change,
) -> Result<Finding, String> {
    let loc = Location::parse(&raw.location)
        .ok_or_else(|| format!("location `{}` is not path:LINE or path:START-END", bounded(&raw.location)))?;
    let lines = head.line_count(&loc.path).ok_or_else(|| format!("{} is not a file at head", loc.path))?;
    if loc.end > lines {
        return Err(format!("{loc} is beyond the end of {} ({lines} lines)", loc.path));
    }
    if !evidence_found(&loc, &raw.evidence, shown) {
        return Err(format!("evidence `{}` not found near {loc}", bounded(&raw.evidence)));
    }
    let inline = change.file(&loc.path).is_some_and(|f| (loc.start..=loc.end).any(|l| f.diff.in_hunk(l)));
    Ok(Finding {
        id: Finding::fingerprint(reviewer, &loc.path, raw.lens, &raw.evidence),
        reviewer: reviewer.to_string(),
        lens: raw.lens,
        location: loc,
        inline,
        claim: raw.claim.clone(),
        evidence: raw.evidence.clone(),
        severity: raw.severity,
    })
}

/// Evidence is found within SLACK of the location, or at an explicit `path:LINE`
/// of a shown file that the evidence starts with.
fn evidence_found(loc: &Location, evidence: &str, shown: &Shown) -> bool {
    if shown.contains_near(&loc.path, loc.start, loc.end, SLACK, evidence) {
        return true;
    }
    let Some((cited, rest)) = Location::parse_prefix(evidence) else {
        return false;
    };
    if !shown.paths().contains(cited.path.as_str()) {
        return false;
    }
    let near = |q: &str| shown.contains_near(&cited.path, cited.start, cited.end, SLACK, q);
    if near(unwrap_quote(rest)) {
        return true;
    }
    let quotes = backtick_quotes(rest);
    !quotes.is_empty() && quotes.iter().all(|q| near(q))
}

/// Strip separators and matched surrounding quotes/backticks (or a code fence).
fn unwrap_quote(text: &str) -> &str {
    let mut s = text.trim().trim_start_matches([':', '—', '–']).trim();
    if let Some(inner) = s.strip_prefix("```").and_then(|r| r.strip_suffix("```")) {
        return fence_body(inner);
    }
    while let (Some(first), Some(last)) = (s.chars().next(), s.chars().last()) {
        if s.len() < 2 || first != last || !matches!(first, '`' | '"' | '\'') {
            break;
        }
        s = s[1..s.len() - 1].trim();
    }
    s
}

/// The body of a fenced block: drops an info-string line such as `rust`.
fn fence_body(inner: &str) -> &str {
    match inner.split_once('\n') {
        Some((info, body)) if !info.trim().contains(char::is_whitespace) => body,
        _ => inner,
    }
}

/// The backticked quotes of a text: a run of N backticks opens a quote that the
/// next run of exactly N backticks closes; runs of 3+ are fences (info line
/// dropped). Unclosed and empty quotes are left out.
fn backtick_quotes(text: &str) -> Vec<&str> {
    let mut quotes = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after_open = &rest[open..];
        let n = after_open.len() - after_open.trim_start_matches('`').len();
        let body = &after_open[n..];
        let Some(close) = find_run(body, n) else {
            break;
        };
        let quote = if n >= 3 { fence_body(&body[..close]) } else { &body[..close] };
        if !normalize(quote).is_empty() {
            quotes.push(quote);
        }
        rest = &body[close + n..];
    }
    quotes
}

/// Byte offset of the first run of exactly `n` backticks in `text`.
fn find_run(text: &str, n: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find('`') {
        let at = from + i;
        let len = text[at..].len() - text[at..].trim_start_matches('`').len();
        if len == n {
            return Some(at);
        }
        from = at + len;
    }
    None
}

/// Check a `disproved` verdict's evidence against what the validator was shown:
/// it must start with `path:LINE` or `path:START-END` covered by `shown`, and have
/// at least one backticked quote, each occurring within SLACK lines of that location.
/// `Err` names what failed ("disproof cited src/x.rs:40, which was never shown or read").
pub fn check_disproof(evidence: &str, shown: &Shown) -> Result<(), String> {
    let (loc, rest) =
        Location::parse_prefix(evidence).ok_or_else(|| "disproof cited no path:LINE location".to_string())?;
    if !shown.covers(&loc.path, loc.start, loc.end) {
        return Err(format!("disproof cited {loc}, which was never shown or read"));
    }
    let quotes = backtick_quotes(rest);
    if quotes.is_empty() {
        return Err(format!("disproof quoted nothing from {loc}"));
    }
    for quote in quotes {
        if !shown.contains_near(&loc.path, loc.start, loc.end, SLACK, quote) {
            return Err(format!("disproof quoted `{}` which does not occur near {loc}", bounded(quote)));
        }
    }
    Ok(())
}

/// Text echoed in a one-line reason: whitespace-normalised, at most ECHO_MAX chars.
pub(crate) fn bounded(text: &str) -> String {
    let text = normalize(text);
    match text.char_indices().nth(ECHO_MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
