//! The per-run budget: calls, tokens and estimated cost. A call is admitted only if
//! its estimated input still fits; admission reserves the estimate under a lock, so
//! concurrent calls cannot all slip past the limit together. A run's time limit
//! (`--timeout`) is kept here too: past its deadline no call is admitted, and a
//! call still in flight is abandoned.

use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Limits for one run; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    pub max_calls: Option<u32>,
    pub max_tokens: Option<u64>,
    pub max_cost: Option<f64>,
}

/// When the whole run must be over, and the limit it came from (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    pub limit: Duration,
}

impl Deadline {
    /// The deadline `limit` from now.
    pub fn after(limit: Duration) -> Deadline {
        // A limit past what the clock can hold means no limit in practice.
        let at = Instant::now().checked_add(limit).unwrap_or_else(|| Instant::now() + Duration::from_secs(1 << 40));
        Deadline { at, limit }
    }

    fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    fn limit_text(&self) -> String {
        format!("the run's time limit of {}s (--timeout)", self.limit.as_secs_f64().ceil() as u64)
    }
}

#[derive(Debug, Default)]
struct Spent {
    calls: u32,
    tokens: u64,
    cost: f64,
}

/// What a run has spent against its [`Budget`]; shared by every call of the run
/// (the review pipeline's, and the loop's in `gauntlet fix`).
#[derive(Debug, Default)]
pub struct Ledger {
    budget: Budget,
    spent: Mutex<Spent>,
    deadline: Option<Deadline>,
    /// Some call was refused or abandoned because the deadline passed.
    timed_out: AtomicBool,
}

/// What an admitted call reserved; settled with the real figures afterwards.
#[derive(Debug)]
pub struct Reservation {
    tokens: u64,
    cost: f64,
}

impl Ledger {
    pub fn new(budget: Budget) -> Ledger {
        Ledger { budget, spent: Mutex::new(Spent::default()), deadline: None, timed_out: AtomicBool::new(false) }
    }

    /// The same ledger, also holding the run to `deadline`.
    pub fn with_deadline(mut self, deadline: Option<Deadline>) -> Ledger {
        self.deadline = deadline;
        self
    }

    /// Whether the deadline cut any call short (refused or abandoned).
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// Await `call` unless the deadline passes first; then it is dropped (which
    /// cancels the request or kills the program) and the error says so.
    pub async fn within<T>(&self, call: impl Future<Output = T>) -> Result<T, String> {
        let Some(d) = self.deadline else {
            return Ok(call.await);
        };
        match tokio::time::timeout_at(tokio::time::Instant::from_std(d.at), call).await {
            Ok(value) => Ok(value),
            Err(_) => {
                self.timed_out.store(true, Ordering::Relaxed);
                Err(format!("abandoned: {} was reached while this call was in flight", d.limit_text()))
            }
        }
    }

    /// Admit a call estimated at `tokens` input tokens costing `cost`, or say which
    /// limit it would break.
    pub fn admit(&self, tokens: u64, cost: f64) -> Result<Reservation, String> {
        if let Some(d) = self.deadline.filter(Deadline::passed) {
            self.timed_out.store(true, Ordering::Relaxed);
            return Err(format!("not run: {} was reached", d.limit_text()));
        }
        let mut s = self.spent.lock().expect("budget lock");
        let b = &self.budget;
        if let Some(max) = b.max_calls.filter(|m| s.calls + 1 > *m) {
            return Err(format!("not run: the budget of {max} model calls is spent"));
        }
        if let Some(max) = b.max_tokens.filter(|m| s.tokens + tokens > *m) {
            return Err(format!(
                "not run: about {tokens} more tokens would pass the budget of {max} ({} spent)",
                s.tokens
            ));
        }
        if let Some(max) = b.max_cost.filter(|m| s.cost + cost > *m) {
            return Err(format!(
                "not run: about ${cost:.4} more would pass the budget of ${max:.2} (${:.4} spent)",
                s.cost
            ));
        }
        s.calls += 1;
        s.tokens += tokens;
        s.cost += cost;
        Ok(Reservation { tokens, cost })
    }

    /// Replace a reservation by what the call really used (nothing, if it failed).
    pub fn settle(&self, r: Reservation, tokens: u64, cost: f64) {
        let mut s = self.spent.lock().expect("budget lock");
        s.tokens = s.tokens - r.tokens + tokens;
        s.cost = s.cost - r.cost + cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_limit_refuses_the_next_call() {
        let l = Ledger::new(Budget { max_calls: Some(1), ..Budget::default() });
        let r = l.admit(10, 0.0).unwrap();
        l.settle(r, 12, 0.0);
        assert!(l.admit(10, 0.0).unwrap_err().contains("1 model calls"));
    }

    #[test]
    fn token_limit_counts_real_usage_after_settling() {
        let l = Ledger::new(Budget { max_tokens: Some(100), ..Budget::default() });
        let r = l.admit(30, 0.0).unwrap();
        l.settle(r, 90, 0.0);
        assert!(l.admit(20, 0.0).is_err(), "90 spent + 20 estimated > 100");
        assert!(l.admit(10, 0.0).is_ok());
    }

    #[test]
    fn a_passed_deadline_refuses_calls_and_says_which_limit() {
        let past = Deadline { at: Instant::now() - Duration::from_secs(1), limit: Duration::from_secs(90) };
        let l = Ledger::new(Budget::default()).with_deadline(Some(past));
        assert!(!l.timed_out());
        let err = l.admit(1, 0.0).unwrap_err();
        assert!(err.contains("time limit of 90s (--timeout)"), "{err}");
        assert!(l.timed_out());
        let open = Ledger::new(Budget::default()).with_deadline(Some(Deadline::after(Duration::from_secs(60))));
        assert!(open.admit(1, 0.0).is_ok() && !open.timed_out());
    }

    #[tokio::test]
    async fn a_call_in_flight_at_the_deadline_is_abandoned() {
        let l = Ledger::new(Budget::default()).with_deadline(Some(Deadline::after(Duration::from_millis(200))));
        let quick = l.within(async { 7 }).await;
        assert_eq!(quick, Ok(7));
        let hang = l.within(tokio::time::sleep(Duration::from_secs(3600))).await;
        assert!(hang.unwrap_err().starts_with("abandoned: the run's time limit of 1s"));
        assert!(l.timed_out());
    }

    #[test]
    fn cost_limit_refuses_a_call_that_would_pass_it() {
        let l = Ledger::new(Budget { max_cost: Some(0.01), ..Budget::default() });
        assert!(l.admit(0, 0.02).unwrap_err().contains("$0.01"));
    }
}
