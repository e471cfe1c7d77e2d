use crate::request;
use gauntlet_model::anthropic::{Anthropic, AnthropicConfig};
use gauntlet_model::openai::{Azure, OpenAi, OpenAiConfig};
use gauntlet_model::{ModelError, Provider};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "test-key-SECRET";

/// A fake 401 that echoes the key back, as real providers partly do.
async fn unauthorized() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({
            "error": { "type": "authentication_error", "message": format!("Incorrect API key provided: {KEY}") }
        })))
        .mount(&server)
        .await;
    server
}

fn assert_clean(err: &ModelError) {
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(!format!("{err:?}").contains(KEY), "{err:?}");
}

#[tokio::test]
async fn http_errors_never_contain_the_key() {
    let server = unauthorized().await;

    let a = crate::anthropic::provider(&server, KEY);
    let err = a.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 401, .. }), "{err:?}");
    assert!(err.to_string().contains("Incorrect API key provided: [redacted]"), "{err}");
    assert_clean(&err);

    let o = crate::openai::provider(&server, Some(KEY));
    let err = o.complete(&request()).await.unwrap_err();
    assert!(!err.is_retryable());
    assert_clean(&err);

    let mut config = OpenAiConfig::new(Some(KEY.to_string()), "gpt-4o");
    config.base_url = server.uri();
    config.azure = Some(Azure { deployment: "d".to_string(), api_version: "2024-10-21".to_string() });
    assert_clean(&OpenAi::new(config).unwrap().complete(&request()).await.unwrap_err());
}

#[tokio::test]
async fn transport_errors_and_debug_output_never_contain_the_key() {
    // A port that was just free: connecting is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut config = AnthropicConfig::new(KEY, "claude-test");
    config.base_url = format!("http://127.0.0.1:{port}");
    let provider = Anthropic::new(config.clone()).unwrap();
    let err = provider.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Transport { .. }), "{err:?}");
    assert_clean(&err);

    assert!(!format!("{config:?} {provider:?}").contains(KEY));
    let openai = OpenAiConfig::new(Some(KEY.to_string()), "gpt");
    assert!(!format!("{openai:?}").contains(KEY));

    let mut bad = OpenAiConfig::new(None, "gpt");
    bad.extra_headers.push(("bad header".to_string(), "x".to_string()));
    assert!(matches!(OpenAi::new(bad).unwrap_err(), ModelError::Config { .. }));
}
