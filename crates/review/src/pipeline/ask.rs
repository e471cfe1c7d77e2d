//! One model exchange under a contract: call, parse strictly, re-ask once with the
//! violation, and fail loudly on a second violation.

use super::Ctx;
use gauntlet_model::{Request, Turn, Usage};
use std::time::Instant;

/// A failed unit of work, with a message for the report's gaps.
pub(crate) type Failure = String;

/// Send `req`; parse the answer with `parse`. A contract violation is re-asked once
/// (the rejected answer and the error are appended to the conversation). Returns
/// the parsed value and the conversation so far (for a later grounded re-ask).
pub(crate) async fn ask<T>(
    ctx: &Ctx<'_>,
    mut req: Request,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<(T, Request), Failure> {
    let mut first_error = None;
    for _attempt in 0..2 {
        let answer = call(ctx, &req).await?;
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

/// One provider call, with usage recorded under the request's step and tier.
pub(crate) async fn call(ctx: &Ctx<'_>, req: &Request) -> Result<String, Failure> {
    let provider = ctx.models.get(req.tier);
    // Reserve the worst case (the whole answer allowance), so calls admitted together
    // cannot pass the budget between them; settling gives back what was not used.
    let worst = Usage { input: estimate_tokens(req), output: u64::from(req.max_tokens), ..Usage::default() };
    let worst_cost = ctx.cost(req.tier, &worst).unwrap_or(0.0);
    let reservation = ctx.ledger.admit(worst.input + worst.output, worst_cost)?;
    let started = Instant::now();
    let result = provider.complete(req).await;
    let wall_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(resp) => {
            let u = resp.usage;
            let tokens = u.input + u.cache_read + u.cache_write + u.output;
            ctx.ledger.settle(reservation, tokens, ctx.cost(req.tier, &u).unwrap_or(0.0));
            ctx.record_usage(&req.step, req.tier, u, wall_ms);
            Ok(resp.json)
        }
        Err(e) => {
            ctx.ledger.settle(reservation, 0, 0.0);
            Err(format!("model call failed: {e}"))
        }
    }
}

/// Input tokens of a request, estimated at four characters a token (the budget
/// needs an answer before the call; the real count replaces it afterwards).
fn estimate_tokens(req: &Request) -> u64 {
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
