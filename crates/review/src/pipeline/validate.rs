//! Validate: one fresh session per finding tries to disprove it. Code then checks
//! that a disproof rests on text the validator was shown; an unchecked disproof is
//! re-asked once and otherwise kept as `survives` with the gap recorded.

use super::ask::{Failure, ask};
use super::{Ctx, not_validated};
use crate::contract::{Verdict, VerdictKind, parse_verdict, verdict_schema};
use crate::finding::{Finding, Judged};
use crate::ground::check_disproof;
use crate::review::{Gap, Review};
use crate::shown::Shown;
use futures::StreamExt;
use gauntlet_model::{Request, Schema, Turn};

/// Confidence given to a survivor whose disproof could not be checked.
const UNVERIFIED_CONFIDENCE: u8 = 25;
/// A rubber stamp is suspected when this many candidates all survive.
const RUBBER_STAMP_MIN: usize = 3;

pub(crate) async fn run_all(ctxs: &[Ctx<'_>], grounded: &[(usize, Finding)], review: &mut Review) -> Vec<Judged> {
    let mut results = pass(ctxs, grounded, false).await;
    let answered = results.iter().filter(|r| r.is_ok()).count();
    let disproved = results.iter().filter(|r| matches!(r, Ok(j) if j.verdict == VerdictKind::Disproved)).count();
    if answered >= RUBBER_STAMP_MIN && disproved == 0 {
        review.notes.push(format!(
            "rubber-stamp check: the validator disproved none of {answered} findings, so every finding was validated \
             again with a stricter instruction; the second answers stand"
        ));
        let second = pass(ctxs, grounded, true).await;
        results = results
            .into_iter()
            .zip(second)
            .zip(grounded)
            .map(|((first, second), (_, f))| match (first, second) {
                (_, Ok(j)) => Ok(j),
                // A re-check that could not run leaves the first answer, with the gap said.
                (Ok(j), Err(message)) => {
                    review.gaps.push(Gap {
                        step: "revalidate".into(),
                        reviewer: Some(f.reviewer.clone()),
                        finding: Some(f.id.clone()),
                        message: format!("the stricter re-check did not run ({message}); the first answer stands"),
                    });
                    Ok(j)
                }
                (Err(e), Err(_)) => Err(e),
            })
            .collect();
    }
    let mut judged = Vec::new();
    for ((_, finding), result) in grounded.iter().zip(results) {
        match result {
            Ok(j) => judged.push(j),
            Err(message) => {
                review.dropped.push(not_validated(finding, &message));
                review.gaps.push(Gap {
                    step: "validate".into(),
                    reviewer: Some(finding.reviewer.clone()),
                    finding: Some(finding.id.clone()),
                    message,
                });
            }
        }
    }
    judged
}

async fn pass(ctxs: &[Ctx<'_>], grounded: &[(usize, Finding)], strict: bool) -> Vec<Result<Judged, Failure>> {
    let concurrency = ctxs.first().map_or(1, |c| c.opts.concurrency.max(1));
    let mut out: Vec<(usize, Result<Judged, Failure>)> = futures::stream::iter(grounded.iter().enumerate())
        .map(|(i, (part, f))| async move { (i, one(&ctxs[*part], f, strict).await) })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// The code around a finding, numbered, and the shown record of exactly that text.
fn region(ctx: &Ctx<'_>, f: &Finding) -> (String, Shown) {
    let mut shown = Shown::default();
    let Some(text) = ctx.input.head.text(&f.location.path) else {
        return (format!("({} could not be read at head)", f.location.path), shown);
    };
    let lines: Vec<&str> = text.lines().collect();
    let pad = ctx.opts.region_lines;
    let start = f.location.start.saturating_sub(pad).max(1);
    let end = (f.location.end + pad).min(lines.len() as u32);
    let slice = &lines[(start - 1) as usize..end as usize];
    shown.add_range(&f.location.path, start, slice);
    (format!("{}:\n{}", f.location.path, crate::prompt::numbered(start, slice)), shown)
}

fn parse(text: &str) -> Result<Verdict, String> {
    parse_verdict(text).map_err(|e| e.to_string())
}

/// Whether a disproof is grounded in what this validator saw: the shared context or
/// its own region.
fn disproof_gap(ctx: &Ctx<'_>, region: &Shown, v: &Verdict) -> Option<String> {
    if v.verdict != VerdictKind::Disproved {
        return None;
    }
    let shared = check_disproof(&v.evidence, &ctx.shown);
    match shared {
        Ok(()) => None,
        Err(reason) => check_disproof(&v.evidence, region).err().map(|_| reason),
    }
}

async fn one(ctx: &Ctx<'_>, f: &Finding, strict: bool) -> Result<Judged, Failure> {
    let (region_text, region_shown) = region(ctx, f);
    let req = Request {
        shared: ctx.shared.clone(),
        turns: vec![Turn::user(crate::prompt::validator(
            &f.location.to_string(),
            &f.claim,
            &region_text,
            strict,
            &ctx.input.fence,
        ))],
        schema: Some(Schema { name: "report_verdict".into(), json: verdict_schema() }),
        tools: Vec::new(),
        max_tokens: 1024,
        tier: ctx.opts.route(ctx.opts.validator_tier),
        step: if strict { "revalidate" } else { "validate" }.into(),
        reviewer: Some(f.reviewer.clone()),
    };
    let (mut verdict, mut conversation) = ask(ctx, req, parse).await?;
    let mut gap = disproof_gap(ctx, &region_shown, &verdict);
    if let Some(reason) = &gap {
        conversation.turns.push(Turn::user(crate::prompt::reask(reason, false)));
        (verdict, _) = ask(ctx, conversation, parse).await?;
        gap = disproof_gap(ctx, &region_shown, &verdict);
    }
    Ok(match gap {
        None => Judged {
            finding: f.clone(),
            verdict: verdict.verdict,
            confidence: verdict.confidence,
            validator_evidence: verdict.evidence,
            gap: None,
        },
        Some(reason) => Judged {
            finding: f.clone(),
            verdict: VerdictKind::Survives,
            confidence: UNVERIFIED_CONFIDENCE,
            validator_evidence: verdict.evidence,
            gap: Some(reason),
        },
    })
}
