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

/// A cited location spans at most this many lines.
pub const CITED_MAX_LINES: u32 = 40;
/// Each cited location needs a quote with at least this many non-blank characters.
pub const QUOTE_MIN_CHARS: usize = 8;

/// Check a `disproved` verdict's evidence against everything the validator's
/// session saw (`records`: the shared context, its own region, what its tools
/// returned in any turn). The evidence cites one or more `path:LINE` /
/// `path:START-END` locations (outside its quotes), each spanning at most
/// [`CITED_MAX_LINES`] and each shown or read; every backticked quote occurs within
/// SLACK lines of one of them; and every cited location holds at least one quote of
/// [`QUOTE_MIN_CHARS`] non-blank characters or more. `Err` says exactly which rule
/// failed and where ("disproof cited src/x.rs:40, which was never shown or read").
pub fn check_disproof(evidence: &str, records: &[&Shown]) -> Result<(), String> {
    let cited = citations(evidence);
    if cited.is_empty() {
        return Err("disproof cited no path:LINE location".to_string());
    }
    if let Some(wide) = cited.iter().find(|l| l.end - l.start + 1 > CITED_MAX_LINES) {
        return Err(format!(
            "disproof cited {wide}, which spans {} lines; cite at most {CITED_MAX_LINES} lines per location",
            wide.end - wide.start + 1
        ));
    }
    if let Some(unseen) = cited.iter().find(|l| !crate::shown::covers(records, &l.path, l.start, l.end)) {
        return Err(format!("disproof cited {unseen}, which was never shown or read"));
    }
    let places = cited.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    // A quote that is only a location (`` `src/a.rs:4` ``) is a citation, not code.
    let quotes: Vec<&str> = backtick_quotes(evidence).into_iter().filter(|q| citation(q).is_none()).collect();
    if quotes.is_empty() {
        return Err(format!("disproof quoted nothing from {places}"));
    }
    // Only code at head backs a disproof: the lines a change removed are what the
    // finding may be about, never a reason it is wrong.
    let occurs =
        |l: &Location, q: &str| crate::shown::contains_near_at_head(records, &l.path, l.start, l.end, SLACK, q);
    let mut backed = vec![false; cited.len()];
    for quote in quotes {
        let at: Vec<usize> = (0..cited.len()).filter(|&i| occurs(&cited[i], quote)).collect();
        if at.is_empty() {
            let looked = if cited.len() == 1 { "near" } else { "near any of" };
            return Err(format!("disproof quoted `{}` which does not occur {looked} {places}", bounded(quote)));
        }
        if non_blank(quote) >= QUOTE_MIN_CHARS {
            at.into_iter().for_each(|i| backed[i] = true);
        }
    }
    if let Some(i) = backed.iter().position(|b| !b) {
        return Err(format!(
            "disproof cited {} but quoted nothing of at least {QUOTE_MIN_CHARS} non-blank characters that occurs there",
            cited[i]
        ));
    }
    Ok(())
}

/// The highest confidence a survivor keeps when its verdict rests on code the
/// validator never saw: the rubric's "partly verified, a gap remains".
pub const UNREAD_CONFIDENCE_CAP: u8 = 50;

/// Why a `survives` verdict cannot claim to be verified (75 or 100), if it cannot:
/// the rubric gives those levels only when the validator read the code that
/// would disprove the claim and it did not. Code cannot know which code that is,
/// but it can hold the verdict to what it says: every location the evidence cites
/// must have been shown or read, and so must every file the claim itself names
/// (`path:LINE`): the other file a cross-file claim depends on. Evidence that
/// cites nothing is not held here; the prompt asks for a location first.
pub fn check_certainty(claim: &str, evidence: &str, records: &[&Shown]) -> Result<(), String> {
    if let Some(unseen) =
        citations(evidence).into_iter().find(|l| !crate::shown::covers(records, &l.path, l.start, l.end))
    {
        return Err(format!("the verdict cited {unseen}, which was never shown or read"));
    }
    let read = |path: &str| records.iter().any(|r| r.paths().contains(path));
    if let Some(unread) = citations(claim).into_iter().find(|l| !read(&l.path)) {
        return Err(format!("the claim rests on {}, which was never shown or read", unread.path));
    }
    Ok(())
}

fn non_blank(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// The locations a verdict's evidence cites, in order and without repeats: every
/// whitespace-separated word outside backticked quotes that reads as
/// `path:LINE` or `path:START-END` and whose path holds a letter (so `3:2` or a
/// clock time is not a citation). A word inside backticks is code, not a citation,
/// except a quote that is nothing but a location (`` `src/a.rs:4` ``).
pub fn citations(evidence: &str) -> Vec<Location> {
    let mut out: Vec<Location> = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let mut rest = evidence;
    for quote in backtick_quotes(evidence) {
        // `quote` is a slice of `evidence`: what lies before it is prose.
        let at = quote.as_ptr() as usize - rest.as_ptr() as usize;
        words.extend(rest[..at].split_whitespace());
        if !quote.trim().contains(char::is_whitespace) {
            words.push(quote.trim());
        }
        rest = &rest[at + quote.len()..];
    }
    words.extend(rest.split_whitespace());
    for loc in words.into_iter().filter_map(citation) {
        if !out.contains(&loc) {
            out.push(loc);
        }
    }
    out
}

/// A word read as a cited location, when it is one: a path of path characters
/// with a `/` or a `.` in it or a capitalised name (`Makefile`), so code like
/// `buf[:4]` or `s[1:3]` and an address like `localhost:8080` are not citations;
/// then `:LINE` or `:START-END`; a trailing `:COLUMN` (`db.py:16:5`) is dropped.
fn citation(word: &str) -> Option<Location> {
    let token =
        word.trim().trim_matches(|c: char| matches!(c, '`' | '(' | ')' | '[' | ']' | '"' | '\'' | ',' | ';' | '.'));
    // Models often write a range with an en or em dash.
    let token = token.trim_end_matches(':').replace(['–', '—'], "-");
    if token.contains("://") || token.contains(char::is_whitespace) {
        return None;
    }
    let token = match token.rsplit_once(':') {
        Some((head, column))
            if !column.is_empty()
                && column.chars().all(|c| c.is_ascii_digit())
                && head.rsplit_once(':').is_some_and(|(_, line)| {
                    !line.is_empty() && line.chars().all(|c| c.is_ascii_digit() || c == '-')
                }) =>
        {
            head.to_string()
        }
        _ => token,
    };
    // `Makefile` and `Dockerfile` have neither, but start with a capital.
    let path_like = |path: &str| {
        path.chars().any(char::is_alphabetic)
            && (path.contains('/') || path.contains('.') || path.starts_with(|c: char| c.is_ascii_uppercase()))
            && path.chars().all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@' | '~'))
    };
    Location::parse(&token).filter(|loc| path_like(&loc.path))
}

/// Text echoed in a one-line reason: whitespace-normalised, at most ECHO_MAX chars.
pub(crate) fn bounded(text: &str) -> String {
    let text = normalize(text);
    match text.char_indices().nth(ECHO_MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
