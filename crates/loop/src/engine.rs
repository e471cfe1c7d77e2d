//! The loop itself: a primary that keeps its conversation across rounds, a fresh
//! adversary every round, and the convergence rules between them.
//!
//! A round is one piece of work and one judgement of it. In the standard flow the
//! primary writes first; in the inverted flow the adversary first judges the work as
//! it stands (the original document, or the code before any patch) and the primary
//! answers its findings from round 2 on. Before the adversary sees a piece of work,
//! the task inspects it ([`Task::inspect`]): a patch that does not apply never
//! reaches the adversary and goes back to the primary as a critical issue.

use crate::contract::{self, Draft, Issue, Severity, Verdict};
use crate::converge::{ExitReason, decide, stage};
use crate::meter::{Meter, Spent, Stop};
use crate::prompt::{self, AdversaryTurn};
use crate::round::{Judge, Round, summarize};
use gauntlet_model::{Request, Schema, Tier, Turn};
use gauntlet_review::fence::Fence;
use serde::Serialize;

/// What the loop works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Patch,
    Document,
}

impl Kind {
    /// The primary's answer field.
    pub fn field(self) -> &'static str {
        match self {
            Kind::Patch => "patch",
            Kind::Document => "document",
        }
    }
    /// Longest work the primary may ever return, in characters.
    pub fn max_chars(self) -> usize {
        match self {
            Kind::Patch => 24_000,
            Kind::Document => 48_000,
        }
    }
}

/// How long the primary's answer may be: its work in characters, the whole answer
/// in tokens. The token allowance is what the budget reserves for each call, and
/// what a grammar-constrained local model may fill, so it should fit the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub chars: usize,
    pub tokens: u32,
}

impl Limit {
    /// Room for `chars` characters of work (about 3 characters a token once escaped
    /// into JSON) and a few short notes.
    pub fn for_chars(chars: usize) -> Limit {
        let tokens = (chars / 3 + 1_024).min(u32::MAX as usize) as u32;
        Limit { chars, tokens }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Flow {
    /// The primary writes first.
    Standard,
    /// The adversary judges the starting work first; the primary answers it.
    Inverted,
}

#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The round cap N.
    pub rounds: u32,
    pub flow: Flow,
    /// The tier both sessions run on.
    pub tier: Tier,
}

/// The result of inspecting a piece of work before the adversary sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Inspection {
    /// It cannot be reviewed; the reason goes back to the primary as a critical issue.
    Rejected { reason: String },
    /// It can. `work` is what the adversary sees and what is kept (a patch in
    /// canonical form, say); `evidence` is shown beside it (a check's result).
    Ready { work: String, evidence: Option<String>, passed: Option<bool> },
}

/// One kind of loop: what both sessions are told, and how work is inspected.
#[async_trait::async_trait]
pub trait Task: Send + Sync {
    fn kind(&self) -> Kind;
    /// Blocks shared by every call of the loop (the task, fenced).
    fn shared(&self) -> Vec<String>;
    /// The primary's brief, its first turn.
    fn brief(&self) -> String;
    /// The work before any revision (judged first in the inverted flow).
    fn start(&self) -> String;
    fn fence(&self) -> &Fence;
    /// How long the primary's answer may be.
    fn limit(&self) -> Limit {
        Limit::for_chars(self.kind().max_chars())
    }
    async fn inspect(&self, work: &str) -> Inspection;
}

/// What the user decides between rounds (`refine --interactive`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Steering {
    /// Let the next revision happen as it would.
    Continue,
    /// Pass this direction to the primary with the issues.
    Steer(String),
    /// Take the work as it is now.
    Accept,
}

pub trait Steer: Send + Sync {
    /// Called after a round that did not end the loop.
    fn between(&self, round: &Round) -> Steering;
}

/// How a loop ended and what it kept.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub exit: ExitReason,
    /// Why the loop stopped early (budget, failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub rounds: Vec<Round>,
    /// The round whose work is kept: the last one when the loop converged, else the
    /// best one judged. `None` when no work was ever judged.
    pub kept: Option<u32>,
    pub spent: Spent,
}

impl Outcome {
    pub fn kept_round(&self) -> Option<&Round> {
        self.kept.and_then(|n| self.rounds.iter().find(|r| r.number == n))
    }
    /// The kept work.
    pub fn work(&self) -> Option<&str> {
        self.kept_round().and_then(|r| r.work.as_deref())
    }
    /// Issues the adversary still raised against the kept work.
    pub fn open_issues(&self) -> &[Issue] {
        self.kept_round().map_or(&[], |r| &r.issues)
    }
}

/// The best judged round: a passing check first, then fewest critical, major and
/// minor issues, then the later round (it has had more review).
pub fn best(rounds: &[Round]) -> Option<&Round> {
    rounds.iter().filter(|r| r.work.is_some()).min_by_key(|r| {
        (
            r.check_passed == Some(false),
            r.count(Severity::Critical),
            r.count(Severity::Major),
            r.count(Severity::Minor),
            std::cmp::Reverse(r.number),
        )
    })
}

/// Run one loop to its end.
pub async fn run(task: &dyn Task, settings: &Settings, meter: &Meter, steer: Option<&dyn Steer>) -> Outcome {
    let mut state = State { task, settings, meter, primary: None, spent: Spent::zero(), rounds: Vec::new() };
    let mut direction: Option<String> = None;
    let mut end = (ExitReason::RoundCap, None);
    for number in 1..=settings.rounds.max(1) {
        let round = match state.round(number, direction.take()).await {
            Ok(round) => round,
            Err(stop) => {
                end = (stop.exit, Some(stop.message));
                break;
            }
        };
        let earlier: Vec<&Issue> = state.rounds.iter().flat_map(|r| &r.issues).collect();
        let exit = decide(number, settings.rounds, round.verdict, &round.issues, &earlier);
        state.rounds.push(round);
        if let Some(exit) = exit {
            end = (exit, None);
            break;
        }
        match steer.map(|s| s.between(state.rounds.last().expect("just pushed"))) {
            Some(Steering::Accept) => {
                end = (ExitReason::Accepted, None);
                break;
            }
            Some(Steering::Steer(text)) => direction = Some(text),
            Some(Steering::Continue) | None => {}
        }
    }
    let (exit, message) = end;
    let last = state.rounds.last().filter(|r| exit.converged() && r.work.is_some());
    let kept = last.or_else(|| best(&state.rounds));
    Outcome { exit, message, kept: kept.map(|r| r.number), rounds: state.rounds, spent: state.spent }
}

struct State<'a> {
    task: &'a dyn Task,
    settings: &'a Settings,
    meter: &'a Meter,
    /// The primary's conversation so far; `None` before its first turn.
    primary: Option<Request>,
    spent: Spent,
    rounds: Vec<Round>,
}

impl State<'_> {
    async fn round(&mut self, number: u32, direction: Option<String>) -> Result<Round, Stop> {
        let kind = self.task.kind();
        let start = number == 1 && self.settings.flow == Flow::Inverted;
        let draft = if start {
            Draft { work: self.task.start(), addressed: Vec::new() }
        } else {
            self.primary_turn(direction.as_deref()).await?
        };
        let mut round = Round {
            number,
            stage: stage(number, self.settings.rounds),
            addressed: draft.addressed,
            steer: direction,
            judge: Judge::Adversary,
            verdict: Verdict::NeedsWork,
            issues: Vec::new(),
            check_passed: None,
            work: None,
        };
        match self.task.inspect(&draft.work).await {
            Inspection::Rejected { reason } => {
                round.judge = Judge::Gauntlet;
                let category = format!("{}_unusable", kind.field());
                round.issues = vec![Issue { category, description: reason, severity: Severity::Critical }];
            }
            Inspection::Ready { work, evidence, passed } => {
                let prior = summarize(&self.rounds, &round.addressed);
                let turn = AdversaryTurn {
                    number,
                    stage: round.stage,
                    start,
                    field: kind.field(),
                    prior: &prior,
                    work: &work,
                    evidence: evidence.as_deref(),
                };
                let critique = self.adversary_turn(prompt::adversary(&turn, self.task.fence())).await?;
                round.verdict = critique.verdict;
                round.issues = critique.issues;
                round.check_passed = passed;
                round.work = Some(work);
            }
        }
        Ok(round)
    }

    /// The primary's next answer, in its ongoing conversation.
    async fn primary_turn(&mut self, direction: Option<&str>) -> Result<Draft, Stop> {
        let kind = self.task.kind();
        let feedback = self.rounds.last().map(|r| prompt::feedback(r, kind.field(), direction));
        let raised = self.rounds.last().map_or(0, |r| r.issues.len());
        let limit = self.task.limit();
        let schema = contract::draft_schema(kind.field(), limit.chars, raised);
        // Every turn states the limits of the schema this answer is checked against:
        // they follow the task's length limit and the issues just raised.
        let limits = prompt::limits(&schema);
        let mut req = self.primary.take().unwrap_or_else(|| self.request("primary", "report_work", schema.clone()));
        req.schema = Some(Schema { name: "report_work".into(), json: schema });
        req.max_tokens = limit.tokens;
        let text = match (req.turns.is_empty(), feedback) {
            (true, Some(f)) => format!("{}\n{f}", self.task.brief()),
            (true, None) => self.task.brief(),
            (false, Some(f)) => f,
            (false, None) => unreachable!("the primary speaks again only after a round"),
        };
        let text = format!("{text}\n{limits}");
        req.turns.push(Turn::user(text));
        let parse =
            |text: &str| contract::parse_draft(text, kind.field(), limit.chars, raised).map_err(|e| e.to_string());
        let (draft, req) = self.meter.ask(req, &mut self.spent, parse).await?;
        self.primary = Some(req);
        Ok(draft)
    }

    /// One fresh adversary session.
    async fn adversary_turn(&mut self, text: String) -> Result<contract::Critique, Stop> {
        let mut req = self.request("adversary", "report_critique", contract::critique_schema());
        req.max_tokens = 4_096;
        req.turns.push(Turn::user(text));
        let parse = |text: &str| contract::parse_critique(text).map_err(|e| e.to_string());
        let (critique, _) = self.meter.ask(req, &mut self.spent, parse).await?;
        Ok(critique)
    }

    fn request(&self, step: &str, schema_name: &str, schema: serde_json::Value) -> Request {
        Request {
            shared: self.task.shared().into(),
            turns: Vec::new(),
            schema: Some(Schema { name: schema_name.into(), json: schema }),
            tools: Vec::new(),
            max_tokens: 4_096,
            tier: self.settings.tier,
            step: step.into(),
            reviewer: None,
        }
    }
}
