//! `gauntlet backtest CORPUS`: review every case of a corpus and score the result
//! against the known answers (optionally beside a single-pass baseline). Like
//! `review`, it only prints: nothing in it can reach a code host. `backtest mine`
//! ([`mine`]) builds a corpus from the repository's history; `backtest curate`
//! ([`curate`]) has a person accept or reject its cases (once any case is accepted,
//! only accepted cases are run and scored); `backtest merge` ([`merge`]) adds up
//! the reports of `--shard` runs.

mod curate;
mod merge;
mod mine;

use crate::args::{BacktestArgs, BacktestCommand, ReviewArgs};
use crate::progress::{Cases, say};
use crate::providers::{self, Recording};
use crate::settings::{Env, ModelSpec, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_backtest::corpus::Case;
use gauntlet_backtest::curate::Selection;
use gauntlet_backtest::report::{CaseResult, Meta, summarise};
use gauntlet_backtest::run::{CaseModels, DeepRule, Setup, run_all};
use gauntlet_change::git::Git;
use gauntlet_model::record::Recorder;
use gauntlet_model::{Provider, Tier};
use gauntlet_report::weblink::WebRepo;
use gauntlet_review::fence::Fence;
use gauntlet_review::pipeline::{self, Models};
use gauntlet_review::progress::Observer;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How the run ended, for the exit code.
pub enum Outcome {
    AllRan,
    /// This many cases could not be run (the report lists why).
    SomeFailed(usize),
}

/// The review flags the backtest shares, as `review` would read them.
fn review_args(args: &BacktestArgs) -> ReviewArgs {
    ReviewArgs {
        provider: args.provider.clone(),
        model_path: args.model_path.clone(),
        model: args.model.clone(),
        concurrency: args.concurrency,
        threshold: args.threshold,
        reviewers: args.reviewers.clone(),
        color: "never".into(),
        ..ReviewArgs::default()
    }
}

/// Print a report in `format` (markdown, json or html; the HTML links to `web`'s
/// pages when known).
fn print(report: &gauntlet_backtest::report::Backtest, format: &str, web: Option<&WebRepo>) -> Result<()> {
    match format {
        "json" => println!("{}", serde_json::to_string_pretty(report)?),
        "html" => print!("{}", gauntlet_backtest::html::render_linked(report, web)),
        _ => print!("{}", gauntlet_backtest::markdown::render(report)),
    }
    Ok(())
}

fn check_format(format: &str) -> Result<()> {
    if !matches!(format, "markdown" | "json" | "html") {
        bail!("--format {format}: use markdown, json or html");
    }
    Ok(())
}

pub fn run(dir: &Path, config: Option<&Path>, args: &BacktestArgs, env: &Env) -> Result<Outcome> {
    match &args.action {
        Some(BacktestCommand::Mine(mine)) => return mine::run(dir, config, mine).map(|()| Outcome::AllRan),
        Some(BacktestCommand::Curate(curate)) => return curate::run(dir, curate).map(|()| Outcome::AllRan),
        Some(BacktestCommand::Merge(merge)) => return merge::run(dir, merge),
        None => {}
    }
    check_format(&args.format)?;
    let web = super::web::repo(dir, args.repo_url.as_deref())?;
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let corpus = args.corpus.clone().context("name the corpus folder: gauntlet backtest CORPUS")?;
    let corpus_dir = dir.join(&corpus);
    let mut cases = gauntlet_backtest::corpus::load(&corpus_dir)?;
    // Decided over the whole corpus, so every shard scores the same cases.
    let selection = Selection::of_cases(&cases);
    if let Some(shard) = &args.shard {
        cases = shard.select(cases);
    }
    let (cases, left_out) = gauntlet_backtest::curate::split(cases, &selection);
    // Models, prices and review settings come from where gauntlet runs (its
    // gauntlet.toml), never from the case repositories.
    let root = Git::discover(dir).map(|g| g.root().to_path_buf()).unwrap_or(dir.to_path_buf());
    let settings = Arc::new(Settings::resolve(&root, config, &review_args(args), env, false)?);
    gauntlet_review::gate::globset(&settings.file.gate.deep_paths)
        .map_err(|e| anyhow::anyhow!("[gate] deep_paths in gauntlet.toml: {e}"))?;
    let specs = providers::specs(&settings)?;
    // An external rules channel configured here is fetched once and used for every case.
    let channel = match settings.file.rules.git.is_some() {
        true => crate::ruleset::RuleSet::load(&Git::at(&root), &Default::default(), &settings.file, env)?
            .channel
            .map(|(c, _)| c),
        false => None,
    };
    let misses: Arc<Mutex<Vec<String>>> = Arc::default();
    // A replay calls no model, so it needs no key: even the shared models are replayers.
    let shared = args.replay.as_ref().map(|dir| Recording {
        replay: true,
        dir: dir.clone(),
        boundary: String::new(),
        misses: misses.clone(),
    });
    let masker = crate::commands::review::fix_masker(&settings)?;
    let models = providers::build(&settings, &specs, env, shared.as_ref(), masker.as_ref())?;
    let case_models = case_models(args, &settings, &specs, &models, &misses);
    let shown = Cases::start(cases.len());
    let options = pipeline::Options {
        concurrency: settings.concurrency,
        threshold: settings.threshold,
        region_lines: settings.region_lines,
        validator_tier: settings.validator_tier,
        budget: settings.budget,
        prices: settings.prices.clone(),
        deep: None,
        context_tokens: settings.context_tokens(&specs),
        tools: settings.tool_limits(),
        reviewer_tools: settings.file.review.reviewer_tools.unwrap_or(true),
        reviewer_max_steps: settings.file.review.reviewer_max_steps.unwrap_or(pipeline::REVIEWER_MAX_STEPS),
        related_tokens: settings.file.context.related_tokens,
        deadline: None,
        progress: Observer::new(shown.clone()),
    };
    let provider = models.label(Tier::Standard);
    let deep_settings = settings.clone();
    let deep: DeepRule = Arc::new(move |change, lines| deep_settings.deep_reason(change, lines).ok().flatten());
    let setup = Setup {
        models,
        case_models,
        options,
        gate: settings.gate.clone(),
        channel,
        disable: settings.disable.clone(),
        only: settings.only.clone(),
        deep: Some(deep),
        context: gauntlet_review::context::Config {
            history_days: settings.file.context.history_days.unwrap_or(gauntlet_review::context::history::DEFAULT_DAYS),
            token_files: settings.file.context.token_files.clone(),
            ..gauntlet_review::context::Config::default()
        },
        baseline: args.baseline,
        judge: args.judge.then_some(args.judge_tier),
        tolerance: args.tolerance,
        max_span: args.max_span,
        jobs: args.jobs,
        fence: None,
        masker: crate::commands::review::fix_masker(&settings)?,
    };
    say!(
        "gauntlet: backtest of {} case(s) in {}{} on {provider}{}{}",
        cases.len(),
        corpus_dir.display(),
        args.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
        if args.baseline { ", with the single-pass baseline" } else { "" },
        if args.judge {
            format!(", unmatched findings judged blind on the {} tier", args.judge_tier.as_str())
        } else {
            String::new()
        }
    );
    say!("gauntlet: {}", selection.sentence());
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let mut results = run_all(&cases, &setup, runtime.handle(), &|case| shown.finished(&case_line(case)));
    shown.finish();
    // Left-out cases stay in the report, not run, so it can list them and why.
    results.extend(left_out);
    results.sort_by(|a, b| a.name.cmp(&b.name));
    let meta = Meta {
        corpus: corpus.display().to_string(),
        provider: provider.clone(),
        tolerance: args.tolerance,
        max_span: args.max_span,
        threshold: settings.threshold,
        baseline: args.baseline,
        shard: args.shard.map(|s| s.to_string()),
        notes: crate::offline::tiny_model_note(&provider).into_iter().collect(),
    };
    let misses = misses.lock().expect("misses lock");
    if !misses.is_empty() {
        bail!(
            "replay: {} model request(s) are not in the recording {}: {}. The corpus, the settings or the \
             prompts differ from the recorded run; record it again with --record DIR",
            misses.len(),
            args.replay.as_deref().unwrap_or(Path::new("")).display(),
            misses.join(", ")
        );
    }
    let report = summarise(meta, results);
    print(&report, &args.format, web.as_ref())?;
    Ok(if report.failed == 0 { Outcome::AllRan } else { Outcome::SomeFailed(report.failed) })
}

/// `--record DIR` / `--replay DIR`: each case's calls kept apart in `DIR/CASE`, under
/// that case's own fence boundary (recordings store a placeholder in its place).
fn case_models(
    args: &BacktestArgs,
    settings: &Arc<Settings>,
    specs: &BTreeMap<Tier, ModelSpec>,
    models: &Models,
    misses: &Arc<Mutex<Vec<String>>>,
) -> Option<CaseModels> {
    if let Some(dir) = args.record.clone() {
        let models = models.clone();
        return Some(Arc::new(move |case: &Case, fence: &Fence| {
            let wrap = |tier: Tier| -> Result<Arc<dyn Provider>, String> {
                let inner = models.get(tier).clone();
                let recorder = Recorder::record(inner, &dir.join(&case.name), fence.boundary());
                Ok(Arc::new(recorder.map_err(|e| e.to_string())?))
            };
            Ok(Models::new(wrap(Tier::Fast)?, wrap(Tier::Standard)?, wrap(Tier::Deep)?))
        }));
    }
    let dir = args.replay.clone()?;
    let (settings, specs, misses) = (settings.clone(), specs.clone(), misses.clone());
    // The `[secrets]` patterns were checked when the run's own models were built.
    let masker = crate::commands::review::fix_masker(&settings).ok().flatten();
    Some(Arc::new(move |case: &Case, fence: &Fence| {
        let recording = Recording {
            replay: true,
            dir: dir.join(&case.name),
            boundary: fence.boundary().to_string(),
            misses: misses.clone(),
        };
        providers::build(&settings, &specs, &|_| None, Some(&recording), masker.as_ref()).map_err(|e| format!("{e:#}"))
    }))
}

/// What a finished case's progress line says after its count.
fn case_line(case: &CaseResult) -> String {
    match (&case.error, &case.gauntlet) {
        (Some(e), _) => format!("{}: failed: {e}", case.name),
        (None, Some(g)) => format!(
            "{}: {} published, {}/{} known defect(s) caught",
            case.name, g.score.published, g.score.caught, g.score.defects
        ),
        (None, None) => format!("{}: done", case.name),
    }
}
