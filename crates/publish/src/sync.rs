//! Carrying out a plan on a host: new comments in one batch, then edits and
//! resolutions, then the overview, so the overview always describes what the
//! pull request now shows.

use crate::PublishError;
use crate::body::{self, OverviewFacts};
use crate::dismissal::Dismissals;
use crate::history::touches;
use crate::host::{CodeHost, Existing, NewComment};
use crate::marker::{Gone, Held, OverviewMarker, path_tag};
use crate::plan::{Action, Candidate, Options, Plan, Reviewed, plan_sync};
use crate::suggest::Dialect;
use gauntlet_change::{FileDiff, FileStatus};
use gauntlet_review::Review;
use gauntlet_review::contract::Location;
use std::collections::BTreeSet;

/// What to publish.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    pub review: &'a Review,
    /// The review's published findings in rank order, with their anchors.
    pub candidates: Vec<Candidate<'a>>,
    pub marker: OverviewMarker,
    pub cap: usize,
    /// Paths this run reviewed.
    pub reviewed: Reviewed,
    /// Lines for the overview about how the run went.
    pub notes: Vec<String>,
    /// The verdict on what people did on the existing threads
    /// ([`crate::dismissal::check`]); the overview lists it.
    pub dismissals: Dismissals,
    /// What changed (`git diff -U0`) from the head the last overview records to
    /// this run's head; `None` when that is unknown. A held finding this run
    /// drops counts as fixed only when these changes touch its line.
    pub since_last: Option<Vec<FileDiff>>,
    /// Files that decide how gauntlet reviews (rule files, the lock,
    /// `gauntlet.toml`, ...) which the pull request changes: `ci` reviewed with
    /// the base's, and the overview says so.
    pub unapplied_rules: Vec<String>,
}

/// Most findings an overview remembers as gone; the oldest are dropped first.
pub const MAX_GONE: usize = 200;

/// Most characters the marker's list of gone findings may take: reviewer names
/// are rule names of any length, and the marker must never crowd the overview
/// out of a host's limit on a comment (GitHub's is 65,536). The oldest entries
/// are dropped first here too.
pub const MAX_GONE_CHARS: usize = 12_000;

/// What a sync did, for the log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub created: usize,
    pub updated: usize,
    pub reopened: usize,
    pub resolved: usize,
    pub unchanged: usize,
    pub dismissed: usize,
    /// Findings placed in the overview.
    pub in_overview: usize,
    pub over_cap: usize,
    pub overview_created: bool,
    /// The overview's text as this sync wrote it, for the caller to keep a record
    /// of ([`Existing::marker`] believes an overview only as far as it can check it).
    pub overview: String,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} created, {} updated, {} reopened, {} resolved, {} unchanged, {} in the overview ({} over the cap), {} dismissed earlier; overview {}",
            self.created,
            self.updated,
            self.reopened,
            self.resolved,
            self.unchanged,
            self.in_overview,
            self.over_cap,
            self.dismissed,
            if self.overview_created { "created" } else { "updated" }
        )
    }
}

/// What [`sync`] would do with `request`, without doing it: which findings get
/// a new comment, for instance, and so are worth a fix (`--suggest`).
pub fn preview(existing: &Existing, request: &Request<'_>, dialect: Dialect) -> Plan {
    let mut candidates = request.candidates.clone();
    if existing.inline_blocked.is_some() {
        candidates.iter_mut().for_each(|c| c.anchor = None);
    }
    let opts = Options {
        cap: request.cap,
        reviewed: &request.reviewed,
        head: &request.review.head,
        dialect,
        dismissals: &request.dismissals,
    };
    let mut plan = plan_sync(&existing.threads, &candidates, &opts);
    plan.carried = carried(existing, request);
    // The comments this run writes carry its era, so their outcomes are counted
    // with the rules and model that raised them.
    if let Some(era) = &request.marker.era {
        for action in &mut plan.actions {
            if let Action::Create { body, .. } | Action::Update { body, .. } = action {
                *body = crate::marker::stamp_era(body, era);
            }
        }
    }
    plan
}

/// The last overview's marker, as far as it can be trusted to be the
/// pipeline's. When someone else edited the overview ([`Existing::overview_edited`]),
/// its gone findings and its held ones' lines, reviewers and eras may be theirs:
/// only what makes `--fail-on` stricter is kept (the held findings' ids,
/// severities and paths), so the record never counts an outcome they wrote.
fn last_marker(existing: &Existing) -> Option<OverviewMarker> {
    let mut marker = OverviewMarker::parse(&existing.overview.as_ref()?.body)?;
    if existing.overview_edited.is_some() {
        marker.gone.clear();
        for h in marker.held.iter_mut().flatten() {
            (h.line, h.reviewers, h.era) = (None, Vec::new(), None);
        }
    }
    Some(marker)
}

/// The findings the last overview held, or listed open in a thread that is gone
/// ([`crate::standing::orphans`]), that this run leaves standing: not raised
/// again by it, on a path it did not review. A full review of every path
/// carries nothing: what it does not raise again is gone.
fn carried(existing: &Existing, request: &Request<'_>) -> Vec<Held> {
    if request.reviewed == Reviewed::All {
        return Vec::new();
    }
    let old = last_marker(existing).and_then(|m| m.held).unwrap_or_default();
    let raised: BTreeSet<&str> = request.candidates.iter().map(|c| c.finding.id.as_str()).collect();
    let mut seen = BTreeSet::new();
    old.into_iter()
        .chain(crate::standing::orphans(existing))
        .filter(|h| !raised.contains(h.id.as_str()) && !request.reviewed.contains_tag(&h.path))
        .filter(|h| !request.dismissals.is_finding_dismissed(&h.id))
        .filter(|h| seen.insert(h.id.clone()))
        .collect()
}

/// What the new overview's marker records as held: this run's overview
/// findings, in this run's era, and those carried over, in the era of the run
/// that raised them.
fn held(request: &Request<'_>, plan: &Plan) -> Vec<Held> {
    let here = plan.overview.iter().map(|&i| {
        let p = request.candidates[i].finding;
        Held {
            id: p.id.clone(),
            severity: p.severity,
            path: path_tag(crate::plan::path_of(p)),
            line: Location::parse(&p.location).map(|l| l.start),
            reviewers: if p.raised_by.is_empty() { vec![p.reviewer.clone()] } else { p.raised_by.clone() },
            era: request.marker.era.clone(),
        }
    });
    here.chain(plan.carried.iter().cloned()).collect()
}

/// What the new overview's marker records as gone, and how many of the oldest
/// entries [`MAX_GONE`] and [`MAX_GONE_CHARS`] cut: the earlier overview's gone
/// findings, less those this run shows again, and the findings it held that
/// this run left out of `held` without raising them again on the pull request
/// (so their file was reviewed), or that were dismissed. An entry without its line or reviewers
/// (an older marker) cannot be counted, so it is not kept.
fn gone(existing: &Existing, request: &Request<'_>, held: &[Held]) -> (Vec<Gone>, usize) {
    let Some(old) = last_marker(existing) else {
        return (Vec::new(), 0);
    };
    let raised: BTreeSet<&str> = request.candidates.iter().map(|c| c.finding.id.as_str()).collect();
    let kept: BTreeSet<&str> = held.iter().map(|h| h.id.as_str()).collect();
    // Shown again: in the overview, or raised and not dismissed (so inline).
    let back = |id: &str| kept.contains(id) || (raised.contains(id) && !request.dismissals.is_finding_dismissed(id));
    let mut gone: Vec<Gone> = old.gone.into_iter().filter(|g| !back(&g.id)).collect();
    for h in old.held.unwrap_or_default().into_iter().filter(|h| !back(&h.id)) {
        let Some(line) = h.line.filter(|_| !h.reviewers.is_empty()) else { continue };
        let fixed = touched(request.since_last.as_deref(), &h.path, line);
        gone.retain(|g| g.id != h.id);
        gone.push(Gone { id: h.id, severity: h.severity, fixed, reviewers: h.reviewers, era: h.era });
    }
    // The newest entries that fit, each with the `+` that joins it to the next.
    let mut size = 0;
    let fit = gone.iter().rev().take_while(|g| {
        size += g.rendered_len() + 1;
        size <= MAX_GONE_CHARS + 1
    });
    let cut = gone.len() - fit.count().min(MAX_GONE);
    gone.drain(..cut);
    (gone, cut)
}

/// Whether `diffs` (unknown: no) change line `line`, on the old side, of the
/// file whose [`path_tag`] is `path`. A deleted file's every line changed; a
/// copy leaves its source as it was.
fn touched(diffs: Option<&[FileDiff]>, path: &str, line: u32) -> bool {
    let from =
        |d: &&FileDiff| d.status != FileStatus::Copied && d.old_path.as_deref().is_some_and(|p| path_tag(p) == path);
    let files = diffs.unwrap_or_default().iter().filter(from);
    files.flat_map(|d| &d.hunks).any(|h| {
        // `git diff` numbers a pure insertion by the old line it follows.
        let start = if h.old_lines == 0 { h.old_start + 1 } else { h.old_start };
        touches(start, h.old_lines, line, line)
    })
}

/// Publish `request` to `host`, given what `existing` found there.
pub async fn sync(host: &dyn CodeHost, existing: &Existing, mut request: Request<'_>) -> Result<Summary, PublishError> {
    let head = request.review.head.clone();
    let plan = preview(existing, &request, host.dialect());
    if let Some(why) = &existing.inline_blocked {
        request.notes.push(format!("New findings are listed here instead of inline: {why}."));
    }
    if plan.over_cap > 0 {
        request.notes.push(format!(
            "At most {} comments are opened per run (`gauntlet ci --max-comments`); {} more findings are listed here.",
            request.cap, plan.over_cap
        ));
    }
    if !plan.carried.is_empty() {
        let ids: Vec<String> = plan.carried.iter().map(|h| format!("{} ({})", h.id, h.severity.as_str())).collect();
        request.notes.push(format!(
            "Still standing from an earlier run, on files this run did not review (listed in full in that run's log): {}.",
            ids.join(", ")
        ));
    }
    if let Some(why) = &existing.overview_edited {
        request.notes.push(format!(
            "This overview cannot be taken as gauntlet's own ({why}), so the findings it remembered as gone, and the lines and reviewers of those it held, were not carried over: gauntlet stats does not count them."
        ));
    }
    if !existing.unread.is_empty() {
        request.notes.push(format!(
            "Not everything on the pull request could be read, so a dismissal there was not seen: {}.",
            existing.unread.join("; ")
        ));
    }
    let held = held(&request, &plan);
    let (gone, cut) = gone(existing, &request, &held);
    if cut > 0 {
        request.notes.push(format!(
            "This overview remembers at most {MAX_GONE} findings a later run no longer found, in at most {MAX_GONE_CHARS} characters; the {cut} oldest were dropped, so gauntlet stats no longer counts them."
        ));
    }
    request.marker.held = Some(held);
    request.marker.gone = gone;
    request.marker.open = Some(crate::standing::open(existing, &plan, &request.candidates));
    let mut summary = Summary::default();
    apply(host, existing, &plan, &head, &mut summary).await.map_err(|e| partial(e, &summary, "did not"))?;
    let facts = OverviewFacts {
        findings: plan.overview.iter().map(|&i| request.candidates[i].finding).collect(),
        inline: plan.open_inline(),
        dismissed: plan.dismissed.len(),
        notes: request.notes,
        dismissals: body::dismissal_lines(&existing.threads, &request.dismissals),
        unapplied_rules: request.unapplied_rules,
    };
    let overview = body::overview(request.review, &request.marker, &facts);
    host.upsert_overview(existing.overview.as_ref().map(|o| &o.handle), &overview)
        .await
        .map_err(|e| partial(e, &summary, "could not"))?;
    summary.overview_created = existing.overview.is_none();
    summary.dismissed = plan.dismissed.len();
    summary.in_overview = plan.overview.len();
    summary.over_cap = plan.over_cap;
    summary.overview = overview;
    Ok(summary)
}

/// A failure to open comment `i` of `n` on a host that opens them one at a time.
pub(crate) fn created_before(error: PublishError, i: usize, n: usize) -> PublishError {
    if i == 0 {
        return error;
    }
    error.after(format!("created {i} of {n} new comment thread(s) and did not update the overview"))
}

/// `error`, saying what had been written before it when anything had. The
/// overview goes last, so a failure always leaves it unwritten.
fn partial(error: PublishError, summary: &Summary, overview: &str) -> PublishError {
    let counts = [
        (summary.created, "created"),
        (summary.updated, "updated"),
        (summary.reopened, "reopened"),
        (summary.resolved, "resolved"),
    ];
    let done: Vec<String> = counts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{what} {n}")).collect();
    if done.is_empty() {
        return error;
    }
    error.after(format!("{} comment thread(s) and {overview} update the overview", done.join(", ")))
}

/// Carry out `plan`, counting in `summary` what went through, so a failure part-way
/// can say what had been done.
async fn apply(
    host: &dyn CodeHost,
    existing: &Existing,
    plan: &Plan,
    head: &str,
    summary: &mut Summary,
) -> Result<(), PublishError> {
    let new: Vec<NewComment> = plan
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::Create { anchor, body, .. } => Some(NewComment { anchor: anchor.clone(), body: body.clone() }),
            _ => None,
        })
        .collect();
    if !new.is_empty() {
        host.create(head, &new).await?;
        summary.created = new.len();
    }
    for action in &plan.actions {
        match action {
            Action::Create { .. } => {}
            Action::Update { thread, body, reopen, .. } => {
                host.update(&existing.threads[*thread].handle, body, *reopen).await?;
                if *reopen { summary.reopened += 1 } else { summary.updated += 1 }
            }
            Action::Resolve { thread, body } => {
                host.resolve(&existing.threads[*thread].handle, body).await?;
                summary.resolved += 1;
            }
            Action::Leave { .. } => summary.unchanged += 1,
        }
    }
    Ok(())
}
