//! The run's verdict where each host shows one, next to the comments: a check
//! run named `gauntlet` with an annotation per finding on GitHub, a pull
//! request status (`gauntlet/gauntlet`) on Azure DevOps. GitLab has no such
//! place a job token may write; the job's Code Quality report artifact
//! (`gauntlet ci --codequality`) plays that part there.
//!
//! Findings a person dismissed are never part of a status: the caller leaves
//! them out of [`Status::findings`] and counts them in [`Status::dismissed`].

use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;

/// The name every host shows the status under.
pub const NAME: &str = "gauntlet";

/// What the run decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Blocking did not apply: the findings are information, whatever they are.
    Advisory,
    /// Blocking applied and no finding nobody dismissed reached its severity.
    Passed,
    /// Blocking applied and some finding nobody dismissed reached its severity.
    Failed,
}

impl Verdict {
    /// GitHub's check-run conclusion.
    pub fn conclusion(self) -> &'static str {
        match self {
            Verdict::Advisory => "neutral",
            Verdict::Passed => "success",
            Verdict::Failed => "failure",
        }
    }

    /// Azure DevOps' status state. Advisory is `notApplicable`, which the API
    /// describes as "not applicable to the target object": no verdict was
    /// asked for, and `succeeded` would read as one.
    pub fn azure_state(self) -> &'static str {
        match self {
            Verdict::Advisory => "notApplicable",
            Verdict::Passed => "succeeded",
            Verdict::Failed => "failed",
        }
    }
}

/// The status of one run.
#[derive(Clone, Debug)]
pub struct Status<'a> {
    pub verdict: Verdict,
    /// The severity that blocks, when blocking applied.
    pub fail_on: Option<Severity>,
    /// Published findings nobody dismissed, in rank order: every one gets an
    /// annotation, those over the inline-comment cap included.
    pub findings: Vec<&'a Published>,
    /// Published findings left out because a person dismissed them.
    pub dismissed: usize,
    /// Of `findings` at or above `fail_on`, those that do not fail the run:
    /// under earned blocking, raised only by reviewers below the bar.
    pub held_back: usize,
    /// Findings of earlier runs at or above `fail_on` that still stand on the
    /// pull request: they fail the run as this run's own do.
    pub standing: usize,
    /// Lines about the run a reader of the status should know (an incremental
    /// review, say). gauntlet's own words only, never model text.
    pub notes: Vec<String>,
    /// Where the run's log is, when the CI system says.
    pub details_url: Option<String>,
}

impl Status<'_> {
    /// Findings of this run that fail it: at or above the blocking severity, and
    /// not held back.
    pub fn blocking(&self) -> usize {
        let Some(min) = self.fail_on else { return 0 };
        let at_least = self.findings.iter().filter(|p| p.severity.weight() >= min.weight()).count();
        at_least.saturating_sub(self.held_back)
    }

    /// One line: the verdict and why ("advisory: 3 findings, not blocking without --fail-on").
    /// It never contradicts the verdict: a run failed only by findings of earlier
    /// runs says so, and one that passed with findings held back counts them.
    pub fn headline(&self) -> String {
        let n = self.findings.len();
        let findings = if n == 1 { "1 finding".to_string() } else { format!("{n} findings") };
        match (self.verdict, self.fail_on) {
            (Verdict::Failed, Some(min)) => {
                let min = min.as_str();
                let earlier = match self.standing {
                    0 => String::new(),
                    1 => ", and 1 of an earlier run that still stands".to_string(),
                    s => format!(", and {s} of earlier runs that still stand"),
                };
                format!("failed: {} of {findings} at or above {min}{earlier} (--fail-on)", self.blocking())
            }
            (Verdict::Passed, Some(min)) if self.held_back > 0 => format!(
                "passed: {findings}; {} at or above {} raised only by reviewers below the bar (--fail-on)",
                self.held_back,
                min.as_str()
            ),
            (Verdict::Passed, Some(min)) => {
                format!("passed: {findings}, none at or above {} (--fail-on)", min.as_str())
            }
            _ => format!("advisory: {findings}; nothing blocks without --fail-on"),
        }
    }

    /// The headline, the dismissed count and the notes, one per line.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.headline()];
        if self.dismissed > 0 {
            lines.push(format!(
                "{} finding(s) dismissed on the pull request are left out and count for nothing.",
                self.dismissed
            ));
        }
        lines.extend(self.notes.iter().cloned());
        lines
    }
}
