//! Record and replay: every model exchange of a run stored in a folder, so the run
//! can be repeated exactly and offline.
//!
//! A recording is one JSON file per request, named by its key: the sha256 of the
//! canonical request (object keys sorted) together with the provider and model
//! names. Two things would make equal requests hash differently from run to run,
//! and both are taken out first: the run's random fence boundary is replaced by
//! [`PLACEHOLDER`], and nothing of the transport (URLs, headers, keys) is part of a
//! [`Request`] in the first place, so a recording never holds a key.
//!
//! Replay serves the stored response for each key and never calls a model; a
//! request that is not in the folder fails with its step, reviewer and key, and is
//! also kept in [`Recorder::misses`] so the caller can fail the whole run loudly.

use crate::{ModelError, Provider, Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What the run's fence boundary becomes in keys and stored files.
pub const PLACEHOLDER: &str = "DATA-FENCE-BOUNDARY";

/// One stored exchange, as written to `<key>.json`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Exchange {
    pub key: String,
    pub provider: String,
    pub model: String,
    pub step: String,
    pub reviewer: Option<String>,
    /// The canonical request, boundary replaced.
    pub request: Value,
    /// The response, boundary replaced.
    pub response: Response,
}

enum Mode {
    Record(Arc<dyn Provider>),
    Replay { name: String, model: String, tools: bool },
}

/// A provider that records the exchanges of an inner provider, or replays them.
pub struct Recorder {
    mode: Mode,
    dir: PathBuf,
    boundary: String,
    misses: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = if matches!(self.mode, Mode::Record(_)) { "record" } else { "replay" };
        f.debug_struct("Recorder").field("mode", &mode).field("dir", &self.dir).finish()
    }
}

impl Recorder {
    /// Pass calls through to `inner` and store each successful exchange in `dir`
    /// (created if missing).
    pub fn record(inner: Arc<dyn Provider>, dir: &Path, boundary: &str) -> Result<Recorder, ModelError> {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
        Ok(Recorder {
            mode: Mode::Record(inner),
            dir: dir.to_path_buf(),
            boundary: boundary.into(),
            misses: no_misses(),
        })
    }

    /// Answer from the exchanges stored in `dir`, as the provider `name`/`model`
    /// that recorded them (`tools`: whether that provider offered tools).
    pub fn replay(name: &str, model: &str, tools: bool, dir: &Path, boundary: &str) -> Result<Recorder, ModelError> {
        if !dir.is_dir() {
            return Err(ModelError::Config {
                provider: "replay".into(),
                message: format!("{} is not a folder of recordings (make one with --record DIR)", dir.display()),
            });
        }
        let mode = Mode::Replay { name: name.into(), model: model.into(), tools };
        Ok(Recorder { mode, dir: dir.to_path_buf(), boundary: boundary.into(), misses: no_misses() })
    }

    /// Share one list of replay misses between several recorders.
    pub fn with_misses(mut self, misses: Arc<Mutex<Vec<String>>>) -> Recorder {
        self.misses = misses;
        self
    }

    /// Requests a replay could not serve, each described by step, reviewer and key.
    pub fn misses(&self) -> Arc<Mutex<Vec<String>>> {
        self.misses.clone()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    fn store(&self, exchange: &Exchange) -> Result<(), ModelError> {
        let text = serde_json::to_string_pretty(exchange).expect("exchanges serialise");
        write_atomic(&self.path(&exchange.key), text.as_bytes())
    }

    fn load(&self, key: &str, request: &Request) -> Result<Response, ModelError> {
        let path = self.path(key);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let what = describe(request, key);
                self.misses.lock().expect("misses lock").push(what.clone());
                return Err(ModelError::Config {
                    provider: "replay".into(),
                    message: format!("no recording of the request {what} in {}", self.dir.display()),
                });
            }
            Err(e) => return Err(io_error(&path, &e)),
        };
        let exchange: Exchange = serde_json::from_str(&text).map_err(|e| ModelError::Config {
            provider: "replay".into(),
            message: format!("{} is not a recording: {e}", path.display()),
        })?;
        Ok(restore(exchange.response, &self.boundary))
    }
}

fn no_misses() -> Arc<Mutex<Vec<String>>> {
    Arc::new(Mutex::new(Vec::new()))
}

/// `step find, reviewer correctness, key 3fa2…`: enough to find the request again.
fn describe(request: &Request, key: &str) -> String {
    let reviewer = request.reviewer.as_deref().unwrap_or("-");
    format!("(step {}, reviewer {reviewer}, key {key})", request.step)
}

#[async_trait::async_trait]
impl Provider for Recorder {
    fn name(&self) -> &str {
        match &self.mode {
            Mode::Record(p) => p.name(),
            Mode::Replay { name, .. } => name,
        }
    }

    fn model(&self) -> &str {
        match &self.mode {
            Mode::Record(p) => p.model(),
            Mode::Replay { model, .. } => model,
        }
    }

    fn supports_tools(&self) -> bool {
        match &self.mode {
            Mode::Record(p) => p.supports_tools(),
            Mode::Replay { tools, .. } => *tools,
        }
    }

    /// A replay has no cache to warm.
    fn caches_after_start(&self) -> bool {
        match &self.mode {
            Mode::Record(p) => p.caches_after_start(),
            Mode::Replay { .. } => false,
        }
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let canonical = canonical_request(request, &self.boundary);
        let key = key_of(self.name(), self.model(), &canonical);
        match &self.mode {
            Mode::Replay { .. } => self.load(&key, request),
            Mode::Record(inner) => {
                let response = inner.complete(request).await?;
                self.store(&Exchange {
                    key,
                    provider: self.name().into(),
                    model: self.model().into(),
                    step: request.step.clone(),
                    reviewer: request.reviewer.clone(),
                    request: canonical,
                    response: scrub(&response, &self.boundary),
                })?;
                Ok(response)
            }
        }
    }
}

/// The request as stored and hashed: keys sorted, the boundary replaced.
pub fn canonical_request(request: &Request, boundary: &str) -> Value {
    let text = serde_json::to_string(request).expect("requests serialise");
    let text = if boundary.is_empty() { text } else { text.replace(boundary, PLACEHOLDER) };
    sorted(serde_json::from_str(&text).expect("serialised JSON parses"))
}

/// The key of a canonical request sent to `provider`'s `model`.
pub fn key_of(provider: &str, model: &str, canonical: &Value) -> String {
    let doc = sorted(serde_json::json!({ "provider": provider, "model": model, "request": canonical }));
    hex::encode(Sha256::digest(doc.to_string().as_bytes()))
}

/// Rebuild every object with its keys in sorted order, whatever map type serde_json uses.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect::<Map<String, Value>>())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// A response with the boundary replaced by the placeholder (a model may echo it).
fn scrub(response: &Response, boundary: &str) -> Response {
    swap(response, boundary, PLACEHOLDER)
}

/// A stored response with this run's boundary put back.
fn restore(response: Response, boundary: &str) -> Response {
    swap(&response, PLACEHOLDER, boundary)
}

fn swap(response: &Response, from: &str, to: &str) -> Response {
    if from.is_empty() {
        return response.clone();
    }
    let text = serde_json::to_string(response).expect("responses serialise").replace(from, to);
    serde_json::from_str(&text).expect("a response survives a string swap")
}

/// Write through a temporary file in the same folder and rename it into place, so a
/// reader (or a crash) never sees half a recording.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ModelError> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("recording");
    let tmp =
        path.with_file_name(format!(".{name}.{}.{}.tmp", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&tmp, bytes).map_err(|e| io_error(&tmp, &e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_error(path, &e)
    })
}

fn io_error(path: &Path, e: &std::io::Error) -> ModelError {
    ModelError::Config { provider: "record".into(), message: format!("{}: {e}", path.display()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Tier, Turn, Usage};

    fn request(boundary: &str) -> Request {
        Request {
            shared: vec![format!("<<<{boundary} change>>>\nx\n<<<END {boundary}>>>\n")].into(),
            turns: vec![Turn::user("check it")],
            schema: None,
            tools: Vec::new(),
            max_tokens: 10,
            tier: Tier::Standard,
            step: "validate".into(),
            reviewer: Some("correctness".into()),
        }
    }

    #[test]
    fn key_does_not_depend_on_the_fence_boundary() {
        let a = key_of("anthropic", "m", &canonical_request(&request("DATA-1111"), "DATA-1111"));
        let b = key_of("anthropic", "m", &canonical_request(&request("DATA-2222"), "DATA-2222"));
        assert_eq!(a, b);
    }

    #[test]
    fn key_depends_on_the_model_and_the_request() {
        let canonical = canonical_request(&request("DATA-1"), "DATA-1");
        assert_ne!(key_of("anthropic", "m", &canonical), key_of("anthropic", "other", &canonical));
        let mut changed = request("DATA-1");
        changed.turns.push(Turn::user("more"));
        assert_ne!(
            key_of("anthropic", "m", &canonical),
            key_of("anthropic", "m", &canonical_request(&changed, "DATA-1"))
        );
    }

    #[test]
    fn responses_get_the_current_boundary_back() {
        let r = Response { json: "quoting DATA-1 here".into(), tool_calls: vec![], usage: Usage::default() };
        let stored = scrub(&r, "DATA-1");
        assert_eq!(stored.json, format!("quoting {PLACEHOLDER} here"));
        assert_eq!(restore(stored, "DATA-2").json, "quoting DATA-2 here");
    }
}
