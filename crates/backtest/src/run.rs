//! Running the corpus: each case in its own temporary checkout, reviewed by the
//! pipeline with the gate's verdict recorded but not obeyed, then (optionally) by
//! the single-pass baseline, then scored. Nothing here can publish: results only
//! come back as data.

use crate::baseline;
use crate::checkout::{CheckoutError, checkout};
use crate::corpus::Case;
use crate::judge::session::Judge;
use crate::report::{BaselineResult, CaseResult, PipelineResult};
use crate::score::{MatchRule, Reported, Spend, score_with, tally_reviewers};
use gauntlet_change::git::Git;
use gauntlet_change::{Change, ChangeError, Target};
use gauntlet_model::Tier;
use gauntlet_review::context::{self, ContextError, Sources, feedback};
use gauntlet_review::fence::Fence;
use gauntlet_review::gate::{self, Decision, GateConfig, GateInput, PrMeta};
use gauntlet_review::pipeline::{self, Input, Models, RepoHead, RepoRead};
use gauntlet_review::review::Gap;
use gauntlet_review::rules::{self, Channel, Reviewer, RuleError};
use gauntlet_review::secrets::Masker;
use gauntlet_review::{Review, guidance};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Why a change runs on the deep tier (the caller's `deep_paths` and size rules).
pub type DeepRule = Arc<dyn Fn(&Change, usize) -> Option<String> + Send + Sync>;

/// The models one case runs on, given its fence: how a caller records or replays
/// each case's calls apart, under that case's own boundary.
pub type CaseModels = Arc<dyn Fn(&Case, &Fence) -> Result<Models, String> + Send + Sync>;

/// How to run the corpus (resolved settings; the same for every case).
#[derive(Clone)]
pub struct Setup {
    pub models: Models,
    /// When set, the models of each case (instead of `models`).
    pub case_models: Option<CaseModels>,
    pub options: pipeline::Options,
    pub gate: GateConfig,
    /// The external rules channel configured where the backtest runs, if any: its
    /// reviewers join the built-ins and each case repository's own.
    pub channel: Option<Channel>,
    /// Reviewer names turned off, and the only ones to run (when not empty).
    pub disable: Vec<String>,
    pub only: Vec<String>,
    pub deep: Option<DeepRule>,
    /// What context gathering is configured with (history window, token files);
    /// prior feedback is read from each case repository's export file.
    pub context: context::Config,
    /// Also run the single-pass baseline on every case.
    pub baseline: bool,
    /// Put every finding that matches nothing known, of either side, to a blind
    /// judge session on this tier (`--judge`); `None`: no judge.
    pub judge: Option<Tier>,
    pub tolerance: u32,
    /// The widest finding (in lines) that can still match a defect.
    pub max_span: u32,
    /// Cases reviewed at once.
    pub jobs: usize,
    /// A fixed fence boundary (for scripted and replayed runs); random when `None`.
    pub fence: Option<String>,
    /// Masks secrets in each case's change, head files, context and stated intent
    /// before any model reads them, as `gauntlet review` does; `None` only with
    /// `[secrets] mask = false`.
    pub masker: Option<Arc<Masker>>,
}

/// Why a case could not be run.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error(transparent)]
    Checkout(#[from] CheckoutError),
    #[error(transparent)]
    Change(#[from] ChangeError),
    #[error(transparent)]
    Rules(#[from] RuleError),
    #[error("[gate] settings: {0}")]
    Gate(String),
    #[error("base and head are the same tree: the case has no change to review; check `base` and `head`")]
    EmptyChange,
    #[error("no reviewer applies to the changed files (see `gauntlet reviewers` in the case repository)")]
    NoReviewer,
    #[error("no selected reviewer has anything to work with: {0}")]
    NothingToWorkWith(String),
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error("every reviewer failed, so nothing was reviewed: {0}")]
    NothingReviewed(String),
    #[error("baseline: {0}")]
    Baseline(String),
    #[error("models: {0}")]
    Models(String),
}

/// Run every case, `setup.jobs` at a time, calling `progress` as each one ends.
/// Results come back in the order of `cases`, whatever order they finished in.
pub fn run_all(
    cases: &[Case],
    setup: &Setup,
    runtime: &tokio::runtime::Handle,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Vec<CaseResult> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..setup.jobs.clamp(1, cases.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    let result = run_case(case, setup, runtime);
                    progress(&result);
                    done.lock().expect("results lock")[i] = Some(result);
                }
            });
        }
    });
    done.into_inner().expect("results lock").into_iter().map(|r| r.expect("every case ran")).collect()
}

/// Run and score one case. A failure is recorded in the result, never raised: the
/// other cases still run.
pub fn run_case(case: &Case, setup: &Setup, runtime: &tokio::runtime::Handle) -> CaseResult {
    let mut result = CaseResult::new(case);
    if let Err(e) = review_case(case, setup, runtime, &mut result) {
        result.error = Some(e.to_string());
    }
    result
}

fn review_case(
    case: &Case,
    setup: &Setup,
    runtime: &tokio::runtime::Handle,
    result: &mut CaseResult,
) -> Result<(), CaseError> {
    let repo = checkout(&case.repo, &case.base, &case.head)?;
    let git = &repo.git;
    let target = Target::Range { base: repo.base.clone(), head: Some(repo.head.clone()) };
    let mut change = gauntlet_change::acquire(git, &target)?;
    if change.is_empty() {
        return Err(CaseError::EmptyChange);
    }
    let changed_lines = apply_gate(git, &mut change, &setup.gate, result)?;
    // A mined case can be the commit that added a secret (its fix removed it).
    if let Some(masker) = &setup.masker {
        masker.change(&mut change);
    }
    let change = change;
    let mut guidance = guidance::load(git, &change)?;
    let mut head = RepoHead::new(git, &change)?;
    if let Some(masker) = &setup.masker {
        head = head.masking(masker.clone());
        for g in &mut guidance {
            g.text = masker.text(&g.text).0;
        }
    }
    let mut prepared = reviewers(git, &change, &head, setup)?;
    if let Some(masker) = &setup.masker {
        context::mask(&mut prepared.reviewers, masker);
    }
    let selected = prepared.reviewers;
    let intent = head_intent(git, &change, setup.masker.as_deref());
    let fence = match &setup.fence {
        Some(boundary) => Fence::fixed(boundary),
        None => {
            let mut untrusted = gauntlet_review::prompt::untrusted_texts(&change, &guidance);
            untrusted.extend(context::untrusted_texts(&selected));
            untrusted.extend(intent.iter().map(|i| i.text.as_str()));
            Fence::new(&mut rand::rng(), untrusted)
        }
    };
    let models = match &setup.case_models {
        Some(for_case) => for_case(case, &fence).map_err(CaseError::Models)?,
        None => setup.models.clone(),
    };
    let rules_version = rules::version(&selected.iter().collect::<Vec<_>>());
    let input = Input { change: &change, reviewers: selected, guidance, head: &head, rules_version, fence, intent };
    let mut options = setup.options.clone();
    options.deep = setup.deep.as_ref().and_then(|rule| rule(&change, changed_lines));
    let mut review = runtime.block_on(pipeline::run(&input, &models, &options));
    if review.nothing_reviewed() {
        let why = review.gaps.first().map_or_else(String::new, |g| g.message.clone());
        return Err(CaseError::NothingReviewed(why));
    }
    review.gaps.extend(prepared.failures.into_iter().map(|(name, message)| Gap {
        step: "context".into(),
        reviewer: Some(name),
        finding: None,
        message,
        failed: true,
    }));
    let rule = MatchRule { tolerance: setup.tolerance, max_span: setup.max_span };
    result.gauntlet = Some(score_pipeline(case, &review, rule));
    if setup.baseline {
        let tier = options.route(Tier::Standard);
        let provider = models.get(tier);
        // The same related code the pipeline's shared blocks held, as it built it.
        let related = gauntlet_review::prompt::related(&review.related, &input.fence);
        let run = runtime
            .block_on(baseline::run(
                &change,
                related.as_deref(),
                &input.fence,
                input.intent.as_ref(),
                provider,
                tier,
                &options.prices,
            ))
            .map_err(CaseError::Baseline)?;
        result.baseline = Some(score_baseline(case, run, rule));
    }
    if let Some(tier) = setup.judge {
        let judge = Judge {
            change: &change,
            head: &head,
            fence: &input.fence,
            provider: models.get(tier),
            tier,
            tools: options.tools,
            region_lines: options.region_lines,
            masker: setup.masker.as_deref(),
            prices: &options.prices,
            spent: Mutex::new(Spend { cost: Some(0.0), ..Spend::default() }),
            ledger: pipeline::Ledger::new(options.budget),
        };
        judge_case(&judge, case, result, options.concurrency, runtime);
    }
    Ok(())
}

/// Judge the unmatched findings of both sides of a scored case, blind to the side.
fn judge_case(
    judge: &Judge<'_>,
    case: &Case,
    result: &mut CaseResult,
    concurrency: usize,
    runtime: &tokio::runtime::Handle,
) {
    let empty = Vec::new();
    let gauntlet = result.gauntlet.as_ref().map_or(&empty, |g| &g.score.unmatched);
    let baseline = result.baseline.as_ref().map_or(&empty, |b| &b.score.unmatched);
    let sides = [gauntlet.as_slice(), baseline.as_slice()];
    let mut judged = runtime.block_on(crate::judge::judge_sides(judge, &case.name, &sides, concurrency)).into_iter();
    let (ours, theirs) = (judged.next(), judged.next());
    if let Some(g) = &mut result.gauntlet {
        g.judge = ours;
    }
    if let Some(b) = &mut result.baseline {
        b.judge = theirs;
    }
    result.judge_spend = Some(judge.spent.lock().expect("judge spend lock").clone());
}

/// What the case's author said the change does: its head commit's own message,
/// masked. Never the case's `description` or its defects: those are the answer key.
fn head_intent(git: &Git, change: &Change, masker: Option<&Masker>) -> Option<gauntlet_review::intent::Intent> {
    let commit = git.commit_info(&change.head).ok()?;
    let message = format!("{}\n\n{}", commit.subject, commit.body);
    gauntlet_review::intent::Intent::commits(&[message], masker)
}

/// The reviewers that run on the change, with the context they ask for, as
/// `gauntlet review` would choose them. Prior feedback comes only from the case
/// repository's export file: a backtest never asks a code host.
fn reviewers(git: &Git, change: &Change, head: &dyn RepoRead, setup: &Setup) -> Result<context::Prepared, CaseError> {
    let all = rules::load_with(git.root(), setup.channel.as_ref())?;
    let files: Vec<&gauntlet_change::FileDiff> = change.files.iter().map(|f| &f.diff).collect();
    let selected: Vec<Reviewer> = rules::select(&all, &files, &setup.disable, &setup.only)
        .into_iter()
        .filter(|(_, s)| matches!(s, rules::Selection::Runs { .. }))
        .map(|(r, _)| r.clone())
        .collect();
    if selected.is_empty() {
        return Err(CaseError::NoReviewer);
    }
    let mut config = setup.context.clone();
    if let Ok(text) = std::fs::read_to_string(git.root().join(feedback::EXPORT_FILE)) {
        config.feedback = feedback::parse_jsonl(feedback::EXPORT_FILE, &text)?;
    }
    let prepared = context::prepare(&Sources { git, change, head, config: &config }, selected);
    if prepared.reviewers.is_empty() && prepared.failures.is_empty() {
        return Err(CaseError::NothingToWorkWith(prepared.notes.join("; ")));
    }
    Ok(prepared)
}

/// Record what the gate would have decided (the backtest reviews regardless), and
/// set aside the files it ignores, as `gauntlet review` does. Returns the changed
/// lines of the reviewed files.
fn apply_gate(
    git: &Git,
    change: &mut Change,
    config: &GateConfig,
    result: &mut CaseResult,
) -> Result<usize, CaseError> {
    let subjects = git.commit_subjects(&change.base, &change.head);
    let attributes = git.read(&change.snapshot, ".gitattributes")?.map(|b| String::from_utf8_lossy(&b).into_owned());
    let generated = gate::generated_globs(attributes.as_deref().unwrap_or(""));
    let input = GateInput {
        change,
        pr: &PrMeta::default(),
        commit_subjects: &subjects,
        generated_globs: &generated,
        already_reviewed: false,
        force: false,
    };
    if let Decision::Skip { reason } = gate::decide(&input, config).map_err(CaseError::Gate)? {
        result.gate_would_skip = Some(reason);
    }
    let (ignored, changed_lines) = gate::classify(change, &generated, config).map_err(CaseError::Gate)?;
    // A change made only of ignored files is reviewed whole, as with --force.
    if ignored.len() < change.files.len() {
        change.files.retain(|f| !ignored.iter().any(|(p, _)| p == f.diff.path()));
    }
    Ok(changed_lines)
}

fn score_pipeline(case: &Case, review: &Review, rule: MatchRule) -> PipelineResult {
    let published: Vec<Reported> = review
        .published
        .iter()
        .map(|p| Reported {
            reviewer: p.reviewer.clone(),
            location: p.location.clone(),
            claim: p.claim.clone(),
            raised_by: p.raised_by.clone(),
            also_at: p.also_at.clone(),
        })
        .collect();
    let score = score_with(&case.defects, &case.also_real, &published, rule);
    let candidates_caught = score_with(&case.defects, &[], &candidates(review), rule).caught;
    let mut noise = BTreeMap::new();
    tally_reviewers(&mut noise, review, &score.true_positives_by_reviewer);
    PipelineResult {
        judge: None,
        funnel: review.funnel,
        validator_sessions: review.validator_sessions,
        spend: Spend::of(review),
        gaps: review.gaps.iter().map(|g| format!("{}: {}", g.step, g.message)).collect(),
        reviewers: noise.into_values().collect(),
        sweep: crate::sweep::of_case(case, review, rule),
        findings: published,
        score,
        candidates_caught,
    }
}

/// Every candidate the finders proposed, wherever it ended: published, listed as
/// minor, unverified or dropped for any reason (ungrounded, disproved, below the
/// threshold, a duplicate).
fn candidates(review: &Review) -> Vec<Reported> {
    let kept = review.published.iter().chain(&review.minor).chain(&review.unverified);
    let kept = kept.map(|p| (&p.reviewer, p.location.clone(), &p.claim));
    let dropped = review.dropped.iter().map(|d| (&d.reviewer, d.location.clone(), &d.claim));
    kept.chain(dropped)
        .map(|(reviewer, location, claim)| Reported {
            reviewer: reviewer.clone(),
            location,
            claim: claim.clone(),
            ..Reported::default()
        })
        .collect()
}

fn score_baseline(case: &Case, run: baseline::BaselineRun, rule: MatchRule) -> BaselineResult {
    let u = run.usage;
    BaselineResult {
        score: score_with(&case.defects, &case.also_real, &run.published, rule),
        findings: run.published,
        spend: Spend::of_call("baseline", &u, run.cost, run.wall_ms),
        error: run.error,
        judge: None,
    }
}
