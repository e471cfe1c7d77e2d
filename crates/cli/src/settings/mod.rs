//! Flags + `gauntlet.toml` + environment, resolved once into one read-only
//! [`Settings`] (flags win over the environment, which wins over the file).

use crate::args::ReviewArgs;
use crate::trusted::Trusted;
use anyhow::{Context, Result, bail};
use gauntlet_model::Tier;
use gauntlet_review::cost::Prices;
use gauntlet_review::gate::GateConfig;
use gauntlet_review::pipeline::Budget;
use std::collections::BTreeMap;
use std::path::Path;

mod file;
#[cfg(test)]
mod reference;

pub use file::*;

pub const FILE_NAME: &str = "gauntlet.toml";

/// How `gauntlet ci` decides whether findings block, from `[ci] blocking`.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockingMode {
    /// `--fail-on` decides, as it says.
    FailOn,
    /// `--fail-on` applies only where precision measured on the repository's
    /// closed pull requests cleared the bar.
    Earned(EarnedSettings),
}

#[derive(Clone, Debug, PartialEq)]
pub struct EarnedSettings {
    pub bar: gauntlet_publish::earned::Bar,
    /// API calls at most for reading the record.
    pub calls: usize,
    pub keep_record_across_rules: bool,
}

impl CiSection {
    /// The blocking mode these keys ask for, or what is wrong with them.
    pub fn blocking_mode(&self) -> Result<BlockingMode> {
        let earned_keys = [
            ("window", self.window.is_some()),
            ("min_precision", self.min_precision.is_some()),
            ("min_findings", self.min_findings.is_some()),
            ("stats_calls", self.stats_calls.is_some()),
            ("keep_record_across_rules", self.keep_record_across_rules.is_some()),
        ];
        match self.blocking.as_deref().unwrap_or("fail-on") {
            "fail-on" => {
                if let Some((key, _)) = earned_keys.iter().find(|(_, set)| *set) {
                    bail!("[ci] {key} applies only with blocking = \"earned\" (blocking is \"fail-on\")");
                }
                Ok(BlockingMode::FailOn)
            }
            "earned" => {
                let defaults = gauntlet_publish::earned::Bar::default();
                let window = self.window.unwrap_or(defaults.window);
                let min_precision = self.min_precision.unwrap_or(defaults.min_precision);
                let min_findings = self.min_findings.unwrap_or(defaults.min_findings);
                let calls = self.stats_calls.unwrap_or(40);
                if window == 0 {
                    bail!("[ci] window must be at least 1 decided finding");
                }
                if !(min_precision > 0.0 && min_precision <= 1.0) {
                    bail!(
                        "[ci] min_precision {min_precision} is not a share: use a number above 0 and at most 1, e.g. 0.90"
                    );
                }
                if min_findings == 0 {
                    bail!("[ci] min_findings must be at least 1");
                }
                if min_findings > window {
                    bail!(
                        "[ci] min_findings {min_findings} is more than window {window}: the bar could never be met; \
                         lower min_findings or widen the window"
                    );
                }
                if calls < 2 {
                    bail!("[ci] stats_calls {calls} is too few: reading the record takes at least 2 API calls");
                }
                Ok(BlockingMode::Earned(EarnedSettings {
                    bar: gauntlet_publish::earned::Bar { window, min_precision, min_findings },
                    calls,
                    keep_record_across_rules: self.keep_record_across_rules.unwrap_or(false),
                }))
            }
            other => bail!("[ci] blocking = \"{other}\": use \"fail-on\" or \"earned\""),
        }
    }
}

/// A tier's model: which provider, which model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSpec {
    pub provider: String,
    pub model: String,
}

impl ModelSpec {
    fn parse(text: &str, origin: &str) -> Result<ModelSpec> {
        let (provider, model) = text.split_once(':').with_context(|| {
            format!("{origin}: `{text}` should be \"provider:model\", e.g. \"anthropic:claude-sonnet-4-5\"")
        })?;
        Ok(ModelSpec { provider: provider.trim().to_string(), model: model.trim().to_string() })
    }
}

/// Resolved settings for `review` (and the commands that share its parts).
#[derive(Debug)]
pub struct Settings {
    pub threshold: u8,
    pub concurrency: usize,
    pub region_lines: u32,
    pub validator_tier: Tier,
    pub format: String,
    pub verbose: bool,
    pub color: bool,
    pub disable: Vec<String>,
    pub only: Vec<String>,
    /// Where `only` came from, as a reviewer that is off names it.
    pub only_by: String,
    /// `None` when nothing is configured and nothing could be detected.
    pub models: Option<BTreeMap<Tier, ModelSpec>>,
    pub gate: GateConfig,
    pub budget: Budget,
    pub prices: Prices,
    /// A digest of everything configured that changes a review's outcome.
    pub fingerprint: String,
    pub file: FileConfig,
    /// Where rule files, the lock, `.gitattributes` and guidance are read:
    /// the checkout, or the base commit in `ci`.
    pub trusted: Trusted,
}

/// Default model of each tier per provider, used when only a provider is known.
fn default_model(provider: &str, tier: Tier) -> Option<&'static str> {
    Some(match (provider, tier) {
        ("anthropic", Tier::Fast) => "claude-haiku-4-5",
        ("anthropic", Tier::Standard) => "claude-sonnet-4-5",
        ("anthropic", Tier::Deep) => "claude-opus-4-1",
        ("openai", Tier::Fast) => "gpt-4.1-mini",
        ("openai", _) => "gpt-4.1",
        _ => return None,
    })
}

/// The environment, passed in so resolution is testable.
pub type Env = dyn Fn(&str) -> Option<String>;

/// The local provider on every tier, running the GGUF at `path`.
fn local_everywhere(path: &Path) -> BTreeMap<Tier, ModelSpec> {
    let spec = ModelSpec { provider: "local".into(), model: path.display().to_string() };
    Tier::ALL.iter().map(|t| (*t, spec.clone())).collect()
}

fn resolve_models(args: &ReviewArgs, file: &FileConfig, env: &Env) -> Result<Option<BTreeMap<Tier, ModelSpec>>> {
    if let Some(path) = &args.model_path {
        return Ok(Some(local_everywhere(path)));
    }
    let provider = args.provider.clone().or_else(|| env("GAUNTLET_PROVIDER"));
    let model = args.model.clone().or_else(|| env("GAUNTLET_MODEL"));
    if let Some(provider) = provider {
        let mut map = BTreeMap::new();
        for tier in Tier::ALL {
            let model = match (&model, default_model(&provider, tier)) {
                (Some(m), _) => m.clone(),
                (None, Some(d)) => d.to_string(),
                (None, None) if provider == "command" => "command".to_string(),
                (None, None) => bail!("--provider {provider} needs --model NAME (no default model is known for it)"),
            };
            map.insert(tier, ModelSpec { provider: provider.clone(), model });
        }
        return Ok(Some(map));
    }
    // [models.local] path with no other [models]: the local provider on every tier.
    let tiers_configured = file.models.standard.is_some() || file.models.fast.is_some() || file.models.deep.is_some();
    if let Some(path) = file.models.local.path.as_ref().filter(|_| model.is_none() && !tiers_configured) {
        return Ok(Some(local_everywhere(path)));
    }
    if model.is_some() {
        bail!("--model needs --provider (or [models] in {FILE_NAME})");
    }
    let m = &file.models;
    if let Some(standard) = &m.standard {
        let standard = ModelSpec::parse(standard, "[models] standard")?;
        let pick = |v: &Option<String>, key: &str| -> Result<ModelSpec> {
            v.as_deref().map_or(Ok(standard.clone()), |t| ModelSpec::parse(t, key))
        };
        let map = BTreeMap::from([
            (Tier::Fast, pick(&m.fast, "[models] fast")?),
            (Tier::Deep, pick(&m.deep, "[models] deep")?),
            (Tier::Standard, standard.clone()),
        ]);
        return Ok(Some(map));
    }
    if m.fast.is_some() || m.deep.is_some() {
        bail!("[models] in {FILE_NAME} sets fast or deep but not standard; standard is required");
    }
    // Nothing configured: detect from the environment.
    let detected = if env("ANTHROPIC_API_KEY").is_some() {
        "anthropic"
    } else if env("OPENAI_API_KEY").is_some() || env("OPENAI_BASE_URL").is_some() {
        "openai"
    } else {
        return Ok(None);
    };
    Ok(Some(
        Tier::ALL
            .iter()
            .map(|t| {
                (
                    *t,
                    ModelSpec {
                        provider: detected.into(),
                        model: default_model(detected, *t).unwrap_or_default().into(),
                    },
                )
            })
            .collect(),
    ))
}

/// `[gate]` resolved over the defaults.
pub fn gate_config(file: &FileConfig) -> GateConfig {
    let defaults = GateConfig::default();
    let g = &file.gate;
    GateConfig {
        bot_authors: g.bot_authors.clone().unwrap_or(defaults.bot_authors),
        automated_subjects: g.automated_subjects.clone().unwrap_or(defaults.automated_subjects),
        ignore: g.ignore.clone(),
        min_changed_lines: g.min_changed_lines.unwrap_or(defaults.min_changed_lines),
        max_changed_lines: g.max_changed_lines,
        head_banners: defaults.head_banners,
    }
}

impl Settings {
    pub fn resolve(root: &Path, config: Option<&Path>, args: &ReviewArgs, env: &Env, is_tty: bool) -> Result<Settings> {
        let path = config.map(Path::to_path_buf).unwrap_or_else(|| root.join(FILE_NAME));
        let file = read_file(&path, config.is_some())?;
        Settings::from_file(file, args, env, is_tty)
    }

    /// [`Settings::resolve`] with the configuration file already read (`ci` reads
    /// it at the base commit).
    pub fn from_file(file: FileConfig, args: &ReviewArgs, env: &Env, is_tty: bool) -> Result<Settings> {
        let threshold = args.threshold.or(file.review.threshold).unwrap_or(75);
        if ![0, 25, 50, 75, 100].contains(&threshold) {
            bail!("threshold {threshold} is not on the confidence rubric: use 0, 25, 50, 75 or 100");
        }
        // Checked here so that any command, not only `ci`, points out a bad [ci] key.
        file.ci.blocking_mode()?;
        let concurrency = args.concurrency.or(file.review.concurrency).unwrap_or(4);
        if concurrency == 0 {
            bail!("concurrency must be at least 1");
        }
        let format = args.format.clone().or(file.review.format.clone()).unwrap_or_else(|| "terminal".into());
        let color = match args.color.as_str() {
            "always" => true,
            "never" => false,
            // NO_COLOR (no-color.org) and a terminal that says it cannot draw
            // escapes both turn colour off; only `--color always` overrides them.
            "auto" => is_tty && env("NO_COLOR").is_none() && env("TERM").is_none_or(|t| t != "dumb"),
            other => bail!("--color {other}: use auto, always or never"),
        };
        let models = resolve_models(args, &file, env)?;
        let gate = gate_config(&file);
        let b = &file.budget;
        let budget = Budget {
            max_calls: args.max_calls.or(b.max_calls),
            max_tokens: args.max_tokens.or(b.max_tokens),
            max_cost: args.max_cost.or(b.max_cost),
        };
        let only = if args.reviewers.is_empty() { file.reviewers.only.clone() } else { args.reviewers.clone() };
        let urls = [env("ANTHROPIC_BASE_URL"), env("OPENAI_BASE_URL")];
        let fingerprint = format!("{threshold}|{only:?}|{budget:?}|{urls:?}|{file:?}");
        Ok(Settings {
            gate,
            budget,
            prices: Prices::with_overrides(&file.prices),
            fingerprint,
            threshold,
            concurrency,
            region_lines: file.review.region_lines.unwrap_or(30),
            validator_tier: file.review.validator_tier.unwrap_or(Tier::Standard),
            format,
            verbose: args.verbose,
            color,
            disable: file.reviewers.disable.clone(),
            only_by: if args.reviewers.is_empty() { "[reviewers] only in the config file" } else { "--reviewers" }
                .into(),
            only,
            models,
            file,
            trusted: Trusted::Local,
        })
    }
}

impl Settings {
    /// Tool limits from `[validate]`, over the defaults.
    pub fn tool_limits(&self) -> gauntlet_review::sandbox::Limits {
        let v = &self.file.validate;
        let d = gauntlet_review::sandbox::Limits::default();
        gauntlet_review::sandbox::Limits {
            max_steps: v.max_steps.unwrap_or(d.max_steps),
            call_bytes: v.max_read_bytes_per_call.unwrap_or(d.call_bytes),
            session_bytes: v.max_read_bytes_per_session.unwrap_or(d.session_bytes),
            file_bytes: v.max_file_bytes.unwrap_or(d.file_bytes),
        }
    }
}

/// Context window assumed for hosted models when `[review] context_tokens` is unset.
const HOSTED_CONTEXT: usize = 100_000;
/// Context assumed for the embedded model when `[models.local] context` is unset.
const LOCAL_CONTEXT: usize = 8_192;

impl Settings {
    /// The context window changes are split to fit: the configured one, else the
    /// smallest of the models in use (the embedded model's is small).
    pub fn context_tokens(&self, specs: &BTreeMap<Tier, ModelSpec>) -> usize {
        if let Some(n) = self.file.review.context_tokens {
            return n;
        }
        let local = self.file.models.local.context.map_or(LOCAL_CONTEXT, |c| c as usize);
        specs
            .values()
            .map(|s| if s.provider == "local" { local } else { HOSTED_CONTEXT })
            .min()
            .unwrap_or(HOSTED_CONTEXT)
    }

    /// Why the change's standard steps should run on the deep tier, if they should.
    pub fn deep_reason(&self, change: &gauntlet_change::Change, changed_lines: usize) -> Result<Option<String>> {
        let g = &self.file.gate;
        if let Some(min) = g.deep_min_changed_lines.filter(|m| changed_lines > *m) {
            return Ok(Some(format!(
                "deep tier: {changed_lines} changed lines, more than deep_min_changed_lines = {min}"
            )));
        }
        let set =
            gauntlet_review::gate::globset(&g.deep_paths).map_err(|e| anyhow::anyhow!("[gate] deep_paths: {e}"))?;
        Ok(change
            .files
            .iter()
            .map(|f| f.diff.path())
            .find(|p| set.is_match(p))
            .map(|p| format!("deep tier: the change touches {p}, which matches deep_paths")))
    }
}

/// The starter file `gauntlet init` writes.
pub const STARTER: &str = include_str!("../starter.toml");

#[cfg(test)]
mod blocking_tests {
    use super::*;

    fn ci(text: &str) -> CiSection {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn blocking_defaults_to_fail_on_and_earned_takes_the_documented_defaults() {
        assert_eq!(ci("").blocking_mode().unwrap(), BlockingMode::FailOn);
        let BlockingMode::Earned(e) = ci("blocking = \"earned\"").blocking_mode().unwrap() else { panic!() };
        assert_eq!((e.bar.window, e.bar.min_precision, e.bar.min_findings), (100, 0.90, 30));
        assert_eq!((e.calls, e.keep_record_across_rules), (40, false));
    }

    #[test]
    fn bad_blocking_values_are_refused_with_what_to_write() {
        let err = |text: &str| ci(text).blocking_mode().unwrap_err().to_string();
        assert!(err("blocking = \"strict\"").contains("use \"fail-on\" or \"earned\""));
        assert!(err("min_precision = 0.8").contains("applies only with blocking = \"earned\""));
        assert!(err("blocking = \"earned\"\nmin_precision = 90.0").contains("is not a share"));
        assert!(err("blocking = \"earned\"\nmin_precision = 0.0").contains("is not a share"));
        assert!(err("blocking = \"earned\"\nwindow = 0").contains("window must be at least 1"));
        assert!(err("blocking = \"earned\"\nwindow = 20").contains("could never be met"));
        assert!(err("blocking = \"earned\"\nmin_findings = 0").contains("at least 1"));
        assert!(err("blocking = \"earned\"\nstats_calls = 1").contains("too few"));
    }
}
