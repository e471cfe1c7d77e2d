//! Validate: one fresh session per finding (a cluster's representative, see
//! [`super::judge`]) tries to disprove it, reading more code
//! through tools where the provider has them. Code then checks that a disproof
//! rests on text the validator was shown or read; an unchecked disproof is re-asked
//! once and otherwise kept as `survives` with the gap recorded.

use super::Ctx;
use super::ask::{Failure, ask};
use super::find::step_limit_gap;
use crate::contract::{Verdict, VerdictKind, parse_verdict, verdict_schema};
use crate::enclosing::enclosing;
use crate::finding::{Finding, Judged};
use crate::ground::{UNREAD_CONFIDENCE_CAP, check_certainty, check_disproof};
use crate::shown::Shown;
use crate::tools::Toolbox;
use gauntlet_model::{Request, Schema, Turn};

/// Confidence given to a survivor whose disproof could not be checked.
const UNVERIFIED_CONFIDENCE: u8 = 25;
/// Definitions longer than this are not widened into a validator's region.
const MAX_ENCLOSING_LINES: u32 = 400;

/// What a validator is shown of the code before its first read: the numbered
/// lines around the finding (`around`, never anything else), the other files'
/// code its reviewer was given (`elsewhere`, each under its path), and the shown
/// record of exactly that text.
pub(crate) struct Region {
    pub around: String,
    pub elsewhere: String,
    pub shown: Shown,
}

/// The code around a finding. Without tools the window grows to the enclosing
/// function or class, since the validator cannot read further by itself.
fn region(ctx: &Ctx<'_>, f: &Finding, with_tools: bool) -> Region {
    let mut shown = Shown::default();
    let around = match ctx.input.head.text(&f.location.path) {
        Some(text) => around(&text, &f.location, ctx.opts.region_lines, with_tools, &mut shown),
        None => format!("({} could not be read at head)", f.location.path),
    };
    let mut elsewhere = String::new();
    for range in reviewer_code(ctx, f) {
        let lines: Vec<&str> = range.lines.iter().map(String::as_str).collect();
        shown.add_range(&range.path, range.start, &lines);
        elsewhere.push_str(&format!("{}:\n{}", range.path, crate::listing::numbered(range.start, &lines)));
    }
    Region { around, elsewhere, shown }
}

/// The numbered window of `text` around the finding, recorded in `shown`.
fn around(text: &str, at: &crate::contract::Location, pad: u32, with_tools: bool, shown: &mut Shown) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len() as u32;
    if at.start == 0 || at.start > last {
        return format!("({} has no line {}; it has {last} lines)", at.path, at.start);
    }
    let (from, to) = (at.start, at.end.min(last));
    let mut start = from.saturating_sub(pad).max(1);
    let mut end = to.saturating_add(pad).min(last);
    if !with_tools && let Some((a, b)) = enclosing(&lines, from, to, MAX_ENCLOSING_LINES) {
        start = start.min(a).max(1);
        end = end.max(b).min(last);
    }
    let slice = &lines[(start - 1) as usize..end as usize];
    shown.add_range(&at.path, start, slice);
    format!("{}:\n{}", at.path, crate::listing::numbered(start, slice))
}

/// Lines of other files' code given to the validator at most.
const MAX_CONTEXT_LINES: usize = 300;

/// Head code the finding's reviewer was given as its own context (a contract's
/// consumers, design tokens), outside the finding's file: the claim is judged
/// against the code it was raised from, which the shared block does not hold.
fn reviewer_code<'a>(ctx: &'a Ctx<'_>, f: &Finding) -> Vec<&'a crate::context::CodeRange> {
    let Some(reviewer) = ctx.input.reviewers.iter().find(|r| r.name == f.reviewer) else {
        return Vec::new();
    };
    let part: Vec<&str> = ctx.paths().collect();
    let mut budget = MAX_CONTEXT_LINES;
    let mut out = Vec::new();
    let ranges = reviewer.gathered.iter().filter(|b| b.concerns(part.iter().copied())).flat_map(|b| &b.code);
    for range in ranges.filter(|r| r.path != f.location.path) {
        if range.lines.len() > budget {
            break;
        }
        budget -= range.lines.len();
        out.push(range);
    }
    out
}

fn parse(text: &str) -> Result<Verdict, String> {
    parse_verdict(text).map_err(|e| e.to_string())
}

/// Whether a disproof is grounded in what this validator saw, all of it at once:
/// the shared context, its own region and every read of its tools in any turn.
/// (Checking each record on its own rejected a disproof whose citations sit in
/// two of them, and then reported the first record's reason, which was false.)
fn disproof_gap(ctx: &Ctx<'_>, region: &Shown, tools: &Option<Toolbox<'_>>, v: &Verdict) -> Option<String> {
    if v.verdict != VerdictKind::Disproved {
        return None;
    }
    let mut records = vec![ctx.shown(), region];
    records.extend(tools.iter().map(|t| &t.reads.shown));
    check_disproof(&v.evidence, &records).err()
}

/// A survivor that claims to be verified (above the cap) on code it never saw is
/// held to the cap; returns the confidence it keeps and, when capped, why.
fn certainty(
    ctx: &Ctx<'_>,
    region: &Shown,
    tools: &Option<Toolbox<'_>>,
    f: &Finding,
    v: &Verdict,
) -> (u8, Option<String>) {
    if v.verdict != VerdictKind::Survives || v.confidence <= UNREAD_CONFIDENCE_CAP {
        return (v.confidence, None);
    }
    let mut records = vec![ctx.shown(), region];
    records.extend(tools.iter().map(|t| &t.reads.shown));
    match check_certainty(&f.claim, &v.evidence, &records) {
        Ok(()) => (v.confidence, None),
        Err(why) => {
            let note = format!("confidence {} held to {UNREAD_CONFIDENCE_CAP}: {why}", v.confidence);
            (UNREAD_CONFIDENCE_CAP, Some(note))
        }
    }
}

pub(crate) async fn one(ctx: &Ctx<'_>, f: &Finding, strict: bool) -> Result<Judged, Failure> {
    let tier = ctx.opts.route(ctx.opts.validator_tier);
    let mut tools = ctx.toolbox(tier);
    let region = region(ctx, f, tools.is_some());
    let mut turn = crate::prompt::validator(
        &f.location.to_string(),
        &f.claim,
        (&region.around, &region.elsewhere),
        strict,
        &ctx.input.fence,
    );
    if let Some(t) = &tools {
        turn.push_str(&crate::prompt::tools(t.limits().max_steps, true));
    }
    let step = if strict { "revalidate" } else { "validate" };
    let req = Request {
        shared: ctx.shared.clone(),
        turns: vec![Turn::user(turn)],
        schema: Some(Schema { name: "report_verdict".into(), json: verdict_schema() }),
        tools: if tools.is_some() { crate::tools::definitions() } else { Vec::new() },
        max_tokens: 1024,
        tier,
        step: step.into(),
        reviewer: Some(f.reviewer.clone()),
    };
    let (mut verdict, mut conversation) = ask(ctx, req, &mut tools, parse).await?;
    let mut gap = disproof_gap(ctx, &region.shown, &tools, &verdict);
    if let Some(reason) = &gap {
        conversation.turns.push(Turn::user(crate::prompt::reask(reason, false)));
        (verdict, _) = ask(ctx, conversation, &mut tools, parse).await?;
        gap = disproof_gap(ctx, &region.shown, &tools, &verdict);
    }
    let (confidence, capped) = certainty(ctx, &region.shown, &tools, f, &verdict);
    let reads = tools.map(|t| t.reads).unwrap_or_default();
    if reads.limit_hit {
        ctx.push_gap(step_limit_gap(step, &f.reviewer, Some(&f.id), ctx.opts.tools.max_steps));
    }
    let read: Vec<String> = reads.files.into_iter().collect();
    Ok(match gap {
        None => Judged {
            finding: f.clone(),
            verdict: verdict.verdict,
            confidence,
            impact: verdict.impact,
            validator_evidence: verdict.evidence,
            capped,
            gap: None,
            read,
            raised_by: vec![f.reviewer.clone()],
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        },
        Some(reason) => Judged {
            finding: f.clone(),
            verdict: VerdictKind::Survives,
            confidence: UNVERIFIED_CONFIDENCE,
            impact: verdict.impact,
            validator_evidence: verdict.evidence,
            capped: None,
            gap: Some(reason),
            read,
            raised_by: vec![f.reviewer.clone()],
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Location;

    fn source() -> String {
        let mut text = String::from("import os\n\n");
        for f in 0..20 {
            text.push_str(&format!("def f{f}(x):\n    if x:\n        return {f}\n    return None\n\n"));
        }
        text
    }

    #[test]
    fn the_region_always_holds_the_findings_lines_and_only_that_file() {
        let text = source();
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.len() as u32;
        for with_tools in [true, false] {
            for pad in [0, 3, 30] {
                for start in 1..=last {
                    for end in [start, (start + 6).min(last)] {
                        let at = Location { path: "m.py".into(), start, end };
                        let mut shown = Shown::default();
                        let region = around(&text, &at, pad, with_tools, &mut shown);
                        assert!(region.starts_with("m.py:\n"), "{region}");
                        for n in start..=end {
                            let row = format!("{n:>5} | {}\n", lines[n as usize - 1]);
                            assert!(region.contains(&row), "line {n} missing for {at} (pad {pad}):\n{region}");
                        }
                        let rows: Vec<&str> = region.lines().skip(1).collect();
                        let first: u32 = rows[0].split('|').next().unwrap().trim().parse().unwrap();
                        for (i, row) in rows.iter().enumerate() {
                            let n = first + i as u32;
                            assert_eq!(*row, format!("{n:>5} | {}", lines[n as usize - 1]), "rows follow the file");
                        }
                        assert!(shown.covers("m.py", start, end));
                    }
                }
            }
        }
    }

    #[test]
    fn a_location_past_the_end_says_so_instead_of_an_empty_block() {
        let at = Location { path: "m.py".into(), start: 500, end: 501 };
        let region = around("a\nb\n", &at, 30, true, &mut Shown::default());
        assert_eq!(region, "(m.py has no line 500; it has 2 lines)");
    }
}
