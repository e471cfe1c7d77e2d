//! A provider that masks what crosses it both ways: every text of a request before
//! it leaves (whatever path the text took to get there: the diff, a file a tool
//! read, a commit message, an earlier answer), and every text of the answer
//! before the pipeline, a recording or a report sees it (a model can echo a
//! secret or invent a token-shaped string). Errors are masked too: a provider's
//! error message may quote the request.

use super::Masker;
use gauntlet_model::{ModelError, Provider, Request, Response, ToolCall, Turn};
use serde_json::Value;
use std::sync::Arc;

/// `inner`, with every request and answer masked by `masker`.
pub struct Masking {
    inner: Arc<dyn Provider>,
    masker: Arc<Masker>,
}

impl Masking {
    pub fn new(inner: Arc<dyn Provider>, masker: Arc<Masker>) -> Masking {
        Masking { inner, masker }
    }
}

impl Masker {
    /// Mask every string inside a JSON value.
    pub fn json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                let masked = self.written(s);
                if masked != *s {
                    *s = masked;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.json(v)),
            _ => {}
        }
    }

    /// Mask a model's answer text: string by string when it is JSON (escaped
    /// quotes would hide a secret's end from the rules), else as text.
    pub fn answer(&self, text: &str) -> String {
        match serde_json::from_str::<Value>(text) {
            Ok(mut value) => {
                let before = value.clone();
                self.json(&mut value);
                if value == before { text.to_string() } else { value.to_string() }
            }
            Err(_) => self.written(text),
        }
    }

    fn tool_calls(&self, calls: &mut [ToolCall]) {
        for c in calls {
            self.json(&mut c.input);
        }
    }

    /// Mask every text a request carries.
    pub fn request(&self, request: &Request) -> Request {
        let mut out = request.clone();
        let shared: Vec<String> = request.shared.iter().map(|b| self.written(b)).collect();
        if shared.iter().zip(request.shared.iter()).any(|(a, b)| a != b) {
            out.shared = shared.into();
        }
        for turn in &mut out.turns {
            match turn {
                Turn::User { text } => *text = self.written(text),
                Turn::Assistant { text, tool_calls } => {
                    *text = self.answer(text);
                    self.tool_calls(tool_calls);
                }
                Turn::ToolResults { results } => {
                    for r in results {
                        r.content = self.written(&r.content);
                    }
                }
            }
        }
        out
    }

    fn error(&self, e: ModelError) -> ModelError {
        match e {
            ModelError::Http { provider, status, message, retry_after } => {
                ModelError::Http { provider, status, message: self.written(&message), retry_after }
            }
            ModelError::SpendLimit { provider, message } => {
                ModelError::SpendLimit { provider, message: self.written(&message) }
            }
            ModelError::Transport { provider, message } => {
                ModelError::Transport { provider, message: self.written(&message) }
            }
            ModelError::Protocol { provider, message } => {
                ModelError::Protocol { provider, message: self.written(&message) }
            }
            ModelError::Config { provider, message } => {
                ModelError::Config { provider, message: self.written(&message) }
            }
            other => other,
        }
    }
}

#[async_trait::async_trait]
impl Provider for Masking {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn supports_tools(&self) -> bool {
        self.inner.supports_tools()
    }
    fn caches_after_start(&self) -> bool {
        self.inner.caches_after_start()
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let request = self.masker.request(request);
        let mut response = self.inner.complete(&request).await.map_err(|e| self.masker.error(e))?;
        response.json = self.masker.answer(&response.json);
        self.masker.tool_calls(&mut response.tool_calls);
        Ok(response)
    }
}
