//! The one HTTP client every host uses: auth headers, JSON in and out, errors
//! that name the host and the request, and retries. A read is retried on any
//! transient failure. A write is retried only when the host refused it for a
//! rate limit (a 429, or GitHub's 403 with `Retry-After` or an exhausted
//! quota): such a refusal stores nothing, so sending it again cannot
//! duplicate it. Any other failed write is not repeated: a create that timed
//! out or got a 5xx may still have landed, and the next run's sync repairs a
//! missed write, while a repeated one could duplicate.

use crate::PublishError;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const ATTEMPTS: u32 = 3;

/// Largest answer read from a code host. A page of a hundred long comments is a
/// few MiB; past this the host (or something pretending to be it) is not
/// answering the request, and reading on would only grow memory.
pub const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// What a request refused for a spent call budget says ([`Client::limit_calls`]).
pub const BUDGET_SPENT: &str = "the budget of API calls for this read is spent";

pub(crate) struct Client {
    http: reqwest::Client,
    host: &'static str,
    /// Scrubbed from every error message, in case a host echoes it back.
    secret: String,
    /// Requests this client may still send (retries included); `None`: no limit.
    budget: Option<Arc<AtomicUsize>>,
    /// Longest wait a rate-limited host may ask for before a request is sent
    /// again; a longer one fails the request at once.
    max_wait: Duration,
}

impl Client {
    /// A client that sends `headers` (auth included) with every request.
    pub(crate) fn new(host: &'static str, headers: &[(&str, String)], secret: &str) -> Result<Client, PublishError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let bad = |message: String| PublishError::Response { host, what: "build a request".into(), message };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(e.to_string()))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                bad(format!("the value for header {name} is not valid in HTTP (a stray newline in the token?)"))
            })?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        if !map.contains_key(reqwest::header::ACCEPT) {
            map.insert(reqwest::header::ACCEPT, HeaderValue::from_static("application/json"));
        }
        map.insert(
            reqwest::header::USER_AGENT,
            HeaderValue::from_static(concat!("gauntlet/", env!("CARGO_PKG_VERSION"))),
        );
        let http =
            reqwest::Client::builder().default_headers(map).timeout(Duration::from_secs(30)).build().map_err(|e| {
                PublishError::Network { host, what: "start an HTTP client".into(), message: e.to_string() }
            })?;
        Ok(Client { http, host, secret: secret.to_string(), budget: None, max_wait: MAX_RETRY_AFTER })
    }

    /// Wait at most `limit` for a rate-limited host (`[network] max_retry_after_secs`).
    pub(crate) fn wait_at_most(&mut self, limit: Duration) {
        self.max_wait = limit;
    }

    /// Send at most `calls` more requests, retries included; past that every
    /// request fails at once with [`PublishError::Response`] naming the budget.
    pub(crate) fn limit_calls(&mut self, calls: usize) {
        self.budget = Some(Arc::new(AtomicUsize::new(calls)));
    }

    /// GET `url` as JSON, with its response headers (for pagination).
    pub(crate) async fn get(&self, url: &str, what: &str) -> Result<(Value, HeaderMap), PublishError> {
        self.read(Method::GET, url, None, what).await
    }

    /// POST `body` to `url` for a request that changes nothing (a GraphQL query),
    /// retried like a GET.
    pub(crate) async fn query(&self, url: &str, body: &Value, what: &str) -> Result<Value, PublishError> {
        Ok(self.read(Method::POST, url, Some(body), what).await?.0)
    }

    async fn read(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<(Value, HeaderMap), PublishError> {
        let mut attempt = 1;
        loop {
            match self.attempt(method.clone(), url, body, what).await {
                Err((e, wait)) if attempt < ATTEMPTS && (self.retryable(&e) || wait.is_some()) => {
                    let wait = match wait {
                        Some(wait) if wait > self.max_wait => return Err(too_long(e, wait, self.max_wait)),
                        Some(wait) => wait,
                        None => Duration::from_millis(500 * u64::from(attempt)),
                    };
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err((e, _)) => return Err(e),
                Ok(answer) => return Ok(answer),
            }
        }
    }

    /// Send `body` with `method`; the answer as JSON (`null` when empty). A
    /// refusal for a rate limit is waited out and sent again (see the module's
    /// comment); a 5xx or a lost answer to a write is [`PublishError::Uncertain`]:
    /// the host may have stored it.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &str,
        body: &Value,
        what: &str,
    ) -> Result<Value, PublishError> {
        let write = method != Method::GET;
        let mut attempt = 1;
        let failed = loop {
            match self.attempt(method.clone(), url, Some(body), what).await {
                Ok((value, _)) => return Ok(value),
                Err((e, Some(wait))) if wait > self.max_wait => return Err(too_long(e, wait, self.max_wait)),
                Err((e, Some(_))) if attempt == ATTEMPTS => return Err(still_limited(e)),
                Err((_, Some(wait))) => {
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err((e, None)) => break e,
            }
        };
        match failed {
            PublishError::Http { host, what, status, message } if write && status >= 500 => {
                Err(PublishError::Uncertain { host, what, answer: format!("HTTP {status}"), message })
            }
            PublishError::Network { host, what, message } if write => {
                Err(PublishError::Uncertain { host, what, answer: "nothing (the connection failed)".into(), message })
            }
            e => Err(e),
        }
    }

    fn retryable(&self, e: &PublishError) -> bool {
        match e {
            PublishError::Network { .. } => true,
            PublishError::Http { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }

    /// Send one request; on failure, also the wait the host asked for when it refused for a
    /// rate limit: a 429, or GitHub's secondary limit (a 403 with `Retry-After`,
    /// or with `x-ratelimit-remaining: 0` and the reset time).
    async fn attempt(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<(Value, HeaderMap), (PublishError, Option<Duration>)> {
        let spent = |left: &Arc<AtomicUsize>| {
            left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_err()
        };
        if self.budget.as_ref().is_some_and(spent) {
            let message = BUDGET_SPENT.to_string();
            return Err((PublishError::Response { host: self.host, what: what.to_string(), message }, None));
        }
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| {
            let message = self.scrub(&e.without_url().to_string());
            (PublishError::Network { host: self.host, what: what.to_string(), message }, None)
        })?;
        let status = response.status();
        let headers = response.headers().clone();
        let (body, cut) = read_capped(response, MAX_RESPONSE_BYTES).await;
        let text = String::from_utf8_lossy(&body);
        if !status.is_success() {
            let wait = rate_limit_wait(status, &headers);
            return Err((self.status_error(status, what, &text), wait));
        }
        if cut {
            return Err((
                PublishError::Response {
                    host: self.host,
                    what: what.to_string(),
                    message: format!(
                        "the answer passed {} MiB and was cut off there; check that the API URL points at the \
                     code host itself",
                        MAX_RESPONSE_BYTES / (1024 * 1024)
                    ),
                },
                None,
            ));
        }
        if text.trim().is_empty() {
            return Ok((Value::Null, headers));
        }
        let value = serde_json::from_str(&text).map_err(|e| {
            (
                PublishError::Response { host: self.host, what: what.to_string(), message: format!("not JSON ({e})") },
                None,
            )
        })?;
        Ok((value, headers))
    }

    fn status_error(&self, status: StatusCode, what: &str, text: &str) -> PublishError {
        let mut message: String = self.scrub(text).chars().take(300).collect();
        if message.trim().is_empty() {
            message = status.canonical_reason().unwrap_or("no reason given").to_string();
        }
        let (host, what, status) = (self.host, what.to_string(), status.as_u16());
        if status == 401 || status == 403 {
            PublishError::Denied { host, what, status, message }
        } else {
            PublishError::Http { host, what, status, message }
        }
    }

    fn scrub(&self, text: &str) -> String {
        if self.secret.len() < 4 { text.to_string() } else { text.replace(&self.secret, "[redacted]") }
    }
}

/// Longest wait a host's `Retry-After` may ask for by default (`[network]
/// max_retry_after_secs` changes it); a longer one fails the request at once,
/// naming the wait, as the model client does.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// How long a rate-limited host asked to wait before the next request: a 429 or a
/// 403 with `Retry-After` (seconds), or a 403/429 with `x-ratelimit-remaining: 0`
/// and `x-ratelimit-reset` (epoch seconds). `None` for any other refusal.
fn rate_limit_wait(status: StatusCode, headers: &HeaderMap) -> Option<Duration> {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::FORBIDDEN {
        return None;
    }
    let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok().filter(|n| n.is_finite());
    if let Some(secs) = number("retry-after").filter(|s| *s >= 0.0) {
        return Duration::try_from_secs_f64(secs).ok();
    }
    if number("x-ratelimit-remaining") == Some(0.0) {
        let reset = number("x-ratelimit-reset")?;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64();
        return Duration::try_from_secs_f64((reset - now).max(0.0) + 1.0).ok();
    }
    (status == StatusCode::TOO_MANY_REQUESTS).then(|| Duration::from_secs(1))
}

fn too_long(e: PublishError, wait: Duration, limit: Duration) -> PublishError {
    noted(
        e,
        format!(
            " (the host asked to wait {}s before the next request, longer than the {}s gauntlet waits, set by \
             `[network] max_retry_after_secs`; run again later, or raise that setting)",
            wait.as_secs_f64().ceil() as u64,
            limit.as_secs()
        ),
    )
}

fn still_limited(e: PublishError) -> PublishError {
    noted(
        e,
        format!(
            " (the host still refused for its rate limit after {ATTEMPTS} tries; nothing was stored, run again later)"
        ),
    )
}

/// `e`, a refusal for a rate limit, with `note` added to its message. A 403 is
/// then no longer [`PublishError::Denied`]: the token may write, the host only
/// asked to wait, and taking it for a missing permission would send the user to
/// the wrong fix.
fn noted(e: PublishError, note: String) -> PublishError {
    match e {
        PublishError::Http { host, what, status, message } | PublishError::Denied { host, what, status, message } => {
            PublishError::Http { host, what, status, message: message + &note }
        }
        other => other,
    }
}

/// A response's body as JSON, read up to [`MAX_RESPONSE_BYTES`]; for callers that
/// talk to a code host without this module's client.
pub async fn read_json(response: reqwest::Response) -> Result<Value, String> {
    let (body, cut) = read_capped(response, MAX_RESPONSE_BYTES).await;
    if cut {
        return Err(format!(
            "the answer passed {} MiB and was cut off there; check that the URL points at the code host's API",
            MAX_RESPONSE_BYTES / (1024 * 1024)
        ));
    }
    serde_json::from_slice(&body).map_err(|e| format!("not JSON ({e})"))
}

/// At most `max` bytes of the body, and whether there was more. A body that
/// breaks off reads as what arrived (the JSON decoding then says so).
async fn read_capped(mut response: reqwest::Response, max: usize) -> (Vec<u8>, bool) {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return (Vec::new(), true);
    }
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if body.len() + chunk.len() > max {
            body.extend_from_slice(&chunk[..max - body.len()]);
            return (body, true);
        }
        body.extend_from_slice(&chunk);
    }
    (body, false)
}

/// `s` percent-encoded for one URL path segment or query value.
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The JSON string at `pointer`, or an error naming what was missing.
pub(crate) fn string(value: &Value, pointer: &str, host: &'static str, what: &str) -> Result<String, PublishError> {
    match value.pointer(pointer) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => Err(PublishError::Response {
            host,
            what: what.to_string(),
            message: format!("no `{pointer}` in the answer"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn an_absurd_rate_limit_reset_is_no_wait_rather_than_a_panic() {
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining", "0".parse().unwrap());
        headers.insert("x-ratelimit-reset", "1e300".parse().unwrap());
        assert_eq!(rate_limit_wait(StatusCode::FORBIDDEN, &headers), None);
        headers.insert("x-ratelimit-reset", "0".parse().unwrap());
        assert_eq!(rate_limit_wait(StatusCode::FORBIDDEN, &headers), Some(Duration::from_secs(1)));
    }

    /// The URL of a server whose every answer is a 200 with a body that never ends.
    async fn endless() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/repos/o/r/pulls/1/comments", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let _ = socket.read(&mut [0u8; 16 * 1024]).await;
                    let head =
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                    socket.write_all(head.as_bytes()).await.unwrap();
                    let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "[".repeat(64 * 1024));
                    while socket.write_all(chunk.as_bytes()).await.is_ok() {}
                });
            }
        });
        url
    }

    #[tokio::test]
    async fn an_endless_answer_to_a_bare_request_is_cut_off_too() {
        let response = reqwest::get(endless().await).await.unwrap();
        let read = tokio::time::timeout(Duration::from_secs(60), read_json(response));
        let message = read.await.expect("the read stops at the cap").unwrap_err();
        assert!(message.contains("32 MiB"), "{message}");
    }

    #[tokio::test]
    async fn an_endless_answer_is_cut_off_at_the_cap_and_named() {
        let url = endless().await;
        let client = Client::new("GitHub", &[("authorization", "Bearer secret-token".into())], "secret-token").unwrap();
        let read = tokio::time::timeout(Duration::from_secs(60), client.get(&url, "list review comments"));
        let err = read.await.expect("the read stops at the cap").unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, PublishError::Response { .. }), "{message}");
        assert!(message.contains("32 MiB") && message.contains("list review comments"), "{message}");
    }
}
