//! OpenAI Chat Completions (`POST {base}/chat/completions`), hand-written over
//! reqwest. Also serves Azure OpenAI (deployment URLs, `api-key` header) and
//! key-less OpenAI-compatible servers (Ollama, vLLM, llama.cpp server).
//!
//! The shared blocks become one leading system message so that servers with
//! automatic prefix caching (OpenAI, vLLM) hit the same prefix on every call.
//! Structured output uses `response_format: json_schema` in strict mode, with the
//! schema rewritten by [`strict_schema`] into the subset strict mode accepts.
//!
//! Token limit: `max_completion_tokens` is sent to api.openai.com and Azure (the
//! reasoning models reject `max_tokens` there); every other server gets
//! `max_tokens`, the field older compatible servers understand.
//!
//! Usage: OpenAI's `prompt_tokens` includes cached tokens; [`Usage::input`] is the
//! uncached part (as with Anthropic) and the cached part goes to `cache_read`.

use crate::http;
use crate::{ModelError, Provider, Request, Response, ToolCall, Turn, Usage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const NAME: &str = "openai";

/// Azure OpenAI addressing: `{base_url}/openai/deployments/{deployment}/chat/completions?api-version=..`,
/// with `base_url` being the resource endpoint.
#[derive(Clone, Debug)]
pub struct Azure {
    pub deployment: String,
    pub api_version: String,
}

/// Connection settings. The key is passed in; only [`OpenAiConfig::from_env`]
/// reads the environment.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// Including `/v1` for OpenAI-style servers; the resource endpoint for Azure.
    pub base_url: String,
    /// `None` for servers without auth (local Ollama, vLLM, llama.cpp).
    pub api_key: Option<String>,
    pub model: String,
    pub azure: Option<Azure>,
    /// Sent with every request, e.g. `OpenAI-Organization`.
    pub extra_headers: Vec<(String, String)>,
}

impl OpenAiConfig {
    pub fn new(api_key: Option<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key,
            model: model.into(),
            azure: None,
            extra_headers: Vec::new(),
        }
    }

    /// Reads `OPENAI_API_KEY` and `OPENAI_BASE_URL`, both optional so that local
    /// servers work without a key.
    pub fn from_env(model: impl Into<String>) -> Self {
        let var = |k| std::env::var(k).ok().filter(|v: &String| !v.trim().is_empty());
        let mut config = OpenAiConfig::new(var("OPENAI_API_KEY"), model);
        if let Some(url) = var("OPENAI_BASE_URL") {
            config.base_url = url;
        }
        config
    }

    fn url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        match &self.azure {
            Some(az) => {
                format!("{base}/openai/deployments/{}/chat/completions?api-version={}", az.deployment, az.api_version)
            }
            None => format!("{base}/chat/completions"),
        }
    }

    fn uses_max_completion_tokens(&self) -> bool {
        self.azure.is_some() || self.base_url.contains("api.openai.com")
    }
}

/// Hand-written so the key never lands in logs or panic messages.
impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("azure", &self.azure)
            .field("extra_headers", &self.extra_headers.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .finish()
    }
}

#[derive(Debug)]
pub struct OpenAi {
    config: OpenAiConfig,
    client: reqwest::Client,
}

impl OpenAi {
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        http::check_headers(NAME, &config.extra_headers)?;
        Ok(OpenAi { client: http::client(NAME)?, config })
    }

    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        OpenAi::new(OpenAiConfig::from_env(model))
    }
}

#[async_trait::async_trait]
impl Provider for OpenAi {
    fn name(&self) -> &str {
        NAME
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn supports_tools(&self) -> bool {
        true
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let body = build_body(&self.config, request);
        let mut req = self.client.post(self.config.url()).json(&body);
        let key = self.config.api_key.as_deref();
        match (key, &self.config.azure) {
            (Some(k), Some(_)) => req = req.header("api-key", k),
            (Some(k), None) => req = req.bearer_auth(k),
            (None, _) => {}
        }
        for (k, v) in &self.config.extra_headers {
            req = req.header(k, v);
        }
        let wire: WireResponse = http::post_json(NAME, key, req).await?;
        parse_response(wire)
    }
}

/// Rewrites a JSON schema into what strict structured outputs accept: drops the
/// validation keywords strict mode rejects, turns `oneOf` into `anyOf`, and makes
/// every object closed (`additionalProperties: false`) with all its properties
/// required. Property names are never touched, only keywords of schema nodes.
///
/// Optional properties become required but not nullable: the caller validates the
/// answer against the original schema, which would reject `null`.
pub fn strict_schema(schema: &Value) -> Value {
    const DROPPED: &[&str] = &[
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "default",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "$schema",
    ];
    let Value::Object(node) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in node {
        if DROPPED.contains(&key.as_str()) {
            continue;
        }
        let value = match key.as_str() {
            // Maps from names to sub-schemas.
            "properties" | "$defs" | "definitions" => map_values(value, strict_schema),
            // Single sub-schemas.
            "items" | "not" | "additionalProperties" | "contains" => strict_schema(value),
            // Lists of sub-schemas.
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value {
                Value::Array(a) => Value::Array(a.iter().map(strict_schema).collect()),
                other => other.clone(),
            },
            _ => value.clone(),
        };
        let key = if key == "oneOf" { "anyOf".to_string() } else { key.clone() };
        out.insert(key, value);
    }
    let is_object = out.get("type").is_some_and(|t| t == "object") || out.contains_key("properties");
    if is_object {
        // Sorted so the output does not depend on serde_json's map ordering feature.
        let mut names: Vec<String> = match out.get("properties") {
            Some(Value::Object(p)) => p.keys().cloned().collect(),
            _ => Vec::new(),
        };
        names.sort();
        out.insert("required".to_string(), names.into_iter().map(Value::String).collect());
        out.insert("additionalProperties".to_string(), Value::Bool(false));
    }
    Value::Object(out)
}

fn map_values(value: &Value, f: fn(&Value) -> Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), f(v))).collect()),
        other => other.clone(),
    }
}

// ---- wire format -------------------------------------------------------------

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl<'a> Message<'a> {
    fn text(role: &'static str, content: impl Into<Cow<'a, str>>) -> Self {
        Message { role, content: Some(content.into()), tool_calls: Vec::new(), tool_call_id: None }
    }
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ResponseMessage,
}

#[derive(Deserialize)]
struct ResponseMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: String,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

// ---- mapping -----------------------------------------------------------------

fn build_body<'a>(config: &'a OpenAiConfig, request: &'a Request) -> WireRequest<'a> {
    let mut messages = Vec::new();
    let shared = request.shared.join("\n\n");
    if !shared.is_empty() {
        messages.push(Message::text("system", shared));
    }
    for turn in &request.turns {
        push_turn(&mut messages, turn);
    }
    let response_format = request.schema.as_ref().map(|s| {
        serde_json::json!({
            "type": "json_schema",
            "json_schema": { "name": s.name, "strict": true, "schema": strict_schema(&s.json) },
        })
    });
    let tools = request
        .tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "type": "function",
                "function": { "name": t.name, "description": t.description, "parameters": t.input_schema },
            })
        })
        .collect();
    let completion = config.uses_max_completion_tokens();
    WireRequest {
        model: &config.model,
        messages,
        max_tokens: (!completion).then_some(request.max_tokens),
        max_completion_tokens: completion.then_some(request.max_tokens),
        response_format,
        tools,
    }
}

fn push_turn<'a>(messages: &mut Vec<Message<'a>>, turn: &'a Turn) {
    match turn {
        Turn::User { text } => messages.push(Message::text("user", text.as_str())),
        Turn::Assistant { text, tool_calls } => messages.push(Message {
            role: "assistant",
            // Content may be omitted only when tool calls carry the turn.
            content: (!text.is_empty() || tool_calls.is_empty()).then_some(Cow::Borrowed(text.as_str())),
            tool_calls: tool_calls.iter().map(wire_tool_call).collect(),
            tool_call_id: None,
        }),
        Turn::ToolResults { results } => {
            for r in results {
                messages.push(Message { tool_call_id: Some(&r.id), ..Message::text("tool", r.content.as_str()) });
            }
        }
    }
}

fn wire_tool_call(call: &ToolCall) -> Value {
    serde_json::json!({
        "id": call.id,
        "type": "function",
        "function": { "name": call.name, "arguments": call.input.to_string() },
    })
}

fn parse_response(wire: WireResponse) -> Result<Response, ModelError> {
    let protocol = |message: String| ModelError::Protocol { provider: NAME.to_string(), message };
    let choice = wire.choices.into_iter().next().ok_or_else(|| protocol("response has no choices".to_string()))?;
    let msg = choice.message;
    let tool_calls: Vec<ToolCall> = msg.tool_calls.unwrap_or_default().into_iter().map(parse_tool_call).collect();
    let json = match (msg.content, msg.refusal) {
        (Some(c), _) => c,
        (None, Some(r)) if tool_calls.is_empty() => {
            return Err(protocol(format!("model refused: {r}")));
        }
        _ => String::new(),
    };
    let usage = wire.usage.map_or(Usage::default(), |u| {
        let cached = u.prompt_tokens_details.and_then(|d| d.cached_tokens).unwrap_or(0);
        Usage {
            input: u.prompt_tokens.saturating_sub(cached),
            output: u.completion_tokens,
            cache_read: cached,
            cache_write: 0,
        }
    });
    Ok(Response { json, tool_calls, usage })
}

/// Arguments that are not valid JSON (small local models produce them) are kept
/// as a JSON string, so the tool loop can report the bad input back to the model
/// instead of failing the whole call.
fn parse_tool_call(call: WireToolCall) -> ToolCall {
    let args = call.function.arguments;
    let input = if args.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(&args).unwrap_or(Value::String(args))
    };
    ToolCall { id: call.id, name: call.function.name, input }
}
