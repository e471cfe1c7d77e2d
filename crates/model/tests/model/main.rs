//! Behaviour tests for the providers against in-process fakes (wiremock servers,
//! `sh -c` scripts, scripted providers). Nothing here leaves the machine.

mod anthropic;
mod command;
mod limits;
mod openai;
mod retry;
mod secrets;

use gauntlet_model::{Request, Schema, Tier, Tool, ToolCall, ToolResult, Turn};
use serde_json::{Value, json};
use wiremock::MockServer;

pub fn schema() -> Schema {
    Schema {
        name: "findings".to_string(),
        json: json!({
            "type": "object",
            "properties": {
                "summary": { "type": "string", "maxLength": 200 },
                "items": { "type": "array", "maxItems": 5, "items": { "type": "string" } }
            },
            "required": ["summary"]
        }),
    }
}

pub fn request() -> Request {
    Request {
        shared: vec!["shared one".to_string(), "shared two".to_string()].into(),
        turns: vec![Turn::user("review this")],
        schema: Some(schema()),
        tools: Vec::new(),
        max_tokens: 1000,
        tier: Tier::Standard,
        step: "find".to_string(),
        reviewer: Some("security".to_string()),
    }
}

/// A tool-loop request: one earlier tool call and its (failed) result.
pub fn tool_loop_request() -> Request {
    let mut r = request();
    r.tools = vec![Tool {
        name: "read_file".to_string(),
        description: "Read a file".to_string(),
        input_schema: json!({ "type": "object", "properties": { "path": { "type": "string" } } }),
    }];
    r.turns.push(Turn::Assistant {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: "call_1".to_string(),
            name: "read_file".to_string(),
            input: json!({ "path": "src/lib.rs" }),
        }],
    });
    r.turns.push(Turn::ToolResults {
        results: vec![ToolResult { id: "call_1".to_string(), content: "no such file".to_string(), is_error: true }],
    });
    r
}

/// Bodies of all requests the fake server saw, in order.
pub async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).expect("request body is JSON"))
        .collect()
}
