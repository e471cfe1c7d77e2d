//! Timeouts and retries around any [`Provider`].
//!
//! Each attempt runs under its own timeout (dropping the attempt cancels the HTTP
//! request or kills the child process). Retryable failures back off
//! exponentially with full jitter, so parallel reviewers hitting the same rate
//! limit do not retry in lockstep. A provider's `Retry-After` takes precedence
//! over the computed backoff; one asking for more than `max_retry_after` fails
//! at once, because a run blocked for minutes is worse than a clear error. The
//! limit is `[network] max_retry_after_secs` in `gauntlet.toml`.

use crate::{ModelError, Provider, Request, Response};
use rand::Rng;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, including the first one.
    pub max_attempts: u32,
    /// Backoff ceiling for the first retry; doubles per attempt.
    pub base_delay: Duration,
    /// Backoff ceiling never grows beyond this.
    pub max_delay: Duration,
    /// Limit for one attempt.
    pub timeout: Duration,
    /// Longest `Retry-After` we are willing to wait (`[network] max_retry_after_secs`).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            timeout: Duration::from_secs(300),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Full jitter: uniform in `[0, min(max_delay, base_delay * 2^(attempt-1))]`.
    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        let ceiling = self.base_delay.saturating_mul(factor).min(self.max_delay);
        if ceiling.is_zero() {
            return ceiling;
        }
        ceiling.mul_f64(rand::rng().random_range(0.0..=1.0))
    }
}

/// A provider with per-attempt timeouts and retries. Works with a concrete
/// provider or with `Arc<dyn Provider>` / `Box<dyn Provider>`.
#[derive(Debug)]
pub struct Retrying<P> {
    inner: P,
    policy: RetryPolicy,
}

impl<P: Provider> Retrying<P> {
    pub fn new(inner: P, policy: RetryPolicy) -> Self {
        Retrying { inner, policy }
    }

    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    pub fn inner(&self) -> &P {
        &self.inner
    }

    async fn attempt(&self, request: &Request) -> Result<Response, ModelError> {
        match tokio::time::timeout(self.policy.timeout, self.inner.complete(request)).await {
            Ok(result) => result,
            Err(_) => Err(ModelError::Timeout {
                provider: self.inner.name().to_string(),
                // Rounded up so sub-second test timeouts do not read "within 0s".
                secs: self.policy.timeout.as_secs_f64().ceil() as u64,
            }),
        }
    }

    /// The wait before the next attempt, or the error to give up with.
    fn delay_for(&self, error: ModelError, attempt: u32) -> Result<Duration, ModelError> {
        match error {
            ModelError::Http { provider, status, message, retry_after: Some(wait) }
                if wait > self.policy.max_retry_after =>
            {
                let message = format!(
                    "{message} (the provider asked to wait {}s, longer than the {}s `[network] max_retry_after_secs` \
                     allows; raise it in gauntlet.toml to wait that long)",
                    wait.as_secs_f64().ceil() as u64,
                    self.policy.max_retry_after.as_secs()
                );
                Err(ModelError::Http { provider, status, message, retry_after: Some(wait) })
            }
            ModelError::Http { retry_after: Some(wait), .. } => Ok(wait),
            _ => Ok(self.policy.backoff(attempt)),
        }
    }
}

#[async_trait::async_trait]
impl<P: Provider> Provider for Retrying<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn supports_tools(&self) -> bool {
        self.inner.supports_tools()
    }

    fn caches_after_start(&self) -> bool {
        self.inner.caches_after_start()
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let max = self.policy.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            let error = match self.attempt(request).await {
                Ok(response) => return Ok(response),
                Err(e) if !e.is_retryable() || attempt >= max => return Err(e),
                Err(e) => e,
            };
            let wait = self.delay_for(error, attempt)?;
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }
}

#[async_trait::async_trait]
impl<P: Provider + ?Sized> Provider for Arc<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn model(&self) -> &str {
        (**self).model()
    }

    fn supports_tools(&self) -> bool {
        (**self).supports_tools()
    }

    fn caches_after_start(&self) -> bool {
        (**self).caches_after_start()
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        (**self).complete(request).await
    }
}

#[async_trait::async_trait]
impl<P: Provider + ?Sized> Provider for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn model(&self) -> &str {
        (**self).model()
    }

    fn supports_tools(&self) -> bool {
        (**self).supports_tools()
    }

    fn caches_after_start(&self) -> bool {
        (**self).caches_after_start()
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        (**self).complete(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_by_exponential_ceiling_and_max_delay() {
        let p = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        for _ in 0..200 {
            assert!(p.backoff(1) <= Duration::from_millis(100));
            assert!(p.backoff(2) <= Duration::from_millis(200));
            assert!(p.backoff(3) <= Duration::from_millis(350));
            assert!(p.backoff(40) <= Duration::from_millis(350));
        }
    }
}
