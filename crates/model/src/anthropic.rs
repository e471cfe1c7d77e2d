//! Anthropic Messages API (`POST {base}/v1/messages`), hand-written over reqwest.
//!
//! The shared blocks become `system` text blocks with a cache breakpoint on the
//! last one, so the reviewer and validator calls of one run (which often go out in
//! parallel) read the same cached prefix instead of paying for it each time.
//!
//! Structured output goes through a forced tool: the schema is offered as a tool
//! named [`Schema::name`] and `tool_choice` pins it, so the answer arrives as the
//! tool's `input`. In a tool loop (`tools` non-empty) the choice stays `auto` and
//! the schema tool is offered next to the real tools; calling it ends the loop.

use crate::http;
use crate::{ModelError, Provider, Request, Response, Schema, ToolCall, Turn, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";
const NAME: &str = "anthropic";

/// Connection settings. The key is passed in; only [`AnthropicConfig::from_env`]
/// reads the environment.
#[derive(Clone)]
pub struct AnthropicConfig {
    /// Without trailing `/v1`, e.g. `https://api.anthropic.com`.
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    /// Sent with every request, e.g. `anthropic-beta`.
    pub extra_headers: Vec<(String, String)>,
}

impl AnthropicConfig {
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        AnthropicConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: api_key.into(),
            model: model.into(),
            extra_headers: Vec::new(),
        }
    }

    /// Reads `ANTHROPIC_API_KEY` (required) and `ANTHROPIC_BASE_URL` (optional).
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        let key = std::env::var("ANTHROPIC_API_KEY").ok().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
            ModelError::Config { provider: NAME.to_string(), message: "ANTHROPIC_API_KEY is not set".to_string() }
        })?;
        let mut config = AnthropicConfig::new(key, model);
        if let Some(url) = std::env::var("ANTHROPIC_BASE_URL").ok().filter(|u| !u.is_empty()) {
            config.base_url = url;
        }
        Ok(config)
    }
}

/// Hand-written so the key never lands in logs or panic messages.
impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &"[redacted]")
            .field("model", &self.model)
            .field("extra_headers", &self.extra_headers.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .finish()
    }
}

#[derive(Debug)]
pub struct Anthropic {
    config: AnthropicConfig,
    client: reqwest::Client,
}

impl Anthropic {
    pub fn new(config: AnthropicConfig) -> Result<Self, ModelError> {
        http::check_headers(NAME, &config.extra_headers)?;
        Ok(Anthropic { client: http::client(NAME)?, config })
    }

    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Anthropic::new(AnthropicConfig::from_env(model)?)
    }

    fn url(&self) -> String {
        format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'))
    }
}

#[async_trait::async_trait]
impl Provider for Anthropic {
    fn name(&self) -> &str {
        NAME
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn supports_tools(&self) -> bool {
        true
    }

    fn caches_after_start(&self) -> bool {
        true
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let mut body = build_body(&self.config.model, request);
        // Streamed only when someone waits for the answer to start (the first call
        // of a group, whose cache entry the others will read).
        body.stream = crate::start_is_awaited();
        let mut req = self
            .client
            .post(self.url())
            .header("x-api-key", &self.config.api_key)
            .header("anthropic-version", API_VERSION)
            .json(&body);
        for (k, v) in &self.config.extra_headers {
            req = req.header(k, v);
        }
        let secret = Some(self.config.api_key.as_str());
        let wire =
            if body.stream { stream::read(req, secret).await? } else { http::post_json(NAME, secret, req).await? };
        crate::answer_started();
        Ok(parse_response(wire, request.schema.as_ref()))
    }
}

/// The streamed form of the Messages API (server-sent events), read only to learn
/// when the answer starts: the result is the same [`WireResponse`] a plain call gets.
mod stream {
    use super::{NAME, ResponseBlock, WireResponse, WireUsage};
    use crate::{ModelError, http};
    use serde::Deserialize;
    use serde_json::Value;

    /// Longest streamed answer read; a longer one is cut off as a protocol error.
    /// Events wrap each small piece of the answer in JSON, hence more room than a
    /// one-piece answer gets.
    const MAX_BYTES: usize = 4 * http::MAX_RESPONSE_BYTES;

    pub(super) async fn read(req: reqwest::RequestBuilder, secret: Option<&str>) -> Result<WireResponse, ModelError> {
        let mut resp = req.send().await.map_err(|e| http::transport(NAME, secret, e))?;
        let status = resp.status().as_u16();
        let is_events = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !(200..300).contains(&status) || !is_events {
            // Errors, and servers that answer in one piece whatever was asked.
            let headers = resp.headers().clone();
            let (body, cut) = http::read_capped(resp, http::MAX_RESPONSE_BYTES)
                .await
                .map_err(|e| http::transport(NAME, secret, e))?;
            if cut && (200..300).contains(&status) {
                let mib = http::MAX_RESPONSE_BYTES >> 20;
                return Err(protocol(secret, &format!("the answer passed {mib} MiB and was cut off there")));
            }
            if !(200..300).contains(&status) {
                return Err(http::status_error(NAME, secret, status, &headers, &String::from_utf8_lossy(&body)));
            }
            return http::decode(NAME, secret, &body);
        }
        let mut answer = Answer::default();
        let mut events = Events::default();
        let mut read = 0usize;
        while let Some(chunk) = resp.chunk().await.map_err(|e| http::transport(NAME, secret, e))? {
            read += chunk.len();
            if read > MAX_BYTES {
                return Err(protocol(secret, &format!("streamed answer exceeds {} MiB", MAX_BYTES >> 20)));
            }
            events.push(&chunk);
            while let Some(data) = events.next_data() {
                if answer.apply(&data, secret)? {
                    return answer.finish(secret);
                }
            }
            events.compact();
        }
        // A stream that stops short was cut off on the way: retried like a 5xx.
        Err(ModelError::Transport {
            provider: NAME.to_string(),
            message: "the stream ended before `message_stop`, so the answer was cut off on the way".into(),
        })
    }

    /// Server-sent events cut out of the bytes as they arrive; each byte is searched
    /// about once, however the chunks fall.
    #[derive(Default)]
    pub(super) struct Events {
        pending: Vec<u8>,
        /// Where the next event starts.
        start: usize,
        /// How far the search for its end got.
        searched: usize,
    }

    impl Events {
        pub(super) fn push(&mut self, chunk: &[u8]) {
            self.pending.extend_from_slice(chunk);
        }

        /// The `data:` payload of the next complete event.
        pub(super) fn next_data(&mut self) -> Option<String> {
            match event_end(&self.pending, self.start, self.searched) {
                Some((end, next)) => {
                    let data = data_of(&self.pending[self.start..end]);
                    (self.start, self.searched) = (next, next);
                    Some(data)
                }
                None => {
                    // A separator may straddle the end: look again from just before it.
                    self.searched = self.pending.len().saturating_sub(3).max(self.start);
                    None
                }
            }
        }

        /// Forget what was already read, keeping only the unfinished event.
        pub(super) fn compact(&mut self) {
            self.pending.drain(..self.start);
            self.searched -= self.start;
            self.start = 0;
        }
    }

    /// The end of the event starting at `start` (it ends at a blank line, `\n\n` or
    /// `\r\n\r\n`), searching from `searched`, and where the next event starts.
    fn event_end(buf: &[u8], start: usize, searched: usize) -> Option<(usize, usize)> {
        let mut i = searched.max(start);
        loop {
            // Just past the next newline: an event ends where the line after it is empty.
            i += buf[i..].iter().position(|b| *b == b'\n')? + 1;
            match &buf[i..] {
                [b'\n', ..] => return Some((i - 1, i + 1)),
                [b'\r', b'\n', ..] => return Some((i - 1, i + 2)),
                [] | [b'\r'] => return None,
                _ => {}
            }
        }
    }

    /// The `data:` payload of one event. No multi-byte character holds a newline, so
    /// an event cut at blank lines is whole however the chunks fell.
    fn data_of(event: &[u8]) -> String {
        let event = String::from_utf8_lossy(event);
        let data: Vec<&str> = event
            .lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .filter_map(|l| l.strip_prefix("data:").map(|d| d.strip_prefix(' ').unwrap_or(d)))
            .collect();
        data.join("\n")
    }

    #[cfg(test)]
    mod tests {
        use super::Events;

        #[test]
        fn events_come_out_whole_however_the_bytes_are_cut() {
            let stream = "event: a\ndata: {\"n\": 1}\n\n: comment\r\ndata: {\"n\": 2}\r\n\r\n\
                          data: first\ndata: second\n\ndata: é😀\n\n";
            let want = vec!["{\"n\": 1}", "{\"n\": 2}", "first\nsecond", "é😀"];
            for size in 1..=9 {
                let mut events = Events::default();
                let mut got = Vec::new();
                for chunk in stream.as_bytes().chunks(size) {
                    events.push(chunk);
                    while let Some(data) = events.next_data() {
                        got.push(data);
                    }
                    events.compact();
                }
                assert_eq!(got, want, "chunks of {size} bytes");
            }
        }

        #[test]
        fn an_unfinished_event_waits_for_its_blank_line() {
            let mut events = Events::default();
            events.push(b"data: partial\r\n\r");
            assert_eq!(events.next_data(), None);
            events.compact();
            events.push(b"\n");
            assert_eq!(events.next_data().as_deref(), Some("partial"));
        }
    }

    fn protocol(secret: Option<&str>, message: &str) -> ModelError {
        ModelError::Protocol { provider: NAME.to_string(), message: http::redact(message, secret) }
    }

    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Event {
        MessageStart {
            message: Start,
        },
        ContentBlockStart {
            index: usize,
            content_block: Value,
        },
        ContentBlockDelta {
            index: usize,
            delta: Piece,
        },
        MessageDelta {
            #[serde(default)]
            usage: Option<Value>,
        },
        MessageStop,
        Error {
            error: Value,
        },
        #[serde(other)]
        Other,
    }

    #[derive(Deserialize)]
    struct Start {
        #[serde(default)]
        usage: WireUsage,
    }

    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Piece {
        TextDelta {
            text: String,
        },
        InputJsonDelta {
            partial_json: String,
        },
        #[serde(other)]
        Other,
    }

    /// What the events so far add up to.
    #[derive(Default)]
    struct Answer {
        started: bool,
        /// Per content index: the block as it started, and its text or JSON so far.
        blocks: Vec<Option<(Value, String)>>,
        usage: WireUsage,
    }

    impl Answer {
        /// Take one event's payload; true once the message is complete.
        fn apply(&mut self, data: &str, secret: Option<&str>) -> Result<bool, ModelError> {
            if data.trim().is_empty() {
                return Ok(false);
            }
            let event: Event = serde_json::from_str(data)
                .map_err(|e| protocol(secret, &format!("could not decode a streamed event ({e})")))?;
            match event {
                Event::MessageStart { message } => {
                    self.usage = message.usage;
                    if !self.started {
                        self.started = true;
                        crate::answer_started();
                    }
                }
                Event::ContentBlockStart { index, content_block } => {
                    if self.blocks.len() <= index {
                        self.blocks.resize_with(index + 1, || None);
                    }
                    let text = content_block.get("text").and_then(Value::as_str).unwrap_or("").to_string();
                    self.blocks[index] = Some((content_block, text));
                }
                Event::ContentBlockDelta { index, delta } => {
                    let Some(Some((_, text))) = self.blocks.get_mut(index) else {
                        return Err(protocol(secret, "a streamed delta arrived for a block that never started"));
                    };
                    match delta {
                        Piece::TextDelta { text: t } | Piece::InputJsonDelta { partial_json: t } => text.push_str(&t),
                        Piece::Other => {}
                    }
                }
                Event::MessageDelta { usage } => {
                    if let Some(out) = usage.as_ref().and_then(|u| u.get("output_tokens")).and_then(Value::as_u64) {
                        self.usage.output_tokens = out;
                    }
                }
                Event::MessageStop => return Ok(true),
                Event::Error { error } => {
                    // Overloaded mid-stream reads like a 529; anything else like a 500.
                    let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
                    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                    let status = match kind {
                        "overloaded_error" => 529,
                        "rate_limit_error" => 429,
                        "api_error" | "error" => 500,
                        // Invalid requests, auth, permissions: asking again will not help.
                        _ => 400,
                    };
                    return Err(ModelError::Http {
                        provider: NAME.to_string(),
                        status,
                        message: http::redact(&format!("{kind}: {message}"), secret),
                        retry_after: None,
                    });
                }
                Event::Other => {}
            }
            Ok(false)
        }

        fn finish(self, secret: Option<&str>) -> Result<WireResponse, ModelError> {
            let mut content = Vec::new();
            for (block, text) in self.blocks.into_iter().flatten() {
                let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
                let field = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                content.push(match kind {
                    "text" => ResponseBlock::Text { text },
                    "tool_use" => {
                        let input = if text.trim().is_empty() {
                            block.get("input").cloned().unwrap_or_else(|| Value::Object(Default::default()))
                        } else {
                            serde_json::from_str(&text)
                                .map_err(|e| protocol(secret, &format!("streamed tool input is not JSON ({e})")))?
                        };
                        ResponseBlock::ToolUse { id: field("id"), name: field("name"), input }
                    }
                    _ => ResponseBlock::Other,
                });
            }
            Ok(WireResponse { content, usage: self.usage })
        }
    }
}

// ---- wire format -------------------------------------------------------------

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<Block<'a>>,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice<'a>>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ToolChoice<'a> {
    Auto,
    Tool { name: &'a str },
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    content: Vec<ResponseBlock>,
    #[serde(default)]
    usage: WireUsage,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    /// Thinking, redacted thinking and future block types carry nothing we use.
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

// ---- mapping -----------------------------------------------------------------

fn build_body<'a>(model: &'a str, request: &'a Request) -> WireRequest<'a> {
    let last = request.shared.len().saturating_sub(1);
    let system = request
        .shared
        .iter()
        .enumerate()
        .map(|(i, text)| Block::Text { text, cache_control: (i == last).then_some(CacheControl { kind: "ephemeral" }) })
        .collect();
    let mut tools: Vec<WireTool> = request
        .tools
        .iter()
        .map(|t| WireTool { name: &t.name, description: &t.description, input_schema: &t.input_schema })
        .collect();
    let mut tool_choice = (!tools.is_empty()).then_some(ToolChoice::Auto);
    if let Some(schema) = &request.schema {
        tools.push(WireTool {
            name: &schema.name,
            description: "Submit the final answer.",
            input_schema: &schema.json,
        });
        if request.tools.is_empty() {
            tool_choice = Some(ToolChoice::Tool { name: &schema.name });
        }
    }
    WireRequest {
        model,
        stream: false,
        max_tokens: request.max_tokens,
        system,
        messages: request.turns.iter().map(message).collect(),
        tools,
        tool_choice,
    }
}

fn message(turn: &Turn) -> Message<'_> {
    match turn {
        Turn::User { text } => Message { role: "user", content: vec![Block::Text { text, cache_control: None }] },
        Turn::Assistant { text, tool_calls } => {
            // The API rejects empty text blocks, which tool-only turns would produce.
            let text = (!text.is_empty()).then_some(Block::Text { text, cache_control: None });
            let calls = tool_calls.iter().map(|c| Block::ToolUse { id: &c.id, name: &c.name, input: &c.input });
            Message { role: "assistant", content: text.into_iter().chain(calls).collect() }
        }
        Turn::ToolResults { results } => Message {
            role: "user",
            content: results
                .iter()
                .map(|r| Block::ToolResult { tool_use_id: &r.id, content: &r.content, is_error: r.is_error })
                .collect(),
        },
    }
}

fn parse_response(wire: WireResponse, schema: Option<&Schema>) -> Response {
    let mut text = String::new();
    let mut answer = None;
    let mut tool_calls = Vec::new();
    for block in wire.content {
        match block {
            ResponseBlock::Text { text: t } => text.push_str(&t),
            ResponseBlock::ToolUse { name, input, .. }
                if answer.is_none() && schema.is_some_and(|s| s.name == name) =>
            {
                answer = Some(input.to_string());
            }
            ResponseBlock::ToolUse { id, name, input } => tool_calls.push(ToolCall { id, name, input }),
            ResponseBlock::Other => {}
        }
    }
    let u = wire.usage;
    Response {
        json: answer.unwrap_or(text),
        tool_calls,
        usage: Usage {
            input: u.input_tokens,
            output: u.output_tokens,
            cache_read: u.cache_read_input_tokens.unwrap_or(0),
            cache_write: u.cache_creation_input_tokens.unwrap_or(0),
        },
    }
}
