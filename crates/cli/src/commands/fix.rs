//! `gauntlet fix`: turn the published findings of a review (run here, or read from
//! `--from report.json`) into patches, one adversarial loop per finding. The user's
//! working tree is only touched with `--apply`.

use super::review::{self, Plan};
use crate::args::{FixArgs, LoopArgs};
use crate::files::write_atomically;
use crate::providers;
use crate::settings::{Env, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_loop::engine::{Flow, Settings as LoopSettings};
use gauntlet_loop::fix::sandbox::Check;
use gauntlet_loop::fix::summary::{FixReport, ItemReport, patch_file_name, render};
use gauntlet_loop::fix::{FixRun, WorkItem, apply_to, fix_all, is_commit, parse_report};
use gauntlet_loop::meter::Meter;
use gauntlet_model::Tier;
use gauntlet_review::pipeline::{Budget, Deadline, Models};
use gauntlet_review::review::{Review, StepUsage};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What an interrupted `fix` leaves behind.
const STOPPED: &str = "no patch was written or applied, and the temporary worktrees were removed";

/// Most rounds `--rounds` accepts: past this a loop only burns money.
const MAX_ROUNDS: u32 = 50;

pub enum Outcome {
    Done,
    /// Every loop failed before judging anything: nothing was fixed.
    NothingFixed,
}

/// The loop settings the flags ask for.
pub fn loop_settings(args: &LoopArgs) -> Result<LoopSettings> {
    if args.rounds == 0 || args.rounds > MAX_ROUNDS {
        bail!("--rounds {}: use 1 to {MAX_ROUNDS}", args.rounds);
    }
    let flow = if args.inverted { Flow::Inverted } else { Flow::Standard };
    Ok(LoopSettings { rounds: args.rounds, flow, tier: Tier::Standard })
}

/// The work: the reviewed head, the findings, the providers and settings, and what
/// the review itself spent (the budget covers both).
struct Work {
    head: String,
    items: Vec<WorkItem>,
    models: Models,
    settings: Settings,
    review_usage: Vec<StepUsage>,
}

pub fn run(git: &Git, config: Option<&Path>, args: &FixArgs, env: &Env, is_tty: bool) -> Result<Outcome> {
    let loop_settings = loop_settings(&args.loop_args)?;
    let json = match args.review.format.as_deref() {
        None | Some("terminal") => false,
        Some("json") => true,
        Some(other) => bail!("--format {other}: fix prints `terminal` or `json`"),
    };
    let settings = Settings::resolve(git.root(), config, &args.review, env, is_tty)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let started = Instant::now();
    let Some(work) = gather(git, args, env, settings, &runtime)? else {
        return Ok(Outcome::Done);
    };
    if let Some(out) = &args.out {
        refuse_existing(out, &work.items)?;
    }
    let fix_run = FixRun {
        masker: super::review::fix_masker(&work.settings)?,
        repo: git.root().to_path_buf(),
        head: work.head.clone(),
        check: args.check.clone().map(|command| Check { command, timeout: Duration::from_secs(args.check_timeout) }),
        settings: loop_settings,
        jobs: work.settings.concurrency,
    };
    let budget = remaining(work.settings.budget, &work.review_usage);
    let deadline = args
        .review
        .timeout
        .map(|secs| Deadline { at: started + Duration::from_secs(secs), limit: Duration::from_secs(secs) });
    let display = crate::progress::Display::start();
    let meter = Meter::new(work.models.clone(), work.settings.prices.clone(), budget)
        .with_deadline(deadline)
        .with_progress(display.observer());
    crate::progress::say!(
        "gauntlet: fixing {} finding(s), up to {} rounds each, {} at a time, on {}",
        work.items.len(),
        loop_settings.rounds,
        fix_run.jobs,
        work.models.label(Tier::Standard)
    );
    if let Some(note) = crate::offline::tiny_model_note(&work.models.label(Tier::Standard)) {
        crate::progress::say!("gauntlet: note: {note}");
    }
    let results = crate::interrupt::block_on(&runtime, STOPPED, fix_all(&work.items, &fix_run, &meter))?;
    display.finish();
    let mut usage = work.review_usage;
    usage.extend(meter.usage());
    let mut report = FixReport {
        head: work.head,
        rounds: loop_settings.rounds,
        flow: loop_settings.flow,
        check: args.check.clone(),
        items: results.iter().map(ItemReport::new).collect(),
        usage,
        notes: Vec::new(),
        wall_ms: started.elapsed().as_millis() as u64,
    };
    crate::interrupt::check(STOPPED)?;
    deliver(git, args, &mut report)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
        if args.out.is_none() {
            print_patches(&report);
        }
    }
    let nothing = report.items.iter().all(|i| i.history.is_empty());
    Ok(if nothing { Outcome::NothingFixed } else { Outcome::Done })
}

/// Find the work items: from `--from`, or by running the review first. `None` when
/// there is nothing to fix (said on stderr and stdout).
fn gather(
    git: &Git,
    args: &FixArgs,
    env: &Env,
    settings: Settings,
    runtime: &tokio::runtime::Runtime,
) -> Result<Option<Work>> {
    let work = if let Some(path) = &args.from {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let (head, items) = parse_report(&text, &path.display().to_string())?;
        check_head(git, &head)?;
        let models = if items.is_empty() { None } else { Some(build_models(&settings, env)?) };
        (head, items, models, settings, Vec::new())
    } else {
        // Asking for fixes is asking for the review: the gate's "already reviewed"
        // and the like do not apply.
        let review_args = crate::args::ReviewArgs { force: true, ..args.review.clone() };
        let prepared = match review::prepare(git, &review_args, env, settings)? {
            Plan::Skip(review) => {
                nothing_to_fix(review.skipped.as_ref().map_or("", |s| s.reason.as_str()));
                return Ok(None);
            }
            Plan::Run(prepared) => prepared,
        };
        check_head(git, &prepared.change.head)?;
        let review: Review = crate::interrupt::block_on(runtime, STOPPED, prepared.run(git))??;
        if review.nothing_reviewed() {
            let why = super::review::nothing_reviewed(&review);
            bail!("{why}: there are no findings to fix (`gauntlet review` shows the whole report)");
        }
        crate::progress::say!("gauntlet: the review published {} finding(s)", review.published.len());
        let items = review.published.iter().map(WorkItem::from).collect();
        let p = *prepared;
        (review.head.clone(), items, Some(p.models), p.settings, review.usage)
    };
    let (head, items, models, settings, review_usage) = work;
    let Some(models) = models.filter(|_| !items.is_empty()) else {
        nothing_to_fix("the review published no findings");
        return Ok(None);
    };
    Ok(Some(Work { head, items, models, settings, review_usage }))
}

fn nothing_to_fix(why: &str) {
    println!("gauntlet fix: nothing to fix: {why}");
    crate::progress::say!("gauntlet: nothing to fix: {why}");
}

fn build_models(settings: &Settings, env: &Env) -> Result<Models> {
    let specs = providers::specs(settings)?;
    providers::build(settings, &specs, env, None, super::review::fix_masker(settings)?.as_ref())
}

/// Patches are made against a commit that this repository has.
fn check_head(git: &Git, head: &str) -> Result<()> {
    if !is_commit(head) {
        bail!(
            "fix makes patches against a commit, and the reviewed head is {head}: commit the change first \
             (or review a range with --base/--head)"
        );
    }
    if git.try_resolve(head)?.is_none() {
        bail!("the reviewed head {head} is not in this repository: fetch it, or run fix where the review ran");
    }
    Ok(())
}

/// The budget left once the review has spent its share.
pub(crate) fn remaining(budget: Budget, spent: &[StepUsage]) -> Budget {
    let calls: u32 = spent.iter().map(|u| u.calls).sum();
    let tokens: u64 = spent.iter().map(|u| u.input + u.output).sum();
    let cost: f64 = spent.iter().filter_map(|u| u.cost).sum();
    Budget {
        max_calls: budget.max_calls.map(|m| m.saturating_sub(calls)),
        max_tokens: budget.max_tokens.map(|m| m.saturating_sub(tokens)),
        max_cost: budget.max_cost.map(|m| (m - cost).max(0.0)),
    }
}

/// Refuse, before any model call, to write over patch files already in `dir`.
fn refuse_existing(dir: &Path, items: &[WorkItem]) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        for name in [true, false].map(|converged| patch_file_name(i + 1, &item.location, converged)) {
            let path = dir.join(&name);
            if path.exists() {
                bail!("{} already exists: remove it, or choose another --out folder", path.display());
            }
        }
    }
    Ok(())
}

/// Write the patch files (`--out`) and apply converged patches (`--apply`).
fn deliver(git: &Git, args: &FixArgs, report: &mut FixReport) -> Result<()> {
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (i, item) in report.items.iter_mut().enumerate() {
            let Some(patch) = item.patch.clone() else { continue };
            let path: PathBuf = dir.join(item.file_name(i + 1));
            write_atomically(&path, &item.patch_file(&patch))?;
            item.file = Some(path.display().to_string());
        }
    }
    if args.apply {
        for item in &mut report.items {
            item.applied = match (&item.patch, item.converged) {
                (None, _) => None,
                (Some(_), false) => Some("not applied: it did not converge".into()),
                (Some(patch), true) => Some(match apply_to(git.root(), patch) {
                    Ok(()) => "applied to the working tree".into(),
                    Err(why) => format!("not applied: {why}"),
                }),
            };
        }
    }
    Ok(())
}

/// Without `--out`, the kept patches go to stdout after the table.
fn print_patches(report: &FixReport) {
    for (i, item) in report.items.iter().enumerate() {
        if let Some(patch) = &item.patch {
            println!("\n## item {}: {}\n", i + 1, item.location.replace(char::is_control, " "));
            print!("{}", item.patch_file(patch));
        }
    }
}
