//! Building the provider of each tier from resolved settings.

use crate::settings::{Env, ModelSpec, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_model::anthropic::{Anthropic, AnthropicConfig};
use gauntlet_model::command::{Command, CommandConfig, Protocol};
use gauntlet_model::openai::{Azure, OpenAi, OpenAiConfig};
use gauntlet_model::record::Recorder;
use gauntlet_model::retry::{RetryPolicy, Retrying};
use gauntlet_model::{Provider, Tier};
use gauntlet_review::pipeline::Models;
use gauntlet_review::secrets::{Masker, Masking};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `--record DIR` / `--replay DIR`, with the run's fence boundary (which recordings
/// replace by a placeholder) and the list replay misses are collected in.
pub struct Recording {
    pub replay: bool,
    pub dir: PathBuf,
    pub boundary: String,
    pub misses: Arc<Mutex<Vec<String>>>,
}

/// The model of every tier: as configured, or (nothing configured and no key) a
/// local Ollama, else the embedded model.
pub fn specs(settings: &Settings) -> Result<BTreeMap<Tier, ModelSpec>> {
    if let Some(specs) = &settings.models {
        return Ok(specs.clone());
    }
    let spec = crate::offline::fallback()?;
    Ok(Tier::ALL.iter().map(|t| (*t, spec.clone())).collect())
}

/// The providers of every tier. With `masker` (unless `[secrets] mask = false`),
/// every request and answer is masked where it crosses the provider, and a
/// recording stores only masked exchanges.
pub fn build(
    settings: &Settings,
    specs: &BTreeMap<Tier, ModelSpec>,
    env: &Env,
    recording: Option<&Recording>,
    masker: Option<&Arc<Masker>>,
) -> Result<Models> {
    check_prices(settings, specs)?;
    let mut policy = RetryPolicy::default();
    if let Some(secs) = settings.file.network.timeout_secs {
        policy.timeout = Duration::from_secs(secs);
    }
    if let Some(n) = settings.file.network.max_attempts {
        policy.max_attempts = n.max(1);
    }
    if let Some(secs) = settings.file.network.max_retry_after_secs {
        policy.max_retry_after = Duration::from_secs(secs);
    }
    // Tiers that name the same provider and model share one client.
    let mut built: BTreeMap<(String, String), Arc<dyn Provider>> = BTreeMap::new();
    let mut tiers = Vec::new();
    for tier in Tier::ALL {
        let spec = &specs[&tier];
        let key = (spec.provider.clone(), spec.model.clone());
        if !built.contains_key(&key) {
            let p = match recording {
                Some(r) if r.replay => replayer(spec, r)?,
                _ => {
                    let p = one(spec, settings, env)?;
                    // In-process inference has no transient faults to retry, and a call
                    // queued behind others must not time out while it waits.
                    let p = if spec.provider == "local" { p } else { Arc::new(Retrying::new(p, policy)) };
                    match recording {
                        // Masked inside too, so the recorder stores masked answers.
                        Some(r) => Arc::new(Recorder::record(masking(p, masker), &r.dir, &r.boundary)?),
                        None => p,
                    }
                }
            };
            let p = masking(p, masker);
            built.insert(key.clone(), p);
        }
        tiers.push(built[&key].clone());
    }
    Ok(Models::new(tiers[0].clone(), tiers[1].clone(), tiers[2].clone()))
}

fn masking(p: Arc<dyn Provider>, masker: Option<&Arc<Masker>>) -> Arc<dyn Provider> {
    match masker {
        Some(m) => Arc::new(Masking::new(p, m.clone())),
        None => p,
    }
}

/// A provider answering from a recording as the one `spec` names would: same name,
/// model label and tool support, so the replayed report matches the recorded one.
/// No key is needed and nothing is loaded.
fn replayer(spec: &ModelSpec, recording: &Recording) -> Result<Arc<dyn Provider>> {
    let (name, model, tools) = match spec.provider.as_str() {
        "anthropic" | "openai" => (spec.provider.as_str(), spec.model.clone(), true),
        // Ollama is spoken to through the OpenAI wire format, under that name.
        "ollama" => ("openai", spec.model.clone(), true),
        // The local provider labels a model file by its stem.
        "local" if spec.model.ends_with(".gguf") => {
            let stem = Path::new(&spec.model).file_stem().and_then(|s| s.to_str()).unwrap_or("model");
            ("local", stem.to_string(), false)
        }
        other => (other, spec.model.clone(), false),
    };
    let replay = Recorder::replay(name, &model, tools, &recording.dir, &recording.boundary)?;
    Ok(Arc::new(replay.with_misses(recording.misses.clone())))
}

fn one(spec: &ModelSpec, settings: &Settings, env: &Env) -> Result<Arc<dyn Provider>> {
    let providers = &settings.file.providers;
    Ok(match spec.provider.as_str() {
        "anthropic" => {
            let key = env("ANTHROPIC_API_KEY").context(
                "provider anthropic needs ANTHROPIC_API_KEY in the environment (keys are never read from files)",
            )?;
            let mut config = AnthropicConfig::new(key, &spec.model);
            if let Some(url) = env("ANTHROPIC_BASE_URL").or(providers.anthropic.base_url.clone()) {
                config.base_url = url;
            }
            Arc::new(Anthropic::new(config)?)
        }
        "ollama" => {
            let mut config = OpenAiConfig::new(None, &spec.model);
            config.base_url = crate::offline::OLLAMA_BASE_URL.into();
            Arc::new(OpenAi::new(config)?)
        }
        "local" => crate::offline::local(spec, settings, env)?,
        "openai" => {
            let mut config = OpenAiConfig::new(env("OPENAI_API_KEY"), &spec.model);
            if let Some(url) = env("OPENAI_BASE_URL").or(providers.openai.base_url.clone()) {
                config.base_url = url;
            }
            if let Some(deployment) = &providers.openai.azure_deployment {
                let api_version = providers.openai.azure_api_version.clone().unwrap_or_else(|| "2024-10-21".into());
                config.azure = Some(Azure { deployment: deployment.clone(), api_version });
            }
            Arc::new(OpenAi::new(config)?)
        }
        "command" => {
            let section = providers
                .command
                .as_ref()
                .context("provider command needs [providers.command] program = \"...\" in gauntlet.toml")?;
            let protocol = match section.protocol.as_deref().unwrap_or("json") {
                "json" => Protocol::Json,
                "text" => Protocol::Text,
                other => bail!("[providers.command] protocol = \"{other}\": use \"json\" or \"text\""),
            };
            let mut config = CommandConfig::new(&section.program, section.args.clone(), protocol);
            config.model = Some(spec.model.clone());
            Arc::new(Command::new(config))
        }
        other => bail!("unknown provider `{other}`: use anthropic, openai, ollama, command or local"),
    })
}

/// A cost limit needs a price for every model that can spend it.
fn check_prices(settings: &Settings, specs: &BTreeMap<Tier, ModelSpec>) -> Result<()> {
    if settings.budget.max_cost.is_none() {
        return Ok(());
    }
    for spec in specs.values() {
        if settings.prices.get(&spec.provider, &spec.model).is_none() {
            bail!(
                "--max-cost needs the price of {}:{}, which gauntlet does not know: add [prices.\"{}\"] input = ..., \
                 output = ... (USD per million tokens) to gauntlet.toml, or use --max-tokens",
                spec.provider,
                spec.model,
                spec.model
            );
        }
    }
    Ok(())
}
