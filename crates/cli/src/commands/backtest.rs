//! `gauntlet backtest CORPUS`: review every case of a corpus and score the result
//! against the known answers (optionally beside a single-pass baseline). Like
//! `review`, it only prints: nothing in it can reach a code host.

use crate::args::{BacktestArgs, ReviewArgs};
use crate::providers;
use crate::settings::{Env, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_backtest::report::{CaseResult, Meta, summarise};
use gauntlet_backtest::run::{DeepRule, Setup, run_all};
use gauntlet_model::Tier;
use gauntlet_review::pipeline;
use std::path::Path;
use std::sync::Arc;

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

pub fn run(dir: &Path, config: Option<&Path>, args: &BacktestArgs, env: &Env) -> Result<Outcome> {
    if !matches!(args.format.as_str(), "markdown" | "json") {
        bail!("--format {}: use markdown or json", args.format);
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let corpus_dir = dir.join(&args.corpus);
    let cases = gauntlet_backtest::corpus::load(&corpus_dir)?;
    // Models, prices and review settings come from where gauntlet runs (its
    // gauntlet.toml), never from the case repositories.
    let root = gauntlet_change::git::Git::discover(dir).map(|g| g.root().to_path_buf()).unwrap_or(dir.to_path_buf());
    let settings = Arc::new(Settings::resolve(&root, config, &review_args(args), env, false)?);
    gauntlet_review::gate::globset(&settings.file.gate.deep_paths)
        .map_err(|e| anyhow::anyhow!("[gate] deep_paths in gauntlet.toml: {e}"))?;
    let specs = providers::specs(&settings)?;
    let models = providers::build(&settings, &specs, env, None)?;
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
        reviewer_tools: settings.file.review.reviewer_tools.unwrap_or(false),
    };
    let provider = models.label(Tier::Standard);
    let deep_settings = settings.clone();
    let deep: DeepRule = Arc::new(move |change, lines| deep_settings.deep_reason(change, lines).ok().flatten());
    let setup = Setup {
        models,
        options,
        gate: settings.gate.clone(),
        disable: settings.disable.clone(),
        only: settings.only.clone(),
        deep: Some(deep),
        baseline: args.baseline,
        tolerance: args.tolerance,
        jobs: args.jobs,
        fence: None,
    };
    eprintln!(
        "gauntlet: backtest of {} case(s) in {} on {provider}{}",
        cases.len(),
        corpus_dir.display(),
        if args.baseline { ", with the single-pass baseline" } else { "" }
    );
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let results = run_all(&cases, &setup, runtime.handle(), &progress);
    let meta = Meta {
        corpus: args.corpus.display().to_string(),
        provider: provider.clone(),
        tolerance: args.tolerance,
        threshold: settings.threshold,
        baseline: args.baseline,
        notes: crate::offline::tiny_model_note(&provider).into_iter().collect(),
    };
    let report = summarise(meta, results);
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&report)?),
        _ => print!("{}", gauntlet_backtest::markdown::render(&report)),
    }
    Ok(if report.failed == 0 { Outcome::AllRan } else { Outcome::SomeFailed(report.failed) })
}

/// One line per finished case on stderr, so a long run shows its progress.
fn progress(case: &CaseResult) {
    match (&case.error, &case.gauntlet) {
        (Some(e), _) => eprintln!("gauntlet: {}: failed: {e}", case.name),
        (None, Some(g)) => eprintln!(
            "gauntlet: {}: {} published, {}/{} known defect(s) caught",
            case.name, g.score.published, g.score.caught, g.score.defects
        ),
        (None, None) => {}
    }
}
