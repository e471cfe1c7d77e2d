use crate::request;
use gauntlet_model::command::{Command, CommandConfig, Protocol};
use gauntlet_model::retry::{RetryPolicy, Retrying};
use gauntlet_model::{ModelError, Provider};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn sh(script: &str, protocol: Protocol) -> Command {
    Command::new(CommandConfig::new("sh", vec!["-c".to_string(), script.to_string()], protocol))
}

#[tokio::test]
async fn json_protocol_writes_the_request_to_stdin() {
    // Echoing stdin back lets the test inspect exactly what the child received.
    let resp = sh("cat", Protocol::Json).complete(&request()).await.unwrap();
    let sent: Value = serde_json::from_str(&resp.json).unwrap();
    assert_eq!(
        sent,
        json!({
            "system": "shared one\n\nshared two",
            "messages": [{ "role": "user", "content": "review this" }],
            "schema": crate::schema().json,
            "max_tokens": 1000,
            "step": "find",
            "reviewer": "security"
        })
    );
    // An estimate: chars / 4, rounded up, for what went in and what came out.
    let chars = resp.json.chars().count() as u64;
    assert_eq!(resp.usage.input, chars.div_ceil(4));
    assert_eq!(resp.usage.output, chars.div_ceil(4));
}

#[tokio::test]
async fn child_sees_step_and_reviewer_and_schema() {
    let script = r#"input=$(cat)
case "$input" in *'"maxLength":200'*) ;; *) echo "schema missing" >&2; exit 3;; esac
printf '  {"step":"%s","reviewer":"%s"}\n\n' "$GAUNTLET_STEP" "$GAUNTLET_REVIEWER""#;
    let resp = sh(script, Protocol::Json).complete(&request()).await.unwrap();
    assert_eq!(resp.json, r#"{"step":"find","reviewer":"security"}"#);
}

#[tokio::test]
async fn text_protocol_flattens_the_conversation() {
    let mut req = request();
    req.turns.push(gauntlet_model::Turn::assistant("first try"));
    req.turns.push(gauntlet_model::Turn::user("again"));
    let resp = sh("cat", Protocol::Text).complete(&req).await.unwrap();
    let expected = format!(
        "shared one\n\nshared two\n\nUser:\nreview this\n\nAssistant:\nfirst try\n\nUser:\nagain\n\n\
         Answer with one JSON object matching this schema:\n{}",
        crate::schema().json
    );
    assert_eq!(resp.json, expected);
}

#[tokio::test]
async fn failure_reports_exit_code_and_bounded_stderr_tail() {
    let script = "cat >/dev/null; i=0; while [ $i -lt 300 ]; do echo 'noise noise noise'; i=$((i+1)); done >&2; \
                  echo 'real reason' >&2; exit 7";
    let err = sh(script, Protocol::Json).complete(&request()).await.unwrap_err();
    assert!(err.is_retryable());
    let ModelError::Transport { message, .. } = &err else { panic!("{err:?}") };
    assert!(message.contains("`sh` exited with code 7"), "{message}");
    assert!(message.ends_with("real reason"), "{message}");
    assert!(message.len() < 2100, "{}", message.len());
}

#[tokio::test]
async fn empty_output_and_missing_program_are_errors() {
    let err = sh("cat >/dev/null", Protocol::Text).complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Protocol { .. }), "{err:?}");

    let missing = Command::new(CommandConfig::new("gauntlet-no-such-program", Vec::new(), Protocol::Json));
    let err = missing.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Config { .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert_eq!(missing.model(), "gauntlet-no-such-program");
}

#[tokio::test]
async fn timeout_kills_the_child() {
    let policy = RetryPolicy { max_attempts: 1, timeout: Duration::from_millis(200), ..RetryPolicy::default() };
    let p = Retrying::new(sh("sleep 30", Protocol::Json), policy);
    let start = Instant::now();
    let err = p.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Timeout { .. }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(5));
}
