use crate::{bodies, request, tool_loop_request};
use gauntlet_model::openai::{Azure, OpenAi, OpenAiConfig, strict_schema};
use gauntlet_model::{Provider, Usage};
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub fn provider(server: &MockServer, key: Option<&str>) -> OpenAi {
    let mut config = OpenAiConfig::new(key.map(str::to_string), "gpt-test");
    config.base_url = format!("{}/v1", server.uri());
    OpenAi::new(config).unwrap()
}

fn answer(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": { "cached_tokens": 64 } }
    }))
}

#[tokio::test]
async fn request_shape_with_strict_schema_and_bearer_auth() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer test-key-123"))
        .respond_with(answer(r#"{"summary":"ok"}"#))
        .expect(1)
        .mount(&server)
        .await;

    let resp = provider(&server, Some("test-key-123")).complete(&request()).await.unwrap();

    let body = &bodies(&server).await[0];
    assert_eq!(
        body["messages"],
        json!([
            { "role": "system", "content": "shared one\n\nshared two" },
            { "role": "user", "content": "review this" }
        ])
    );
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "findings");
    assert_eq!(format["json_schema"]["strict"], true);
    let schema = &format["json_schema"]["schema"];
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["items", "summary"]));
    assert_eq!(schema["properties"]["summary"], json!({ "type": "string" }));
    assert_eq!(schema["properties"]["items"], json!({ "type": "array", "items": { "type": "string" } }));
    // Not api.openai.com, so the widely supported field is used.
    assert_eq!(body["max_tokens"], 1000);
    assert!(body.get("max_completion_tokens").is_none());
    assert!(body.get("tools").is_none());

    assert_eq!(resp.json, r#"{"summary":"ok"}"#);
    assert_eq!(resp.usage, Usage { input: 36, output: 7, cache_read: 64, cache_write: 0 });
}

#[tokio::test]
async fn azure_uses_deployment_url_and_api_key_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/openai/deployments/review-gpt/chat/completions"))
        .and(query_param("api-version", "2024-10-21"))
        .and(header("api-key", "test-key-123"))
        .respond_with(answer("{}"))
        .expect(1)
        .mount(&server)
        .await;
    let mut config = OpenAiConfig::new(Some("test-key-123".to_string()), "gpt-4o");
    config.base_url = format!("{}/", server.uri());
    config.azure = Some(Azure { deployment: "review-gpt".to_string(), api_version: "2024-10-21".to_string() });

    OpenAi::new(config).unwrap().complete(&request()).await.unwrap();

    let received = server.received_requests().await.unwrap();
    assert!(received[0].headers.get("authorization").is_none());
    let body: serde_json::Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(body["max_completion_tokens"], 1000);
}

#[tokio::test]
async fn no_key_sends_no_authorization() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(answer("{}")).expect(1).mount(&server).await;

    provider(&server, None).complete(&request()).await.unwrap();

    let received = server.received_requests().await.unwrap();
    assert!(received[0].headers.get("authorization").is_none());
    assert!(received[0].headers.get("api-key").is_none());
}

#[tokio::test]
async fn tool_loop_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{ "message": { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c2", "type": "function", "function": { "name": "read_file", "arguments": "{\"path\":\"a.rs\"}" } },
                { "id": "c3", "type": "function", "function": { "name": "read_file", "arguments": "{not json" } }
            ] } }]
        })))
        .mount(&server)
        .await;

    let resp = provider(&server, None).complete(&tool_loop_request()).await.unwrap();

    let body = &bodies(&server).await[0];
    assert_eq!(
        body["tools"],
        json!([{ "type": "function", "function": {
            "name": "read_file", "description": "Read a file",
            "parameters": { "type": "object", "properties": { "path": { "type": "string" } } }
        } }])
    );
    assert_eq!(
        body["messages"][2],
        json!({ "role": "assistant", "tool_calls": [
            { "id": "call_1", "type": "function", "function": { "name": "read_file", "arguments": "{\"path\":\"src/lib.rs\"}" } }
        ] })
    );
    assert_eq!(body["messages"][3], json!({ "role": "tool", "content": "no such file", "tool_call_id": "call_1" }));

    assert_eq!(resp.json, "");
    assert_eq!(resp.tool_calls.len(), 2);
    assert_eq!(resp.tool_calls[0].input, json!({ "path": "a.rs" }));
    // Broken arguments are handed on as a string for the tool loop to reject.
    assert_eq!(resp.tool_calls[1].input, json!("{not json"));
    assert_eq!(resp.usage, Usage::default());
}

#[test]
fn strict_schema_strips_keywords_but_not_property_names() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "format": { "type": "string", "pattern": "^a", "format": "uri", "default": "x" },
            "count": { "type": "integer", "minimum": 0, "maximum": 9 },
            "kind": { "oneOf": [
                { "type": "object", "properties": { "a": { "type": "string", "minLength": 1 } } },
                { "type": "null" }
            ] },
            "list": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/item" } }
        },
        "$defs": { "item": { "type": "object", "properties": { "n": { "type": "number" } }, "required": [] } }
    });
    let strict = strict_schema(&schema);
    assert_eq!(
        strict,
        json!({
            "type": "object",
            "properties": {
                "format": { "type": "string" },
                "count": { "type": "integer" },
                "kind": { "anyOf": [
                    { "type": "object", "properties": { "a": { "type": "string" } },
                      "required": ["a"], "additionalProperties": false },
                    { "type": "null" }
                ] },
                "list": { "type": "array", "items": { "$ref": "#/$defs/item" } }
            },
            "$defs": { "item": { "type": "object", "properties": { "n": { "type": "number" } },
                                 "required": ["n"], "additionalProperties": false } },
            "required": ["count", "format", "kind", "list"],
            "additionalProperties": false
        })
    );
}
