//! The `gauntlet` binary: flags, settings, wiring. Errors surface once, here, with
//! one exit-code policy: 0 when the command did its job (findings or not, skips
//! included), 1 when a review ran but reviewed nothing (every reviewer failed, or
//! no changed file could be shown to a model) or a
//! backtest case could not be run,
//! 2 for errors the user must fix (not a repository, bad revision, bad config),
//! 3 when `--fail-on` (on `review` or `ci`) finds a finding that severe,
//! 4 when none is but a candidate that severe could not be validated either way,
//! 130 when `review`, `ci` or `fix` was stopped by Ctrl-C or SIGTERM.

mod args;
mod ci_env;
mod commands;
mod context;
mod feedback_api;
mod files;
mod gate;
mod help;
mod interrupt;
mod offline;
mod outputs;
mod pr;
mod pr_url;
mod progress;
mod providers;
mod roster;
mod ruleset;
mod settings;
mod state;
mod trusted;

use anyhow::Result;
use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    progress::init(progress::Mode::choose(cli.quiet, &env_var, std::io::stderr().is_terminal()));
    #[cfg(feature = "local")]
    gauntlet_local::ensure_passive_openmp();
    if matches!(cli.command, args::Command::Review(_) | args::Command::Ci(_) | args::Command::Fix(_)) {
        interrupt::install();
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if let Some(stop) = e.downcast_ref::<interrupt::Interrupted>() {
                eprintln!("gauntlet: {stop}");
                return ExitCode::from(interrupt::EXIT_CODE);
            }
            if interrupt::raised() {
                // A signal also reaches the git processes of the terminal's group,
                // which then fail: the interrupt is the story, not their errors.
                eprintln!("gauntlet: interrupted: the run stopped before finishing ({e:#})");
                return ExitCode::from(interrupt::EXIT_CODE);
            }
            eprintln!("gauntlet: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// What a run cut short by `--timeout` says last.
const TIMED_OUT: &str = "the run reached its --timeout before it was done, so the review is partial and the \
    report's gaps name what was not done; raise --timeout, or review a smaller change";

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn run(cli: args::Cli) -> Result<ExitCode> {
    let dir = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    let config = cli.config.as_deref();
    match &cli.command {
        args::Command::Init { force } => {
            let git = gauntlet_change::git::Git::discover(&dir)?;
            commands::init::run(git.root(), *force)?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Reviewers(change) => {
            let git = gauntlet_change::git::Git::discover(&dir)?;
            commands::reviewers::run(&git, config, change, &env_var)?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Model(action) => {
            model_command(action)?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Backtest(backtest) => match commands::backtest::run(&dir, config, backtest, &env_var)? {
            commands::backtest::Outcome::AllRan => Ok(ExitCode::SUCCESS),
            commands::backtest::Outcome::SomeFailed(n) => {
                eprintln!("gauntlet: {n} case(s) could not be run; see their errors in the report");
                Ok(ExitCode::from(1))
            }
        },
        args::Command::Stats(stats) => {
            // `[ci] author_may_dismiss` from gauntlet.toml, when run inside the repository.
            let root = gauntlet_change::git::Git::discover(&dir).ok().map(|g| g.root().to_path_buf());
            let path = config.map(std::path::Path::to_path_buf).or_else(|| root.map(|r| r.join(settings::FILE_NAME)));
            let file = match path {
                Some(path) => settings::read_file(&path, config.is_some())?,
                None => settings::FileConfig::default(),
            };
            commands::stats::run(stats, file.ci.author_may_dismiss.unwrap_or(false), &env_var, &dir)?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Rules(action) => {
            let git = gauntlet_change::git::Git::discover(&dir)?;
            rules_command(&git, config, action)
        }
        args::Command::Review(review) => review_command(&dir, config, review),
        args::Command::Ci(ci) => {
            let git = gauntlet_change::git::Git::discover(&dir)?;
            let tty = std::io::stdout().is_terminal();
            commands::ci::run(&git, config, &ci.one_codequality()?, &env_var, tty)
        }
        args::Command::Fix(fix) => {
            let git = gauntlet_change::git::Git::discover(&dir)?;
            let tty = std::io::stdout().is_terminal();
            match commands::fix::run(&git, config, fix, &env_var, tty)? {
                commands::fix::Outcome::Done => Ok(ExitCode::SUCCESS),
                commands::fix::Outcome::NothingFixed => {
                    eprintln!("gauntlet: no finding got as far as a judged patch; see the messages above");
                    Ok(ExitCode::from(1))
                }
            }
        }
        args::Command::Completions { shell } => {
            commands::manual::completions(*shell)?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Man { dir } => {
            commands::manual::man(dir.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
        args::Command::Refine(refine) => {
            // A document need not live in a repository; gauntlet.toml is looked for
            // at the repository root when there is one.
            let root = gauntlet_change::git::Git::discover(&dir).map(|g| g.root().to_path_buf()).unwrap_or(dir);
            let tty = std::io::stdout().is_terminal();
            match commands::refine::run(&root, config, refine, &env_var, tty)? {
                true => Ok(ExitCode::SUCCESS),
                false => Ok(ExitCode::from(1)),
            }
        }
    }
}

/// `gauntlet review`. With `--fail-on`, the exit code follows the rule `ci`
/// applies (3 for a finding that severe, 4 for a candidate that severe nobody
/// could validate), from `ci`'s own code; review.rs itself stays print-only.
fn review_command(
    dir: &std::path::Path,
    config: Option<&std::path::Path>,
    args: &args::ReviewCommandArgs,
) -> Result<ExitCode> {
    let fail_on = args.fail_on.as_deref().map(commands::ci::severity).transpose()?;
    let git = gauntlet_change::git::Git::discover(dir)?;
    let tty = std::io::stdout().is_terminal();
    match commands::review::run(&git, config, args, fail_on, &env_var, tty)? {
        commands::review::Outcome::Done => Ok(ExitCode::SUCCESS),
        commands::review::Outcome::Reviewed(review) => {
            Ok(fail_on.map_or(ExitCode::SUCCESS, |min| commands::ci::fail_on(&review, min)))
        }
        commands::review::Outcome::NothingReviewed { why } => {
            eprintln!("gauntlet: {why}");
            Ok(ExitCode::from(1))
        }
        commands::review::Outcome::TimedOut => {
            eprintln!("gauntlet: {TIMED_OUT}");
            Ok(ExitCode::from(1))
        }
    }
}

fn rules_command(
    git: &gauntlet_change::git::Git,
    config: Option<&std::path::Path>,
    action: &args::RulesCommand,
) -> Result<ExitCode> {
    match action {
        args::RulesCommand::Lock => commands::rules::lock(git, config, &env_var)?,
        args::RulesCommand::Verify => {
            if !commands::rules::verify(git, config, &env_var)? {
                return Ok(ExitCode::from(1));
            }
        }
        args::RulesCommand::Draft { escape: Some(escape), out, .. } => {
            commands::rules::draft(git, escape, out.as_deref(), &env_var)?
        }
        args::RulesCommand::Draft { escape: None, last, .. } => {
            commands::rules::draft_from_stats(git, config, *last, &env_var)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "local")]
fn model_command(action: &args::ModelCommand) -> Result<()> {
    match action {
        args::ModelCommand::Pull { name } => commands::model::pull(name.as_deref(), &env_var),
        args::ModelCommand::List => commands::model::list(&env_var),
    }
}

#[cfg(not(feature = "local"))]
fn model_command(_action: &args::ModelCommand) -> Result<()> {
    anyhow::bail!("this gauntlet was built without the local provider (cargo build --no-default-features)")
}
