//! Posting a finished review, and saying loudly when that was impossible.

use super::Poster;
use super::scope::Scope;
use crate::ci_env::CiContext;
use crate::commands::review::Prepared;
use crate::interrupt;
use anyhow::{Context, Result};
use gauntlet_change::git::Git;
use gauntlet_change::{ChangedFile, FileDiff, FileStatus};
use gauntlet_loop::engine::Settings as LoopSettings;
use gauntlet_publish::standing::{self, Standing};
use gauntlet_publish::{
    Candidate, Existing, FindingMarker, OverviewMarker, Policy, Request, Reviewed, anchor, dismissal,
};
use gauntlet_review::Review;
use gauntlet_review::contract::Location;
use gauntlet_review::finding::DropReason;
use std::collections::BTreeSet;
use std::io::Write;

/// What the review covered, for placing and scoping the comments.
pub struct Target<'a> {
    pub git: &'a Git,
    pub merge_base: &'a str,
    pub scope: &'a Scope,
    pub prepared: &'a Prepared,
    pub digest: String,
    /// The standard-tier model (`provider:model`, empty when none is set); with
    /// the rules version it makes the era the overview and new comments record.
    pub model: String,
    /// Which blocking mode applied and why, for the overview.
    pub mode_note: Option<String>,
    /// That the review is incomplete, naming what could not be validated, for
    /// the overview (see [`super::incomplete_note`]).
    pub incomplete_note: Option<String>,
    /// Comments to open per run at most.
    pub cap: usize,
    /// `--suggest`: the fix loop to run for new comments before posting.
    pub suggest: Option<LoopSettings>,
    /// Who besides writers may dismiss findings.
    pub policy: Policy,
    /// The files that decide how gauntlet reviews which this pull request
    /// changes; the review used the base's (see [`crate::trusted`]).
    pub unapplied_rules: Vec<String>,
    /// Where the overview this run writes is remembered, for the next run to check.
    pub seal: &'a super::seal::Seal,
}

/// What an interruption before posting leaves behind.
const STOPPED: &str = "nothing was posted to the pull request, and the temporary worktrees were removed";

/// `Ok(summary line)` when posted, `Err(why not)` otherwise.
pub type Posted = Result<String, NotPosted>;

/// Why posting did not finish, and whether part of it reached the pull request.
#[derive(Clone, Debug)]
pub struct NotPosted {
    pub why: String,
    /// Some comments were written before the failure (the overview never is).
    pub partly: bool,
    /// The failing write may have been stored: the host answered 5xx or not at all.
    pub uncertain: bool,
}

impl NotPosted {
    fn nothing(why: String) -> NotPosted {
        NotPosted { why, partly: false, uncertain: false }
    }
}

/// What decides the exit code besides this run's own findings.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Ids of the published findings a person dismissed on the pull request.
    pub dismissed: BTreeSet<String>,
    /// Findings of earlier runs this run left standing without raising them.
    pub standing: Vec<Standing>,
}

/// Post `review`, last and in one sync: fixes (`--suggest`) are all done before
/// the first comment goes out. Also says which findings were dismissed and
/// which earlier ones still stand (none known when the pull request could not
/// be read). `Err` only for an interruption before posting.
pub fn post(
    runtime: &tokio::runtime::Runtime,
    poster: &mut Poster,
    review: &Review,
    target: &Target<'_>,
) -> Result<(Posted, Tally)> {
    if let (Ok((host, _)), Some(secs)) = (poster.as_mut(), target.prepared.settings.file.network.max_retry_after_secs) {
        // A host that refuses a write for its rate limit is waited out (as the
        // model's provider is) for at most this long; the reads before it used
        // the default.
        host.wait_at_most(std::time::Duration::from_secs(secs));
    }
    let (host, existing) = match poster.as_ref() {
        Ok((host, existing)) => (host, existing),
        Err(why) => return Ok((Err(NotPosted::nothing(why.clone())), Tally::default())),
    };
    // Anchors come from the pull request's whole diff (what the host shows),
    // even when only part of it was reviewed.
    let diffs = match target.git.diff(&[target.merge_base, &review.head, "--"]).map_err(|e| e.to_string()) {
        Ok(text) => gauntlet_change::parse_patch(&text).map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    let diffs = match diffs {
        Ok(d) => d,
        Err(why) => return Ok((Err(NotPosted::nothing(why)), Tally::default())),
    };
    let candidates = review
        .published
        .iter()
        .map(|p| Candidate { finding: p, anchor: place(&diffs, &p.location, p.inline), fix: None })
        .collect();
    let mut notes = Vec::new();
    let reviewed = reviewed_scope(review, existing, &target.prepared.change.files, target.scope, &mut notes);
    notes.extend(target.mode_note.clone());
    notes.extend(target.incomplete_note.clone());
    let marker = OverviewMarker {
        head: review.head.clone(),
        rules: review.rules_version.clone(),
        config: target.digest.clone(),
        held: None,
        era: Some(gauntlet_publish::marker::era_tag(target.prepared.all_rules_version(), &target.model)),
        gone: Vec::new(),
        // Either leaves part of the change unjudged: the next run reviews it all again.
        incomplete: !review.undecided().is_empty() || !review.failed_sessions().is_empty(),
        open: None,
    };
    let since_last = since_last(target.git, existing, &review.head);
    let dismissals = interrupt::block_on(runtime, STOPPED, dismissal::check(host.as_ref(), existing, target.policy))?;
    let unapplied_rules = target.unapplied_rules.clone();
    let mut request = Request {
        review,
        candidates,
        marker,
        cap: target.cap,
        reviewed,
        notes,
        dismissals,
        since_last,
        unapplied_rules,
    };
    if let Some(settings) = &target.suggest {
        let fixes =
            super::suggest::Fixes { git: target.git, prepared: target.prepared, review, settings, diffs: &diffs };
        fixes.attach(runtime, existing, &mut request, STOPPED)?;
    }
    let plan = gauntlet_publish::preview(existing, &request, host.dialect());
    let dismissed = plan.dismissed.iter().map(|&i| request.candidates[i].finding.id.clone()).collect();
    let tally = Tally { dismissed, standing: standing::standing(existing, &plan) };
    interrupt::check(STOPPED)?;
    // Posting is not raced against a signal: once begun, it finishes, so the pull
    // request never shows half a run.
    let guard = interrupt::posting();
    let summary = runtime.block_on(gauntlet_publish::sync(host.as_ref(), existing, request));
    drop(guard);
    let summary = summary.map_err(|e| {
        let why = if e.is_denied() {
            format!("{e}. The token may not write to this pull request: a pull request from a fork gets a read-only token; GitHub needs `permissions: pull-requests: write`, GitLab a project access token with the `api` scope, Azure DevOps the build identity's \"Contribute to pull requests\" permission")
        } else {
            e.to_string()
        };
        NotPosted { why, partly: e.posted_something(), uncertain: e.outcome_unknown() }
    });
    if let Ok(summary) = &summary {
        target.seal.keep(&summary.overview);
    }
    Ok((summary.map(|summary| format!("posted to {}: {summary}", host.name())), tally))
}

/// What this run reviewed, for carrying over what it did not, with the notes the
/// overview gives about it. Left out are files whose findings the run could not
/// raise again: files the review left out (binary, too large, ignored), files a
/// finding the validator failed on sits in, and files of earlier threads whose
/// finding could not be verified either way this time. A review whose reviewer
/// session failed, or whose context could not be gathered, reviewed nothing
/// earlier findings can be judged by: it resolves nothing.
fn reviewed_scope(
    review: &Review,
    existing: &Existing,
    files: &[ChangedFile],
    scope: &Scope,
    notes: &mut Vec<String>,
) -> Reviewed {
    let mut left_out: BTreeSet<String> = review.not_reviewed.iter().map(|n| n.path.clone()).collect();
    let not_validated = review.dropped.iter().filter(|d| d.reason == DropReason::NotValidated);
    left_out.extend(not_validated.filter_map(|d| Location::parse(&d.location)).map(|l| l.path));
    let unverified: BTreeSet<&str> = review.unverified.iter().map(|p| p.id.as_str()).collect();
    let undecided = |t: &&gauntlet_publish::Thread| {
        FindingMarker::parse(&t.body).is_some_and(|m| unverified.contains(m.id.as_str()))
    };
    left_out.extend(existing.threads.iter().filter(undecided).map(|t| t.path.clone()));
    let failed = review.gaps.iter().filter(|g| g.step == "find" || g.step == "context").count();
    let failed = failed.max(review.find_failures);
    if failed > 0 {
        notes.push(format!(
            "{failed} reviewer session(s) failed or lacked their context (see the coverage gaps), so this run marks no earlier finding resolved."
        ));
        return Reviewed::Only(BTreeSet::new());
    }
    match scope {
        Scope::Since { last } => {
            notes.push(format!(
                "Incremental review: only what changed since {} (the last reviewed head); comments on other files carry over. Run `gauntlet ci --full` to review everything.",
                super::short(last)
            ));
            Reviewed::Only(reviewed(files, &left_out))
        }
        Scope::Full { note } => {
            notes.extend(note.clone());
            if left_out.is_empty() { Reviewed::All } else { Reviewed::AllBut(left_out) }
        }
        Scope::Same { .. } if left_out.is_empty() => Reviewed::All,
        Scope::Same { .. } => Reviewed::AllBut(left_out),
    }
}

/// The paths a run reviewed, for carrying over what it did not: every changed
/// file but those in `left_out` (left out of the review, or holding a finding
/// that could not be verified), whose findings it could not have raised again; and a renamed
/// file's old path too, since a finding an earlier run placed there is on this
/// file and would otherwise be carried over for ever.
fn reviewed(files: &[ChangedFile], left_out: &BTreeSet<String>) -> BTreeSet<String> {
    let seen = files.iter().map(|f| &f.diff).filter(|d| !left_out.contains(d.path()));
    let renamed_from = |d: &FileDiff| d.old_path.clone().filter(|_| d.status == FileStatus::Renamed);
    seen.flat_map(|d| [Some(d.path().to_string()), renamed_from(d)]).flatten().collect()
}

/// For a run that reviews nothing (its head was reviewed already): the findings
/// that stand on the pull request, or `None` when the pull request cannot be
/// read or its overview predates the record of the findings it holds.
pub fn unreviewed(runtime: &tokio::runtime::Runtime, poster: &Poster, policy: Policy) -> Result<Option<Tally>> {
    let Ok((host, existing)) = poster.as_ref() else { return Ok(None) };
    let dismissals = interrupt::block_on(runtime, super::STOPPED, dismissal::check(host.as_ref(), existing, policy))?;
    let standing = standing::without_review(existing, &dismissals);
    Ok(standing.map(|standing| Tally { dismissed: BTreeSet::new(), standing }))
}

/// What changed from the head the pull request's overview last recorded to
/// `head`, line by line (`git diff -U0`), so a finding the overview held and
/// this run drops can be told fixed from withdrawn; `None` when there is no
/// such overview or git cannot compare the two (an earlier head a force-push
/// left out of this clone, say).
fn since_last(git: &Git, existing: &Existing, head: &str) -> Option<Vec<FileDiff>> {
    let last = existing.marker()?.head;
    // Only a commit id goes to git as an argument.
    let last = Some(last).filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))?;
    let text = git.diff(&["--unified=0", &last, head, "--"]).ok()?;
    gauntlet_change::parse_patch(&text).ok()
}

fn place(diffs: &[FileDiff], location: &str, inline: bool) -> Option<gauntlet_publish::Anchor> {
    let location = Location::parse(location).filter(|_| inline)?;
    anchor::place(diff_of(diffs, &location.path)?, location.start, location.end)
}

/// The pull request's diff of the file at head path `path`.
pub fn diff_of<'d>(diffs: &'d [FileDiff], path: &str) -> Option<&'d FileDiff> {
    diffs.iter().find(|d| d.new_path.as_deref() == Some(path))
}

/// Report how posting went, loudly when nothing was posted, and write the job
/// summary where the CI system has one.
pub fn summary(ctx: &CiContext, review: &Review, posted: &Posted) -> Result<()> {
    let status = match posted {
        Ok(line) => {
            crate::progress::say!("gauntlet: {line}");
            None
        }
        Err(failed) => {
            let bar = "=".repeat(72);
            let also = if ctx.summary_file.is_some() { " and in the job summary" } else { "" };
            let headline = if failed.partly {
                "POSTING STOPPED PART-WAY: the pull request shows only part of this review"
            } else if failed.uncertain {
                "POSTING MAY NOT HAVE COMPLETED: the host's answer leaves it unknown whether the review was stored"
            } else {
                "NOTHING WAS POSTED to the pull request."
            };
            eprintln!(
                "gauntlet: {bar}\ngauntlet: {headline}\ngauntlet: why: {}\ngauntlet: the full review is printed above{also}.\ngauntlet: {bar}",
                failed.why
            );
            Some(failed.clone())
        }
    };
    let Some(path) = &ctx.summary_file else { return Ok(()) };
    let mut text = String::new();
    if let Some(failed) = status {
        let headline = if failed.partly {
            "Posting stopped part-way"
        } else if failed.uncertain {
            "Posting may not have completed"
        } else {
            "Nothing was posted to the pull request"
        };
        text.push_str(&format!("> **{headline}:** {}\n\n", gauntlet_report::markdown::text(&failed.why)));
    }
    text.push_str(&gauntlet_report::render(review, gauntlet_report::Format::Markdown, &Default::default()));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open the job summary {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(patch: &str) -> Vec<ChangedFile> {
        let file = |diff| ChangedFile { diff, head_text: Some(String::new()), unreadable: None };
        gauntlet_change::parse_patch(patch).unwrap().into_iter().map(file).collect()
    }

    #[test]
    fn a_file_the_review_left_out_is_not_reviewed() {
        let patch = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-a\n+b\n\
                     diff --git a/big.rs b/big.rs\n--- a/big.rs\n+++ b/big.rs\n@@ -1 +1 @@\n-a\n+b\n";
        let left_out = BTreeSet::from(["big.rs".to_string()]);
        assert_eq!(reviewed(&files(patch), &left_out), BTreeSet::from(["src/a.rs".to_string()]));
    }

    #[test]
    fn a_renamed_file_counts_under_its_old_path_too() {
        let patch = "diff --git a/src/old.rs b/src/new.rs\nsimilarity index 90%\nrename from src/old.rs\n\
                     rename to src/new.rs\n--- a/src/old.rs\n+++ b/src/new.rs\n@@ -1 +1 @@\n-a\n+b\n\
                     diff --git a/src/c.rs b/src/d.rs\nsimilarity index 100%\ncopy from src/c.rs\ncopy to src/d.rs\n";
        let want = ["src/d.rs", "src/new.rs", "src/old.rs"].map(String::from);
        assert_eq!(
            reviewed(&files(patch), &BTreeSet::new()),
            BTreeSet::from(want),
            "a copy leaves its source as it was"
        );
        let left_out = BTreeSet::from(["src/new.rs".to_string()]);
        assert_eq!(reviewed(&files(patch), &left_out), BTreeSet::from(["src/d.rs".to_string()]));
    }
}
