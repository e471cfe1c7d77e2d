//! One model exchange under a contract: call, parse strictly, re-ask once with the
//! violation, and fail loudly on a second violation. Sessions with tools run the
//! tool loop inside each exchange: tool calls are answered through the sandbox
//! until the model answers, or until its step limit makes it answer.

use super::Ctx;
use crate::tools::{Toolbox, flatten};
use gauntlet_model::{Request, Response, Turn, Usage};
use std::time::Instant;

/// A failed unit of work, with a message for the report's gaps.
pub(crate) type Failure = String;

/// Send `req`; parse the answer with `parse`. A contract violation is re-asked once
/// (the rejected answer and the error are appended to the conversation). Returns
/// the parsed value and the conversation so far (for a later grounded re-ask).
pub(crate) async fn ask<T>(
    ctx: &Ctx<'_>,
    mut req: Request,
    tools: &mut Option<Toolbox<'_>>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<(T, Request), Failure> {
    let mut first_error = None;
    for _attempt in 0..2 {
        let answer = converse(ctx, &mut req, tools).await?;
        match parse(&answer) {
            Ok(value) => {
                req.turns.push(Turn::assistant(answer));
                return Ok((value, req));
            }
            Err(error) => {
                if let Some(first) = first_error {
                    return Err(format!("the model broke the answer contract twice: {first}; then: {error}"));
                }
                req.turns.push(Turn::assistant(answer));
                req.turns.push(Turn::user(crate::prompt::reask(&error, true)));
                first_error = Some(error);
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

/// Call until the model answers rather than calling tools. Tool calls and their
/// results are appended to `req`, so a later re-ask keeps what was read. Once the
/// step limit is spent, the conversation is written out as plain text and asked
/// once more without tools, which makes the provider answer in the contract.
async fn converse(ctx: &Ctx<'_>, req: &mut Request, tools: &mut Option<Toolbox<'_>>) -> Result<String, Failure> {
    loop {
        let resp = call(ctx, req).await?;
        let Some(toolbox) = tools.as_mut().filter(|_| !resp.tool_calls.is_empty()) else {
            return Ok(resp.json);
        };
        if toolbox.reads.steps >= toolbox.limits().max_steps {
            toolbox.reads.limit_hit = true;
            let closing = crate::prompt::step_limit(toolbox.limits().max_steps);
            req.turns = flatten(&req.turns, &closing);
            req.tools.clear();
            return Ok(call(ctx, req).await?.json);
        }
        toolbox.reads.steps += 1;
        let results = resp.tool_calls.iter().map(|c| toolbox.run(c)).collect();
        req.turns.push(Turn::Assistant { text: resp.json, tool_calls: resp.tool_calls });
        req.turns.push(Turn::ToolResults { results });
    }
}

/// One provider call, with usage recorded under the request's step and tier.
pub(crate) async fn call(ctx: &Ctx<'_>, req: &Request) -> Result<Response, Failure> {
    let provider = ctx.models.get(req.tier);
    // Reserve the worst case (the whole answer allowance), so calls admitted together
    // cannot pass the budget between them; settling gives back what was not used.
    let worst = Usage { input: estimate_tokens(req), output: u64::from(req.max_tokens), ..Usage::default() };
    let worst_cost = ctx.cost(req.tier, &worst).unwrap_or(0.0);
    let reservation = ctx.ledger.admit(worst.input + worst.output, worst_cost)?;
    let started = Instant::now();
    let result = match ctx.ledger.within(provider.complete(req)).await {
        Ok(result) => result,
        Err(abandoned) => {
            ctx.ledger.settle(reservation, 0, 0.0);
            return Err(abandoned);
        }
    };
    let wall_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(resp) => {
            let u = resp.usage;
            let tokens = u.input + u.cache_read + u.cache_write + u.output;
            let cost = ctx.cost(req.tier, &u);
            ctx.ledger.settle(reservation, tokens, cost.unwrap_or(0.0));
            ctx.record_usage(&req.step, req.tier, u, wall_ms);
            ctx.opts.progress.event(&crate::progress::Event::Usage { tokens, cost });
            Ok(resp)
        }
        Err(e) => {
            ctx.ledger.settle(reservation, 0, 0.0);
            Err(format!("model call failed: {e}"))
        }
    }
}

/// Input tokens of a request, estimated at four characters a token (the budget
/// needs an answer before the call; the real count replaces it afterwards).
pub fn estimate_tokens(req: &Request) -> u64 {
    let turns: usize = req
        .turns
        .iter()
        .map(|t| match t {
            Turn::User { text } | Turn::Assistant { text, .. } => text.len(),
            Turn::ToolResults { results } => results.iter().map(|r| r.content.len()).sum(),
        })
        .sum();
    let shared: usize = req.shared.iter().map(String::len).sum();
    ((shared + turns) / 4) as u64
}
