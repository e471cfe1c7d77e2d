use crate::{bodies, request, tool_loop_request};
use gauntlet_model::anthropic::{Anthropic, AnthropicConfig};
use gauntlet_model::{ModelError, Provider, Usage};
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub fn provider(server: &MockServer, key: &str) -> Anthropic {
    let mut config = AnthropicConfig::new(key, "claude-test");
    config.base_url = server.uri();
    Anthropic::new(config).unwrap()
}

#[tokio::test]
async fn request_shape_and_forced_schema_tool() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "test-key-123"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "content": [
                { "type": "text", "text": "ignored preamble" },
                { "type": "tool_use", "id": "tu_1", "name": "findings", "input": { "summary": "ok", "items": [] } }
            ],
            "usage": { "input_tokens": 11, "output_tokens": 22,
                       "cache_read_input_tokens": 33, "cache_creation_input_tokens": 44 }
        })))
        .expect(1)
        .mount(&server)
        .await;

    let resp = provider(&server, "test-key-123").complete(&request()).await.unwrap();

    let body = &bodies(&server).await[0];
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["max_tokens"], 1000);
    assert_eq!(
        body["system"],
        json!([
            { "type": "text", "text": "shared one" },
            { "type": "text", "text": "shared two", "cache_control": { "type": "ephemeral" } }
        ])
    );
    assert_eq!(body["messages"], json!([{ "role": "user", "content": [{ "type": "text", "text": "review this" }] }]));
    assert_eq!(body["tool_choice"], json!({ "type": "tool", "name": "findings" }));
    assert_eq!(body["tools"][0]["name"], "findings");
    assert_eq!(body["tools"][0]["input_schema"], crate::schema().json);

    let answer: serde_json::Value = serde_json::from_str(&resp.json).unwrap();
    assert_eq!(answer, json!({ "summary": "ok", "items": [] }));
    assert!(resp.tool_calls.is_empty());
    assert_eq!(resp.usage, Usage { input: 11, output: 22, cache_read: 33, cache_write: 44 });
}

#[tokio::test]
async fn tool_loop_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "content": [
                { "type": "thinking", "thinking": "hmm", "signature": "x" },
                { "type": "text", "text": "let me look" },
                { "type": "tool_use", "id": "tu_2", "name": "read_file", "input": { "path": "a.rs" } }
            ],
            "usage": { "input_tokens": 1, "output_tokens": 2 }
        })))
        .mount(&server)
        .await;

    let resp = provider(&server, "test-key-123").complete(&tool_loop_request()).await.unwrap();

    let body = &bodies(&server).await[0];
    assert_eq!(body["tool_choice"], json!({ "type": "auto" }));
    let names: Vec<&str> = body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_file", "findings"]);
    assert_eq!(
        body["messages"][1],
        json!({ "role": "assistant", "content": [
            { "type": "tool_use", "id": "call_1", "name": "read_file", "input": { "path": "src/lib.rs" } }
        ] })
    );
    assert_eq!(
        body["messages"][2],
        json!({ "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "call_1", "content": "no such file", "is_error": true }
        ] })
    );

    assert_eq!(resp.json, "let me look");
    assert_eq!(resp.tool_calls.len(), 1);
    assert_eq!(resp.tool_calls[0].id, "tu_2");
    assert_eq!(resp.tool_calls[0].input, json!({ "path": "a.rs" }));
    assert_eq!(resp.usage, Usage { input: 1, output: 2, cache_read: 0, cache_write: 0 });
}

#[tokio::test]
async fn credit_balance_is_a_spend_limit_and_overload_is_retryable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({
            "type": "error",
            "error": { "type": "invalid_request_error",
                       "message": "Your credit balance is too low to access the Anthropic API." }
        })))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(json!({
            "type": "error", "error": { "type": "overloaded_error", "message": "Overloaded" }
        })))
        .mount(&server)
        .await;
    let p = provider(&server, "test-key-123");

    let err = p.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::SpendLimit { .. }), "{err:?}");
    assert!(!err.is_retryable());

    let err = p.complete(&request()).await.unwrap_err();
    match &err {
        ModelError::Http { status: 529, message, .. } => assert_eq!(message, "overloaded_error: Overloaded"),
        other => panic!("{other:?}"),
    }
    assert!(err.is_retryable());
}

/// One server-sent event as the Messages API streams it.
fn sse(event: serde_json::Value) -> String {
    format!("event: {}\ndata: {}\n\n", event["type"].as_str().unwrap(), event)
}

/// A streamed answer: preamble text, then the schema tool's input in two pieces.
fn streamed_answer() -> String {
    [
        json!({ "type": "message_start", "message": { "id": "m1", "usage": {
            "input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 4000 } } }),
        json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }),
        json!({ "type": "ping" }),
        json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": "thinking…" } }),
        json!({ "type": "content_block_stop", "index": 0 }),
        json!({ "type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "tu_9", "name": "findings", "input": {} } }),
        json!({ "type": "content_block_delta", "index": 1, "delta": { "type": "input_json_delta", "partial_json": "{\"summary\": \"o" } }),
        json!({ "type": "content_block_delta", "index": 1, "delta": { "type": "input_json_delta", "partial_json": "k\", \"items\": []}" } }),
        json!({ "type": "content_block_stop", "index": 1 }),
        json!({ "type": "message_delta", "delta": { "stop_reason": "tool_use" }, "usage": { "output_tokens": 17 } }),
        json!({ "type": "message_stop" }),
    ]
    .into_iter()
    .map(sse)
    .collect()
}

/// Runs `complete` with a start hook and counts how often it fired.
async fn complete_awaiting_start(p: &Anthropic) -> (Result<gauntlet_model::Response, ModelError>, usize) {
    let fired = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = fired.clone();
    let hook: std::sync::Arc<dyn Fn() + Send + Sync> =
        std::sync::Arc::new(move || _ = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
    let result = gauntlet_model::on_answer_start(hook, p.complete(&request())).await;
    (result, fired.load(std::sync::atomic::Ordering::SeqCst))
}

#[tokio::test]
async fn a_call_whose_start_is_awaited_streams_and_assembles_the_same_answer() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(body_partial_json(json!({ "stream": true })))
        .respond_with(ResponseTemplate::new(200).set_body_raw(streamed_answer(), "text/event-stream"))
        .expect(1)
        .mount(&server)
        .await;
    let (resp, fired) = complete_awaiting_start(&provider(&server, "test-key-123")).await;
    let resp = resp.unwrap();
    assert!(fired >= 1, "the start hook fired");
    let answer: serde_json::Value = serde_json::from_str(&resp.json).unwrap();
    assert_eq!(answer, json!({ "summary": "ok", "items": [] }));
    assert!(resp.tool_calls.is_empty());
    assert_eq!(resp.usage, Usage { input: 5, output: 17, cache_read: 0, cache_write: 4000 });
}

#[tokio::test]
async fn calls_nobody_waits_on_are_not_streamed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "content": [{ "type": "tool_use", "id": "t", "name": "findings", "input": { "summary": "s", "items": [] } }],
            "usage": { "input_tokens": 1, "output_tokens": 1 }
        })))
        .mount(&server)
        .await;
    let p = provider(&server, "test-key-123");
    p.complete(&request()).await.unwrap();
    assert!(bodies(&server).await[0].get("stream").is_none(), "plain calls stay plain");
    // A server that answers in one piece although a stream was asked for still works.
    let (resp, fired) = complete_awaiting_start(&p).await;
    assert_eq!(bodies(&server).await[1]["stream"], true);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&resp.unwrap().json).unwrap()["summary"], "s");
    assert_eq!(fired, 1, "the end of a one-piece answer counts as its start");
}

#[tokio::test]
async fn a_stream_that_breaks_off_is_a_clear_error() {
    let server = MockServer::start().await;
    let overloaded = sse(json!({ "type": "message_start", "message": { "usage": { "input_tokens": 3 } } }))
        + &sse(json!({ "type": "error", "error": { "type": "overloaded_error", "message": "Overloaded" } }));
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(overloaded, "text/event-stream"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let truncated: String = streamed_answer().split("\n\n").take(7).map(|e| format!("{e}\n\n")).collect();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(truncated, "text/event-stream"))
        .mount(&server)
        .await;
    let p = provider(&server, "test-key-123");
    let (first, _) = complete_awaiting_start(&p).await;
    let err = first.unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 529, .. }), "{err:?}");
    assert!(err.is_retryable(), "an overloaded stream is retried like a 529");
    let (second, _) = complete_awaiting_start(&p).await;
    let err = second.unwrap_err();
    assert!(err.to_string().contains("ended before `message_stop`"), "{err}");
    assert!(err.is_retryable(), "a stream cut short is retried like a 5xx");
}
