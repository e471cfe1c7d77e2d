//! The review run: find → ground → validate → adjudicate, producing a [`Review`].
//!
//! Model calls happen only in [`find`] and [`validate`]; every decision in between
//! is made by the pure functions of [`crate::ground`] and [`crate::adjudicate`].

mod ask;
mod budget;
mod chunk;
mod find;
mod judge;
mod validate;

pub use crate::part::PartFile;
pub use crate::repo::{Memory, RepoHead, RepoRead};
pub use ask::estimate_tokens;
pub use budget::{Budget, Deadline, Ledger, Reservation};

use crate::adjudicate::adjudicate;
use crate::contract::{RawFinding, VerdictKind};
use crate::fence::Fence;
use crate::finding::{DropReason, Dropped, Finding, Judged};
use crate::ground::ground;
use crate::guidance::Guidance;
use crate::related::Related;
use crate::review::{Gap, NotReviewed, Published, Review, SCHEMA_VERSION, StepUsage};
use crate::rules::Reviewer;
use crate::shown::Shown;
use gauntlet_change::Change;
use gauntlet_model::{Provider, Tier, Usage};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The provider serving each tier.
#[derive(Clone)]
pub struct Models {
    tiers: BTreeMap<Tier, Arc<dyn Provider>>,
}

impl Models {
    /// One provider for every tier.
    pub fn single(provider: Arc<dyn Provider>) -> Models {
        Models { tiers: Tier::ALL.iter().map(|t| (*t, provider.clone())).collect() }
    }
    pub fn new(fast: Arc<dyn Provider>, standard: Arc<dyn Provider>, deep: Arc<dyn Provider>) -> Models {
        Models { tiers: BTreeMap::from([(Tier::Fast, fast), (Tier::Standard, standard), (Tier::Deep, deep)]) }
    }
    pub fn get(&self, tier: Tier) -> &Arc<dyn Provider> {
        &self.tiers[&tier]
    }
    /// `provider:model` of a tier, as reports name it.
    pub fn label(&self, tier: Tier) -> String {
        let p = self.get(tier);
        format!("{}:{}", p.name(), p.model())
    }
}

/// Knobs of one run (resolved settings).
#[derive(Clone, Debug)]
pub struct Options {
    /// Model calls in flight at once.
    pub concurrency: usize,
    /// Minimum validator confidence to publish.
    pub threshold: u8,
    /// Lines of context on each side of a finding shown to its validator.
    pub region_lines: u32,
    /// The validator's tier.
    pub validator_tier: Tier,
    pub budget: Budget,
    pub prices: crate::cost::Prices,
    /// Why this change runs its standard steps on the deep tier, when it does.
    pub deep: Option<String>,
    /// Context window (tokens) of the smallest model used; larger changes are split.
    pub context_tokens: usize,
    /// Bounds of tool use by sessions on providers with tools (`max_steps` 0: no tools).
    pub tools: crate::sandbox::Limits,
    /// Whether reviewers, not only validators, may read more code through tools
    /// (on providers with tools; the embedded model and `command` have none).
    pub reviewer_tools: bool,
    /// Turns of tool calls a reviewer session may make (`[review] reviewer_max_steps`).
    pub reviewer_max_steps: u32,
    /// When the whole run must end (`--timeout`); `None`: no limit.
    pub deadline: Option<Deadline>,
    /// Who hears of the run's progress (steps, units done, usage); nobody by default.
    pub progress: crate::progress::Observer,
    /// Tokens of related code in the shared block (`[context] related_tokens`);
    /// `None`: a quarter of `context_tokens`; 0: none.
    pub related_tokens: Option<usize>,
}

impl Options {
    /// The tier a step configured for `tier` runs on: standard steps move to deep
    /// for large or sensitive changes.
    pub fn route(&self, tier: Tier) -> Tier {
        if self.deep.is_some() && tier == Tier::Standard { Tier::Deep } else { tier }
    }

    /// The related-code budget in tokens.
    pub fn related_budget(&self) -> usize {
        self.related_tokens.unwrap_or(self.context_tokens / 4)
    }
}

/// Turns of tool calls a reviewer may make by default: enough to look up a caller
/// or a definition, few enough that finding stays cheap.
pub const REVIEWER_MAX_STEPS: u32 = 3;

impl Default for Options {
    fn default() -> Options {
        Options {
            concurrency: 4,
            threshold: 75,
            region_lines: 30,
            validator_tier: Tier::Standard,
            budget: Budget::default(),
            prices: crate::cost::Prices::default(),
            deep: None,
            context_tokens: 100_000,
            tools: crate::sandbox::Limits::default(),
            reviewer_tools: true,
            reviewer_max_steps: REVIEWER_MAX_STEPS,
            deadline: None,
            progress: crate::progress::Observer::default(),
            related_tokens: None,
        }
    }
}

/// What a run reviews.
pub struct Input<'a> {
    pub change: &'a Change,
    /// The reviewers that run (already selected).
    pub reviewers: Vec<Reviewer>,
    pub guidance: Vec<Guidance>,
    pub head: &'a dyn RepoRead,
    pub rules_version: String,
    pub fence: Fence,
    /// What the author says the change does: shown to finders only.
    pub intent: Option<crate::intent::Intent>,
}

/// Tokens kept free of change text (instructions, a reviewer's or validator's turn,
/// and the answer): a quarter of the context, at most this.
const RESERVE_TOKENS: usize = 24_000;

/// State of one part of a run (the whole change, unless it had to be split).
pub(crate) struct Ctx<'a> {
    pub input: &'a Input<'a>,
    /// The files of this part.
    pub files: Vec<PartFile<'a>>,
    pub models: &'a Models,
    pub opts: &'a Options,
    pub shared: Arc<[String]>,
    /// The related code this part's shared block shows.
    pub related: Related,
    /// What every session of this part was shown before its own turn: built when a
    /// finding first needs it (a part without findings never does).
    shown: std::sync::OnceLock<Shown>,
    pub usage: &'a Mutex<BTreeMap<(String, Tier), StepUsage>>,
    pub ledger: &'a budget::Ledger,
    /// Gaps found inside sessions that still answered (a spent tool step limit).
    pub gaps: &'a Mutex<Vec<Gap>>,
}

impl<'a> Ctx<'a> {
    /// Tools for a session on `tier`, when its provider supports them and tool use
    /// is allowed at all.
    pub fn toolbox(&self, tier: Tier) -> Option<crate::tools::Toolbox<'a>> {
        self.toolbox_with(tier, self.opts.tools)
    }

    /// Tools for a reviewer session: on when `reviewer_tools` is, with the
    /// reviewer's own step budget.
    pub fn reviewer_toolbox(&self, tier: Tier) -> Option<crate::tools::Toolbox<'a>> {
        let limits = crate::sandbox::Limits { max_steps: self.opts.reviewer_max_steps, ..self.opts.tools };
        self.opts.reviewer_tools.then(|| self.toolbox_with(tier, limits)).flatten()
    }

    fn toolbox_with(&self, tier: Tier, limits: crate::sandbox::Limits) -> Option<crate::tools::Toolbox<'a>> {
        (limits.max_steps > 0 && self.models.get(tier).supports_tools()).then(|| {
            crate::tools::Toolbox::new(crate::sandbox::Sandbox::new(self.input.head, limits), &self.input.fence)
        })
    }

    pub fn shown(&self) -> &Shown {
        self.shown.get_or_init(|| {
            let mut shown = shown_for(&self.files, &self.input.guidance);
            self.related.add_to(&mut shown);
            shown
        })
    }

    /// Paths of this part's files.
    pub fn paths(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.files.iter().map(|f| f.path())
    }

    pub fn push_gap(&self, gap: Gap) {
        self.gaps.lock().expect("gaps lock").push(gap);
    }
}

impl Ctx<'_> {
    /// Estimated cost of a call on `tier`; `None` when its price is unknown.
    pub fn cost(&self, tier: Tier, usage: &Usage) -> Option<f64> {
        let p = self.models.get(tier);
        self.opts.prices.get(p.name(), p.model()).map(|price| price.cost(usage))
    }

    pub fn record_usage(&self, step: &str, tier: Tier, usage: Usage, wall_ms: u64) {
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
        entry.cost = entry.cost.zip(self.cost(tier, &usage)).map(|(a, b)| a + b);
        entry.calls += 1;
        entry.input += usage.input + usage.cache_read + usage.cache_write;
        entry.output += usage.output;
        entry.cached += usage.cache_read;
        entry.cache_write += usage.cache_write;
        entry.wall_ms += wall_ms;
    }
}

/// The shared blocks of a part: the change with its guidance, then its related code
/// when there is any (a block of its own, so a change without any keeps its cache).
fn shared_blocks(files: &[PartFile<'_>], related: &Related, guidance: &[Guidance], fence: &Fence) -> Arc<[String]> {
    let mut blocks = vec![crate::prompt::shared_part(files, guidance, fence)];
    blocks.extend(crate::prompt::related(related, fence));
    blocks.into()
}

/// What a part's sessions are shown before their own turn.
fn shown_for(files: &[PartFile<'_>], guidance: &[Guidance]) -> Shown {
    let mut shown = Shown::default();
    for f in files {
        shown.add_hunks(f.file);
        if let Some(text) = f.head_text() {
            shown.add_file(f.path(), text);
        }
    }
    for g in guidance {
        shown.add_file(&g.path, &g.text);
    }
    shown
}

/// Run the pipeline on a change.
pub async fn run(input: &Input<'_>, models: &Models, opts: &Options) -> Review {
    let started = Instant::now();
    let usage = Mutex::new(BTreeMap::new());
    let session_gaps = Mutex::new(Vec::new());
    let ledger = budget::Ledger::new(opts.budget).with_deadline(opts.deadline);
    let guidance_tokens: usize = input.guidance.iter().map(|g| g.text.len() / 4).sum();
    let reserve = RESERVE_TOKENS.min(opts.context_tokens / 4);
    let related = crate::related::gather(input.change, input.head, opts.tools.file_bytes, opts.related_budget());
    let budget = opts.context_tokens.saturating_sub(reserve + guidance_tokens + related.tokens()).max(1_000);
    let (parts, too_large) = chunk::plan(input.change, budget);
    let ctxs: Vec<Ctx<'_>> = parts
        .into_iter()
        .map(|files| {
            let related = related.for_files(files.iter().map(|f| f.path()));
            (files, related)
        })
        .map(|(files, related)| Ctx {
            input,
            shared: shared_blocks(&files, &related, &input.guidance, &input.fence),
            related,
            files,
            models,
            opts,
            shown: std::sync::OnceLock::new(),
            usage: &usage,
            ledger: &ledger,
            gaps: &session_gaps,
        })
        .collect();
    let mut review = Review {
        schema_version: SCHEMA_VERSION,
        base: input.change.base.clone(),
        head: input.change.head.clone(),
        provider: models.label(opts.route(Tier::Standard)),
        rules_version: input.rules_version.clone(),
        // With no part left after the size limits, no reviewer runs at all.
        reviewers: if ctxs.is_empty() { Vec::new() } else { input.reviewers.iter().map(|r| r.name.clone()).collect() },
        not_reviewed: not_reviewed(input.change),
        related: related.clone(),
        ..Review::default()
    };
    for entry in too_large {
        if !review.not_reviewed.iter().any(|n| n.path == entry.path) {
            review.not_reviewed.push(entry);
        }
    }
    let reduced: Vec<&str> = ctxs
        .iter()
        .flat_map(|c| &c.files)
        .filter(|f| !f.whole && f.file.head_text.is_some())
        .map(|f| f.path())
        .collect();
    if !reduced.is_empty() {
        review
            .notes
            .push(format!("too large to show whole, so reviewed from their hunks only: {}", reduced.join(", ")));
    }
    if ctxs.len() > 1 {
        review.notes.push(format!(
            "the change was split into {} parts to fit the model's context (~{budget} tokens each); \
             every reviewer ran once per part",
            ctxs.len()
        ));
    }
    review.notes.extend(opts.deep.clone());
    let found = find::run_all(&ctxs).await;
    review.find_units = found.len();
    let mut grounded = Vec::new();
    for outcome in found {
        match outcome.result {
            Ok(raws) => {
                let kept = ground_all(&ctxs[outcome.part], &outcome.reviewer, raws, &outcome.read, &mut review);
                grounded.extend(kept.into_iter().map(|f| (outcome.part, f)));
            }
            Err(message) => {
                review.find_failures += 1;
                review.gaps.push(Gap {
                    step: "find".into(),
                    reviewer: Some(outcome.reviewer),
                    finding: None,
                    message,
                    failed: true,
                })
            }
        }
        review.notes.extend(outcome.note);
    }
    review.funnel.grounded = grounded.len();

    let judged = judge::run_all(&ctxs, &grounded, &mut review).await;
    review.gaps.extend(session_gaps.into_inner().expect("gaps lock"));
    crate::review::name_findings(&mut review.gaps, grounded.iter().map(|(_, f)| f));
    review.funnel.survived = judged.iter().filter(|j| j.verdict == VerdictKind::Survives).count();
    let adj = adjudicate(&judged, opts.threshold);
    review.funnel.published = adj.published.len();
    review.funnel.minor = adj.minor.len();
    review.published = adj.published.iter().map(Published::from).collect();
    review.minor = adj.minor.iter().map(Published::from).collect();
    review.unverified = adj.unverified.iter().map(Published::from).collect();
    review.dropped.extend(adj.dropped);
    review.judged = judged;
    review.usage = usage.into_inner().expect("usage lock").into_values().collect();
    review.wall_ms = started.elapsed().as_millis() as u64;
    if ledger.timed_out() {
        review.timed_out = true;
        review.notes.insert(
            0,
            "the run reached its time limit (--timeout): calls still to make were not started and calls in \
             flight were abandoned; the gaps name each one, and findings they left unvalidated are not published"
                .into(),
        );
    }
    review
}

fn ground_all(ctx: &Ctx<'_>, reviewer: &str, raws: Vec<RawFinding>, read: &Shown, review: &mut Review) -> Vec<Finding> {
    review.funnel.candidates += raws.len();
    // The shown record is built on first use; a session with nothing to place never
    // needs it.
    if raws.is_empty() {
        return Vec::new();
    }
    // A reviewer with tools may point at code it read; without reads, no copy.
    let merged;
    let shown = if read.blocks.is_empty() {
        ctx.shown()
    } else {
        let mut all = ctx.shown().clone();
        all.blocks.extend(read.blocks.iter().cloned());
        merged = all;
        &merged
    };
    let mut kept = Vec::new();
    for raw in raws {
        // Inline placement depends on the whole change, not on this part of it.
        match ground(&raw, reviewer, shown, ctx.input.head, ctx.input.change) {
            Ok(f) => kept.push(f),
            Err(detail) => review.dropped.push(Dropped {
                reason: DropReason::Ungrounded,
                detail,
                reviewer: reviewer.to_string(),
                location: raw.location.clone(),
                claim: raw.claim.clone(),
                severity: raw.severity,
                confidence: None,
            }),
        }
    }
    kept
}

/// Changed files whose content no reviewer saw.
pub fn not_reviewed(change: &Change) -> Vec<NotReviewed> {
    change
        .files
        .iter()
        // A deleted file was reviewed through its removed lines, unless its name
        // kept them from being read.
        .filter(|f| {
            let deleted = f.diff.status == gauntlet_change::FileStatus::Deleted;
            f.head_text.is_none() && (!deleted || f.unreadable.as_deref() == Some(gauntlet_change::UNREADABLE_NAME))
        })
        .map(|f| NotReviewed::new(f.diff.path(), f.unreadable.clone().unwrap_or_else(|| "content unavailable".into())))
        .collect()
}

/// A judged finding that never got a verdict (validation failed).
pub(crate) fn not_validated(f: &Finding, message: &str) -> Dropped {
    Dropped::of(
        &Judged {
            finding: f.clone(),
            verdict: VerdictKind::Survives,
            confidence: 0,
            impact: crate::contract::Impact::Consequential,
            validator_evidence: String::new(),
            capped: None,
            gap: None,
            read: Vec::new(),
            raised_by: vec![f.reviewer.clone()],
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        },
        DropReason::NotValidated,
        message,
    )
}
