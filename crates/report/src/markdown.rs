//! GitHub-flavoured Markdown, for PR comments and job summaries. The escaping
//! helpers are public: the publisher builds its comments with them.
//!
//! Model-provided text is data: outside code it is escaped so it can neither
//! open Markdown structure (links, emphasis, headings, tables) nor carry raw
//! HTML; inside code it goes in spans and fences longer than any backtick run
//! it contains.

use crate::Options;
use crate::fmt::{self, USAGE_HEADERS, USAGE_NUMERIC};
use gauntlet_review::Review;
use gauntlet_review::finding::Dropped;
use gauntlet_review::review::{Gap, Published};
use std::fmt::Write as _;

/// The whole review as one Markdown document.
pub(crate) fn render(review: &Review, opts: &Options) -> String {
    let mut out = String::new();
    header(&mut out, review);
    if let Some(verdict) = crate::coverage::empty_verdict(review) {
        let _ = writeln!(out, "{verdict}\n");
    }
    if !review.published.is_empty() {
        findings_table(&mut out, &review.published);
        out.push_str("### Details\n\n");
        for (i, p) in review.published.iter().enumerate() {
            details(&mut out, &format!("{}.", i + 1), p);
        }
    }
    if !review.minor.is_empty() {
        let _ = writeln!(out, "### Minor findings ({})\n", review.minor.len());
        out.push_str("Verified, but judged minor: not published, never a comment, never gating.\n\n");
        for p in &review.minor {
            let _ = writeln!(out, "- {}", fmt::minor_line(p, code, text));
        }
        out.push('\n');
    }
    if !review.unverified.is_empty() {
        out.push_str("### Could not be verified either way\n\n");
        out.push_str("Not published: check these by hand.\n\n");
        for (i, p) in review.unverified.iter().enumerate() {
            details(&mut out, &format!("U{}.", i + 1), p);
        }
    }
    gaps(&mut out, &review.gaps);
    lists(&mut out, review);
    if opts.verbose {
        dropped(&mut out, &review.dropped);
    }
    usage(&mut out, review);
    out
}

fn header(out: &mut String, review: &Review) {
    out.push_str("## Gauntlet review\n\n");
    let range = format!("{}..{}", fmt::short_rev(&review.base), fmt::short_rev(&review.head));
    match fmt::provider_line(review, code) {
        Some(line) => {
            let _ = writeln!(out, "{} · {line}\n", code(&range));
        }
        None => {
            let _ = writeln!(out, "{}\n", code(&range));
        }
    }
    if !review.reviewers.is_empty() {
        let names: Vec<String> = review.reviewers.iter().map(|r| code(r)).collect();
        let _ = writeln!(out, "Reviewers: {}\n", names.join(", "));
    }
    if let Some(skip) = &review.skipped {
        let _ = writeln!(out, "**Skipped:** {}\n", text(&skip.reason));
    }
    let _ = writeln!(out, "**Funnel:** {}\n", fmt::funnel(&review.funnel));
}

fn findings_table(out: &mut String, published: &[Published]) {
    out.push_str("| # | Severity | Location | Claim | Confidence |\n");
    out.push_str("|---:|---|---|---|---:|\n");
    for (i, p) in published.iter().enumerate() {
        let mut location = code_cell(&p.location);
        if !p.inline {
            location.push_str(" (overview)");
        }
        let _ = writeln!(
            out,
            "| {} | {} | {location} | {} | {} |",
            i + 1,
            p.severity.as_str(),
            text(&p.claim),
            p.confidence
        );
    }
    out.push('\n');
}

fn details(out: &mut String, label: &str, p: &Published) {
    let raised_by: Vec<String> = fmt::raised_by(p).split(", ").map(code).collect();
    let _ = writeln!(out, "#### {label} {} · {}\n", p.severity.as_str(), code(&p.location));
    if !p.inline {
        out.push_str("_Outside the diff: overview._\n\n");
    }
    let _ = writeln!(
        out,
        "Raised by {} · lens {} · confidence {} · id {}\n",
        raised_by.join(", "),
        p.lens.as_str(),
        p.confidence,
        code(&p.id)
    );
    let _ = writeln!(out, "{}\n", paragraph(&p.claim));
    out.push_str(&fenced(&p.evidence));
    let (answer, gap_label) = fmt::validator_label(p);
    let _ = writeln!(out, "**{}:** {}\n", capitalise(answer), paragraph(&p.validator_evidence));
    if let Some(gap) = &p.gap {
        let _ = writeln!(out, "**{}:** {}\n", capitalise(gap_label), paragraph(gap));
    }
    if !p.read.is_empty() {
        let files: Vec<String> = p.read.iter().map(|f| code(f)).collect();
        let _ = writeln!(out, "**Validator read:** {}\n", files.join(", "));
    }
    if !p.also_at.is_empty() {
        let at: Vec<String> = p.also_at.iter().map(|a| code(a)).collect();
        let _ = writeln!(out, "**Also at:** {}\n", at.join(", "));
    }
    for line in &p.unvalidated {
        let _ = writeln!(out, "**Also raised, not validated:** {}\n", paragraph(line));
    }
}

fn gaps(out: &mut String, gaps: &[Gap]) {
    if gaps.is_empty() {
        return;
    }
    out.push_str("### Coverage gaps\n\n");
    out.push_str("These parts of the review did not run: do not assume they are clean.\n\n");
    for (g, reviewers, times) in crate::fmt::repeated_gaps(gaps) {
        let mut what = format!("**{}**", text(&g.step));
        let names: Vec<String> = reviewers.iter().map(|r| code(r)).collect();
        match names.as_slice() {
            [] => {}
            [one] => {
                let _ = write!(what, " · reviewer {one}");
            }
            many => {
                let _ = write!(what, " · reviewers {}", many.join(", "));
            }
        }
        if let Some(f) = &g.finding {
            let _ = write!(what, " · finding {}", code(f));
        }
        let _ = writeln!(out, "- {what}: {}{}", text(&g.message), crate::fmt::times(times));
    }
    out.push('\n');
}

fn lists(out: &mut String, review: &Review) {
    if !review.not_reviewed.is_empty() {
        out.push_str("### Not reviewed\n\n");
        for n in &review.not_reviewed {
            let _ = writeln!(out, "- {}: {}", code(&n.path), text(&n.reason));
        }
        out.push('\n');
    }
    if !review.notes.is_empty() {
        out.push_str("### Notes\n\n");
        for n in &review.notes {
            let _ = writeln!(out, "- {}", defuse_line_start(text(n)));
        }
        out.push('\n');
    }
}

fn dropped(out: &mut String, dropped: &[Dropped]) {
    out.push_str("### Dropped\n\n");
    if dropped.is_empty() {
        out.push_str("Nothing was dropped.\n\n");
        return;
    }
    out.push_str("| Reason | Location | Reviewer | Severity | Claim | Detail |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for d in dropped {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            fmt::drop_reason(&d.reason),
            code_cell(&d.location),
            code_cell(&d.reviewer),
            d.severity.as_str(),
            text(&d.claim),
            text(&d.detail)
        );
    }
    out.push('\n');
}

fn usage(out: &mut String, review: &Review) {
    out.push_str("### Usage\n\n");
    let rows = fmt::usage_rows(review);
    if rows.is_empty() {
        out.push_str("No model calls.\n\n");
    } else {
        let headers: Vec<String> = USAGE_HEADERS.iter().map(|h| capitalise(h)).collect();
        let _ = writeln!(out, "| {} |", headers.join(" | "));
        let align: Vec<&str> = USAGE_NUMERIC.iter().map(|&n| if n { "---:" } else { "---" }).collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| text(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    if let Some(line) = fmt::sessions(review) {
        let _ = writeln!(out, "{}\n", capitalise(&line));
    }
    let _ = writeln!(out, "Total wall time: {}", fmt::wall(review.wall_ms));
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Untrusted text on one line: structure characters backslash-escaped, `<`,
/// `>` and `&` as entities (no raw HTML, so no hidden comments either), line
/// breaks folded into spaces. Safe in paragraphs, list items and table cells.
///
/// Code hosts also act on plain text: `@name` notifies a person, a bare
/// `https://…` or `www.…` becomes a link that could carry data out, and `#12`,
/// `owner/repo#12`, `GH-12` (GitHub), `!12` (GitLab's merge requests, Azure
/// DevOps' pull requests) link to an issue or request and leave a note there
/// that this comment mentions it, though the model only quoted it. An
/// invisible zero-width space after `@`, after the scheme's `:`, before
/// `www`'s dot and between a reference's sigil and its number keeps the text
/// readable while breaking those patterns.
pub fn text(s: &str) -> String {
    let folded = fold(s);
    let chars: Vec<char> = folded.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if is_reference_sigil(&chars, i) {
            out.push(c);
            out.push('\u{200B}');
            continue;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '@' => out.push_str("@\u{200B}"),
            ':' if chars[i + 1..].starts_with(&['/', '/']) => out.push_str(":\u{200B}"),
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => {
                out.push_str("\u{200B}.")
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether `chars[i]` starts the number of an issue or request reference: a
/// `#` or `!`, or the `-` of `GH-`, right before a digit.
fn is_reference_sigil(chars: &[char], i: usize) -> bool {
    let before_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
    let gh =
        chars[i] == '-' && i >= 2 && chars[i - 2].eq_ignore_ascii_case(&'g') && chars[i - 1].eq_ignore_ascii_case(&'h');
    before_digit && (matches!(chars[i], '#' | '!') || gh)
}

/// Untrusted multi-line text as one paragraph: each line escaped like [`text`]
/// and defused at its start (headings, quotes, lists, setext underlines,
/// indented code), joined by hard line breaks.
pub fn paragraph(s: &str) -> String {
    let lines: Vec<String> =
        s.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| defuse_line_start(text(l))).collect();
    lines.join("\\\n")
}

fn defuse_line_start(line: String) -> String {
    if line.starts_with(['#', '-', '+', '=']) {
        return format!("\\{line}");
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(['.', ')']) {
        return format!("{}\\{}", &line[..digits], &line[digits..]);
    }
    line
}

/// An inline code span that holds `s` verbatim (on one line), whatever
/// backticks it contains.
pub fn code(s: &str) -> String {
    let s = fold(s);
    if s.is_empty() {
        return String::new();
    }
    let ticks = "`".repeat(longest_backtick_run(&s) + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// [`code`] for a table cell: pipes escaped for the table parser (GFM removes
/// the backslash before the span is read).
pub fn code_cell(s: &str) -> String {
    code(s).replace('|', "\\|")
}

/// A fenced code block longer than any backtick run in `s`.
pub fn fenced(s: &str) -> String {
    fenced_as("", s)
}

/// [`fenced`] with an info string after the opening fence (`diff`, or a host's
/// `suggestion`). The fence outgrows every backtick run in `s`, so no line of
/// `s` can close it early.
pub fn fenced_as(info: &str, s: &str) -> String {
    let ticks = "`".repeat((longest_backtick_run(s) + 1).max(3));
    let body = s.trim_end_matches(['\n', '\r']);
    format!("{ticks}{info}\n{body}\n{ticks}\n\n")
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Line breaks (and other control characters) folded into single spaces.
fn fold(s: &str) -> String {
    s.split(char::is_control).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ")
}
