//! `gauntlet.toml` as written: one struct per table, read with serde.
//!
//! The configuration reference (docs/src/reference/configuration.md) is generated
//! from this file: every table's doc comment and every key's doc comment, which
//! must end with `Default: ...`. After changing a key, run
//! `GAUNTLET_BLESS_DOCS=1 cargo test -p gauntlet --bin gauntlet settings::reference`.

use anyhow::{Result, bail};
use gauntlet_model::Tier;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// `gauntlet.toml` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    #[serde(default)]
    pub review: ReviewSection,
    #[serde(default)]
    pub reviewers: ReviewersSection,
    #[serde(default)]
    pub models: ModelsSection,
    #[serde(default)]
    pub providers: ProvidersSection,
    #[serde(default)]
    pub network: NetworkSection,
    #[serde(default)]
    pub gate: GateSection,
    #[serde(default)]
    pub budget: BudgetSection,
    #[serde(default)]
    pub validate: ValidateSection,
    /// Price overrides per model, USD per million tokens, in a table per model
    /// name (`[prices."claude-sonnet-4-5"]`). Default: the built-in table,
    /// `crates/review/data/prices.toml`.
    #[serde(default)]
    pub prices: BTreeMap<String, gauntlet_review::cost::Price>,
    #[serde(default)]
    pub context: ContextSection,
    #[serde(default)]
    pub rules: RulesSection,
    #[serde(default)]
    pub secrets: SecretsSection,
    #[serde(default)]
    pub ci: CiSection,
    #[serde(default)]
    pub backtest: BacktestSection,
}

/// `[backtest]`: settings of `gauntlet backtest` and its subcommands.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BacktestSection {
    #[serde(default)]
    pub mine: MineSection,
}

/// `[backtest.mine]`: how `gauntlet backtest mine` finds fixes and picks cases
/// (flags win over these).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MineSection {
    /// Regular expressions; a commit whose subject matches one is a fix.
    /// Replaces the defaults. Default: subjects that say fix or bug, and
    /// issue-closing keywords.
    pub subject_patterns: Option<Vec<String>>,
    /// Regular expressions matched against each `Key: value` trailer line; a commit
    /// with a matching trailer is a fix. Replaces the defaults. Default: fix, bug and
    /// issue-closing trailers.
    pub trailer_patterns: Option<Vec<String>>,
    /// Regular expressions; a fix whose subject matches one repairs words (a typo,
    /// the docs) and is skipped. Replaces the defaults; `[]` excludes nothing.
    /// Default: subjects about typos, spelling, wording, grammar, the docs, a comment,
    /// or what a linter, a formatter or compiler warnings asked for
    /// (`DEFAULT_EXCLUDE_SUBJECTS` in crates/backtest/src/mine/detect.rs).
    pub exclude_subjects: Option<Vec<String>>,
    /// An introducing commit that changes more lines of code than this is a sweep
    /// and gives no case (also `--max-changed-lines`). Default: `800`.
    pub max_changed_lines: Option<usize>,
    /// Clean cases wanted per escape (also `--clean-ratio`). Default: `1.0`.
    pub clean_ratio: Option<f64>,
    /// Clean cases come from commits at least this many days older than the newest
    /// commit read (also `--clean-window`). Default: `180`.
    pub clean_window_days: Option<u32>,
}

/// `[ci]`: what `gauntlet ci` does besides posting the review.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CiSection {
    /// Attach reviewed fixes to new inline comments, as `--suggest` does.
    /// Default: `false`.
    pub suggest: Option<bool>,
    /// Let the pull request's author dismiss findings on it (commands, resolutions
    /// and reactions); otherwise only people with write access can. Default: `false`.
    pub author_may_dismiss: Option<bool>,
    /// `fail-on` (`--fail-on` decides) or `earned` (`--fail-on`
    /// applies only while the measured precision clears the bar below).
    /// Default: `"fail-on"`.
    pub blocking: Option<String>,
    /// `earned`: the newest this many decided findings are measured. Default: `100`.
    pub window: Option<usize>,
    /// `earned`: precision in the wild must be at least this. Default: `0.90`.
    pub min_precision: Option<f64>,
    /// `earned`: at least this many decided findings in the window. Default: `30`.
    pub min_findings: Option<usize>,
    /// `earned`: API calls at most for reading the record. Default: `40`.
    pub stats_calls: Option<usize>,
    /// `earned`: keep counting findings raised under earlier rules versions and
    /// standard-tier models (off: each change starts a new record). Default: `false`.
    pub keep_record_across_rules: Option<bool>,
}

/// `[rules]`: an external channel of rule files, pinned by tag.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSection {
    /// A git URL (or path) whose `rules/` folder holds rule files, fetched into
    /// `$XDG_CACHE_HOME/gauntlet/rules/` and read-only. Default: none.
    pub git: Option<String>,
    /// The tag of that repository to use. Default: none.
    pub tag: Option<String>,
}

/// `[context]`: what code gathers for the reviewers that ask for it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSection {
    /// Days before the base commit the history reviewer looks back over.
    /// Default: `180`.
    pub history_days: Option<u32>,
    /// Design-token files (paths at head) for the design-tokens reviewer.
    /// Default: `[]`.
    #[serde(default)]
    pub token_files: Vec<String>,
    /// Tokens of related code (definitions the change uses, places that use what
    /// it changes) in the block every session receives; 0 turns it off.
    /// Default: a quarter of the context.
    pub related_tokens: Option<usize>,
}

/// `[gate]`: what is reviewed at all, decided before any model call.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSection {
    /// Pull request authors whose changes are skipped (any `…[bot]` is too).
    /// Default: `["dependabot", "renovate", "github-actions"]`.
    pub bot_authors: Option<Vec<String>>,
    /// Commit-subject regular expressions of automated commits; a change made only
    /// of such commits is skipped. Default: dependency-bump subjects.
    pub automated_subjects: Option<Vec<String>>,
    /// Globs never reviewed, besides lockfiles, vendored and generated files.
    /// Default: `[]`.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Skip changes with fewer reviewable changed lines (`--force` reviews anyway).
    /// Default: `1`.
    pub min_changed_lines: Option<usize>,
    /// Skip changes with more reviewable changed lines (`--force` reviews anyway).
    /// Default: unset.
    pub max_changed_lines: Option<usize>,
    /// Changes larger than this run reviewers and validator on the deep tier.
    /// Default: unset.
    pub deep_min_changed_lines: Option<usize>,
    /// Changes touching these globs run on the deep tier. Default: `[]`.
    #[serde(default)]
    pub deep_paths: Vec<String>,
}

/// `[budget]`: per-run limits; what was not run is listed as gaps and never
/// published. In `backtest` they hold each case's review, and separately its judge
/// sessions.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// Model calls at most (also `--max-calls`). Default: unlimited.
    pub max_calls: Option<u32>,
    /// Tokens at most (also `--max-tokens`). Default: unlimited.
    pub max_tokens: Option<u64>,
    /// Cost in USD at most (also `--max-cost`). Default: unlimited.
    pub max_cost: Option<f64>,
}

/// `[validate]`: how far sessions on providers with tools may read.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidateSection {
    /// Turns of tool calls per validator session (0 turns tools off). Default: `8`.
    pub max_steps: Option<u32>,
    /// Bytes one tool call returns at most, cut at a line. Default: `16384` (16 KiB).
    pub max_read_bytes_per_call: Option<usize>,
    /// Bytes one session may read through tools in all. Default: `98304` (96 KiB).
    pub max_read_bytes_per_session: Option<usize>,
    /// Files larger than this are refused to the tools. Default: `524288` (512 KiB).
    pub max_file_bytes: Option<usize>,
}

/// `[review]`: how a review runs and what it publishes.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewSection {
    /// Minimum validator confidence to publish: 0, 25, 50, 75 or 100 (also
    /// `--threshold`). Default: `75`.
    pub threshold: Option<u8>,
    /// Model calls in flight at once (also `--concurrency`). Default: `4`.
    pub concurrency: Option<usize>,
    /// Lines on each side of a finding shown to its validator. Default: `30`.
    pub region_lines: Option<u32>,
    /// Tier of the validator: `"fast"`, `"standard"` or `"deep"`.
    /// Default: `"standard"`.
    pub validator_tier: Option<Tier>,
    /// Output format when `--format` is not given. Default: `"terminal"`.
    pub format: Option<String>,
    /// Context window of the smallest model in use; larger changes are split into parts.
    /// Default: `100000` for hosted models, the embedded model's own context.
    pub context_tokens: Option<usize>,
    /// Let reviewers read more code through tools too (providers with tools only;
    /// never the embedded model or `command`). Default: `true`.
    pub reviewer_tools: Option<bool>,
    /// Turns of tool calls a reviewer session may make. Default: `3`.
    pub reviewer_max_steps: Option<u32>,
}

/// `[secrets]`: mask secrets before any text reaches a provider, with extra
/// regular expressions besides the built-in ones. Model-written text is masked
/// before output either way.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsSection {
    /// Mask secrets in every text sent to a provider. Default: `true`.
    pub mask: Option<bool>,
    /// Extra regular expressions whose matches are masked too. Default: `[]`.
    #[serde(default)]
    pub patterns: Vec<String>,
}

/// `[reviewers]`: which reviewers run.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewersSection {
    /// Reviewer names to turn off. Default: `[]`.
    #[serde(default)]
    pub disable: Vec<String>,
    /// Run only these reviewers (also `--reviewers`). Default: `[]` (all).
    #[serde(default)]
    pub only: Vec<String>,
}

/// `[models]`: each tier as `"provider:model"`; `standard` is required when any
/// tier is set.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelsSection {
    /// The fast tier's model. Default: the standard tier's.
    pub fast: Option<String>,
    /// The standard tier's model. Default: detected from the environment.
    pub standard: Option<String>,
    /// The deep tier's model. Default: the standard tier's.
    pub deep: Option<String>,
    /// The local provider's model file and knobs.
    #[serde(default)]
    pub local: LocalModelSection,
}

/// `[models.local]`: which GGUF the local provider runs, and how.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalModelSection {
    /// A GGUF file; used when nothing else is configured. Default: the pulled smollm2.
    pub path: Option<std::path::PathBuf>,
    /// CPU threads. Default: all cores.
    pub threads: Option<usize>,
    /// Context window in tokens. Default: the model's, at most 16384.
    pub context: Option<u32>,
}

/// `[providers]`: where the hosted providers are reached.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvidersSection {
    #[serde(default)]
    pub anthropic: AnthropicSection,
    #[serde(default)]
    pub openai: OpenAiSection,
    pub command: Option<CommandSection>,
}

/// `[providers.anthropic]`: the Anthropic API.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnthropicSection {
    /// The API's address (also `ANTHROPIC_BASE_URL`).
    /// Default: `"https://api.anthropic.com"`.
    pub base_url: Option<String>,
}

/// `[providers.openai]`: an OpenAI-compatible server (OpenAI, Azure OpenAI,
/// Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiSection {
    /// The API's address (also `OPENAI_BASE_URL`).
    /// Default: `"https://api.openai.com/v1"`.
    pub base_url: Option<String>,
    /// Azure OpenAI: the deployment name (the model name is then only a label; the
    /// key in `OPENAI_API_KEY` is sent as `api-key`). Default: none.
    pub azure_deployment: Option<String>,
    /// Azure OpenAI: the API version. Default: none.
    pub azure_api_version: Option<String>,
}

/// `[providers.command]`: run a program per model call (e.g. `claude -p`), with
/// `GAUNTLET_STEP` and `GAUNTLET_REVIEWER` set.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSection {
    /// The program to run. Default: none (required in this table).
    pub program: String,
    /// Its arguments. Default: `[]`.
    #[serde(default)]
    pub args: Vec<String>,
    /// `json` writes `{"system","messages","schema","max_tokens","step","reviewer"}`
    /// to its stdin, `text` one flattened prompt. Default: `"json"`.
    pub protocol: Option<String>,
}

/// `[network]`: timeouts and retries of model calls.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Timeout of one call, in seconds. Default: `300`.
    pub timeout_secs: Option<u64>,
    /// Attempts per call; 429, 5xx, 529 and timeouts are retried with backoff and
    /// jitter, honouring `Retry-After`; spend limits are never retried. Default: `4`.
    pub max_attempts: Option<u32>,
    /// Longest `Retry-After` a provider may ask for before the call fails instead of waiting.
    /// Default: `120`.
    pub max_retry_after_secs: Option<u64>,
}

/// Read `path`, or defaults when it does not exist and was not asked for by name.
pub fn read_file(path: &Path, explicit: bool) -> Result<FileConfig> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => return Ok(FileConfig::default()),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    };
    parse_file(&text, &path.display().to_string())
}

/// Parse configuration `text`; `origin` names it in errors (a path, or
/// `gauntlet.toml at <commit>`).
pub fn parse_file(text: &str, origin: &str) -> Result<FileConfig> {
    toml::from_str(text).map_err(|e| {
        // Lines before the span's start, plus its own: a key at the very start of
        // line 2 is on line 2.
        let line = e.span().map(|s| text[..s.start].matches('\n').count() + 1);
        let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
        anyhow::anyhow!("{origin}{at}: {}; see `gauntlet init` for the valid keys", e.message())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bad_key_is_reported_on_its_own_line() {
        let err = |text: &str| super::parse_file(text, "gauntlet.toml").unwrap_err().to_string();
        assert!(err("[review]\ntreshold = 50\n").starts_with("gauntlet.toml (line 2): unknown field `treshold`"));
        assert!(err("treshold = 50\n").starts_with("gauntlet.toml (line 1): "));
        assert!(err("[review]\n\n  treshold = 50\n").starts_with("gauntlet.toml (line 3): "));
    }
}
