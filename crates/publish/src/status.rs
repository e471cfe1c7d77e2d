//! The run's verdict where each host shows one, next to the comments: a check
//! run named `gauntlet` with an annotation per finding on GitHub, a pull
//! request status (`gauntlet/gauntlet`) on Azure DevOps. GitLab has no such
//! place a job token may write; the job's Code Quality report artifact
//! (`gauntlet ci --codequality`) plays that part there.
//!
//! Findings a person dismissed are never part of a status: the caller leaves
//! them out of [`Status::findings`] and counts them in [`Status::dismissed`].
//!
//! A run that could not validate a candidate at or above the blocking severity,
//! or one where a reviewer session did not run to the end, is
//! [`Verdict::Incomplete`], never passed: a provider outage, or a prompt that
//! knocks the validator or a reviewer off its contract, must not turn a blocking
//! finding (found, or never found) into a green check.

use gauntlet_review::contract::Severity;
use gauntlet_review::review::{Gap, Published, Undecided};

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
    /// Blocking applied, nothing failed the run, but a candidate at or above its
    /// severity could not be validated either way, or a reviewer session did not
    /// run to the end: the run cannot tell whether it passes, so it does not.
    Incomplete,
    /// No review ran: the CI system gave this run no model key by design (a pull
    /// request from a fork). With blocking asked for (`blocking`), that cannot
    /// pass a required check; without, it is neutral. [`Status::notes`] says why.
    NotReviewed { blocking: bool },
}

impl Verdict {
    /// GitHub's check-run conclusion.
    pub fn conclusion(self) -> &'static str {
        match self {
            Verdict::Advisory | Verdict::NotReviewed { blocking: false } => "neutral",
            Verdict::Passed => "success",
            // GitHub passes a required check on `neutral` and `skipped` too, so
            // an undecided blocking candidate, or a blocking run that reviewed
            // nothing, can only be a failure there.
            Verdict::Failed | Verdict::Incomplete | Verdict::NotReviewed { blocking: true } => "failure",
        }
    }

    /// Azure DevOps' status state. Advisory is `notApplicable`, which the API
    /// describes as "not applicable to the target object": no verdict was
    /// asked for, and `succeeded` would read as one.
    pub fn azure_state(self) -> &'static str {
        match self {
            Verdict::Advisory | Verdict::NotReviewed { blocking: false } => "notApplicable",
            Verdict::Passed => "succeeded",
            Verdict::Failed => "failed",
            // "Status with an error": the run could not finish its verdict. A
            // status policy passes on `succeeded` only, so this blocks as `failed` does.
            Verdict::Incomplete | Verdict::NotReviewed { blocking: true } => "error",
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
    /// Candidates this run could not validate either way (see
    /// [`gauntlet_review::Review::undecided`]), every one of them, named by
    /// [`Status::lines`].
    pub undecided: Vec<Undecided<'a>>,
    /// Of `undecided`, how many keep the run from passing: those at or above
    /// `fail_on` that may block, or, when advisory, all of them (which then make
    /// the headline say the review is incomplete).
    pub incomplete: usize,
    /// Reviewer sessions that did not run to the end (see
    /// [`gauntlet_review::review::Gap::failed`]) and keep the run from passing, or,
    /// when advisory, make the headline say the review is incomplete.
    pub unfinished: Vec<&'a Gap>,
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
    /// runs says so, one that passed with findings held back counts them, and one
    /// that could not validate a candidate says it is incomplete.
    pub fn headline(&self) -> String {
        let n = self.findings.len();
        let findings = if n == 1 { "1 finding".to_string() } else { format!("{n} findings") };
        let unfinished = self.unfinished_words();
        match (self.verdict, self.fail_on) {
            (Verdict::NotReviewed { .. }, Some(min)) => {
                format!("not reviewed, so not passed: no model key reached this run (--fail-on {})", min.as_str())
            }
            (Verdict::NotReviewed { .. }, None) => "not reviewed: no model key reached this run".to_string(),
            (Verdict::Failed, Some(min)) => {
                let min = min.as_str();
                let earlier = match self.standing {
                    0 => String::new(),
                    1 => ", and 1 of an earlier run that still stands".to_string(),
                    s => format!(", and {s} of earlier runs that still stand"),
                };
                let mut more = match self.incomplete {
                    0 => String::new(),
                    i => format!("; {i} more at or above {min} could not be validated"),
                };
                if let Some(words) = &unfinished {
                    more.push_str(&format!("; {words}"));
                }
                format!("failed: {} of {findings} at or above {min}{earlier}{more} (--fail-on)", self.blocking())
            }
            (Verdict::Incomplete, Some(min)) => {
                let undecided = (self.incomplete > 0)
                    .then(|| format!("{} at or above {} could not be validated", self.incomplete, min.as_str()));
                let why: Vec<String> = undecided.into_iter().chain(unfinished).collect();
                format!("incomplete: {findings}; {}, so the run cannot pass (--fail-on)", why.join(" and "))
            }
            (Verdict::Passed, Some(min)) if self.held_back > 0 => format!(
                "passed: {findings}; {} at or above {} raised only by reviewers below the bar (--fail-on)",
                self.held_back,
                min.as_str()
            ),
            (Verdict::Passed, Some(min)) => {
                format!("passed: {findings}, none at or above {} (--fail-on)", min.as_str())
            }
            // Blocking applied but the run reviewed nothing new (a push the gate
            // set aside): not failed by what stands, and not a pass either.
            (Verdict::Advisory, Some(min)) => {
                format!(
                    "not reviewed: nothing that stands reaches {} (--fail-on), and this push was not reviewed",
                    min.as_str()
                )
            }
            _ if self.incomplete > 0 || unfinished.is_some() => {
                let undecided =
                    (self.incomplete > 0).then(|| format!("{} could not be validated either way", self.incomplete));
                let why: Vec<String> = undecided.into_iter().chain(unfinished).collect();
                format!("advisory, incomplete: {findings}; {}; nothing blocks without --fail-on", why.join("; "))
            }
            _ => format!("advisory: {findings}; nothing blocks without --fail-on"),
        }
    }

    /// `reviewer NAME could not finish` (`reviewers A, B could not finish`), or
    /// `None` when every reviewer session ran to the end.
    fn unfinished_words(&self) -> Option<String> {
        let mut names: Vec<&str> =
            self.unfinished.iter().map(|g| g.reviewer.as_deref().unwrap_or("(unnamed)")).collect();
        names.dedup();
        match names.as_slice() {
            [] => None,
            [one] => Some(format!("reviewer {one} could not finish")),
            many => Some(format!("reviewers {} could not finish", many.join(", "))),
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
        if !self.undecided.is_empty() {
            let names: Vec<String> = self.undecided.iter().map(|u| undecided_line(u)).collect();
            lines.push(format!(
                "Could not be validated either way, so not published (check each by hand; the overview quotes them):\n{}",
                names.join("\n")
            ));
        }
        if !self.unfinished.is_empty() {
            let names: Vec<String> = self.unfinished.iter().map(|g| unfinished_line(g)).collect();
            lines.push(format!(
                "Reviewers that could not finish, so their share of the change was not reviewed (run the job again):\n{}",
                names.join("\n")
            ));
        }
        lines.extend(self.notes.iter().cloned());
        lines
    }
}

/// One reviewer session that did not finish, in a list item: its reviewer, its
/// step and why, escaped as Markdown and cut to one line (the why is an error's
/// text, which may quote what a provider or a model sent).
fn unfinished_line(g: &Gap) -> String {
    let md = gauntlet_report::markdown::text;
    let who = g.reviewer.as_deref().unwrap_or("(unnamed)");
    let why = gauntlet_report::plain::line(&g.message, 300);
    format!("- reviewer {} ({}): {}", md(who), md(&g.step), md(&why))
}

/// One candidate in a list item: severity, place and reviewer, never its claim
/// (model text); the place is a path from the change, escaped as Markdown since
/// GitHub renders a check run's summary.
fn undecided_line(u: &Undecided<'_>) -> String {
    let at = gauntlet_report::markdown::text(u.location);
    format!("- {} finding at {at} (reviewer {})", u.severity.as_str(), gauntlet_report::markdown::text(u.reviewer))
}
