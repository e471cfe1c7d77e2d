//! Model calls of the loop: under the run's budget, with usage and cost recorded per
//! step, and one exchange under a contract (re-asked once, then a loud failure).

use crate::converge::ExitReason;
use gauntlet_model::{Request, Tier, Turn, Usage};
use gauntlet_review::cost::Prices;
use gauntlet_review::pipeline::{Budget, Deadline, Ledger, Models};
use gauntlet_review::progress::{Event, Observer};
use gauntlet_review::review::StepUsage;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// Why a loop had to stop early: the budget ran out, or a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub exit: ExitReason,
    pub message: String,
}

/// What some calls cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Spent {
    pub calls: u32,
    pub tokens: u64,
    /// USD; `None` when a model's price is unknown.
    pub cost: Option<f64>,
}

impl Spent {
    pub fn zero() -> Spent {
        Spent { calls: 0, tokens: 0, cost: Some(0.0) }
    }
    fn add(&mut self, tokens: u64, cost: Option<f64>) {
        self.calls += 1;
        self.tokens += tokens;
        self.cost = self.cost.zip(cost).map(|(a, b)| a + b);
    }
}

/// The providers, prices and budget of one run, and what it has spent.
pub struct Meter {
    models: Models,
    prices: Prices,
    ledger: Ledger,
    usage: Mutex<BTreeMap<(String, Tier), StepUsage>>,
    /// Who hears of the calls paid for and the loops ended; nobody by default.
    progress: Observer,
}

impl Meter {
    pub fn new(models: Models, prices: Prices, budget: Budget) -> Meter {
        Meter {
            models,
            prices,
            ledger: Ledger::new(budget),
            usage: Mutex::new(BTreeMap::new()),
            progress: Observer::default(),
        }
    }

    /// The same meter, reporting usage and ended loops to `progress`.
    pub fn with_progress(mut self, progress: Observer) -> Meter {
        self.progress = progress;
        self
    }

    pub fn progress(&self) -> &Observer {
        &self.progress
    }

    /// The same meter, also holding every call to `deadline` (`--timeout`): past
    /// it no call starts and one in flight is abandoned, ending its loop as a budget stop.
    pub fn with_deadline(mut self, deadline: Option<Deadline>) -> Meter {
        self.ledger = self.ledger.with_deadline(deadline);
        self
    }

    pub fn models(&self) -> &Models {
        &self.models
    }

    /// Usage per step and tier, in a stable order.
    pub fn usage(&self) -> Vec<StepUsage> {
        self.usage.lock().expect("usage lock").values().cloned().collect()
    }

    fn cost(&self, tier: Tier, usage: &Usage) -> Option<f64> {
        let p = self.models.get(tier);
        self.prices.get(p.name(), p.model()).map(|price| price.cost(usage))
    }

    /// One call; the answer text, with what it cost added to `spent`.
    pub async fn call(&self, req: &Request, spent: &mut Spent) -> Result<String, Stop> {
        // Reserve the worst case, like the review pipeline, so parallel loops cannot
        // pass the budget together.
        let worst = Usage { input: estimate_tokens(req), output: u64::from(req.max_tokens), ..Usage::default() };
        let reservation = self
            .ledger
            .admit(worst.input + worst.output, self.cost(req.tier, &worst).unwrap_or(0.0))
            .map_err(|message| Stop { exit: ExitReason::Budget, message })?;
        let started = Instant::now();
        let result = match self.ledger.within(self.models.get(req.tier).complete(req)).await {
            Ok(result) => result,
            Err(message) => {
                self.ledger.settle(reservation, 0, 0.0);
                return Err(Stop { exit: ExitReason::Budget, message });
            }
        };
        let wall_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(resp) => {
                let u = resp.usage;
                let tokens = u.input + u.cache_read + u.cache_write + u.output;
                let cost = self.cost(req.tier, &u);
                self.ledger.settle(reservation, tokens, cost.unwrap_or(0.0));
                self.record(&req.step, req.tier, u, cost, wall_ms);
                spent.add(tokens, cost);
                self.progress.event(&Event::Usage { tokens, cost });
                Ok(resp.json)
            }
            Err(e) => {
                self.ledger.settle(reservation, 0, 0.0);
                Err(Stop { exit: ExitReason::Failed, message: format!("{} call failed: {e}", req.step) })
            }
        }
    }

    fn record(&self, step: &str, tier: Tier, usage: Usage, cost: Option<f64>, wall_ms: u64) {
        let mut map = self.usage.lock().expect("usage lock");
        let entry = map.entry((step.to_string(), tier)).or_insert_with(|| StepUsage {
            step: step.to_string(),
            tier: tier.as_str().to_string(),
            model: self.models.label(tier),
            calls: 0,
            input: 0,
            output: 0,
            cached: 0,
            cache_write: 0,
            cost: Some(0.0),
            wall_ms: 0,
        });
        entry.cost = entry.cost.zip(cost).map(|(a, b)| a + b);
        entry.calls += 1;
        entry.input += usage.input + usage.cache_read + usage.cache_write;
        entry.output += usage.output;
        entry.cached += usage.cache_read;
        entry.cache_write += usage.cache_write;
        entry.wall_ms += wall_ms;
    }

    /// Send `req` and parse the answer. A contract violation is re-asked once with
    /// the error; a second one stops the loop. Returns the value and the request
    /// with the accepted answer appended (the primary's conversation goes on from it).
    pub async fn ask<T>(
        &self,
        mut req: Request,
        spent: &mut Spent,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<(T, Request), Stop> {
        let mut first_error: Option<String> = None;
        loop {
            let answer = self.call(&req, spent).await?;
            match parse(&answer) {
                Ok(value) => {
                    req.turns.push(Turn::assistant(answer));
                    return Ok((value, req));
                }
                Err(error) => {
                    if let Some(first) = first_error {
                        let message =
                            format!("the {} broke the answer contract twice: {first}; then: {error}", req.step);
                        return Err(Stop { exit: ExitReason::Failed, message });
                    }
                    req.turns.push(Turn::assistant(answer));
                    req.turns.push(Turn::user(gauntlet_review::prompt::reask(&error, true)));
                    first_error = Some(error);
                }
            }
        }
    }
}

/// Input tokens of a request at four characters a token (the budget needs a figure
/// before the call; the provider's count replaces it afterwards).
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
