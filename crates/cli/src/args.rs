//! What the user typed: clap definitions, nothing resolved yet (see `settings`).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// The longest `--timeout`: a week. Far larger values would overflow the clock.
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 3600;

#[derive(Debug, Parser)]
#[command(
    name = "gauntlet",
    // `-V` and the man pages: the version; `--version`: also the commit and the
    // features built in (see build.rs), what a bug report needs.
    version,
    long_version = env!("GAUNTLET_LONG_VERSION"),
    about = "A pre-merge AI code reviewer built for precision",
    after_help = crate::help::TOP
)]
pub struct Cli {
    /// Run as if started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Use this config file instead of `gauntlet.toml` at the repository root.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print nothing but the report (and errors): no progress, notes or skip lines on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Review a change and print the report (never posts anywhere).
    #[command(after_help = crate::help::REVIEW)]
    Review(Box<ReviewCommandArgs>),
    /// In a CI pull-request pipeline: review the pull request and post to it (GitHub, GitLab, Azure DevOps).
    // The pipeline names the change, so the flags that choose one are hidden here;
    // `ci` still parses them to say they belong to `review`.
    #[command(
        mut_arg("base", |a| a.hide(true)),
        mut_arg("head", |a| a.hide(true)),
        mut_arg("staged", |a| a.hide(true)),
        mut_arg("worktree", |a| a.hide(true)),
        mut_arg("patch", |a| a.hide(true)),
        mut_arg("pr", |a| a.hide(true)),
        after_help = crate::help::CI
    )]
    Ci(Box<CiArgs>),
    /// Write a commented starter gauntlet.toml at the repository root.
    #[command(after_help = crate::help::INIT)]
    Init {
        /// Overwrite an existing gauntlet.toml.
        #[arg(long)]
        force: bool,
    },
    /// List the reviewers and whether each would run on the change, and why.
    #[command(after_help = crate::help::REVIEWERS)]
    Reviewers(ReviewersArgs),
    /// Fetch or list the local models the offline provider runs.
    #[command(subcommand, after_help = crate::help::MODEL)]
    Model(ModelCommand),
    /// Turn published findings into patches that survived an adversarial review loop.
    #[command(after_help = crate::help::FIX)]
    Fix(Box<FixArgs>),
    /// Revise a document toward a goal in an adversarial review loop.
    #[command(after_help = crate::help::REFINE)]
    Refine(Box<RefineArgs>),
    /// Review every case of a corpus (print-only) and score precision and recall;
    /// `backtest mine` builds a corpus from this repository's history, `backtest merge`
    /// adds shard reports up.
    #[command(after_help = crate::help::BACKTEST)]
    Backtest(Box<BacktestArgs>),
    /// What became of the findings the pipeline published on recent merged or closed
    /// pull requests (read only): fixed, withdrawn, dismissed, ignored; precision in
    /// the wild and action rate, per reviewer, severity and month.
    #[command(after_help = crate::help::STATS)]
    Stats(StatsArgs),
    /// Rules governance: pin the reviewer rules in use, verify them, draft a new one.
    #[command(subcommand, after_help = crate::help::RULES)]
    Rules(RulesCommand),
    /// Print a shell completion script (bash, zsh, fish, powershell or elvish).
    #[command(after_help = crate::help::COMPLETIONS)]
    Completions {
        /// The shell to complete for.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Write man pages into DIR (one per command), or gauntlet.1 to stdout.
    #[command(after_help = crate::help::MAN)]
    Man {
        /// The folder to write the pages into (created if missing).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The newest N merged or closed pull requests (default 50; at most 500).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Only pull requests merged or closed on or after DATE (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Output format: terminal, json or html (one self-contained page with the
    /// monthly trend as a chart).
    #[arg(long, value_name = "FORMAT", default_value = "terminal")]
    pub format: String,
    /// Keep the record read in DIR/earned.json, where `gauntlet ci` with
    /// `[ci] blocking = "earned"` takes it up (point `GAUNTLET_CACHE_DIR` there);
    /// pull requests the file already holds are not read again, and show their
    /// outcomes only (not the dismissals that did not count, nor their reasons).
    #[arg(long, value_name = "DIR")]
    pub keep_record: Option<std::path::PathBuf>,
    /// The repository's web page (https://github.com/OWNER/NAME, a GitLab project's
    /// page, https://dev.azure.com/ORG/PROJECT/_git/NAME), for links to commits,
    /// lines and threads in the HTML report; by default taken from the `origin`
    /// remote when it is on github.com, gitlab.com or dev.azure.com.
    #[arg(long, value_name = "URL")]
    pub repo_url: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Write gauntlet.lock: the channel's tag and the sha256 of every rule file in use.
    Lock,
    /// Fail (exit 1) if the rules in use differ from gauntlet.lock, naming each drifted file.
    Verify,
    /// Draft a rule from the commit that fixed an escaped defect, or with --from-stats
    /// a known-false-positives section for the most dismissed reviewer, for a human to commit.
    Draft {
        /// The commit that fixed the defect.
        #[arg(long, value_name = "COMMIT", required_unless_present = "from_stats", conflicts_with = "from_stats")]
        escape: Option<String>,
        /// Write the draft to FILE (outside every rules folder) instead of printing it.
        #[arg(long, value_name = "FILE", conflicts_with = "from_stats")]
        out: Option<PathBuf>,
        /// Read the outcomes `gauntlet stats` reads and print, as a patch, a section of
        /// known false positives for the reviewer with the most dismissed findings.
        #[arg(long)]
        from_stats: bool,
        /// With --from-stats: the newest this many merged or closed pull requests (default 50).
        #[arg(long, value_name = "N", requires = "from_stats")]
        last: Option<usize>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Fetch a known model into the user cache (default: smollm2), verifying its sha256.
    Pull {
        /// smollm2 or gemma3-270m.
        name: Option<String>,
    },
    /// List the known models and whether each is pulled.
    List,
}

/// Which change to review.
#[derive(Debug, Args, Clone, Default)]
pub struct ChangeArgs {
    /// Base revision (reviews merge-base(BASE, HEAD)..HEAD).
    #[arg(long, value_name = "REV", conflicts_with_all = ["staged", "worktree", "patch"])]
    pub base: Option<String>,
    /// Head revision (default HEAD).
    #[arg(long, value_name = "REV", requires = "base")]
    pub head: Option<String>,
    /// Review staged changes.
    #[arg(long, conflicts_with_all = ["worktree", "patch"])]
    pub staged: bool,
    /// Review uncommitted changes to tracked files (staged and unstaged).
    #[arg(long, conflicts_with = "patch")]
    pub worktree: bool,
    /// Review a unified diff from FILE, or from stdin with `-`.
    #[arg(long, value_name = "FILE")]
    pub patch: Option<PathBuf>,
}

/// What `gauntlet reviewers` takes: the change, and the two `review` flags that
/// change which reviewers run.
#[derive(Debug, Args, Clone)]
pub struct ReviewersArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// As for `review`: run only these reviewers (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub reviewers: Vec<String>,
    /// As for `review`: review even when the gate would skip.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args, Default, Clone)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// Provider for every tier: anthropic, openai, ollama, command or local.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Run this GGUF model in-process (the local provider) for every tier.
    #[arg(long, value_name = "FILE.gguf", conflicts_with_all = ["provider", "model"])]
    pub model_path: Option<PathBuf>,
    /// Model for every tier.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Output format: terminal, json, markdown, sarif, rdjson, rdjsonl or codequality.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Show dropped findings and why.
    #[arg(short, long)]
    pub verbose: bool,
    /// Model calls in flight at once.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Minimum validator confidence to publish (0, 25, 50, 75 or 100).
    #[arg(long, value_name = "N")]
    pub threshold: Option<u8>,
    /// Run only these reviewers (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub reviewers: Vec<String>,
    /// Colour: auto, always or never.
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    pub color: String,
    /// Review even when the gate would skip (draft, bot, already reviewed, ...).
    #[arg(long)]
    pub force: bool,
    /// Treat the change as a draft pull request (the gate skips drafts).
    #[arg(long)]
    pub pr_draft: bool,
    /// Author of the pull request (the gate skips bots).
    #[arg(long, value_name = "LOGIN")]
    pub pr_author: Option<String>,
    /// Title of the pull request (finders read it as what the author says the change does).
    #[arg(long, value_name = "TITLE")]
    pub pr_title: Option<String>,
    /// Description of the pull request (finders read it as what the author says the change does).
    #[arg(long, value_name = "TEXT")]
    pub pr_body: Option<String>,
    /// Stop scheduling model calls after N calls.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<u32>,
    /// Stop scheduling model calls once N tokens (input + output) are spent.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Stop scheduling model calls once the estimated cost reaches USD.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// End the run after SECS seconds: no model call starts after that, calls in flight
    /// are abandoned, the report names what was not done, and the exit code is 1.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECS))]
    pub timeout: Option<u64>,
    /// Store every model call (request and response) in DIR, one JSON file each.
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer every model call from a recording in DIR; no model is called, and a
    /// request that is not there fails the run.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// Refuse to review unless the rules in use match gauntlet.lock (for CI).
    #[arg(long)]
    pub locked: bool,
    /// Review a pull request by its URL (GitHub, GitLab, Azure DevOps): its base and head
    /// come from the host's API and are fetched here; nothing is posted.
    #[arg(long, value_name = "URL", conflicts_with_all = ["base", "staged", "worktree", "patch"])]
    pub pr: Option<String>,
    /// Review even a head reviewed before with the same settings (not a flag: set by
    /// `review --fail-on`, whose exit code needs this run's findings).
    #[arg(skip)]
    pub again: bool,
}

/// `gauntlet review`: every review flag, plus what decides its exit code and
/// where its reports go.
#[derive(Debug, Args, Default, Clone)]
pub struct ReviewCommandArgs {
    #[command(flatten)]
    pub review: ReviewArgs,
    /// Exit 3 when a published finding is at least this severe (high, medium or low), and 4
    /// when none is but a candidate at least this severe could not be validated either way.
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<String>,
    #[command(flatten)]
    pub outputs: OutputArgs,
}

/// Report files written next to the report on stdout.
#[derive(Debug, Args, Default, Clone)]
pub struct OutputArgs {
    /// Also write the report in FORMAT to PATH (repeatable), e.g. `--output sarif=gauntlet.sarif`.
    /// Each file is written whole or not at all; stdout still gets --format.
    #[arg(long = "output", value_name = "FORMAT=PATH", value_parser = crate::outputs::parse)]
    pub outputs: Vec<crate::outputs::Output>,
}

/// The adversarial loop's knobs, shared by `fix` and `refine`.
#[derive(Debug, Args, Clone)]
pub struct LoopArgs {
    /// Round cap: stop after N rounds even if the adversary is not satisfied.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rounds: u32,
    /// The adversary judges the starting point first, then the primary answers it.
    #[arg(long)]
    pub inverted: bool,
}

#[derive(Debug, Args)]
pub struct FixArgs {
    /// Fix the published findings of this JSON report (`gauntlet review --format json`)
    /// instead of reviewing the change first.
    #[arg(long, value_name = "REPORT.json")]
    pub from: Option<PathBuf>,
    #[command(flatten)]
    pub loop_args: LoopArgs,
    /// Run CMD (through sh) in a temporary worktree with each candidate patch applied,
    /// and show its exit code and the end of its output to the adversary. It runs
    /// model-written code: use it where that is acceptable.
    #[arg(long, value_name = "CMD")]
    pub check: Option<String>,
    /// Stop a check command after SECS seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub check_timeout: u64,
    /// Write one patch per finding into DIR (unconverged ones named `*.unconverged.patch`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Apply each converged patch to the working tree (checked first; never unconverged ones).
    #[arg(long)]
    pub apply: bool,
    /// Every `review` flag: the change, the provider, budget, concurrency (findings fixed at once).
    #[command(flatten)]
    pub review: ReviewArgs,
}

#[derive(Debug, Args)]
pub struct RefineArgs {
    /// The document to revise (Markdown or plain text).
    pub file: PathBuf,
    /// What the document should achieve, e.g. "a spec a new engineer can implement".
    #[arg(long, value_name = "TEXT")]
    pub goal: String,
    #[command(flatten)]
    pub loop_args: LoopArgs,
    /// Between rounds, show the issues and ask: accept, steer (a direction for the
    /// next revision) or continue.
    #[arg(long)]
    pub interactive: bool,
    /// Write the revision over FILE instead of beside it (FILE.refined.md).
    #[arg(long)]
    pub in_place: bool,
    /// Replace an existing FILE.refined.md.
    #[arg(long)]
    pub force: bool,
    /// Provider for every tier: anthropic, openai, ollama, command or local.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Model for every tier.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Run this GGUF model in-process (the local provider).
    #[arg(long, value_name = "FILE.gguf", conflicts_with_all = ["provider", "model"])]
    pub model_path: Option<PathBuf>,
    /// Stop after N model calls.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<u32>,
    /// Stop once N tokens (input + output) are spent.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Stop once the estimated cost reaches USD.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
}

/// `gauntlet backtest CORPUS [flags]`, or one of its subcommands. A corpus folder
/// named like a subcommand is written `./mine` (or `./curate`, `./merge`).
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BacktestArgs {
    #[command(subcommand)]
    pub action: Option<BacktestCommand>,
    /// The corpus: a folder with one sub-folder per case, each holding a case.toml.
    #[arg(value_name = "CORPUS", required = true)]
    pub corpus: Option<PathBuf>,
    /// Review only shard K of N (cases chosen by a stable hash of their names); merge
    /// the shards' JSON reports with `gauntlet backtest merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<gauntlet_backtest::shard::Shard>,
    /// Also run the same model as one naive single-pass reviewer, side by side.
    #[arg(long)]
    pub baseline: bool,
    /// Put every finding that matches no known defect, of gauntlet and of the
    /// baseline, to a blind judge session, and report judged precision beside the
    /// known-defect figures.
    #[arg(long)]
    pub judge: bool,
    /// The tier the judge runs on: fast, standard or deep.
    #[arg(long, value_name = "TIER", default_value = "deep", value_parser = tier, requires = "judge")]
    pub judge_tier: gauntlet_model::Tier,
    /// Cases reviewed at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Lines a finding may lie outside a known defect's range and still match it.
    #[arg(long, value_name = "N", default_value_t = gauntlet_backtest::score::DEFAULT_TOLERANCE)]
    pub tolerance: u32,
    /// The widest finding, in lines, that can still match a known defect: wider
    /// ranges have located nothing.
    #[arg(long, value_name = "N", default_value_t = gauntlet_backtest::score::DEFAULT_MAX_SPAN)]
    pub max_span: u32,
    /// Output format: markdown, json or html (one self-contained page).
    #[arg(long, value_name = "FORMAT", default_value = "markdown")]
    pub format: String,
    /// Provider for every tier: anthropic, openai, ollama, command or local.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Run this GGUF model in-process (the local provider) for every tier.
    #[arg(long, value_name = "FILE.gguf", conflicts_with_all = ["provider", "model"])]
    pub model_path: Option<PathBuf>,
    /// Model for every tier.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Model calls in flight at once, per case.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Minimum validator confidence to publish (0, 25, 50, 75 or 100).
    #[arg(long, value_name = "N")]
    pub threshold: Option<u8>,
    /// Run only these reviewers (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub reviewers: Vec<String>,
    /// Store every model call in DIR/CASE/, one JSON file each, so the run can be replayed.
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer every model call from a recording made with --record DIR; no model is
    /// called, and a request that is not there fails the run.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// The repository's web page (https://github.com/OWNER/NAME, a GitLab project's
    /// page, https://dev.azure.com/ORG/PROJECT/_git/NAME), for links to commits,
    /// lines and threads in the HTML report; by default taken from the `origin`
    /// remote when it is on github.com, gitlab.com or dev.azure.com.
    #[arg(long, value_name = "URL")]
    pub repo_url: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum BacktestCommand {
    /// Build a corpus from this repository's history: fixes found by their messages,
    /// the commits that introduced them found by blame (SZZ), and old clean commits.
    Mine(MineArgs),
    /// Read the mined cases one by one (the fix, the blamed lines in the introducing
    /// commit) and accept or reject each, with a reason; the backtest then scores
    /// only the accepted cases.
    Curate(CurateArgs),
    /// Combine the JSON reports of `--shard` runs into the report of the whole corpus.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct CurateArgs {
    /// The corpus folder (where `backtest mine --out` wrote it).
    #[arg(value_name = "CORPUS", default_value = "backtest-corpus")]
    pub corpus: PathBuf,
    /// Which cases to walk: unreviewed, rejected, accepted or all.
    #[arg(long, value_name = "STATUS", default_value = "unreviewed")]
    pub status: String,
    /// Only this case (its folder name, e.g. escape-1a2b3c4d5e6f), whatever its status.
    #[arg(long = "case", value_name = "NAME")]
    pub case: Option<String>,
}

#[derive(Debug, Args)]
pub struct MineArgs {
    /// Read only the commits since DATE (anything `git log --since` reads).
    #[arg(long, value_name = "DATE", conflicts_with = "last")]
    pub since: Option<String>,
    /// Only the last N commits.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Where to write the corpus (cases a previous `mine` wrote there are replaced).
    #[arg(long, value_name = "DIR", default_value = "backtest-corpus")]
    pub out: PathBuf,
    /// An introducing commit with more changed lines is a sweep, never a case (default 800).
    #[arg(long, value_name = "N")]
    pub max_changed_lines: Option<usize>,
    /// Clean cases per escape case (default 1.0).
    #[arg(long, value_name = "R")]
    pub clean_ratio: Option<f64>,
    /// How many days old a commit must be to be a clean case (default 180).
    #[arg(long, value_name = "DAYS")]
    pub clean_window: Option<u32>,
    /// Seed of the clean-case sample: the same seed mines the same corpus.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Confidences to keep: A (named by a Fixes: trailer), B (one commit), C (several, or added lines).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "A,B")]
    pub confidence: Vec<String>,
    /// Output format of the summary: terminal or json.
    #[arg(long, value_name = "FORMAT", default_value = "terminal")]
    pub format: String,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The JSON reports of every shard (`gauntlet backtest CORPUS --shard K/N --format json`).
    #[arg(value_name = "REPORT.json", required = true, num_args = 1..)]
    pub reports: Vec<PathBuf>,
    /// Output format: markdown, json or html.
    #[arg(long, value_name = "FORMAT", default_value = "markdown")]
    pub format: String,
    /// The repository's web page (https://github.com/OWNER/NAME, a GitLab project's
    /// page, https://dev.azure.com/ORG/PROJECT/_git/NAME), for links to commits,
    /// lines and threads in the HTML report; by default taken from the `origin`
    /// remote when it is on github.com, gitlab.com or dev.azure.com.
    #[arg(long, value_name = "URL")]
    pub repo_url: Option<String>,
}

/// `gauntlet ci`: every `review` flag, plus what posting needs.
#[derive(Debug, Args, Clone)]
pub struct CiArgs {
    #[command(flatten)]
    pub review: ReviewArgs,
    /// Fail the job (exit 3) when a published finding nobody dismissed is at least this severe:
    /// high, medium or low. Without it the run is advisory and exits 0 whatever it finds.
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<String>,
    /// Review the whole pull request, not only what changed since the last reviewed head.
    #[arg(long)]
    pub full: bool,
    /// Inline comments to open per run at most; the other findings go to the overview comment.
    #[arg(long, value_name = "N", default_value_t = gauntlet_publish::DEFAULT_CAP)]
    pub max_comments: usize,
    /// Before posting, run the adversarial fix loop for each finding that gets a new inline
    /// comment; a converged fix of at most 5 lines inside the comment's diff hunk is attached
    /// as the host's suggestion, any other is described (also `[ci] suggest = true`).
    #[arg(long)]
    pub suggest: bool,
    /// The fix loop's rounds and flow, for --suggest.
    #[command(flatten)]
    pub loop_args: LoopArgs,
    /// Also write the review's GitLab Code Quality report to PATH (findings people dismissed
    /// left out), for the job's `artifacts: reports: codequality:`. Written whole or not at all.
    #[arg(long, value_name = "PATH")]
    pub codequality: Option<PathBuf>,
    #[command(flatten)]
    pub outputs: OutputArgs,
}

/// A tier by name, as `--judge-tier` takes it.
fn tier(text: &str) -> Result<gauntlet_model::Tier, String> {
    gauntlet_model::Tier::ALL
        .into_iter()
        .find(|t| t.as_str() == text)
        .ok_or_else(|| format!("`{text}` is not a tier: use fast, standard or deep"))
}

impl CiArgs {
    /// `gauntlet ci` with its Code Quality report named once, as `--codequality`:
    /// `--output codequality=PATH` is the same report, so it becomes `--codequality
    /// PATH`, and every run, one that reviewed nothing included, writes it the one
    /// way (findings people dismissed left out; what stands, on a run that reviewed
    /// nothing). Two destinations for it are refused.
    pub fn one_codequality(&self) -> anyhow::Result<CiArgs> {
        let mut args = self.clone();
        let (quality, rest): (Vec<crate::outputs::Output>, Vec<crate::outputs::Output>) =
            std::mem::take(&mut args.outputs.outputs)
                .into_iter()
                .partition(|o| o.format == gauntlet_report::Format::Codequality);
        args.outputs.outputs = rest;
        let mut paths: Vec<std::path::PathBuf> =
            args.codequality.take().into_iter().chain(quality.into_iter().map(|o| o.path)).collect();
        if paths.len() > 1 {
            anyhow::bail!(
                "the Code Quality report is asked for {} times (--codequality and --output codequality= are the same report on `gauntlet ci`): name one PATH",
                paths.len()
            );
        }
        args.codequality = paths.pop();
        Ok(args)
    }
}
