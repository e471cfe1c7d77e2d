//! Small formatting helpers shared by the human formats.

use gauntlet_review::Review;
use gauntlet_review::finding::DropReason;
use gauntlet_review::review::{Funnel, Gap};

/// A revision as shown to people: full commit ids shortened to 12 characters,
/// anything else (`origin/main`, `HEAD`) as given.
pub(crate) fn short_rev(rev: &str) -> &str {
    let looks_like_sha = rev.len() > 12 && rev.chars().all(|c| c.is_ascii_hexdigit());
    if looks_like_sha { &rev[..12] } else { rev }
}

pub(crate) fn funnel(f: &Funnel) -> String {
    let line = format!(
        "candidates {} → grounded {} → clustered {} → survived {} → published {}",
        f.candidates, f.grounded, f.clustered, f.survived, f.published
    );
    // Verified but minor: counted, so a survivor that was not published is not lost.
    if f.minor > 0 { format!("{line} (+ {} minor, listed)", f.minor) } else { line }
}

/// One line for a finding the validator judged minor: where, how severe (capped),
/// who raised it and what it claims; `name` renders the location and reviewers,
/// `prose` the claim, each as the format escapes untrusted text.
pub(crate) fn minor_line(
    p: &gauntlet_review::review::Published,
    name: impl Fn(&str) -> String,
    prose: impl Fn(&str) -> String,
) -> String {
    format!("{} · {} · {}: {}", name(&p.location), p.severity.as_str(), name(&raised_by(p)), prose(&p.claim))
}

/// The terminal's heading of the minor list, after the count.
pub(crate) const MINOR_HEADING: &str = "minor (verified, not published: never a comment, never gating)";

/// Every reviewer that raised a finding, comma-separated.
pub(crate) fn raised_by(p: &gauntlet_review::review::Published) -> String {
    if p.raised_by.is_empty() { p.reviewer.clone() } else { p.raised_by.join(", ") }
}

/// The validator sessions line under the usage table; `None` when none ran.
pub(crate) fn sessions(review: &Review) -> Option<String> {
    let s = review.validator_sessions;
    (s.run > 0).then(|| {
        let recheck = if s.rechecked { ", rubber-stamp re-check included" } else { "" };
        format!(
            "validator sessions {}{recheck}; {} saved by validating each cluster once instead of each candidate",
            s.run, s.saved
        )
    })
}

/// Milliseconds as `850ms`, `12.3s` or `2m05s`.
pub(crate) fn wall(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1_000.0)
    } else {
        let secs = ms / 1_000;
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

/// The last `width` characters of `text`, led by `…` when cut (the end of a
/// location, its file name and line, is the part worth keeping).
pub(crate) fn cut_left(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    let keep = width.saturating_sub(1);
    format!("…{}", text.chars().skip(n - keep).collect::<String>())
}

/// Gaps with the same step, finding and message, said once: the first of them,
/// every reviewer they name (in order, once each), and how many there were. A
/// provider that is down fails every call the same way; one line says so.
pub(crate) fn repeated_gaps(gaps: &[Gap]) -> Vec<(&Gap, Vec<&str>, usize)> {
    let mut out: Vec<(&Gap, Vec<&str>, usize)> = Vec::new();
    for g in gaps {
        let same = |(first, _, _): &&mut (&Gap, Vec<&str>, usize)| {
            first.step == g.step && first.finding == g.finding && first.message == g.message
        };
        match out.iter_mut().find(|e| same(e)) {
            Some((_, reviewers, times)) => {
                *times += 1;
                if let Some(r) = g.reviewer.as_deref().filter(|r| !reviewers.contains(r)) {
                    reviewers.push(r);
                }
            }
            None => out.push((g, g.reviewer.as_deref().into_iter().collect(), 1)),
        }
    }
    out
}

/// ` (N times)` after a gap said once for N, nothing for one.
pub(crate) fn times(n: usize) -> String {
    if n > 1 { format!(" ({n} times)") } else { String::new() }
}

/// A token count with thousands separators.
pub(crate) fn count(n: u64) -> String {
    crate::number::tokens(n)
}

/// A cost in dollars; a price nobody knows is said to be unknown, never `$0`.
pub(crate) fn cost(usd: Option<f64>) -> String {
    crate::number::cost(usd)
}

/// The raw tokens (`in` counts every input token, cached or not; `cache read` and
/// `cache write` are the parts of it the provider's cache served or stored), then
/// the cost as the provider bills them.
pub(crate) const USAGE_HEADERS: [&str; 10] =
    ["step", "tier", "model", "calls", "in", "out", "cache read", "cache write", "billed", "wall"];

/// Columns of [`USAGE_HEADERS`] that hold numbers (right-aligned).
pub(crate) const USAGE_NUMERIC: [bool; 10] = [false, false, false, true, true, true, true, true, true, true];

/// One row per step, then a total row when there is more than one step. The
/// total cost is marked partial when some step's price is unknown.
pub(crate) fn usage_rows(review: &Review) -> Vec<[String; 10]> {
    let mut rows: Vec<[String; 10]> = review
        .usage
        .iter()
        .map(|u| {
            [
                u.step.clone(),
                u.tier.clone(),
                u.model.clone(),
                u.calls.to_string(),
                count(u.input),
                count(u.output),
                count(u.cached),
                count(u.cache_write),
                cost(u.cost),
                wall(u.wall_ms),
            ]
        })
        .collect();
    if review.usage.len() > 1 {
        rows.push(total_row(review));
    }
    rows
}

fn total_row(review: &Review) -> [String; 10] {
    let u = &review.usage;
    let known: Vec<f64> = u.iter().filter_map(|s| s.cost).collect();
    let total_cost = match known.len() {
        0 => crate::number::UNKNOWN_COST.to_string(),
        n if n == u.len() => cost(Some(known.iter().sum())),
        _ => format!("{} + {}", cost(Some(known.iter().sum())), crate::number::UNKNOWN_COST),
    };
    [
        "total".to_string(),
        String::new(),
        String::new(),
        u.iter().map(|s| s.calls).sum::<u32>().to_string(),
        count(u.iter().map(|s| s.input).sum()),
        count(u.iter().map(|s| s.output).sum()),
        count(u.iter().map(|s| s.cached).sum()),
        count(u.iter().map(|s| s.cache_write).sum()),
        total_cost,
        String::new(),
    ]
}

/// The header's "provider … · rules …" line, leaving out what is unknown (a
/// skipped review may know neither); `None` when nothing is known.
pub(crate) fn provider_line(review: &Review, show: impl Fn(&str) -> String) -> Option<String> {
    let parts: Vec<String> = [("provider", &review.provider), ("rules", &review.rules_version)]
        .into_iter()
        .filter(|(_, value)| !value.trim().is_empty())
        .map(|(label, value)| format!("{label} {}", show(value)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// How the reports head a validator's answer. Code overrides a disproof it could
/// not check (the finding then carries a `gap`): that text is the validator's
/// rejected disproof, not a reason the finding stands.
pub(crate) fn validator_label(p: &gauntlet_review::review::Published) -> (&'static str, &'static str) {
    if p.gap.is_some() { ("the validator's rejected disproof", "rejected because") } else { ("validator", "gap") }
}

/// Escape control characters (ESC, CR, BEL, ...) other than newline and tab, and
/// break Azure Pipelines' `##vso[` logging-command prefix (acted on anywhere in a
/// line of a job's output) by escaping its first character.
pub(crate) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let command = s[i..].get(..6).is_some_and(|p| p.eq_ignore_ascii_case("##vso["));
        if (c.is_control() && c != '\n' && c != '\t') || command {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// [`clean`], with line breaks folded into spaces.
pub(crate) fn one_line(s: &str) -> String {
    clean(s).split(['\n', '\t']).collect::<Vec<_>>().join(" ")
}

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("{n} {one}") } else { format!("{n} {many}") }
}

/// A drop reason as the JSON report spells it (`unverified_disproof`).
pub(crate) fn drop_reason(reason: &DropReason) -> String {
    match serde_json::to_value(reason) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{reason:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_group_thousands() {
        let cases = [(0, "0"), (999, "999"), (1_000, "1,000"), (12_345, "12,345")];
        for (n, want) in cases.into_iter().chain([(1_234_567, "1,234,567")]) {
            assert_eq!(count(n), want);
        }
    }

    #[test]
    fn revs_and_walls() {
        assert_eq!(short_rev("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"), "9f86d081884c");
        assert_eq!(short_rev("origin/main"), "origin/main");
        assert_eq!(short_rev("deadbeef"), "deadbeef");
        assert_eq!(wall(999), "999ms");
        assert_eq!(wall(1_050), "1.1s");
        assert_eq!(wall(125_000), "2m05s");
        assert_eq!(cost(None), "unknown");
        assert_eq!(cost(Some(f64::NAN)), "unknown");
    }
}
