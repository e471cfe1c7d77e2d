//! LLM providers behind one trait.
//!
//! Every model call in gauntlet is a [`Request`]: `shared` blocks that are identical
//! for every reviewer and validator call of a run (sent first, so providers can cache
//! them), then the per-call `turns`, the JSON schema the answer must follow, optional
//! tools, and bookkeeping (`tier`, `step`, `reviewer`). A [`Response`] carries the raw
//! JSON text, any tool calls, and token [`Usage`].
//!
//! Implementations: [`anthropic::Anthropic`], [`openai::OpenAi`], [`command::Command`].
//! [`retry::Retrying`] wraps any of them with timeouts and backoff;
//! [`record::Recorder`] stores every exchange to a folder, or plays a folder back.

pub mod anthropic;
pub mod command;
mod http;
pub use http::MAX_RESPONSE_BYTES;
pub mod openai;
pub mod record;
pub mod retry;

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Model tier a step runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Fast,
    Standard,
    Deep,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Fast, Tier::Standard, Tier::Deep];
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Fast => "fast",
            Tier::Standard => "standard",
            Tier::Deep => "deep",
        }
    }
}

/// The JSON schema an answer must follow, with a short name (used as the forced
/// tool name / `json_schema` name).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schema {
    pub name: String,
    pub json: serde_json::Value,
}

/// A tool the model may call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub id: String,
    pub content: String,
    pub is_error: bool,
}

/// One per-call message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Turn {
    User { text: String },
    Assistant { text: String, tool_calls: Vec<ToolCall> },
    ToolResults { results: Vec<ToolResult> },
}

impl Turn {
    pub fn user(text: impl Into<String>) -> Turn {
        Turn::User { text: text.into() }
    }
    pub fn assistant(text: impl Into<String>) -> Turn {
        Turn::Assistant { text: text.into(), tool_calls: Vec::new() }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Request {
    /// Blocks identical for every reviewer and validator call of a run, sent first.
    /// Shared, not copied: a run sends the same blocks with every call.
    pub shared: std::sync::Arc<[String]>,
    pub turns: Vec<Turn>,
    pub schema: Option<Schema>,
    pub tools: Vec<Tool>,
    pub max_tokens: u32,
    pub tier: Tier,
    /// Pipeline step, e.g. `find`, `validate`.
    pub step: String,
    pub reviewer: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The model's answer text, expected to be one JSON object (validated by the caller).
    pub json: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{provider} answered HTTP {status}: {message}")]
    Http { provider: String, status: u16, message: String, retry_after: Option<Duration> },
    #[error("{provider}: spend limit or quota reached ({message}); raise the limit or wait, retrying will not help")]
    SpendLimit { provider: String, message: String },
    #[error("{provider}: no answer within {secs}s (raise `timeout_secs` in gauntlet.toml)")]
    Timeout { provider: String, secs: u64 },
    #[error("{provider}: {message}")]
    Transport { provider: String, message: String },
    #[error("{provider}: unexpected answer: {message}")]
    Protocol { provider: String, message: String },
    #[error("{provider}: {message}")]
    Config { provider: String, message: String },
}

impl ModelError {
    /// Whether another attempt may succeed (429, 5xx, 529, timeouts, transport faults).
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Http { status, .. } => *status == 429 || *status >= 500,
            ModelError::Timeout { .. } | ModelError::Transport { .. } => true,
            _ => false,
        }
    }
}

/// A model behind some wire format.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// Provider name as the user configures it (`anthropic`, `openai`, `command`).
    fn name(&self) -> &str;
    /// Model name this provider instance calls.
    fn model(&self) -> &str;
    /// Whether [`Request::tools`] are offered to the model and its tool calls come
    /// back in [`Response::tool_calls`]. Providers that cannot (a program on stdin,
    /// the embedded model) answer directly from the context they are given.
    fn supports_tools(&self) -> bool {
        false
    }
    /// Whether calls that share [`Request::shared`] only read the provider's prompt
    /// cache once an earlier call has *started* answering (Anthropic writes the cache
    /// entry while it reads the prompt). When true, the pipeline sends one call of a
    /// group first and the others once [`answer_started`] fired for it, so that they
    /// pay the cached price instead of each writing the same entry.
    fn caches_after_start(&self) -> bool {
        false
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError>;
}

tokio::task_local! {
    static ON_START: std::sync::Arc<dyn Fn() + Send + Sync>;
}

/// Run `call` (one or more model calls) with `hook` called as soon as a provider
/// reports that its answer has started ([`answer_started`]); providers that cannot
/// tell never call it, so callers must also treat the call's end as a start.
pub async fn on_answer_start<F: std::future::Future>(
    hook: std::sync::Arc<dyn Fn() + Send + Sync>,
    call: F,
) -> F::Output {
    ON_START.scope(hook, call).await
}

/// Whether the current call runs under [`on_answer_start`]: a provider may then
/// stream its answer to learn when it begins.
pub fn start_is_awaited() -> bool {
    ON_START.try_with(|_| ()).is_ok()
}

/// Called by a provider when the model has begun its answer (the prompt is read,
/// and cached where the provider caches). Does nothing outside [`on_answer_start`].
pub fn answer_started() {
    let _ = ON_START.try_with(|hook| hook());
}
