//! Shared HTTP plumbing for the hosted providers: one POST-and-decode helper and
//! the mapping from HTTP failures to [`ModelError`].
//!
//! Every message built here goes through [`redact`], because providers sometimes
//! echo (parts of) the key back in 401 bodies and reqwest errors can carry URLs.
//! Request headers are never formatted anywhere.

use crate::ModelError;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Longest body excerpt kept in an error message.
const MAX_EXCERPT: usize = 500;

/// Largest answer read from a provider. A real one is a few KiB (a tool-using
/// turn a few tens); anything near this is a misbehaving server or proxy, and
/// reading on would only grow memory.
pub const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

/// Builds the reqwest client shared by one provider instance. No overall request
/// timeout here: [`crate::retry::Retrying`] owns per-attempt timeouts so that they
/// are reported uniformly as [`ModelError::Timeout`].
pub(crate) fn client(provider: &str) -> Result<reqwest::Client, ModelError> {
    reqwest::Client::builder().connect_timeout(Duration::from_secs(30)).build().map_err(|e| ModelError::Config {
        provider: provider.to_string(),
        message: format!("could not build HTTP client: {}", chain(&e)),
    })
}

/// Rejects header names or values reqwest would refuse, at construction time:
/// at send time they would surface as a (retryable) transport error.
pub(crate) fn check_headers(provider: &str, headers: &[(String, String)]) -> Result<(), ModelError> {
    for (name, value) in headers {
        let bad_name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err();
        if bad_name || reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(ModelError::Config {
                provider: provider.to_string(),
                message: format!("extra header `{name}` is not a valid HTTP header"),
            });
        }
    }
    Ok(())
}

/// Sends `req` and decodes a 2xx JSON body into `T`; anything else becomes a
/// [`ModelError`]. `secret` is scrubbed from every message.
pub(crate) async fn post_json<T: DeserializeOwned>(
    provider: &str,
    secret: Option<&str>,
    req: reqwest::RequestBuilder,
) -> Result<T, ModelError> {
    let resp = req.send().await.map_err(|e| transport(provider, secret, e))?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let (body, cut) = read_capped(resp, MAX_RESPONSE_BYTES).await.map_err(|e| transport(provider, secret, e))?;
    if !(200..300).contains(&status) {
        // An error's excerpt is all that is kept, so a cut body still says enough.
        let body = String::from_utf8_lossy(&body);
        return Err(status_error(provider, secret, status, &headers, &body));
    }
    if cut {
        return Err(ModelError::Protocol {
            provider: provider.to_string(),
            message: format!(
                "the answer passed {} MiB and was cut off there (a real answer is a few KiB); check that \
                 the endpoint is a model API and not a proxy or page that streams without end",
                MAX_RESPONSE_BYTES / (1024 * 1024)
            ),
        });
    }
    decode(provider, secret, &body)
}

/// Decodes a 2xx body. A body that stops in the middle of its JSON was cut off on
/// the way (a proxy, a dropped connection after the headers): that is a transport
/// fault, retried like a 5xx. A body that is whole but is not the expected shape
/// is the provider's answer, and asking again at this level would not change it.
pub(crate) fn decode<T: DeserializeOwned>(provider: &str, secret: Option<&str>, body: &[u8]) -> Result<T, ModelError> {
    serde_json::from_slice(body).map_err(|e| {
        let excerpt = truncate(&String::from_utf8_lossy(body), MAX_EXCERPT);
        if e.is_eof() {
            let message = format!(
                "the answer (HTTP 2xx) ends in the middle of its JSON after {} bytes, so it was cut off on the \
                 way ({e}): {excerpt}",
                body.len()
            );
            ModelError::Transport { provider: provider.to_string(), message: redact(&message, secret) }
        } else {
            ModelError::Protocol {
                provider: provider.to_string(),
                message: redact(&format!("could not decode response ({e}): {excerpt}"), secret),
            }
        }
    })
}

/// Reads at most `max` bytes of the body; `true` when there was more (the rest is
/// never read: the connection is dropped with the response).
pub(crate) async fn read_capped(mut resp: reqwest::Response, max: usize) -> Result<(Vec<u8>, bool), reqwest::Error> {
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Ok((Vec::new(), true));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > max {
            body.extend_from_slice(&chunk[..max - body.len()]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// Maps a reqwest failure (connect, timeout, body read) to a retryable transport
/// error. The URL is dropped: it is the configured endpoint the user already knows,
/// and some proxies put credentials in query strings.
pub(crate) fn transport(provider: &str, secret: Option<&str>, e: reqwest::Error) -> ModelError {
    let kind = if e.is_timeout() {
        "request timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    ModelError::Transport {
        provider: provider.to_string(),
        message: redact(&format!("{kind}: {}", chain(&e.without_url())), secret),
    }
}

/// Maps a non-2xx answer. Spend limits are split off because no amount of
/// retrying fixes them.
pub(crate) fn status_error(
    provider: &str,
    secret: Option<&str>,
    status: u16,
    headers: &HeaderMap,
    body: &str,
) -> ModelError {
    let message = redact(&truncate(&body_message(body), MAX_EXCERPT), secret);
    if is_spend_limit(status, body) {
        return ModelError::SpendLimit { provider: provider.to_string(), message };
    }
    ModelError::Http { provider: provider.to_string(), status, message, retry_after: retry_after(headers) }
}

/// 402 anywhere; OpenAI's 429 `insufficient_quota` (a 429 that never clears by
/// waiting); Anthropic's 400 "credit balance is too low" / billing errors.
fn is_spend_limit(status: u16, body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    match status {
        402 => true,
        429 => lower.contains("insufficient_quota"),
        400 => lower.contains("credit balance") || lower.contains("billing"),
        _ => false,
    }
}

/// `retry-after-ms` (OpenAI, Azure) wins over `Retry-After` because it is more
/// precise. HTTP-date values are not parsed and yield `None`, which falls back to
/// the caller's own backoff.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let v = headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok()?;
        (v.is_finite() && v >= 0.0).then_some(v)
    };
    // `try_` because absurd values ("1e300") must not panic.
    if let Some(ms) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    number("retry-after").and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// Pulls the human-readable part out of the usual `{"error": {"type", "message"}}`
/// shapes; falls back to the raw body.
fn body_message(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return body.trim().to_string();
    };
    let err = v.get("error").unwrap_or(&v);
    if let Some(s) = err.as_str() {
        return s.to_string();
    }
    let text = |k: &str| err.get(k).and_then(|x| x.as_str());
    match (text("type").or(text("code")), text("message")) {
        (Some(t), Some(m)) => format!("{t}: {m}"),
        (None, Some(m)) => m.to_string(),
        _ => body.trim().to_string(),
    }
}

/// Keeps at most `max` characters, cutting on a char boundary.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Replaces every occurrence of the key with a placeholder. Keys shorter than 8
/// characters are not scrubbed: they are not real secrets and would mangle text.
pub(crate) fn redact(message: &str, secret: Option<&str>) -> String {
    match secret {
        Some(k) if k.len() >= 8 => message.replace(k, "[redacted]"),
        _ => message.to_string(),
    }
}

/// Display of an error and all its sources, so "connection refused" is not lost
/// behind reqwest's generic "error sending request".
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_seconds_ms_and_dates() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut d = HeaderMap::new();
        d.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&d), None);
        d.insert("retry-after", HeaderValue::from_static("1e300"));
        assert_eq!(retry_after(&d), None);
    }

    #[test]
    fn spend_limits() {
        assert!(is_spend_limit(402, ""));
        assert!(is_spend_limit(429, r#"{"error":{"code":"insufficient_quota"}}"#));
        assert!(!is_spend_limit(429, r#"{"error":{"code":"rate_limit_exceeded"}}"#));
        assert!(is_spend_limit(400, "Your credit balance is too low"));
        assert!(!is_spend_limit(400, "messages: field required"));
    }

    #[test]
    fn messages_are_bounded_and_redacted() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hi", 2), "hi");
        assert_eq!(redact("bad key sk-abcdefgh!", Some("sk-abcdefgh")), "bad key [redacted]!");
        assert_eq!(
            body_message(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "overloaded_error: Overloaded"
        );
    }
}
