//! Find: each reviewer is a fresh session, run concurrently under a bound.

use super::Ctx;
use super::ask::ask;
use crate::contract::{RawFinding, cap_findings, findings_schema, parse_findings};
use crate::progress::{Counter, Event, FIND};
use crate::rules::Reviewer;
use crate::shown::Shown;
use futures::StreamExt;
use gauntlet_model::{Request, Schema, Turn};
use std::collections::BTreeMap;

pub(crate) struct FindOutcome {
    /// Which part of the change this session reviewed.
    pub part: usize,
    pub reviewer: String,
    pub result: Result<Vec<RawFinding>, String>,
    pub note: Option<String>,
    /// What the reviewer read through tools, if it had them, and the head code its
    /// own gathered context showed it (consumers, tokens).
    pub read: Shown,
}

/// Tokens allowed for a finder answer: enough for `max` findings at their bounds.
fn max_tokens(max: usize) -> u32 {
    let per_finding =
        (crate::contract::LOCATION_MAX + crate::contract::CLAIM_MAX + crate::contract::EVIDENCE_MAX) / 2 + 64;
    (256 + max * per_finding).min(16_000) as u32
}

pub(crate) async fn run_all(ctxs: &[Ctx<'_>]) -> Vec<FindOutcome> {
    // A reviewer runs on a part only if the part holds a file its globs match.
    let units: Vec<(usize, &Reviewer)> = (0..ctxs.len())
        .flat_map(|part| {
            let paths: Vec<&str> = ctxs[part].paths().collect();
            ctxs[part]
                .input
                .reviewers
                .iter()
                .filter(move |r| r.first_match(paths.iter().copied()).is_some())
                .map(move |r| (part, r))
        })
        .collect();
    let concurrency = ctxs.first().map_or(1, |c| c.opts.concurrency.max(1));
    let progress = ctxs.first().map(|c| c.opts.progress.clone()).unwrap_or_default();
    progress.event(&Event::StepStarted { step: FIND, total: units.len() });
    let counter = Counter::new(units.len());
    let gates = warm_up_gates(ctxs, &units);
    let mut outcomes: Vec<(usize, FindOutcome)> = futures::stream::iter(units.into_iter().enumerate())
        .map(|(i, (part, r))| {
            let (gate, counter, progress) = (&gates[i], &counter, &progress);
            async move {
                let outcome = match gate {
                    Some((true, open)) => {
                        let signal = open.clone();
                        let hook: std::sync::Arc<dyn Fn() + Send + Sync> = std::sync::Arc::new(move || {
                            signal.send_replace(true);
                        });
                        let outcome = gauntlet_model::on_answer_start(hook, run_one(&ctxs[part], part, r)).await;
                        // However the leader ended, nobody waits any longer.
                        open.send_replace(true);
                        outcome
                    }
                    Some((_, open)) => {
                        let mut opened = open.subscribe();
                        let _ = opened.wait_for(|o| *o).await;
                        run_one(&ctxs[part], part, r).await
                    }
                    None => run_one(&ctxs[part], part, r).await,
                };
                let (done, total, answered) = (counter.tick(), counter.total, outcome.result.is_ok());
                progress.event(&Event::FinderDone { reviewer: &r.name, done, total, answered });
                (i, outcome)
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    progress.event(&Event::StepFinished { step: FIND });
    // Concurrency must not change the result: restore reviewer order.
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes.into_iter().map(|(_, o)| o).collect()
}

/// Shared blocks shorter than this (estimated tokens) are not worth a warm-up wait:
/// providers do not cache prefixes that short.
const CACHE_MIN_TOKENS: usize = 1024;

/// Per finder unit, whether it waits for a warm-up: `(leads, gate)`. A provider that
/// caches a prefix only once a call has started answering
/// ([`gauntlet_model::Provider::caches_after_start`]) would otherwise write the same
/// cache entry once per parallel call, at a premium each time. So among the finders
/// of one part that run on the same model, the first goes alone and the others wait
/// for its answer to start, then read the entry. Finders on another model have their
/// own leader (a cache entry belongs to one model) and never wait for this one.
type Gate = Option<(bool, std::sync::Arc<tokio::sync::watch::Sender<bool>>)>;

fn warm_up_gates(ctxs: &[Ctx<'_>], units: &[(usize, &Reviewer)]) -> Vec<Gate> {
    let mut gates: Vec<Gate> = vec![None; units.len()];
    let mut groups: BTreeMap<(usize, String, String), Vec<usize>> = BTreeMap::new();
    for (i, (part, reviewer)) in units.iter().enumerate() {
        let ctx = &ctxs[*part];
        let provider = ctx.models.get(ctx.opts.route(reviewer.tier));
        if provider.caches_after_start() {
            groups.entry((*part, provider.name().to_string(), provider.model().to_string())).or_default().push(i);
        }
    }
    for ((part, _, _), members) in groups {
        let shared_tokens = ctxs[part].shared.iter().map(String::len).sum::<usize>() / 4;
        if members.len() < 2 || shared_tokens < CACHE_MIN_TOKENS {
            continue;
        }
        let open = std::sync::Arc::new(tokio::sync::watch::channel(false).0);
        for (k, i) in members.into_iter().enumerate() {
            gates[i] = Some((k == 0, open.clone()));
        }
    }
    gates
}

async fn run_one(ctx: &Ctx<'_>, part: usize, reviewer: &Reviewer) -> FindOutcome {
    let tier = ctx.opts.route(reviewer.tier);
    let mut tools = ctx.reviewer_toolbox(tier);
    let mut turn = crate::prompt::finder(&reviewer.name, &reviewer.description, &reviewer.body, reviewer.max_findings);
    // The author's claim goes to finders only, never into the shared block that
    // validators receive too.
    if let Some(intent) = &ctx.input.intent {
        turn.push_str(&crate::prompt::intent(intent, &ctx.input.fence));
    }
    // Context goes in the reviewer's own turn: the shared block stays identical for
    // every session, so it can be cached.
    let blocks: Vec<&crate::context::Block> = reviewer.gathered.iter().filter(|b| b.concerns(ctx.paths())).collect();
    turn.push_str(&crate::prompt::reviewer_context(&blocks, &ctx.input.fence));
    if let Some(t) = &tools {
        turn.push_str(&crate::prompt::tools(t.limits().max_steps, false));
    }
    let req = Request {
        shared: ctx.shared.clone(),
        turns: vec![Turn::user(turn)],
        schema: Some(Schema { name: "report_findings".into(), json: findings_schema(reviewer.max_findings) }),
        tools: if tools.is_some() { crate::tools::definitions() } else { Vec::new() },
        max_tokens: max_tokens(reviewer.max_findings),
        tier,
        step: "find".into(),
        reviewer: Some(reviewer.name.clone()),
    };
    let result = ask(ctx, req, &mut tools, |text| parse_findings(text).map_err(|e| e.to_string())).await;
    let read = tools.map(|t| t.reads).unwrap_or_default();
    if read.limit_hit {
        ctx.push_gap(step_limit_gap("find", &reviewer.name, None, ctx.opts.reviewer_max_steps));
    }
    let (result, note) = match result {
        Ok((raws, _)) if raws.len() > reviewer.max_findings => {
            let note = format!(
                "reviewer {} returned {} findings; kept the {} most severe (max_findings)",
                reviewer.name,
                raws.len(),
                reviewer.max_findings
            );
            (Ok(cap_findings(raws, reviewer.max_findings)), Some(note))
        }
        Ok((raws, _)) => (Ok(raws), None),
        Err(e) => (Err(e), None),
    };
    let mut read = read.shown;
    read.blocks.extend(crate::context::shown_of(blocks).blocks);
    FindOutcome { part, reviewer: reviewer.name.clone(), result, note, read }
}

/// The gap a session leaves when it wanted to read more after its last tool step.
pub(crate) fn step_limit_gap(step: &str, reviewer: &str, finding: Option<&str>, max_steps: u32) -> crate::review::Gap {
    let setting = if step == "find" { "[review] reviewer_max_steps" } else { "[validate] max_steps" };
    crate::review::Gap {
        step: step.into(),
        reviewer: Some(reviewer.into()),
        finding: finding.map(str::to_string),
        message: format!(
            "the session used all {max_steps} tool steps and still wanted to read more; \
             it answered from what it had read (`{setting}` allows more)"
        ),
        failed: false,
    }
}
