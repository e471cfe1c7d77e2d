//! The per-run budget: calls, tokens and estimated cost. A call is admitted only if
//! its estimated input still fits; admission reserves the estimate under a lock, so
//! concurrent calls cannot all slip past the limit together.

use std::sync::Mutex;

/// Limits for one run; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    pub max_calls: Option<u32>,
    pub max_tokens: Option<u64>,
    pub max_cost: Option<f64>,
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
}

/// What an admitted call reserved; settled with the real figures afterwards.
#[derive(Debug)]
pub struct Reservation {
    tokens: u64,
    cost: f64,
}

impl Ledger {
    pub fn new(budget: Budget) -> Ledger {
        Ledger { budget, spent: Mutex::new(Spent::default()) }
    }

    /// Admit a call estimated at `tokens` input tokens costing `cost`, or say which
    /// limit it would break.
    pub fn admit(&self, tokens: u64, cost: f64) -> Result<Reservation, String> {
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
    fn cost_limit_refuses_a_call_that_would_pass_it() {
        let l = Ledger::new(Budget { max_cost: Some(0.01), ..Budget::default() });
        assert!(l.admit(0, 0.02).unwrap_err().contains("$0.01"));
    }
}
