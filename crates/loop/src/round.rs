//! What one round of the loop produced, and the summary of earlier rounds that each
//! fresh adversary session is given.
//!
//! The adversary forgets everything between rounds on purpose (a session that
//! remembers anchors on its own earlier findings). It is not blind, though: it sees
//! the last [`DETAILED_ROUNDS`] rounds in detail (each issue, its severity, and how
//! the primary answered it) and older rounds collapsed into counts, so the prompt
//! stays bounded however long the loop runs.

use crate::contract::{Addressed, Issue, Resolution, Severity, Verdict};
use crate::converge::Stage;
use serde::Serialize;

/// Rounds shown in detail; older ones are aggregated.
pub const DETAILED_ROUNDS: usize = 5;

/// Who judged a round's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judge {
    Adversary,
    /// gauntlet itself: the work could not be reviewed (a patch that does not apply),
    /// so it went straight back to the primary.
    Gauntlet,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    pub number: u32,
    pub stage: Stage,
    /// The primary's answers to the previous round's issues.
    pub addressed: Vec<Addressed>,
    /// What the user asked of the primary before this round (`--interactive`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steer: Option<String>,
    pub judge: Judge,
    pub verdict: Verdict,
    pub issues: Vec<Issue>,
    /// Whether the check command passed on this round's work; `None` when none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
    /// The work as judged; `None` when it could not be reviewed.
    #[serde(skip)]
    pub work: Option<String>,
}

impl Round {
    pub fn count(&self, severity: Severity) -> usize {
        self.issues.iter().filter(|i| i.severity == severity).count()
    }
}

/// Earlier rounds, as the adversary is shown them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PriorRounds {
    pub aggregated: Option<Aggregate>,
    pub detailed: Vec<RoundView>,
}

/// Rounds older than the detailed ones, as counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Aggregate {
    pub first: u32,
    pub last: u32,
    pub critical: usize,
    pub major: usize,
    pub minor: usize,
    pub fixed: usize,
    pub disputed: usize,
    pub unanswered: usize,
    /// Rounds whose work could not be reviewed at all.
    pub rejected: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoundView {
    pub number: u32,
    pub judge: Judge,
    pub verdict: Verdict,
    pub issues: Vec<IssueView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IssueView {
    pub severity: Severity,
    pub category: String,
    pub description: String,
    /// `fixed`, `disputed` or `not answered`.
    pub resolution: String,
    pub note: Option<String>,
}

/// How issue `k` (0-based) was answered, given the answers of the round after it.
fn answer(answers: &[Addressed], k: usize) -> Option<&Addressed> {
    answers.iter().find(|a| a.issue as usize == k + 1)
}

/// Summarise `prior` rounds; `current` holds the primary's answers (in the round
/// being judged) to the last of them.
pub fn summarize(prior: &[Round], current: &[Addressed]) -> PriorRounds {
    let answers_to = |i: usize| -> &[Addressed] { prior.get(i + 1).map_or(current, |next| &next.addressed) };
    let split = prior.len().saturating_sub(DETAILED_ROUNDS);
    let aggregated = (split > 0).then(|| {
        let mut agg = Aggregate { first: prior[0].number, last: prior[split - 1].number, ..Aggregate::default() };
        for (i, round) in prior[..split].iter().enumerate() {
            agg.critical += round.count(Severity::Critical);
            agg.major += round.count(Severity::Major);
            agg.minor += round.count(Severity::Minor);
            agg.rejected += usize::from(round.judge == Judge::Gauntlet);
            for k in 0..round.issues.len() {
                match answer(answers_to(i), k).map(|a| a.resolution) {
                    Some(Resolution::Fixed) => agg.fixed += 1,
                    Some(Resolution::Disputed) => agg.disputed += 1,
                    None => agg.unanswered += 1,
                }
            }
        }
        agg
    });
    let detailed = prior[split..]
        .iter()
        .enumerate()
        .map(|(j, round)| RoundView {
            number: round.number,
            judge: round.judge,
            verdict: round.verdict,
            issues: round
                .issues
                .iter()
                .enumerate()
                .map(|(k, issue)| {
                    let a = answer(answers_to(split + j), k);
                    IssueView {
                        severity: issue.severity,
                        category: issue.category.clone(),
                        description: issue.description.clone(),
                        resolution: match a.map(|a| a.resolution) {
                            Some(Resolution::Fixed) => "fixed".into(),
                            Some(Resolution::Disputed) => "disputed".into(),
                            None => "not answered".into(),
                        },
                        note: a.map(|a| a.note.clone()),
                    }
                })
                .collect(),
        })
        .collect();
    PriorRounds { aggregated, detailed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(number: u32, severities: &[Severity], addressed: Vec<Addressed>) -> Round {
        Round {
            number,
            stage: Stage::Substantive,
            addressed,
            steer: None,
            judge: Judge::Adversary,
            verdict: Verdict::NeedsWork,
            issues: severities
                .iter()
                .map(|s| Issue { category: "c".into(), description: format!("issue of round {number}"), severity: *s })
                .collect(),
            check_passed: None,
            work: Some(String::new()),
        }
    }

    fn fixed(issue: u32) -> Addressed {
        Addressed { issue, resolution: Resolution::Fixed, note: "done".into() }
    }

    #[test]
    fn the_last_five_rounds_are_detailed_and_older_ones_aggregated() {
        let rounds: Vec<Round> = (1..=8)
            .map(|n| round(n, &[Severity::Major, Severity::Minor], if n > 1 { vec![fixed(1)] } else { vec![] }))
            .collect();
        let s = summarize(&rounds, &[fixed(2)]);
        assert_eq!(s.detailed.iter().map(|r| r.number).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8]);
        let agg = s.aggregated.unwrap();
        assert_eq!((agg.first, agg.last), (1, 3));
        assert_eq!((agg.critical, agg.major, agg.minor), (0, 3, 3));
        assert_eq!((agg.fixed, agg.unanswered), (3, 3), "round N's issues are answered in round N+1");
    }

    #[test]
    fn five_rounds_or_fewer_are_all_detailed() {
        let rounds: Vec<Round> = (1..=5).map(|n| round(n, &[Severity::Major], vec![])).collect();
        let s = summarize(&rounds, &[]);
        assert!(s.aggregated.is_none());
        assert_eq!(s.detailed.len(), 5);
        assert!(summarize(&[], &[]).detailed.is_empty());
    }

    #[test]
    fn each_detailed_issue_shows_how_the_primary_answered_it() {
        let disputed = Addressed { issue: 1, resolution: Resolution::Disputed, note: "the caller checks".into() };
        let rounds = vec![
            round(1, &[Severity::Critical, Severity::Minor], vec![]),
            round(2, &[Severity::Major], vec![disputed]),
        ];
        let s = summarize(&rounds, &[fixed(1)]);
        let first = &s.detailed[0].issues;
        assert_eq!(first[0].resolution, "disputed");
        assert_eq!(first[0].note.as_deref(), Some("the caller checks"));
        assert_eq!(first[1].resolution, "not answered");
        assert_eq!(s.detailed[1].issues[0].resolution, "fixed", "the round being judged answers the last one");
    }
}
