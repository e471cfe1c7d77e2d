//! Answers are read up to a cap: a server (or program) that never stops talking
//! ends as a named error after `MAX_RESPONSE_BYTES`, not as a run that grows
//! until it is killed for memory.

use crate::request;
use gauntlet_model::command::{Command, CommandConfig, Protocol};
use gauntlet_model::openai::{OpenAi, OpenAiConfig};
use gauntlet_model::{MAX_RESPONSE_BYTES, ModelError, Provider};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server that answers every connection with a 200 whose chunked body never
/// ends. Returns its base URL and a counter of the bytes it managed to send.
async fn endless_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut request = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut request).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "a".repeat(64 * 1024));
                while socket.write_all(chunk.as_bytes()).await.is_ok() {
                    counter.fetch_add(64 * 1024, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    (url, sent)
}

#[tokio::test]
async fn an_endless_http_answer_is_cut_off_at_the_cap_with_a_named_error() {
    let (url, sent) = endless_server().await;
    let mut config = OpenAiConfig::new(Some("test-key-123".into()), "gpt-test");
    config.base_url = url;
    let provider = OpenAi::new(config).unwrap();
    let started = Instant::now();
    let err = tokio::time::timeout(Duration::from_secs(30), provider.complete(&request()))
        .await
        .expect("the read stops at the cap instead of running on")
        .unwrap_err();
    let ModelError::Protocol { message, .. } = &err else { panic!("{err:?}") };
    assert!(message.contains("4 MiB") && message.contains("cut off"), "{message}");
    assert!(!err.is_retryable(), "the same server would send the same endless answer");
    // The server got to send little more than the cap (plus what sat in socket buffers).
    let total = sent.load(std::sync::atomic::Ordering::Relaxed);
    assert!(total < MAX_RESPONSE_BYTES * 3, "read {total} bytes");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn a_program_that_prints_without_end_is_stopped_at_the_cap() {
    let config = CommandConfig::new("sh", vec!["-c".into(), "cat >/dev/null; yes '{}'".into()], Protocol::Json);
    let err = tokio::time::timeout(Duration::from_secs(30), Command::new(config).complete(&request()))
        .await
        .expect("the child is stopped once it passes the cap")
        .unwrap_err();
    let ModelError::Protocol { message, .. } = &err else { panic!("{err:?}") };
    assert!(message.contains("more than 4 MiB on stdout"), "{message}");
}

#[tokio::test]
async fn a_program_that_floods_stderr_still_gets_its_answer_read() {
    // 8 MiB on stderr before the answer: stderr is drained (keeping its end), so the
    // child never blocks writing it.
    let script = "cat >/dev/null; head -c 8388608 /dev/zero | tr '\\0' e >&2; echo '{\"ok\":true}'";
    let config = CommandConfig::new("sh", vec!["-c".into(), script.into()], Protocol::Json);
    let resp = tokio::time::timeout(Duration::from_secs(30), Command::new(config).complete(&request()))
        .await
        .expect("no deadlock on a full stderr pipe")
        .unwrap();
    assert_eq!(resp.json, r#"{"ok":true}"#);
}
