//! `gauntlet ci --suggest`: a reviewed fix for each finding that this run opens a
//! comment for, made before anything is posted.
//!
//! Only new comments get fixes: a comment already on the pull request keeps its
//! first body (see `gauntlet_publish::plan`), so a fix for it would be money spent
//! on text nobody sees. The loops share what is left of the run's budget.

use crate::commands::review::Prepared;
use crate::interrupt;
use anyhow::Result;
use gauntlet_change::FileDiff;
use gauntlet_change::git::Git;
use gauntlet_loop::converge::ExitReason;
use gauntlet_loop::engine::Settings as LoopSettings;
use gauntlet_loop::fix::{FixRun, ItemResult, WorkItem, fix_all};
use gauntlet_loop::meter::Meter;
use gauntlet_publish::plan::Action;
use gauntlet_publish::suggest::propose;
use gauntlet_publish::{Anchor, Dialect, Existing, Request, ReviewedFix, Unsuitable};
use gauntlet_review::Review;

/// Everything the fix loops need.
pub struct Fixes<'a> {
    pub git: &'a Git,
    pub prepared: &'a Prepared,
    pub review: &'a Review,
    pub settings: &'a LoopSettings,
    /// The pull request's diff, whose hunks bound each suggestion.
    pub diffs: &'a [FileDiff],
}

impl Fixes<'_> {
    /// Run a fix loop for every finding `request` will open a comment for, and
    /// attach the results. `Err` when interrupted: nothing is posted then.
    pub fn attach(
        &self,
        runtime: &tokio::runtime::Runtime,
        existing: &Existing,
        request: &mut Request<'_>,
        stopped: &'static str,
    ) -> Result<()> {
        let plan = gauntlet_publish::preview(existing, request, Dialect::Plain);
        let wanted: Vec<usize> = plan
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::Create { finding, .. } => Some(*finding),
                _ => None,
            })
            .collect();
        if wanted.is_empty() {
            crate::progress::say!("gauntlet: --suggest: no new inline comment this run, so no fix to make");
            return Ok(());
        }
        let items: Vec<WorkItem> = wanted.iter().map(|&i| WorkItem::from(request.candidates[i].finding)).collect();
        let settings = &self.prepared.settings;
        let run = FixRun {
            masker: crate::commands::review::fix_masker(settings)?,
            repo: self.git.root().to_path_buf(),
            head: self.review.head.clone(),
            check: None,
            settings: *self.settings,
            jobs: settings.concurrency,
        };
        let budget = crate::commands::fix::remaining(settings.budget, &self.review.usage);
        // The fixes share the run's --timeout: the clock started with the review.
        let display = crate::progress::Display::start();
        let meter = Meter::new(self.prepared.models.clone(), settings.prices.clone(), budget)
            .with_deadline(self.prepared.opts.deadline)
            .with_progress(display.observer());
        crate::progress::say!(
            "gauntlet: --suggest: fixing {} finding(s) before posting, up to {} rounds each",
            items.len(),
            self.settings.rounds
        );
        let results = interrupt::block_on(runtime, stopped, fix_all(&items, &run, &meter))?;
        display.finish();
        for (&i, result) in wanted.iter().zip(&results) {
            let candidate = &mut request.candidates[i];
            let masker = &self.prepared.output_masker;
            candidate.fix = reviewed(result, candidate.anchor.as_ref(), self.diffs, masker);
            crate::progress::say!(
                "gauntlet: --suggest: {}: {}",
                result.item.location.replace(char::is_control, " "),
                { describe(result, candidate.fix.as_ref()) }
            );
        }
        Ok(())
    }
}

/// The loop's result as the publisher takes it; `None` when no patch survived to
/// be judged.
/// The patch is model-written, so it is masked before anything is posted.
fn reviewed(
    result: &ItemResult,
    anchor: Option<&Anchor>,
    diffs: &[FileDiff],
    masker: &gauntlet_review::secrets::Masker,
) -> Option<ReviewedFix> {
    let patch = &masker.written(result.patch()?);
    let diff = anchor.and_then(|a| super::publish::diff_of(diffs, &a.path));
    let fit = match (anchor, diff) {
        (Some(anchor), Some(diff)) => propose(patch, diff, anchor),
        _ => Err(Unsuitable::NotInline),
    };
    let exit = result.outcome.exit;
    Some(ReviewedFix {
        patch: patch.to_string(),
        converged: exit.converged(),
        rounds: result.outcome.rounds.len(),
        exit: ending(exit).to_string(),
        fit,
    })
}

/// How a loop ended, as a comment says it.
fn ending(exit: ExitReason) -> &'static str {
    match exit {
        ExitReason::Approved => "approved",
        ExitReason::OnlyMinor => "only minor issues left",
        ExitReason::Accepted => "accepted",
        ExitReason::Stale => "no progress",
        ExitReason::RoundCap => "round cap reached",
        ExitReason::Budget => "budget spent",
        ExitReason::Failed => "a model call failed",
    }
}

/// One line for the job log.
fn describe(result: &ItemResult, fix: Option<&ReviewedFix>) -> String {
    let ended = format!("{} after {} round(s)", result.outcome.exit, result.outcome.rounds.len());
    match fix {
        None => format!("{ended}; no patch to attach"),
        Some(f) if !f.converged => format!("{ended}; not converged, so only mentioned"),
        Some(ReviewedFix { fit: Ok(s), .. }) => {
            format!(
                "{ended}; suggested on lines {}-{} (hosts without suggestions get the diff)",
                s.anchor.start, s.anchor.line
            )
        }
        Some(ReviewedFix { fit: Err(why), .. }) => format!("{ended}; described, not suggested: {why}"),
    }
}
