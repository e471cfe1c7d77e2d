//! When the loop stops, and what the adversary is told to look for in each round.
//!
//! Pure functions over the rounds so far. With a round cap of N and `half` = N/2
//! rounded up:
//! - the adversary's instruction escalates: round 1 is open (everything), rounds
//!   before `half` are substantive issues only, and from round `half` on only
//!   issues not raised before ([`stage`]);
//! - the loop stops when the adversary approves, when only minor issues remain,
//!   when a round after `half` brings no new critical or major issue (the loop has
//!   gone stale: the adversary repeats itself and the primary cannot satisfy it),
//!   or at round N ([`decide`]).
//!
//! "New" is fuzzy: descriptions are compared as word sets with the adjudicator's
//! overlap measure ([`gauntlet_review::adjudicate::claim_overlap`]), 80 % overlap
//! for longer descriptions, identical word sets under 4 words.

use crate::contract::{Issue, Verdict};
use gauntlet_review::adjudicate::{TWIN_OVERLAP, claim_overlap};
use serde::Serialize;

/// Default round cap (`--rounds`).
pub const DEFAULT_ROUNDS: u32 = 10;

/// Why a loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitReason {
    /// The adversary approved the work.
    Approved,
    /// Only minor issues remain.
    OnlyMinor,
    /// No new critical or major issue after half the rounds: the loop was going in circles.
    Stale,
    /// The round cap was reached.
    RoundCap,
    /// The user accepted the work between rounds (`refine --interactive`).
    Accepted,
    /// The budget ran out before the loop could converge.
    Budget,
    /// A model call failed, or broke its contract twice.
    Failed,
}

impl ExitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ExitReason::Approved => "approved",
            ExitReason::OnlyMinor => "only_minor",
            ExitReason::Stale => "stale",
            ExitReason::RoundCap => "round_cap",
            ExitReason::Accepted => "accepted",
            ExitReason::Budget => "budget",
            ExitReason::Failed => "failed",
        }
    }

    /// The work was accepted (by the adversary's rules or by the user); any other
    /// exit keeps the best work so far, marked as not converged.
    pub fn converged(self) -> bool {
        matches!(self, ExitReason::Approved | ExitReason::OnlyMinor | ExitReason::Accepted)
    }
}

impl std::fmt::Display for ExitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The adversary's instruction in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Round 1: raise everything that is wrong.
    Open,
    /// Substantive issues only: no style, naming or wording.
    Substantive,
    /// Only issues not raised before; do not repeat what was already dealt with.
    OnlyNew,
}

/// Half the round cap, rounded up: where escalation reaches its last stage and
/// after which a loop can be stale.
pub fn half(rounds: u32) -> u32 {
    rounds.div_ceil(2).max(1)
}

/// The adversary's instruction in round `round` (1-based) of at most `rounds`.
pub fn stage(round: u32, rounds: u32) -> Stage {
    if round <= 1 {
        Stage::Open
    } else if round >= half(rounds) {
        Stage::OnlyNew
    } else {
        Stage::Substantive
    }
}

/// Whether `issue` was not raised in any earlier round.
pub fn is_new(issue: &Issue, earlier: &[&Issue]) -> bool {
    !earlier.iter().any(|e| claim_overlap(&e.description, &issue.description) >= TWIN_OVERLAP)
}

/// Whether the loop stops after round `round` of at most `rounds`, whose verdict and
/// issues are given; `earlier` holds every issue of the rounds before it. Checked
/// in order: approved, only minor, stale, round cap.
pub fn decide(round: u32, rounds: u32, verdict: Verdict, issues: &[Issue], earlier: &[&Issue]) -> Option<ExitReason> {
    if verdict == Verdict::Approved {
        return Some(ExitReason::Approved);
    }
    let substantive: Vec<&Issue> = issues.iter().filter(|i| i.severity.is_substantive()).collect();
    if substantive.is_empty() {
        return Some(ExitReason::OnlyMinor);
    }
    if round > half(rounds) && !substantive.iter().any(|i| is_new(i, earlier)) {
        return Some(ExitReason::Stale);
    }
    (round >= rounds).then_some(ExitReason::RoundCap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Severity;

    fn issue(severity: Severity, description: &str) -> Issue {
        Issue { category: "correctness".into(), description: description.into(), severity }
    }

    const LEAK: &str = "The file handle is never closed when parsing fails halfway";
    const LEAK_REPHRASED: &str = "If parsing fails halfway, the file handle is never closed";
    const RACE: &str = "Two writers can interleave their appends to the same log file";

    #[test]
    fn approval_ends_the_loop() {
        assert_eq!(decide(1, 10, Verdict::Approved, &[], &[]), Some(ExitReason::Approved));
    }

    #[test]
    fn only_minor_issues_end_the_loop() {
        let minor = [issue(Severity::Minor, "The variable name tmp says nothing")];
        assert_eq!(decide(2, 10, Verdict::NeedsWork, &minor, &[]), Some(ExitReason::OnlyMinor));
    }

    #[test]
    fn a_new_major_issue_keeps_the_loop_going() {
        let raised = [issue(Severity::Major, LEAK)];
        assert_eq!(decide(3, 10, Verdict::NeedsWork, &raised, &[]), None);
    }

    #[test]
    fn stale_fires_on_a_paraphrased_repeat_after_half_the_rounds() {
        let before = issue(Severity::Major, LEAK);
        let again = [issue(Severity::Critical, LEAK_REPHRASED)];
        assert_eq!(decide(6, 10, Verdict::NeedsWork, &again, &[&before]), Some(ExitReason::Stale));
    }

    #[test]
    fn stale_does_not_fire_on_a_new_issue() {
        let before = issue(Severity::Major, LEAK);
        let now = [issue(Severity::Major, LEAK_REPHRASED), issue(Severity::Major, RACE)];
        assert_eq!(decide(6, 10, Verdict::NeedsWork, &now, &[&before]), None);
    }

    #[test]
    fn stale_waits_until_after_half_the_rounds() {
        let before = issue(Severity::Major, LEAK);
        let again = [issue(Severity::Major, LEAK)];
        assert_eq!(decide(5, 10, Verdict::NeedsWork, &again, &[&before]), None, "round 5 is not after N/2 = 5");
        assert_eq!(decide(3, 4, Verdict::NeedsWork, &again, &[&before]), Some(ExitReason::Stale), "N/2 scales with N");
    }

    #[test]
    fn short_descriptions_repeat_only_when_identical() {
        let before = issue(Severity::Major, "Missing null check");
        assert!(!is_new(&issue(Severity::Major, "missing NULL check!"), &[&before]));
        assert!(is_new(&issue(Severity::Major, "Missing bounds check"), &[&before]));
    }

    #[test]
    fn the_round_cap_ends_the_loop() {
        let raised = [issue(Severity::Major, RACE)];
        assert_eq!(decide(10, 10, Verdict::NeedsWork, &raised, &[]), Some(ExitReason::RoundCap));
        assert_eq!(decide(9, 10, Verdict::NeedsWork, &raised, &[]), None);
    }

    #[test]
    fn escalation_changes_at_round_two_and_at_half_the_cap() {
        let stages: Vec<Stage> = (1..=10).map(|r| stage(r, 10)).collect();
        assert_eq!(stages[0], Stage::Open);
        assert!(stages[1..4].iter().all(|s| *s == Stage::Substantive), "{stages:?}");
        assert!(stages[4..].iter().all(|s| *s == Stage::OnlyNew), "{stages:?}");
        assert_eq!(stage(9, 20), Stage::Substantive);
        assert_eq!(stage(10, 20), Stage::OnlyNew);
        assert_eq!(stage(2, 4), Stage::OnlyNew);
        assert_eq!(stage(1, 1), Stage::Open);
    }
}
