use crate::request;
use gauntlet_model::retry::{RetryPolicy, Retrying};
use gauntlet_model::{ModelError, Provider, Request, Response, Usage};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
        max_retry_after: Duration::from_secs(120),
    }
}

fn openai(server: &MockServer, policy: RetryPolicy) -> Retrying<Arc<dyn Provider>> {
    let inner: Arc<dyn Provider> = Arc::new(crate::openai::provider(server, Some("test-key-123")));
    Retrying::new(inner, policy)
}

fn ok() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({ "choices": [{ "message": { "content": "{}" } }] }))
}

async fn mount_once(server: &MockServer, template: ResponseTemplate) {
    Mock::given(method("POST")).respond_with(template).up_to_n_times(1).with_priority(1).mount(server).await;
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

#[tokio::test]
async fn honours_retry_after_then_succeeds() {
    let server = MockServer::start().await;
    mount_once(&server, ResponseTemplate::new(429).insert_header("Retry-After", "1")).await;
    Mock::given(method("POST")).respond_with(ok()).mount(&server).await;

    let start = Instant::now();
    let resp = openai(&server, fast_policy()).complete(&request()).await.unwrap();

    assert_eq!(resp.json, "{}");
    assert!(start.elapsed() >= Duration::from_secs(1), "waited only {:?}", start.elapsed());
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn server_error_is_retried() {
    let server = MockServer::start().await;
    mount_once(&server, ResponseTemplate::new(500).set_body_string("boom")).await;
    Mock::given(method("POST")).respond_with(ok()).mount(&server).await;

    openai(&server, fast_policy()).complete(&request()).await.unwrap();
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn a_200_whose_json_is_cut_off_is_retried_like_a_5xx() {
    let cut = r#"{"choices": [{"message": {"content": "{\"summ"#;
    let server = MockServer::start().await;
    mount_once(&server, ResponseTemplate::new(200).set_body_string(cut)).await;
    Mock::given(method("POST")).respond_with(ok()).mount(&server).await;
    let resp = openai(&server, fast_policy()).complete(&request()).await.unwrap();
    assert_eq!(resp.json, "{}");
    assert_eq!(requests(&server).await, 2, "the cut answer was asked for again");

    // The Anthropic wire decodes its one-piece answers through the same check.
    let server = MockServer::start().await;
    mount_once(&server, ResponseTemplate::new(200).set_body_string(r#"{"content": [{"type": "te"#)).await;
    let whole =
        json!({ "content": [{ "type": "text", "text": "{}" }], "usage": { "input_tokens": 1, "output_tokens": 1 } });
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(whole)).mount(&server).await;
    let inner: Arc<dyn Provider> = Arc::new(crate::anthropic::provider(&server, "test-key-123"));
    let resp = Retrying::new(inner, fast_policy()).complete(&request()).await.unwrap();
    assert_eq!(resp.json, "{}");
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn a_cut_answer_every_time_fails_after_the_attempts_saying_it_was_cut() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"choices": ["#))
        .mount(&server)
        .await;
    let err = openai(&server, fast_policy()).complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Transport { .. }), "{err:?}");
    assert!(err.to_string().contains("cut off"), "{err}");
    assert_eq!(requests(&server).await, 3);
}

#[tokio::test]
async fn a_whole_answer_that_breaks_the_contract_is_not_retried_here() {
    // Whole JSON of the wrong shape: the provider said what it meant to say.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"choices": 3}"#))
        .mount(&server)
        .await;
    let err = openai(&server, fast_policy()).complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Protocol { .. }), "{err:?}");
    assert_eq!(requests(&server).await, 1);

    // A whole wire answer whose model text is not the contract's JSON goes back to
    // the caller, whose contract check re-asks with the error.
    let server = MockServer::start().await;
    let prose = json!({ "choices": [{ "message": { "content": "I think it is fine" } }] });
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(prose)).mount(&server).await;
    let resp = openai(&server, fast_policy()).complete(&request()).await.unwrap();
    assert_eq!(resp.json, "I think it is fine");
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn slow_server_times_out_after_all_attempts() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ok().set_delay(Duration::from_secs(3))).mount(&server).await;
    let policy = RetryPolicy { timeout: Duration::from_millis(200), ..fast_policy() };

    let start = Instant::now();
    let err = openai(&server, policy).complete(&request()).await.unwrap_err();

    assert!(matches!(err, ModelError::Timeout { secs: 1, .. }), "{err:?}");
    assert!(start.elapsed() >= Duration::from_millis(600));
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(requests(&server).await, 3);
}

#[tokio::test]
async fn spend_limit_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(json!({ "error": {
            "message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"
        } })))
        .mount(&server)
        .await;

    let err = openai(&server, fast_policy()).complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::SpendLimit { .. }), "{err:?}");
    assert!(err.to_string().contains("exceeded your current quota"));
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad field"))
        .mount(&server)
        .await;

    let err = openai(&server, fast_policy()).complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 400, .. }), "{err:?}");
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn long_retry_after_fails_without_waiting() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "600"))
        .mount(&server)
        .await;

    let start = Instant::now();
    let err = openai(&server, fast_policy()).complete(&request()).await.unwrap_err();

    assert!(start.elapsed() < Duration::from_secs(2));
    assert!(matches!(err, ModelError::Http { status: 429, .. }), "{err:?}");
    assert!(err.to_string().contains("asked to wait 600s"), "{err}");
    assert_eq!(requests(&server).await, 1);
}

/// Scripted provider for paused-time tests: pops one outcome per call; `None`
/// means "hang forever".
struct Scripted {
    calls: AtomicU32,
    script: std::sync::Mutex<Vec<Option<Result<Response, ModelError>>>>,
}

impl Scripted {
    fn new(mut script: Vec<Option<Result<Response, ModelError>>>) -> Self {
        script.reverse();
        Scripted { calls: AtomicU32::new(0), script: std::sync::Mutex::new(script) }
    }
}

#[async_trait::async_trait]
impl Provider for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "m"
    }
    async fn complete(&self, _: &Request) -> Result<Response, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let next = self.script.lock().unwrap().pop().flatten();
        match next {
            Some(outcome) => outcome,
            None => std::future::pending().await,
        }
    }
}

fn http(status: u16, retry_after: Option<Duration>) -> Option<Result<Response, ModelError>> {
    let provider = "scripted".to_string();
    Some(Err(ModelError::Http { provider, status, message: "x".to_string(), retry_after }))
}

fn success() -> Option<Result<Response, ModelError>> {
    Some(Ok(Response { json: "{}".to_string(), tool_calls: Vec::new(), usage: Usage::default() }))
}

#[tokio::test(start_paused = true)]
async fn paused_time_retry_after_and_backoff() {
    let p = Retrying::new(
        Scripted::new(vec![http(429, Some(Duration::from_secs(7))), http(503, None), success()]),
        RetryPolicy::default(),
    );
    let start = tokio::time::Instant::now();
    p.complete(&request()).await.unwrap();
    let waited = start.elapsed();
    // 7s as asked, then at most the second backoff ceiling (2s).
    assert!(waited >= Duration::from_secs(7) && waited <= Duration::from_secs(9), "{waited:?}");
    assert_eq!(p.inner().calls.load(Ordering::SeqCst), 3);
    assert_eq!((p.name(), p.model()), ("scripted", "m"));
}

#[tokio::test(start_paused = true)]
async fn paused_time_hanging_provider_times_out_on_every_attempt() {
    let p = Retrying::new(Scripted::new(Vec::new()), RetryPolicy::default());
    let start = tokio::time::Instant::now();
    let err = p.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Timeout { secs: 300, .. }), "{err:?}");
    assert!(err.to_string().contains("timeout_secs"));
    assert_eq!(p.inner().calls.load(Ordering::SeqCst), 4);
    assert!(start.elapsed() >= Duration::from_secs(4 * 300));
}

#[tokio::test(start_paused = true)]
async fn paused_time_gives_up_after_max_attempts() {
    let p = Retrying::new(Scripted::new((0..5).map(|_| http(500, None)).collect()), RetryPolicy::default());
    let err = p.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 500, .. }));
    assert_eq!(p.inner().calls.load(Ordering::SeqCst), 4);
}
