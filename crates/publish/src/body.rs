//! The text of the comments gauntlet posts.
//!
//! Every piece of model text (claims, evidence, validator answers, error
//! messages) goes through the report crate's Markdown escaping: no raw HTML
//! (so no hidden comment can forge a marker), no links or images, no
//! @-mentions. Evidence sits in a code fence longer than any backtick run it
//! holds, where hosts render nothing.

use crate::marker::{FindingMarker, OverviewMarker, strip};
use gauntlet_report::markdown::{code, fenced, paragraph, text};
use gauntlet_review::Review;
use gauntlet_review::review::Published;
use std::fmt::Write as _;

/// Hosts cap comment size (GitHub at 65,536 characters); the overview stays
/// under this, leaving room for the marker and the closing lines.
pub const OVERVIEW_LIMIT: usize = 60_000;

const BANNER: &str = "**Resolved:**";

/// The body of an inline comment for `p`.
pub fn inline(p: &Published) -> String {
    let marker = FindingMarker { id: p.id.clone(), resolved: false };
    let mut out = marker.render();
    let _ = write!(out, "{}\n\n{}\n\n", header(p), text(&p.claim));
    out.push_str(&fenced(&p.evidence));
    let _ = write!(
        out,
        "**Why it stands** (validator confidence {}): {}\n\n",
        p.confidence,
        paragraph(&p.validator_evidence)
    );
    let _ = writeln!(
        out,
        "_gauntlet · finding {} · resolve this thread or reply \"won't fix\" or \"false positive\" and it will not be raised again._",
        code(&p.id)
    );
    out
}

/// The line that says what kind of finding this is. A change here (severity,
/// lens, reviewer) is a change worth editing the comment for.
pub fn header(p: &Published) -> String {
    format!("**{}** · {} · reviewer {}", p.severity.as_str(), p.lens.as_str().replace('_', " "), code(&p.reviewer))
}

/// The header and the (escaped) claim of a body [`inline`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub header: String,
    pub claim: String,
}

pub fn parse(body: &str) -> Option<Parsed> {
    let body = body.replace("\r\n", "\n");
    let mut blocks = strip(&body).split("\n\n").filter(|b| !b.trim().is_empty());
    let mut first = blocks.next()?;
    if first.starts_with(BANNER) {
        first = blocks.next()?;
    }
    Some(Parsed { header: first.trim().to_string(), claim: blocks.next()?.trim().to_string() })
}

/// The body of a comment the pipeline resolves: the old text under a banner,
/// its marker saying the pipeline did it.
pub fn resolved(body: &str, id: &str, head: &str) -> String {
    let marker = FindingMarker { id: id.to_string(), resolved: true };
    let old = strip(body);
    let old = old.strip_prefix(BANNER).map_or(old, |rest| rest.split_once("\n\n").map_or("", |(_, r)| r));
    format!("{}{BANNER} gauntlet no longer finds this at {}.\n\n{old}", marker.render(), code(short(head)))
}

fn short(rev: &str) -> &str {
    if rev.len() > 12 && rev.chars().all(|c| c.is_ascii_hexdigit()) { &rev[..12] } else { rev }
}

/// What the overview says besides the review itself.
#[derive(Clone, Debug, Default)]
pub struct OverviewFacts<'a> {
    /// Findings placed in the overview (outside the diff, or over the cap).
    pub findings: Vec<&'a Published>,
    /// Open inline comments after this run.
    pub inline: usize,
    /// Findings a person dismissed earlier and that were not raised again.
    pub dismissed: usize,
    /// How the run went, in gauntlet's words (incremental range, cap reached, ...).
    pub notes: Vec<String>,
}

/// The overview body: marker, summary, the findings not posted inline, what
/// could not be verified, coverage gaps and files not reviewed.
pub fn overview(review: &Review, marker: &OverviewMarker, facts: &OverviewFacts<'_>) -> String {
    let mut out = marker.render();
    out.push_str("## gauntlet review\n\n");
    let range = format!("{}..{}", short(&review.base), short(&review.head));
    let _ = writeln!(
        out,
        "{} · rules {} · provider {}\n",
        code(&range),
        code(&review.rules_version),
        code(&review.provider)
    );
    let f = &review.funnel;
    let _ = writeln!(
        out,
        "**Funnel:** candidates {} → grounded {} → survived {} → published {}\n",
        f.candidates, f.grounded, f.survived, f.published
    );
    let _ = writeln!(out, "{}\n", summary(review, facts));
    for note in &facts.notes {
        let _ = writeln!(out, "- {}", text(note));
    }
    if !facts.notes.is_empty() {
        out.push('\n');
    }
    findings(&mut out, "Findings not placed inline", &facts.findings);
    let unverified: Vec<&Published> = review.unverified.iter().collect();
    findings(&mut out, "Could not be verified either way (not published: check by hand)", &unverified);
    coverage(&mut out, review);
    out
}

fn summary(review: &Review, facts: &OverviewFacts<'_>) -> String {
    let mut parts = vec![format!(
        "{} published: {} as inline comments, {} below.",
        plural(review.published.len(), "finding", "findings"),
        facts.inline,
        facts.findings.len()
    )];
    if review.published.is_empty() {
        parts = vec!["No findings.".to_string()];
    }
    if facts.dismissed > 0 {
        parts.push(format!("{} dismissed earlier, not raised again.", plural(facts.dismissed, "finding", "findings")));
    }
    parts.join(" ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A section of findings, cut short (with a count of what was left out) before
/// the overview would outgrow [`OVERVIEW_LIMIT`].
fn findings(out: &mut String, title: &str, list: &[&Published]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "### {title}\n");
    for (i, p) in list.iter().enumerate() {
        let mut item = format!("#### {}. {} · {}\n\n", i + 1, p.severity.as_str(), code(&p.location));
        let _ = write!(item, "{}\n\n{}\n\n", header(p), text(&p.claim));
        item.push_str(&fenced(&p.evidence));
        let _ =
            write!(item, "**Why it stands** (confidence {}): {}\n\n", p.confidence, paragraph(&p.validator_evidence));
        if out.len() + item.len() > OVERVIEW_LIMIT {
            let _ = writeln!(out, "…and {} more: see the job log for the full review.\n", list.len() - i);
            return;
        }
        out.push_str(&item);
    }
}

fn coverage(out: &mut String, review: &Review) {
    let mut lines = Vec::new();
    for g in &review.gaps {
        let who = g.reviewer.as_deref().map(|r| format!(" · reviewer {}", code(r))).unwrap_or_default();
        lines.push(format!("- coverage gap in **{}**{who}: {}", text(&g.step), text(&g.message)));
    }
    for n in &review.not_reviewed {
        lines.push(format!("- not reviewed: {}: {}", code(&n.path), text(&n.reason)));
    }
    if lines.is_empty() {
        return;
    }
    out.push_str("### Coverage\n\nThese parts were not reviewed: do not assume they are clean.\n\n");
    for line in lines {
        if out.len() + line.len() > OVERVIEW_LIMIT {
            out.push_str("- …more: see the job log.\n");
            break;
        }
        out.push_str(&line);
        out.push('\n');
    }
}
