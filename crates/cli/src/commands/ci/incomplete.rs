//! What keeps a run from passing although nothing it published fails it: the
//! review did not finish. Two things leave it unfinished: a candidate that could
//! not be validated either way ([`Review::undecided`]), and a reviewer session
//! that did not run to the end ([`Review::failed_sessions`]), whose share of the
//! change nobody reviewed. Either may hide a real defect, so under `--fail-on`
//! either makes the run incomplete ([`super::INCOMPLETE`]), never passed. Files
//! left out on purpose (too large, binary, ignored) are not part of it: they are
//! listed as not reviewed, and the size limits and ignore lists are the
//! repository's own policy.

use super::Blocking;
use gauntlet_review::Review;
use gauntlet_review::contract::Severity;
use gauntlet_review::review::{Gap, Undecided};

/// Why a run could not finish its verdict (empty: it could).
#[derive(Clone, Debug, Default)]
pub(super) struct Incomplete<'r> {
    /// Candidates that could not be validated either way and count.
    pub undecided: Vec<Undecided<'r>>,
    /// Reviewer sessions that did not run to the end and count.
    pub failed: Vec<&'r Gap>,
}

impl Incomplete<'_> {
    pub fn is_empty(&self) -> bool {
        self.undecided.is_empty() && self.failed.is_empty()
    }
}

/// What keeps this run from passing: with blocking, the undecided candidates at
/// or above its severity and the failed sessions whose findings could have
/// failed the job had they been published (under earned blocking, a reviewer
/// below the bar could not, so its failure does not count); when advisory, every
/// one (nothing fails the job then, but the status says the review is incomplete).
pub(super) fn incomplete<'r>(review: &'r Review, block: &Blocking) -> Incomplete<'r> {
    let undecided = review.undecided().into_iter();
    let failed = review.failed_sessions().into_iter();
    match block.min {
        None => Incomplete { undecided: undecided.collect(), failed: failed.collect() },
        Some(min) => Incomplete {
            undecided: undecided.filter(|u| u.severity.weight() >= min.weight() && block.counts_undecided(u)).collect(),
            failed: failed.filter(|g| block.counts_reviewer(g.reviewer.as_deref())).collect(),
        },
    }
}

/// `severity finding at LOCATION (reviewer NAME)`, joined by `; `: which
/// candidates could not be validated, in gauntlet's words (no claim).
pub(super) fn name_undecided(undecided: &[Undecided<'_>]) -> String {
    let one =
        |u: &Undecided<'_>| format!("{} finding at {} (reviewer {})", u.severity.as_str(), u.location, u.reviewer);
    undecided.iter().map(one).collect::<Vec<_>>().join("; ")
}

/// `reviewer NAME (STEP): WHY`, joined by `; `: which reviewer sessions did not
/// finish and why, each why cut to one line.
pub(super) fn name_failed(failed: &[&Gap]) -> String {
    let one = |g: &&Gap| {
        let who = g.reviewer.as_deref().unwrap_or("(unnamed)");
        format!("reviewer {who} ({}): {}", g.step, gauntlet_report::plain::line(&g.message, 300))
    };
    failed.iter().map(one).collect::<Vec<_>>().join("; ")
}

/// What the overview says of an incomplete review, or `None` when it finished.
pub(super) fn note(incomplete: &Incomplete<'_>, min: Option<Severity>) -> Option<String> {
    if incomplete.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    let n = incomplete.undecided.len();
    if n > 0 {
        let what = match min {
            Some(min) => format!(
                "{n} candidate finding(s) at or above `{}` could not be validated either way, so this run cannot pass",
                min.as_str()
            ),
            None => format!("{n} candidate finding(s) could not be validated either way"),
        };
        parts.push(format!(
            "{what}: {}. Each is quoted below; run the job again to validate them, or check them by hand.",
            name_undecided(&incomplete.undecided)
        ));
    }
    let n = incomplete.failed.len();
    if n > 0 {
        let pass = if min.is_some() { ", so this run cannot pass" } else { "" };
        parts.push(format!(
            "{n} reviewer session(s) could not finish and their share of the change was not reviewed{pass}: {}. \
             Run the job again to review it.",
            name_failed(&incomplete.failed)
        ));
    }
    Some(format!("This review is incomplete: {}", parts.join(" Also, ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_publish::earned::{Bar, Earned};
    use gauntlet_publish::outcome::Tally;
    use gauntlet_review::finding::{DropReason, Dropped};
    use gauntlet_review::review::NotReviewed;

    /// Two candidates whose validation failed: a high one by `security`, a
    /// medium one by `correctness`.
    fn review() -> Review {
        let failed = |severity: Severity, reviewer: &str, location: &str| Dropped {
            reason: DropReason::NotValidated,
            detail: "the model broke the answer contract twice".into(),
            reviewer: reviewer.into(),
            location: location.into(),
            claim: "The refund is paid twice.".into(),
            severity,
            confidence: None,
        };
        let dropped =
            vec![failed(Severity::High, "security", "src/pay.py:2"), failed(Severity::Medium, "correctness", "a.py:1")];
        Review { dropped, ..Review::default() }
    }

    fn gap(reviewer: &str, failed: bool) -> Gap {
        Gap {
            step: "find".into(),
            reviewer: Some(reviewer.into()),
            finding: None,
            message: "the answer broke the findings contract twice".into(),
            failed,
        }
    }

    fn at(incomplete: &Incomplete<'_>) -> Vec<String> {
        incomplete.undecided.iter().map(|u| u.location.to_string()).collect()
    }

    /// Earned blocking where `correctness` met the bar on its own findings and
    /// `security` did not.
    fn earned(min: Severity) -> Blocking {
        let bar = Bar { window: 10, min_precision: 0.5, min_findings: 1 };
        let good = Tally { fixed: 3, ..Tally::default() };
        let reviewers = [("correctness".to_string(), good)].into_iter().collect();
        Blocking { min: Some(min), earned: Some(Earned { bar, overall: good, reviewers }) }
    }

    #[test]
    fn only_undecided_candidates_that_could_have_failed_the_job_make_it_incomplete() {
        let review = review();
        let fail_on = |min| Blocking { min, earned: None };
        assert_eq!(at(&incomplete(&review, &fail_on(Some(Severity::High)))), ["src/pay.py:2"]);
        assert_eq!(at(&incomplete(&review, &fail_on(Some(Severity::Medium)))), ["src/pay.py:2", "a.py:1"]);
        assert_eq!(at(&incomplete(&review, &fail_on(None))), ["src/pay.py:2", "a.py:1"], "advisory names them all");
        let block = earned(Severity::Medium);
        assert_eq!(at(&incomplete(&review, &block)), ["a.py:1"], "as a finding of `security` would not block");
    }

    #[test]
    fn a_failed_reviewer_session_makes_the_run_incomplete_and_a_file_left_out_does_not() {
        let left_out = Review {
            not_reviewed: vec![
                NotReviewed::new("big.sql", "too large"),
                NotReviewed::ignored("Cargo.lock", "lockfile"),
            ],
            gaps: vec![gap("correctness", false)],
            ..Review::default()
        };
        let fail_on = Blocking { min: Some(Severity::High), earned: None };
        assert!(incomplete(&left_out, &fail_on).is_empty(), "policy and a session that answered leave it complete");

        let failed = Review { gaps: vec![gap("correctness", true), gap("security", true)], ..Review::default() };
        let names = |i: &Incomplete<'_>| i.failed.iter().map(|g| g.reviewer.clone().unwrap()).collect::<Vec<_>>();
        assert_eq!(names(&incomplete(&failed, &fail_on)), ["correctness", "security"]);
        assert_eq!(names(&incomplete(&failed, &Blocking { min: None, earned: None })), ["correctness", "security"]);
        assert_eq!(names(&incomplete(&failed, &earned(Severity::High))), ["correctness"], "security could not block");
    }

    #[test]
    fn the_overview_note_names_each_candidate_without_its_claim() {
        let review = review();
        let undecided = review.undecided();
        assert_eq!(note(&Incomplete::default(), Some(Severity::High)), None);
        let one = Incomplete { undecided: undecided[..1].to_vec(), failed: Vec::new() };
        let text = note(&one, Some(Severity::High)).unwrap();
        assert!(text.starts_with("This review is incomplete: 1 candidate finding(s) at or above `high`"), "{text}");
        assert!(text.contains("high finding at src/pay.py:2 (reviewer security)"), "{text}");
        assert!(!text.contains("paid twice"), "{text}");
    }

    #[test]
    fn the_overview_note_names_each_reviewer_that_could_not_finish_and_why() {
        let review = Review { gaps: vec![gap("correctness", true)], ..Review::default() };
        let text =
            note(&incomplete(&review, &Blocking { min: Some(Severity::High), earned: None }), Some(Severity::High))
                .unwrap();
        assert!(text.starts_with("This review is incomplete: 1 reviewer session(s) could not finish"), "{text}");
        assert!(text.contains("reviewer correctness (find): the answer broke the findings contract twice"), "{text}");
        assert!(text.contains("so this run cannot pass"), "{text}");
    }
}
