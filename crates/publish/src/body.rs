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
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use std::fmt::Write as _;

mod dismissals;
mod fix;
mod unapplied;

pub use dismissals::{DismissalLines, MAX_IGNORED_LINES, dismissal_lines};
use fix::plural;
pub use fix::{PATCH_CHARS, PATCH_LINES, fix};

/// Hosts cap comment size (GitHub at 65,536 characters); the overview stays
/// under this, leaving room for the marker and the closing lines.
pub const OVERVIEW_LIMIT: usize = 60_000;

const BANNER: &str = "**Resolved:**";

/// The body of an inline comment for `p`.
pub fn inline(p: &Published) -> String {
    inline_with(p, None)
}

/// [`inline`] with a section about a reviewed fix (from [`fix`]) before the
/// closing line.
pub fn inline_with(p: &Published, fix: Option<&str>) -> String {
    let marker = FindingMarker { id: p.id.clone(), resolved: false, era: None };
    let mut out = marker.render();
    let _ = write!(out, "{}\n\n{}\n\n", header(p), text(&p.claim));
    out.push_str(&fenced(&p.evidence));
    out.push_str(&validator_answer(p, "validator confidence"));
    also(&mut out, p);
    out.push_str(fix.unwrap_or_default());
    let _ = writeln!(
        out,
        "_gauntlet · finding {} · not a real problem? Reply `/gauntlet dismiss REASON` (or `/gauntlet false-positive \
         REASON`) as the first line, resolve the thread, or react with a thumbs-down where the host has reactions; \
         only people with write access to the repository can dismiss._",
        code(&p.id)
    );
    out
}

/// The validator's answer, headed for what it is: why the finding stands, or,
/// where code could not check a disproof (the finding carries a `gap`), the
/// validator's rejected disproof and why it was rejected.
fn validator_answer(p: &Published, confidence: &str) -> String {
    let answer = paragraph(&p.validator_evidence);
    match &p.gap {
        Some(gap) => format!("**The validator's rejected disproof** ({}): {answer}\n\n", text(gap)),
        None => format!("**Why it stands** ({confidence} {}): {answer}\n\n", p.confidence),
    }
}

/// The line that says what kind of finding this is. A change here (severity,
/// lens, reviewer) is a change worth editing the comment for.
pub fn header(p: &Published) -> String {
    let who = match &p.raised_by[..] {
        [] => format!("reviewer {}", code(&p.reviewer)),
        [one] => format!("reviewer {}", code(one)),
        many => format!("raised by {}", many.iter().map(|r| code(r)).collect::<Vec<_>>().join(", ")),
    };
    format!("**{}** · {} · {who}", p.severity.as_str(), p.lens.as_str().replace('_', " "))
}

/// Where else a cross-file defect shows, and the test gaps folded into it.
fn also(out: &mut String, p: &Published) {
    if !p.also_at.is_empty() {
        let at: Vec<String> = p.also_at.iter().map(|a| code(a)).collect();
        let _ = write!(out, "**Also at** {} (the same defect; this is its only comment).\n\n", at.join(", "));
    }
    for line in &p.unvalidated {
        let _ = write!(out, "**Also raised, not validated:** {}\n\n", paragraph(line));
    }
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

/// The severity a body [`inline`] wrote names in its header (`**high** · …`).
pub fn severity(body: &str) -> Option<Severity> {
    let header = parse(body)?.header;
    match header.strip_prefix("**")?.split("**").next()? {
        "high" => Some(Severity::High),
        "medium" => Some(Severity::Medium),
        "low" => Some(Severity::Low),
        _ => None,
    }
}

/// The body of a comment the pipeline resolves: the old text under a banner,
/// its marker saying the pipeline did it.
pub fn resolved(body: &str, id: &str, head: &str) -> String {
    // The era stays the one the finding was raised in.
    let era = FindingMarker::parse(body).and_then(|m| m.era);
    let marker = FindingMarker { id: id.to_string(), resolved: true, era };
    let old = strip(body);
    let old = old.strip_prefix(BANNER).map_or(old, |rest| rest.split_once("\n\n").map_or("", |(_, r)| r));
    let old = retire_suggestions(old);
    format!("{}{BANNER} gauntlet no longer finds this at {}.\n\n{old}", marker.render(), code(short(head)))
}

/// `text` with every suggestion block turned into a plain code block: a resolved
/// finding's fix must not stay one click from being applied. Only fences that open
/// a block change; lines inside a block are content and stay as they are.
fn retire_suggestions(text: &str) -> String {
    let mut open: Option<usize> = None;
    let mut out = Vec::new();
    for line in text.split('\n') {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            Some(n) if ticks >= n && line[ticks..].trim().is_empty() => {
                open = None;
                out.push(line.to_string());
            }
            Some(_) => out.push(line.to_string()),
            None if ticks >= 3 => {
                open = Some(ticks);
                let info = &line[ticks..];
                if info.starts_with("suggestion") {
                    out.push(format!("{}text", &line[..ticks]));
                } else {
                    out.push(line.to_string());
                }
            }
            None => out.push(line.to_string()),
        }
    }
    out.join("\n")
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
    /// What people did to dismiss findings, from [`dismissal_lines`].
    pub dismissals: DismissalLines,
    /// Files that decide how gauntlet reviews which the pull request changes
    /// (see [`crate::Request::unapplied_rules`]).
    pub unapplied_rules: Vec<String>,
}

/// The overview's section on dismissals, cut short before [`OVERVIEW_LIMIT`].
fn dismissal_section(out: &mut String, lines: &DismissalLines) {
    let parts = [
        ("Dismissed (not raised again):", &lines.counted),
        ("Dismissals that did not count (the finding stands):", &lines.ignored),
    ];
    if parts.iter().all(|(_, l)| l.is_empty()) {
        return;
    }
    out.push_str("### Dismissals\n\n");
    for (title, list) in parts.iter().filter(|(_, l)| !l.is_empty()) {
        let _ = writeln!(out, "{title}\n");
        for line in *list {
            if out.len() + line.len() > OVERVIEW_LIMIT {
                out.push_str("- …more: see the pull request's threads.\n");
                break;
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
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
        "**Funnel:** candidates {} → grounded {} → survived {} → published {}{}\n",
        f.candidates,
        f.grounded,
        f.survived,
        f.published,
        if f.minor > 0 { format!(", minor {}", f.minor) } else { String::new() }
    );
    let _ = writeln!(out, "{}\n", summary(review, facts));
    for note in &facts.notes {
        let _ = writeln!(out, "- {}", text(note));
    }
    if !facts.notes.is_empty() {
        out.push('\n');
    }
    unapplied::section(&mut out, &facts.unapplied_rules);
    findings(&mut out, "Findings not placed inline", &facts.findings, true);
    let unverified: Vec<&Published> = review.unverified.iter().collect();
    findings(&mut out, "Could not be verified either way (not published: check by hand)", &unverified, false);
    // Coverage before dismissals: what was not reviewed must survive the size cap.
    coverage(&mut out, review);
    minor(&mut out, review);
    dismissal_section(&mut out, &facts.dismissals);
    out
}

/// Verified findings the validator judged minor: one line each, here and nowhere
/// else on the pull request (never a thread, never a gate), so nothing verified is
/// hidden and nothing minor competes with what matters.
fn minor(out: &mut String, review: &Review) {
    if review.minor.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Minor (verified, not published as comments)\n");
    for (i, p) in review.minor.iter().enumerate() {
        let line =
            format!("- {} · {} · {}: {}\n", code(&p.location), p.severity.as_str(), code(&p.reviewer), text(&p.claim));
        if out.len() + line.len() > OVERVIEW_LIMIT {
            let _ = writeln!(out, "- …and {} more: see the job log.", review.minor.len() - i);
            break;
        }
        out.push_str(&line);
    }
    out.push('\n');
}

fn summary(review: &Review, facts: &OverviewFacts<'_>) -> String {
    let mut parts = vec![format!(
        "{} published: {} as inline comments, {} below.",
        plural(review.published.len(), "finding", "findings"),
        facts.inline,
        facts.findings.len()
    )];
    if review.published.is_empty() {
        // The same words the report formats use: an incomplete review is no clean bill.
        parts = vec![match gauntlet_report::coverage::counts(review) {
            None if !review.minor.is_empty() => {
                format!(
                    "No findings published; {} (see below).",
                    plural(review.minor.len(), "minor finding", "minor findings")
                )
            }
            None => "No findings.".to_string(),
            Some(counts) => format!("No findings published, but coverage is incomplete: {counts} (see below)."),
        }];
    }
    if facts.dismissed > 0 {
        parts.push(format!("{} dismissed earlier, not raised again.", plural(facts.dismissed, "finding", "findings")));
    }
    parts.join(" ")
}

/// A section of findings, cut short (with a count of what was left out) before
/// the overview would outgrow [`OVERVIEW_LIMIT`].
/// `dismissable`: the findings are published and have no thread, so each says
/// how to dismiss it by id.
fn findings(out: &mut String, title: &str, list: &[&Published], dismissable: bool) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "### {title}\n");
    for (i, p) in list.iter().enumerate() {
        let mut item = format!("#### {}. {} · {}\n\n", i + 1, p.severity.as_str(), code(&p.location));
        let _ = write!(item, "{}\n\n{}\n\n", header(p), text(&p.claim));
        item.push_str(&fenced(&p.evidence));
        item.push_str(&validator_answer(p, "confidence"));
        also(&mut item, p);
        if dismissable {
            let _ = write!(
                item,
                "_Not a real problem? Comment on the pull request with `/gauntlet dismiss {} REASON` as the first \
                 line; only people with write access to the repository can dismiss._\n\n",
                p.id.chars().filter(char::is_ascii_alphanumeric).collect::<String>()
            );
        }
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

#[cfg(test)]
mod retire_tests {
    use super::retire_suggestions;

    #[test]
    fn suggestion_blocks_become_plain_code_and_their_content_stays() {
        let body = "Claim.\n\n````suggestion\nlet x = 1;\n```suggestion\n````\n\n```suggestion:-1+0\ny\n```\n\n```rust\nz\n```";
        let want = "Claim.\n\n````text\nlet x = 1;\n```suggestion\n````\n\n```text\ny\n```\n\n```rust\nz\n```";
        assert_eq!(retire_suggestions(body), want);
    }
}

#[cfg(test)]
mod answer_tests {
    use super::*;
    use gauntlet_review::contract::{Lens, Severity};

    fn unverified() -> Published {
        Published {
            id: "f1".into(),
            reviewer: "security-privacy".into(),
            raised_by: vec!["security-privacy".into()],
            lens: Lens::HiddenAssumption,
            location: "src/api.py:3".into(),
            inline: true,
            claim: "The export route has no ownership check.".into(),
            evidence: "def export(user_id):".into(),
            severity: Severity::High,
            confidence: 25,
            validator_evidence: "gateway/policy.rego:12 the gateway checks ownership".into(),
            gap: Some("disproof cited gateway/policy.rego:12, which was never shown or read".into()),
            read: Vec::new(),
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        }
    }

    /// One defect in two files with a test gap folded into it, as clustering
    /// publishes it.
    fn clustered() -> Published {
        Published {
            id: "5e0c1d2b3a4f6e7d".into(),
            reviewer: "correctness".into(),
            raised_by: vec!["contract-drift".into(), "correctness".into(), "tests".into()],
            location: "api/users.py:4".into(),
            claim: "The response key `name` replaces `display_name`, so every client reading the old key breaks."
                .into(),
            evidence: "\"name\": user.display_name,".into(),
            confidence: 100,
            validator_evidence: "api/users.py:4 `\"name\": user.display_name,` renames the key".into(),
            gap: None,
            also_at: vec!["web/client.ts:4".into()],
            unvalidated: vec![
                "`tests` at tests/test_users.py:12-14: No test reads `display_name` from `to_json`.".into(),
                "`tests` at web/client.test.ts:3: Nothing tests `loadUser` against the new key.".into(),
            ],
            ..unverified()
        }
    }

    #[test]
    fn an_inline_comment_names_the_other_places_and_the_unvalidated_test_gaps() {
        let body = inline(&clustered());
        assert!(body.contains("**Also at** `web/client.ts:4` (the same defect; this is its only comment)."), "{body}");
        assert_eq!(body.matches("**Also raised, not validated:** ").count(), 2, "{body}");
        let (also, closing) = (body.find("**Also at**").unwrap(), body.find("_gauntlet · finding").unwrap());
        assert!(body.find("**Why it stands**").unwrap() < also && also < closing, "after the answer, before the end");
        insta::assert_snapshot!(body);
    }

    #[test]
    fn a_finding_the_overview_holds_keeps_its_other_places_and_test_gaps() {
        let p = Published { inline: false, ..clustered() };
        let review = Review { published: vec![p.clone()], ..Review::default() };
        let marker = super::overview_tests::marker();
        let facts = OverviewFacts { findings: vec![&p], ..OverviewFacts::default() };
        let body = overview(&review, &marker, &facts);
        assert!(body.contains("**Also at** `web/client.ts:4`"), "{body}");
        assert_eq!(body.matches("**Also raised, not validated:** ").count(), 2, "{body}");
    }

    #[test]
    fn an_unchecked_disproof_is_headed_as_the_validators_rejected_disproof() {
        let review = Review { unverified: vec![unverified()], ..Review::default() };
        let marker = super::overview_tests::marker();
        let body = overview(&review, &marker, &OverviewFacts::default());
        assert!(body.contains("**The validator's rejected disproof** (disproof cited"), "{body}");
        assert!(!body.contains("Why it stands"), "{body}");
        let stands = Published { gap: None, confidence: 75, ..unverified() };
        assert!(inline(&stands).contains("**Why it stands** (validator confidence 75): gateway/policy.rego:12"));
    }
}

#[cfg(test)]
mod overview_tests {
    use super::*;
    use crate::dismissal::{Dismissals, Form, Ignored, Verb, Why};
    use crate::host::{Handle, Person, Thread};
    use gauntlet_review::review::{Gap, NotReviewed};

    pub(super) fn marker() -> OverviewMarker {
        OverviewMarker {
            head: "abc".into(),
            rules: "r".into(),
            config: "c".into(),
            held: None,
            era: None,
            gone: Vec::new(),
            incomplete: false,
            open: None,
        }
    }

    fn gappy() -> Review {
        let gap = Gap {
            step: "find".into(),
            reviewer: Some("security".into()),
            finding: None,
            message: "timed out".into(),
            failed: true,
        };
        let skipped = NotReviewed { path: "src/big.rs".into(), reason: "too large".into(), ignored: false };
        Review { gaps: vec![gap], not_reviewed: vec![skipped], ..Review::default() }
    }

    #[test]
    fn an_incomplete_review_with_nothing_published_does_not_say_no_findings() {
        let body = overview(&gappy(), &marker(), &OverviewFacts::default());
        assert!(!body.contains("No findings."), "{body}");
        assert!(
            body.contains("No findings published, but coverage is incomplete: 1 coverage gap, 1 file not reviewed")
        );
        let clean = overview(&Review::default(), &marker(), &OverviewFacts::default());
        assert!(clean.contains("No findings."), "{clean}");
    }

    #[test]
    fn ignored_attempts_are_capped_and_coverage_comes_before_them() {
        let threads: Vec<Thread> = (0..200)
            .map(|i| Thread {
                handle: Handle { thread: format!("t{i}"), comment: format!("c{i}") },
                path: format!("src/f{i}.rs"),
                body: format!("<!-- gauntlet:finding v1 id=f{i} -->\n\nclaim"),
                resolved: false,
                resolved_by: None,
                replies: vec![],
                thumbs_down: vec![],
            })
            .collect();
        // 200 people (a long reason each, as the host's answer would be) and one who tried 5 times.
        let mut ignored: Vec<Ignored> = (0..200)
            .map(|i| Ignored {
                thread: i,
                by: Person { id: format!("u{i}"), name: format!("user{i}") },
                form: Form::Reaction,
                why: Why::Unchecked("x".repeat(400)),
            })
            .collect();
        let repeat = Person { id: "m".into(), name: "mallory".into() };
        ignored.splice(
            0..0,
            (0..5).map(|t| Ignored {
                thread: t,
                by: repeat.clone(),
                form: Form::Command(Verb::Dismiss),
                why: Why::NoWrite,
            }),
        );
        let lines = dismissal_lines(&threads, &Dismissals { ignored, ..Dismissals::default() });
        assert_eq!(lines.ignored.len(), MAX_IGNORED_LINES + 1, "{:?}", lines.ignored);
        assert!(
            lines.ignored[0].starts_with("- 5 findings: mallory replied `/gauntlet dismiss`"),
            "{}",
            lines.ignored[0]
        );
        assert!(lines.ignored[MAX_IGNORED_LINES].contains("and 191 more"), "{}", lines.ignored[MAX_IGNORED_LINES]);
        let facts = OverviewFacts { dismissals: lines, ..OverviewFacts::default() };
        let body = overview(&gappy(), &marker(), &facts);
        let (coverage, dismissals) = (body.find("### Coverage").unwrap(), body.find("### Dismissals").unwrap());
        assert!(coverage < dismissals && body.contains("not reviewed: `src/big.rs`"), "{body}");
    }
}
