//! Reading what became of the pipeline's findings on a repository's recent pull
//! requests: the host side of [`crate::outcome`].
//!
//! A [`History`] lists pull requests and, for one of them, the pipeline's finding
//! comments with what the host recorded about each. [`read`] turns that into
//! [`Record`]s: only comments the pipeline's identity opened with a finding
//! marker, and only when nobody else ever edited them (as far as the host's edit
//! records go: see [`Comment::edited`]); dismissals through
//! [`crate::dismissal::assess`] and, for a `/gauntlet dismiss <finding id>`
//! comment anywhere on the pull request, [`crate::dismissal::assess_general`]:
//! the one definition `ci` uses, with each person's write access asked once per
//! read. Nothing is stored: the next read rebuilds it all.
//!
//! Findings only the overview showed enter the record from the pipeline's
//! overview comment ([`PullRecord::overview`]): found by its marker under the
//! pipeline's identity, and left out whole when anyone else edited it (the same
//! edit checks as a finding comment). Its held findings are open or ignored,
//! its gone ones fixed or withdrawn as the marker says, each in the era its
//! entry names (none for an entry written before that was kept; the
//! overview's own era is only the last run's); a `/gauntlet dismiss
//! <finding id>` dismisses either. An id that also has a finding comment counts
//! once, from the comment. A held entry from an older marker names no
//! reviewers and counts as unreadable.
//!
//! What each host's implementation reads:
//! - GitHub: pull requests from REST `GET /pulls?state=closed&sort=updated`
//!   (`merged_at`, `closed_at`, `updated_at`); threads from GraphQL
//!   `reviewThreads` (`isResolved`, `resolvedBy`, `isOutdated`, comments with
//!   `author`, `editor`, `userContentEdits` and thumbs-down reactions) and the
//!   pull request's own `comments` (paged). Lines changed: the thread
//!   `isOutdated`. Edits: every `userContentEdits` editor and the `editor` must
//!   be the pipeline, and the edit list must be complete; the overview is the
//!   first of the pull request's comments the pipeline wrote with an overview
//!   marker, under the same edit check.
//! - GitLab: merge requests from `GET /merge_requests?state=all&order_by=updated_at`
//!   (`state`, `merged_at`, `closed_at`); discussions from REST (notes, `resolved`,
//!   `resolved_by`, `thumbsdown` awards; others' discussions for commands by id).
//!   Lines changed: the discussion holds a system note GitLab wrote when a push
//!   changed the line ("changed this line in version N of the diff"); system
//!   notes cannot be written through the API.
//!   Edits: GraphQL `Note.lastEditedBy` must be empty or the pipeline. GitLab keeps
//!   only the last editor, so a maintainer's edit later overwritten by the pipeline
//!   is not seen. The overview is the first discussion the pipeline opened with
//!   an overview marker, under the same edit check; since `ci` rewrites it every
//!   run, `ci` asks who last edited it first and, when that was anyone else,
//!   carries over none of what its marker remembers but the held findings
//!   themselves ([`crate::host::Existing::overview_edited`]).
//! - Azure DevOps: pull requests from `GET /pullrequests?searchCriteria.status=all`
//!   (`status`, `closedDate`); threads (status, system comments for who changed
//!   it; others' threads for commands by id); lines changed: the Git FileDiffs
//!   API between the commit of the iteration the comment was placed on and the
//!   pull request's last iteration, over the comment's lines. Edits: Azure DevOps lets only a comment's author
//!   edit it, so the pipeline's comment holds only the pipeline's text; no edit
//!   history is read. The overview is the first thread the pipeline opened with
//!   an overview marker.

use crate::PublishError;
use crate::dismissal::{self, Access, Form, Policy};
use crate::host::{Person, Reply, Thread};
use crate::marker::{FindingMarker, OverviewMarker};
use crate::outcome::{self, Facts, PrState, Record};
use async_trait::async_trait;
use gauntlet_review::contract::Severity;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A pull request as a listing shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pull {
    pub number: u64,
    pub state: PrState,
    /// When it was merged or closed (RFC 3339), empty while open.
    pub closed_at: String,
    /// The date the listing is sorted by (newest first), when that date is never
    /// earlier than the close (GitHub and GitLab sort by last update); lets a read
    /// stop once older pages cannot hold a pull request it wants. `None` when the
    /// host's order says nothing about close dates.
    pub listed_at: Option<String>,
}

/// One finding comment the pipeline opened, with what the host recorded on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub thread: Thread,
    /// The host reports the flagged lines changed after the comment was placed.
    pub lines_changed: bool,
    /// Who else edited the pipeline's comment, or why the host's edit record could
    /// not show that nobody did; such a comment is left out of every figure.
    pub edited: Option<LeftOut>,
}

/// Why a pipeline comment is left out of every figure: the two are told apart
/// in what `stats` reports, since only the first says anything about people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// Someone other than the pipeline edited it: who, as the host names them
    /// (or that the host no longer names the account).
    EditedBy(String),
    /// The host's answer cannot show that nobody else edited it (it did not list
    /// the edits, or listed only some), or the thread was not read in full; why.
    Unlisted(String),
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeftOut::EditedBy(who) => write!(f, "edited by {who}"),
            LeftOut::Unlisted(why) => f.write_str(why),
        }
    }
}

/// The pipeline's overview comment, found by its marker under the pipeline's
/// identity, with the same edit check as a finding comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverviewComment {
    pub body: String,
    /// As [`Comment::edited`]: set, the overview's held and gone findings are
    /// left out of every figure.
    pub edited: Option<LeftOut>,
}

/// A pull request's pipeline comments, its author, and the comments by others
/// outside the pipeline's threads (where a `/gauntlet dismiss <finding id>` can be).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PullRecord {
    pub author: Option<Person>,
    pub comments: Vec<Comment>,
    /// The pipeline's overview, when there is one: what it holds and what it
    /// remembers as gone are findings without a thread of their own.
    pub overview: Option<OverviewComment>,
    /// Comments by others outside the pipeline's threads, as `ci` reads them
    /// ([`crate::host::Existing::general`]).
    pub general: Vec<Reply>,
    /// What of those comments the bounds left unread, when anything was: a
    /// dismissal by id there is not seen.
    pub general_unread: Option<String>,
}

/// Read access to a repository's pull requests and the pipeline's comments on
/// them, through the pipeline's own token. Implementations decide nothing.
#[async_trait]
pub trait History: Send + Sync {
    fn name(&self) -> &'static str;

    /// Page `page` (from 1) of the repository's pull requests, open ones included,
    /// in the host's order; and whether another page may follow.
    async fn pulls(&self, page: u32) -> Result<(Vec<Pull>, bool), PublishError>;

    /// The pipeline's finding comments and overview on `pull` (all pages).
    async fn record(&self, pull: &Pull) -> Result<PullRecord, PublishError>;

    /// As [`crate::CodeHost::may_write`].
    async fn may_write(&self, who: &Person) -> Result<bool, PublishError>;
}

/// Which pull requests to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The newest this many merged or closed pull requests.
    pub last: usize,
    /// Only those merged or closed on or after this date (`YYYY-MM-DD`).
    pub since: Option<String>,
    pub policy: Policy,
}

/// Pages of pull requests listed at most (100 a page).
pub const MAX_LIST_PAGES: u32 = 10;
/// Pull requests read at most, whatever `--last` says.
pub const MAX_PULLS: usize = 500;

/// What a read found, and how much of the asked-for scope it covers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    /// Newest pull request first.
    pub records: Vec<Record>,
    /// Pull requests whose comments were read, newest close first: (number, closed_at).
    pub pulls: Vec<(u64, String)>,
    /// Pipeline comments left out because someone else edited them
    /// ([`LeftOut::EditedBy`]); an overview counts once.
    pub edited: usize,
    /// Pipeline comments left out because the host's answer could not show that
    /// nobody else edited them ([`LeftOut::Unlisted`]); an overview counts once.
    pub unlisted: usize,
    /// Every comment left out, with why: `#PR PATH: REASON` (one line each).
    pub left_out: Vec<String>,
    /// Pipeline comments with a finding marker whose header could not be read,
    /// and findings an overview holds in an entry too old to name its reviewers.
    pub unreadable: usize,
    /// Why the read covers less than was asked, when it does.
    pub partial: Option<String>,
    /// Dismissing acts that did not count, and why (one line each).
    pub not_counted: Vec<String>,
    /// Pull requests whose records came from an earlier read ([`read_with`]).
    pub reused: usize,
    /// Why the host would not say whether someone who dismissed a finding may
    /// dismiss, for a reason other than a spent call budget: the figures leave out
    /// every pull request from there on, and a dismissal-heavy one the most, so a
    /// decision that must be earned should not rest on them.
    pub unanswered: Option<String>,
    /// Findings whose dismissal counts, with what they said and the reason given:
    /// what later reviews and `gauntlet rules draft --from-stats` learn from.
    /// Only findings with a comment of their own: an overview's marker does not
    /// keep the claim, so a dismissed overview finding is counted in the figures
    /// but not listed here.
    pub dismissed: Vec<Dismissed>,
}

/// A finding a person allowed to dismiss it dismissed, as
/// [`crate::dismissal::assess`] decided (only counted dismissals are here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dismissed {
    pub pr: u64,
    pub path: String,
    pub finding: String,
    pub reviewers: Vec<String>,
    /// The finding's claim, as the pipeline's comment states it.
    pub claim: String,
    /// Who dismissed it (login, username or display name).
    pub by: String,
    pub form: dismissal::Form,
    /// The reason given with a command, when there was one (at most
    /// [`dismissal::MAX_REASON_CHARS`]).
    pub reason: Option<String>,
}

impl Read {
    /// What was left out of every figure and why, in one line; `None` when nothing was.
    pub fn left_out_line(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.edited > 0 {
            parts.push(format!("{} comment(s) someone other than the pipeline edited", self.edited));
        }
        if self.unlisted > 0 {
            parts.push(format!(
                "{} comment(s) whose edits the host did not list in full (nobody else is known to have edited them)",
                self.unlisted
            ));
        }
        if self.unreadable > 0 {
            parts.push(format!(
                "{} finding(s) whose comment header or overview entry could not be read",
                self.unreadable
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// Count a comment on pull request `pr` at `path` left out of every figure,
    /// under its reason.
    fn leave_out(&mut self, pr: u64, path: &str, why: &LeftOut) {
        match why {
            LeftOut::EditedBy(_) => self.edited += 1,
            LeftOut::Unlisted(_) => self.unlisted += 1,
        }
        self.left_out.push(format!("#{pr} {path}: {why}"));
    }

    /// One line saying what the figures cover.
    pub fn covers(&self) -> String {
        let mut out = match (self.pulls.last(), self.pulls.first()) {
            (Some(oldest), Some(newest)) => format!(
                "{} merged or closed pull request(s), closed {} to {}",
                self.pulls.len(),
                day(&oldest.1),
                day(&newest.1)
            ),
            _ => "no merged or closed pull request".to_string(),
        };
        if self.reused > 0 {
            out.push_str(&format!(" ({} of them as an earlier read found them)", self.reused));
        }
        if let Some(why) = &self.partial {
            out.push_str(&format!("; partial: {why}"));
        }
        out
    }
}

fn day(date: &str) -> &str {
    date.get(..10).unwrap_or(date)
}

/// Read the outcomes of the pipeline's findings on the pull requests `scope` names.
/// A failure after the first page makes the read partial (it says where it
/// stopped); a failure on the first listing is an error.
pub async fn read(host: &dyn History, scope: &Scope) -> Result<Read, PublishError> {
    read_with(host, scope, &BTreeMap::new()).await
}

/// What an earlier read found on one merged or closed pull request: kept by a
/// caller so a later read need not ask the host again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    /// The close the records were read after; a pull request reopened and closed
    /// again since is read again.
    pub closed_at: String,
    pub records: Vec<Record>,
}

impl Read {
    /// What this read found on each pull request it covers, to pass to a later
    /// [`read_with`].
    pub fn known(&self) -> BTreeMap<u64, Known> {
        let mut out: BTreeMap<u64, Known> = self
            .pulls
            .iter()
            .map(|(n, closed_at)| (*n, Known { closed_at: closed_at.clone(), records: Vec::new() }))
            .collect();
        for r in &self.records {
            if let Some(k) = out.get_mut(&r.pr) {
                k.records.push(r.clone());
            }
        }
        out
    }
}

/// As [`read`], taking the records of a pull request from `known` instead of the
/// host when `known` holds it with the same close. Listing still asks the host, so
/// a new close is always seen; once the host stops answering (a call budget, a
/// failure), older pull requests still come from `known` where it holds them, so
/// a run of empty pull requests cannot push a known record out of the read.
pub async fn read_with(host: &dyn History, scope: &Scope, known: &BTreeMap<u64, Known>) -> Result<Read, PublishError> {
    let want = scope.last.clamp(1, MAX_PULLS);
    let since = scope.since.as_deref();
    let mut out = Read::default();
    let mut closed: Vec<Pull> = Vec::new();
    // Every number the listing showed, open ones included.
    let mut listed: BTreeSet<u64> = BTreeSet::new();
    for page in 1..=MAX_LIST_PAGES {
        let (items, more) = match host.pulls(page).await {
            Ok(answer) => answer,
            Err(e) if page == 1 && known.is_empty() => return Err(e),
            Err(e) if page == 1 => {
                let why = format!("listing pull requests failed ({e}); the record is as an earlier read left it");
                return Ok(from_known(known, want, since, why));
            }
            Err(e) => {
                out.partial = Some(format!("listing pull requests stopped at page {page}: {e}"));
                break;
            }
        };
        let oldest_listed = items.iter().filter_map(|p| p.listed_at.clone()).min();
        let every_dated = items.iter().all(|p| p.listed_at.is_some());
        // A pull request can show up on two pages when the list moves between
        // requests; it counts once, as first listed (the newer state).
        let fresh: Vec<Pull> = items.into_iter().filter(|p| listed.insert(p.number)).collect();
        closed.extend(
            fresh
                .into_iter()
                .filter(|p| p.state != PrState::Open)
                .filter(|p| since.is_none_or(|s| day(&p.closed_at) >= s)),
        );
        if !more {
            break;
        }
        // Pages further on hold only pull requests listed (so closed) before this.
        if let (Some(oldest), true) = (&oldest_listed, every_dated) {
            if since.is_some_and(|s| day(oldest) < s) {
                break;
            }
            let mut dates: Vec<&str> = closed.iter().map(|p| p.closed_at.as_str()).collect();
            dates.sort_unstable_by(|a, b| b.cmp(a));
            if dates.len() >= want && oldest.as_str() < dates[want - 1] {
                break;
            }
        }
        if page == MAX_LIST_PAGES {
            out.partial =
                Some(format!("listing stopped after {MAX_LIST_PAGES} pages; older pull requests were not listed"));
        }
    }
    // A listing cut short (a budget, a failure) does not reach older closes; those
    // an earlier read found still count.
    if out.partial.is_some() {
        // Only those the listing did not show at all: one it showed open was
        // reopened, and one it showed closed is there already.
        let oldest = closed.iter().map(|p| p.closed_at.clone()).min();
        let older = known.iter().filter(|(n, k)| {
            !listed.contains(n)
                && oldest.as_ref().is_none_or(|o| k.closed_at <= *o)
                && since.is_none_or(|s| day(&k.closed_at) >= s)
        });
        let unlisted: Vec<Pull> = older
            .map(|(n, k)| Pull { number: *n, state: PrState::Closed, closed_at: k.closed_at.clone(), listed_at: None })
            .collect();
        closed.extend(unlisted);
    }
    closed.sort_by(|a, b| b.closed_at.cmp(&a.closed_at).then(b.number.cmp(&a.number)));
    closed.truncate(want);
    let mut access: BTreeMap<String, Access> = BTreeMap::new();
    let mut stopped: Option<(u64, String)> = None;
    let mut unread = 0;
    for pull in &closed {
        if let Some(k) = known.get(&pull.number).filter(|k| k.closed_at == pull.closed_at) {
            out.records.extend(k.records.iter().cloned());
            out.pulls.push((pull.number, pull.closed_at.clone()));
            out.reused += 1;
            continue;
        }
        if stopped.is_some() {
            unread += 1;
            continue;
        }
        let record = match host.record(pull).await {
            Ok(record) => record,
            Err(e) => {
                stopped = Some((pull.number, e.to_string()));
                unread += 1;
                continue;
            }
        };
        let before = (
            out.records.len(),
            out.dismissed.len(),
            out.not_counted.len(),
            (out.edited, out.unlisted, out.left_out.len()),
            out.unreadable,
        );
        records_of(host, pull, record, scope.policy, &mut access, &mut out).await;
        // A dismisser the host would not say anything about (a spent budget, an
        // error) leaves the outcomes unknown: the pull request counts as unread,
        // rather than its dismissals silently not counting.
        if let Some(why) = unanswered(&access) {
            out.records.truncate(before.0);
            out.dismissed.truncate(before.1);
            out.not_counted.truncate(before.2);
            (out.edited, out.unlisted, out.unreadable) = (before.3.0, before.3.1, before.4);
            out.left_out.truncate(before.3.2);
            if !why.contains(crate::http::BUDGET_SPENT) {
                out.unanswered = Some(format!("#{}: {why}", pull.number));
            }
            stopped = Some((pull.number, format!("who may dismiss could not be asked: {why}")));
            unread += 1;
            continue;
        }
        out.pulls.push((pull.number, pull.closed_at.clone()));
    }
    if let Some((number, e)) = stopped {
        let stop = if known.is_empty() {
            format!("stopped at pull request {number} ({e}); older ones were not read")
        } else {
            format!(
                "stopped at pull request {number} ({e}); {unread} pull request(s) not read, older ones kept from an earlier read"
            )
        };
        out.partial = Some(match out.partial.take() {
            Some(earlier) => format!("{earlier}; {stop}"),
            None => stop,
        });
    }
    Ok(out)
}

/// Why the host left someone's write access unanswered, when it did.
fn unanswered(access: &BTreeMap<String, Access>) -> Option<&str> {
    access.values().find_map(|a| match a {
        Access::Unknown(why) => Some(why.as_str()),
        _ => None,
    })
}

/// A read made of `known` alone (newest `want` closes), for when the host cannot
/// list pull requests.
fn from_known(known: &BTreeMap<u64, Known>, want: usize, since: Option<&str>, why: String) -> Read {
    let mut pulls: Vec<(&u64, &Known)> =
        known.iter().filter(|(_, k)| since.is_none_or(|s| day(&k.closed_at) >= s)).collect();
    pulls.sort_by(|a, b| b.1.closed_at.cmp(&a.1.closed_at).then(b.0.cmp(a.0)));
    pulls.truncate(want);
    Read {
        records: pulls.iter().flat_map(|(_, k)| k.records.iter().cloned()).collect(),
        pulls: pulls.iter().map(|(n, k)| (**n, k.closed_at.clone())).collect(),
        reused: pulls.len(),
        partial: Some(why),
        ..Read::default()
    }
}

/// Add `record`'s outcomes to `out`, asking `host` about people not yet in `access`.
async fn records_of(
    host: &dyn History,
    pull: &Pull,
    record: PullRecord,
    policy: Policy,
    access: &mut BTreeMap<String, Access>,
    out: &mut Read,
) {
    // A finding with a comment of its own is counted from it, never also from
    // the overview (which may have held it before it got one).
    let threaded: BTreeSet<String> =
        record.comments.iter().filter_map(|c| FindingMarker::parse(&c.thread.body)).map(|m| m.id).collect();
    let shown = overview_findings(pull.number, record.overview.as_ref(), &threaded, out);
    let mut kept = Vec::new();
    for comment in record.comments {
        if let Some(why) = &comment.edited {
            out.leave_out(pull.number, &comment.thread.path, why);
            continue;
        }
        match outcome::posted(&comment.thread.body) {
            Some(posted) => kept.push((comment, posted)),
            None => out.unreadable += 1,
        }
    }
    let threads: Vec<Thread> = kept.iter().map(|(c, _)| c.thread.clone()).collect();
    let author = record.author.as_ref();
    if let Some(unread) = &record.general_unread {
        out.not_counted
            .push(format!("#{}: {unread} were not read; a dismissal by finding id there is not seen", pull.number));
    }
    // Commands by id that name none of the findings kept here change nothing, so
    // nobody is asked about them and they are not listed.
    let general: Vec<Reply> = record
        .general
        .into_iter()
        .filter(|r| {
            dismissal::by_finding(r)
                .is_some_and(|f| kept.iter().any(|(_, p)| p.id == f.id) || shown.iter().any(|s| s.id == f.id))
        })
        .collect();
    let mut people = dismissal::to_check(&threads, author);
    people.extend(dismissal::general_to_check(&general, author));
    for person in people {
        if !access.contains_key(&person.id) {
            let answer = match host.may_write(person).await {
                Ok(true) => Access::Write,
                Ok(false) => Access::NoWrite,
                Err(e) => Access::Unknown(e.to_string()),
            };
            access.insert(person.id.clone(), answer);
        }
    }
    let unasked = || Access::Unknown("not asked".into());
    let access = |p: &Person| access.get(&p.id).cloned().unwrap_or_else(unasked);
    let mut dismissals = dismissal::assess(&threads, author, policy, access);
    dismissal::assess_general(&general, author, policy, access, &mut dismissals);
    for i in &dismissals.ignored {
        out.not_counted.push(format!(
            "#{} {}: {} {}, not counted: {}",
            pull.number, threads[i.thread].path, i.by.name, i.form, i.why
        ));
    }
    for (f, why) in &dismissals.findings_ignored {
        let path = kept.iter().find(|(_, p)| p.id == f.id).map_or("the overview", |(c, _)| c.thread.path.as_str());
        out.not_counted.push(format!(
            "#{} {path}: {} commented `/gauntlet {} {}`, not counted: {why}",
            pull.number,
            f.by.name,
            f.verb.as_str(),
            f.id
        ));
    }
    for (t, (comment, posted)) in kept.into_iter().enumerate() {
        // As in `ci`: the thread's own dismissal first, else a command naming the
        // finding by id anywhere on the pull request.
        let by_id = dismissals.findings.iter().find(|f| f.id == posted.id);
        let counted = dismissals.of(t).map(|c| (&c.by, c.form, &c.reason));
        if let Some((by, form, reason)) = counted.or(by_id.map(|f| (&f.by, Form::Command(f.verb), &f.reason))) {
            out.dismissed.push(Dismissed {
                pr: pull.number,
                path: comment.thread.path.clone(),
                finding: posted.id.clone(),
                reviewers: posted.reviewers.clone(),
                claim: crate::body::parse(&comment.thread.body).map(|p| p.claim).unwrap_or_default(),
                by: by.name.clone(),
                form,
                reason: reason.clone(),
            });
        }
        let facts = Facts {
            dismissed: dismissals.is_dismissed(t) || dismissals.is_finding_dismissed(&posted.id),
            resolved_by_pipeline: posted.resolved,
            lines_changed: comment.lines_changed,
            pr_open: pull.state == PrState::Open,
        };
        out.records.push(Record {
            pr: pull.number,
            finding: posted.id,
            severity: posted.severity,
            reviewers: posted.reviewers,
            closed_at: pull.closed_at.clone(),
            outcome: outcome::decide(facts),
            era: posted.era,
            path: Some(comment.thread.path.clone()),
            thread: Some(comment.thread.handle.clone()),
        });
    }
    for finding in shown {
        let gone = finding.gone;
        let facts = Facts {
            dismissed: dismissals.is_finding_dismissed(&finding.id),
            resolved_by_pipeline: gone.is_some(),
            lines_changed: gone == Some(true),
            pr_open: pull.state == PrState::Open,
        };
        out.records.push(Record {
            pr: pull.number,
            finding: finding.id,
            severity: finding.severity.as_str().to_string(),
            reviewers: finding.reviewers,
            closed_at: pull.closed_at.clone(),
            outcome: outcome::decide(facts),
            era: finding.era,
            path: None,
            thread: None,
        });
    }
}

/// A finding only the overview shows, as its marker records it.
struct Shown {
    id: String,
    severity: Severity,
    reviewers: Vec<String>,
    /// `None` while held; once gone, whether the flagged line changed (fixed).
    gone: Option<bool>,
    /// The era its entry names (not the overview's, which every run rewrites).
    era: Option<String>,
}

/// The findings `overview` holds or remembers as gone, less those in
/// `threaded`; an edited overview is left out ([`Read::leave_out`]) and gives
/// none, and a held entry too old to name its reviewers counts in
/// `out.unreadable`.
fn overview_findings(
    pr: u64,
    overview: Option<&OverviewComment>,
    threaded: &BTreeSet<String>,
    out: &mut Read,
) -> Vec<Shown> {
    let Some(overview) = overview else { return Vec::new() };
    if let Some(why) = &overview.edited {
        out.leave_out(pr, "the overview", why);
        return Vec::new();
    }
    let Some(marker) = OverviewMarker::parse(&overview.body) else { return Vec::new() };
    let mut seen = threaded.clone();
    let mut shown = Vec::new();
    for h in marker.held.unwrap_or_default() {
        if !seen.insert(h.id.clone()) {
            continue;
        }
        if h.reviewers.is_empty() {
            out.unreadable += 1;
            continue;
        }
        shown.push(Shown { id: h.id, severity: h.severity, reviewers: h.reviewers, gone: None, era: h.era });
    }
    for g in marker.gone {
        if seen.insert(g.id.clone()) {
            let gone = Some(g.fixed);
            shown.push(Shown { id: g.id, severity: g.severity, reviewers: g.reviewers, gone, era: g.era });
        }
    }
    shown
}

/// Whether a diff block over old lines `start..start+count` (count 0: an
/// insertion before `start`) touches lines `first..=last`.
pub fn touches(start: u32, count: u32, first: u32, last: u32) -> bool {
    if count == 0 { start > first && start <= last } else { start <= last && start + count > first }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_with_characters_of_several_bytes_is_no_panic() {
        assert_eq!(day("2026-11-30T10:00:00Z"), "2026-11-30");
        assert_eq!(day("2026-11-3é0T10"), "2026-11-3é0T10", "no cut inside a character");
        assert_eq!(day("short"), "short");
    }

    #[test]
    fn a_diff_block_touches_the_lines_it_overlaps() {
        assert!(touches(10, 1, 10, 10));
        assert!(touches(8, 3, 10, 12));
        assert!(!touches(8, 2, 10, 12));
        assert!(!touches(13, 4, 10, 12));
        // An insertion inside the range changes it; one before it only moves it.
        assert!(touches(11, 0, 10, 12));
        assert!(!touches(10, 0, 10, 12));
    }
}
