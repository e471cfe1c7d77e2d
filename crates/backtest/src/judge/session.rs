//! One judge session: a fresh conversation about one bare claim. It holds the
//! change (as every session of the run sees it), the code around the claim's
//! location and, on providers with tools, the same read-only tools the validator
//! has. Nothing of the reviewer, the validator or the system that made the claim.

use super::contract::{self, Judgement};
use crate::score::Spend;
use gauntlet_change::Change;
use gauntlet_model::{Provider, Request, Schema, Tier, Turn, Usage};
use gauntlet_review::contract::Location;
use gauntlet_review::cost::Prices;
use gauntlet_review::fence::Fence;
use gauntlet_review::pipeline::{Ledger, RepoRead, estimate_tokens};
use gauntlet_review::sandbox::{Limits, Sandbox};
use gauntlet_review::secrets::Masker;
use gauntlet_review::tools::{Toolbox, definitions, flatten};
use minijinja::{Environment, context};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The step name judge calls carry (providers and recordings see it).
pub const STEP: &str = "judge";

const PROMPT: &str = include_str!("../../prompts/judge.md.j2");

/// What every judge session of one case shares.
pub struct Judge<'a> {
    pub change: &'a Change,
    /// The head as the pipeline read it (masked when the run masks).
    pub head: &'a dyn RepoRead,
    pub fence: &'a Fence,
    pub provider: &'a Arc<dyn Provider>,
    pub tier: Tier,
    /// The validator's tool limits; `max_steps` 0 gives the judge no tools.
    pub tools: Limits,
    /// Lines shown on each side of the claim's location.
    pub region_lines: u32,
    pub masker: Option<&'a Masker>,
    pub prices: &'a Prices,
    /// What the sessions spent, added up as they end.
    pub spent: Mutex<Spend>,
    /// The case's `[budget]` for its judge sessions (apart from the review's own):
    /// a call it refuses leaves that claim unjudged, a gap that says which limit.
    pub ledger: Ledger,
}

/// The judge's turn for one claim. `max_steps` is the tool allowance, 0 without tools.
pub fn turn(location: &str, claim: &str, region: Option<&str>, max_steps: u32, fence: &Fence) -> String {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    let env = ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_keep_trailing_newline(true);
        env.add_template("judge", PROMPT).expect("the judge prompt parses");
        env
    });
    // Without their closing newline, so the template alone sets the spacing.
    let location = fence.wrap("location", location).trim_end().to_string();
    let claim = fence.wrap("claim", claim).trim_end().to_string();
    let region = region.map(|r| fence.wrap("code", r).trim_end().to_string());
    let limits = gauntlet_review::limits::as_list(&contract::schema());
    let ctx = context! { location, claim, region, max_steps, limits, evidence_max => contract::EVIDENCE_MAX };
    env.get_template("judge").and_then(|t| t.render(ctx)).expect("the judge prompt renders")
}

impl Judge<'_> {
    fn toolbox(&self) -> Option<Toolbox<'_>> {
        (self.tools.max_steps > 0 && self.provider.supports_tools())
            .then(|| Toolbox::new(Sandbox::new(self.head, self.tools), self.fence))
    }

    fn mask(&self, text: &str) -> String {
        self.masker.map_or_else(|| text.to_string(), |m| m.text(text).0)
    }

    /// The numbered lines around a location that parses and names a head file.
    fn region(&self, location: &str) -> Option<String> {
        let at = Location::parse(location)?;
        let text = self.head.text(&at.path)?;
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.len() as u32;
        if at.start > last {
            return Some(format!("({} has no line {}; it has {last} lines)", at.path, at.start));
        }
        let start = at.start.saturating_sub(self.region_lines).max(1);
        let end = at.end.min(last).saturating_add(self.region_lines).min(last);
        let slice = &lines[(start - 1) as usize..end as usize];
        Some(format!("{}:\n{}", at.path, gauntlet_review::prompt::numbered(start, slice)))
    }

    /// The first request about a claim: the same for every run of the same case,
    /// so a recording replays it.
    pub fn request(&self, location: &str, claim: &str, with_tools: Option<u32>) -> Request {
        let (location, claim) = (self.mask(location), self.mask(claim));
        let region = self.region(&location);
        let text = turn(&location, &claim, region.as_deref(), with_tools.unwrap_or(0), self.fence);
        Request {
            shared: vec![gauntlet_review::prompt::change_listing(self.change, self.fence)].into(),
            turns: vec![Turn::user(text)],
            schema: Some(Schema { name: contract::SCHEMA_NAME.into(), json: contract::schema() }),
            tools: if with_tools.is_some() { definitions() } else { Vec::new() },
            max_tokens: 1024,
            tier: self.tier,
            step: STEP.into(),
            reviewer: None,
        }
    }

    /// Judge one claim. A contract violation is re-asked once; a second one, or a
    /// failed call, is an `Err` the caller records as a gap.
    pub async fn one(&self, location: &str, claim: &str) -> Result<Judgement, String> {
        let mut tools = self.toolbox();
        let mut req = self.request(location, claim, tools.as_ref().map(|t| t.limits().max_steps));
        let mut first_error: Option<String> = None;
        loop {
            let answer = self.converse(&mut req, &mut tools).await?;
            match contract::parse(&answer) {
                Ok(judgement) => return Ok(judgement),
                Err(error) => {
                    if let Some(first) = first_error {
                        return Err(format!("the judge broke the answer contract twice: {first}; then: {error}"));
                    }
                    req.turns.push(Turn::assistant(answer));
                    req.turns.push(Turn::user(gauntlet_review::prompt::reask(&error.to_string(), true)));
                    first_error = Some(error.to_string());
                }
            }
        }
    }

    /// Call until the model answers instead of calling tools; past the step limit the
    /// conversation is written out as text and asked once more without tools.
    async fn converse(&self, req: &mut Request, tools: &mut Option<Toolbox<'_>>) -> Result<String, String> {
        loop {
            let (json, calls) = self.call(req).await?;
            let Some(toolbox) = tools.as_mut().filter(|_| !calls.is_empty()) else { return Ok(json) };
            if toolbox.reads.steps >= toolbox.limits().max_steps {
                let closing = gauntlet_review::prompt::step_limit(toolbox.limits().max_steps);
                req.turns = flatten(&req.turns, &closing);
                req.tools.clear();
                return Ok(self.call(req).await?.0);
            }
            toolbox.reads.steps += 1;
            let results = calls.iter().map(|c| toolbox.run(c)).collect();
            req.turns.push(Turn::Assistant { text: json, tool_calls: calls });
            req.turns.push(Turn::ToolResults { results });
        }
    }

    async fn call(&self, req: &Request) -> Result<(String, Vec<gauntlet_model::ToolCall>), String> {
        let price = self.prices.get(self.provider.name(), self.provider.model());
        // Reserve the whole answer allowance, as the review's calls do, so judge
        // sessions running side by side cannot pass the budget between them.
        let worst = Usage { input: estimate_tokens(req), output: u64::from(req.max_tokens), ..Usage::default() };
        let reservation = self.ledger.admit(worst.input + worst.output, price.map_or(0.0, |p| p.cost(&worst)))?;
        let started = Instant::now();
        let resp = match self.provider.complete(req).await {
            Ok(resp) => resp,
            Err(e) => {
                self.ledger.settle(reservation, 0, 0.0);
                return Err(format!("model call failed: {e}"));
            }
        };
        let u: Usage = resp.usage;
        let cost = price.map(|p| p.cost(&u));
        self.ledger.settle(reservation, u.input + u.cache_read + u.cache_write + u.output, cost.unwrap_or(0.0));
        let spent = Spend::of_call("judge", &u, cost, started.elapsed().as_millis() as u64);
        self.spent.lock().expect("judge spend lock").add(&spent);
        Ok((resp.json, resp.tool_calls))
    }
}
