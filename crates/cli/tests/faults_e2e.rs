//! Fault injection end to end: a provider that answers garbage, truncated JSON,
//! endless output, hangs past the timeout, fails with 500 every time, or asks to
//! retry after an hour. Each run ends promptly with a clear message and a report
//! that names what was not done; nothing is published.

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::{Wire, gauntlet, repo};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BASE: &str = "def f(x):\n    return x\n";
const HEAD: &str = "def f(x):\n    return x + 1\n";

fn anthropic_text(text: &str) -> Value {
    json!({"id": "m", "type": "message", "role": "assistant", "model": "m",
           "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
           "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// Runs a review against a provider that always answers `response`; returns the
/// JSON report, the log and how long the run took.
async fn review_against(response: ResponseTemplate) -> (Value, String, Duration) {
    let dir = repo(&[("src/f.py", BASE)], &[("src/f.py", HEAD)]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[network]\ntimeout_secs = 2\nmax_attempts = 2\n").unwrap();
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(response).mount(&server).await;
    let started = Instant::now();
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    let took = started.elapsed();
    assert_eq!(code, 1, "nothing was reviewed, so the run fails\nstdout: {stdout}\nstderr: {stderr}");
    (serde_json::from_str(&stdout).expect("a JSON report even so"), stderr, took)
}

fn assert_names_what_was_not_done(report: &Value, stderr: &str, expect: &[&str]) {
    assert_eq!(report["published"], json!([]));
    let gaps = report["gaps"].as_array().unwrap();
    let gap = gaps.iter().find(|g| g["step"] == "find" && g["reviewer"] == "correctness");
    let message = gap.unwrap_or_else(|| panic!("no gap for the reviewer: {gaps:?}"))["message"].as_str().unwrap();
    let lower = message.to_lowercase();
    assert!(expect.iter().any(|e| lower.contains(e)), "the gap says what happened ({expect:?}): {message}");
    assert!(stderr.contains("gauntlet"), "the log says the run failed: {stderr}");
}

#[tokio::test]
async fn garbage_from_the_provider_is_a_named_gap() {
    let (report, stderr, _) =
        review_against(ResponseTemplate::new(200).set_body_string("<html>502 Bad Gateway</html>")).await;
    assert_names_what_was_not_done(&report, &stderr, &["json", "decode", "parse", "invalid", "expected"]);
}

#[tokio::test]
async fn truncated_json_from_the_provider_is_a_named_gap() {
    let body = r#"{"id":"m","type":"message","role":"assistant","content":[{"type":"te"#;
    let (report, stderr, _) = review_against(ResponseTemplate::new(200).set_body_string(body)).await;
    assert_names_what_was_not_done(&report, &stderr, &["json", "decode", "parse", "eof", "expected"]);
}

#[tokio::test]
async fn endless_model_output_is_a_contract_violation_not_a_result() {
    let endless = "and then ".repeat(200_000);
    let (report, stderr, _) = review_against(ResponseTemplate::new(200).set_body_json(anthropic_text(&endless))).await;
    assert_names_what_was_not_done(&report, &stderr, &["contract", "json", "twice"]);
}

#[tokio::test]
async fn a_provider_that_hangs_past_the_timeout_is_a_named_gap_within_bounded_time() {
    let hang = ResponseTemplate::new(200).set_body_json(anthropic_text("{}")).set_delay(Duration::from_secs(30));
    let (report, stderr, took) = review_against(hang).await;
    assert_names_what_was_not_done(&report, &stderr, &["timed out", "timeout"]);
    assert!(took < Duration::from_secs(25), "the run waited for the hang: {took:?}");
}

#[tokio::test]
async fn a_storm_of_500s_is_a_named_gap_after_bounded_retries() {
    let (report, stderr, took) = review_against(ResponseTemplate::new(500).set_body_string("internal error")).await;
    assert_names_what_was_not_done(&report, &stderr, &["500"]);
    assert!(took < Duration::from_secs(25), "{took:?}");
}

#[tokio::test]
async fn a_429_asking_for_an_hour_fails_at_once_naming_the_wait() {
    let limited = ResponseTemplate::new(429).insert_header("retry-after", "3600").set_body_string("rate limited");
    let (report, stderr, took) = review_against(limited).await;
    assert_names_what_was_not_done(&report, &stderr, &["429", "retry-after", "rate"]);
    assert!(took < Duration::from_secs(25), "the run waited an hour's worth: {took:?}");
}

#[tokio::test]
async fn timeout_ends_the_whole_run_abandoning_calls_in_flight_and_naming_them() {
    let dir = repo(&[("src/f.py", BASE)], &[("src/f.py", HEAD)]);
    // One call may take a minute; the run as a whole gets two seconds.
    std::fs::write(dir.path().join("gauntlet.toml"), "[network]\ntimeout_secs = 60\nmax_attempts = 1\n").unwrap();
    let server = MockServer::start().await;
    let hang = ResponseTemplate::new(200).set_body_json(anthropic_text("{}")).set_delay(Duration::from_secs(40));
    Mock::given(method("POST")).respond_with(hang).mount(&server).await;
    let started = Instant::now();
    let args = ["review", "--format", "json", "--reviewers", "correctness,error-handling", "--timeout", "2"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    let took = started.elapsed();
    assert_eq!(code, 1, "a run cut short fails\nstdout: {stdout}\nstderr: {stderr}");
    assert!(took < Duration::from_secs(20), "the run waited for the hung calls: {took:?}");
    assert!(stderr.contains("--timeout") && stderr.contains("partial"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("a JSON report even so");
    assert_eq!(report["published"], json!([]));
    let gaps = report["gaps"].as_array().unwrap();
    for reviewer in ["correctness", "error-handling"] {
        let gap = gaps.iter().find(|g| g["step"] == "find" && g["reviewer"] == reviewer);
        let message = gap.unwrap_or_else(|| panic!("no gap for {reviewer}: {gaps:?}"))["message"].as_str().unwrap();
        assert!(message.contains("time limit of 2s (--timeout)"), "{message}");
    }
    let notes = report["notes"].to_string();
    assert!(notes.contains("time limit"), "the report says the run was cut short: {notes}");
}

#[tokio::test]
async fn a_retry_after_past_the_configured_limit_names_the_setting_that_allows_it() {
    let dir = repo(&[("src/f.py", BASE)], &[("src/f.py", HEAD)]);
    let config = "[network]\ntimeout_secs = 2\nmax_attempts = 3\nmax_retry_after_secs = 1\n";
    std::fs::write(dir.path().join("gauntlet.toml"), config).unwrap();
    let server = MockServer::start().await;
    let limited = ResponseTemplate::new(429).insert_header("retry-after", "30").set_body_string("slow down");
    Mock::given(method("POST")).respond_with(limited).mount(&server).await;
    let started = Instant::now();
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 1, "the setting is accepted and the call fails\nstdout: {stdout}\nstderr: {stderr}");
    assert!(started.elapsed() < Duration::from_secs(20), "the run waited out the 30 s it was asked to");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let gaps = report["gaps"].to_string();
    assert!(gaps.contains("[network] max_retry_after_secs") && gaps.contains("1s"), "{gaps}");
}
