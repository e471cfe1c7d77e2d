//! What to do on the pull request: a pure function from the threads already
//! there and this run's findings to a list of actions.
//!
//! Identity is the finding's fingerprint (reviewer, path, lens, normalised
//! evidence), carried in each comment's marker. A finding without an exact
//! match still matches a thread on the same path whose claim overlaps its own
//! by at least [`TWIN_OVERLAP`], so a model rewording its evidence does not
//! open a second thread. A thread dismissed as [`crate::dismissal`] defines it
//! keeps its finding quiet, and only that finding: a dismissed thread is matched
//! by exact fingerprint, never by claim overlap (see `match_threads`). One
//! resolved by anyone else is reopened while its finding stands, so hiding a
//! thread does not make a finding go away.
//!
//! A reviewed fix (`gauntlet ci --suggest`) rides on the comment a run creates:
//! when it can be the host's suggestion, the comment is placed on exactly the
//! lines the suggestion replaces. A comment already on the pull request keeps
//! its first body: whether a fix is added, changed or gone is no reason to edit
//! it (only a changed finding is), so a re-run never duplicates or churns it.

use crate::body;
use crate::dismissal::Dismissals;
use crate::host::{Anchor, Thread};
use crate::marker::{FindingMarker, Held};
use crate::suggest::{Dialect, ReviewedFix};
use gauntlet_report::markdown::text;
use gauntlet_review::adjudicate::{TWIN_OVERLAP, claim_overlap};
use gauntlet_review::review::Published;
use std::collections::BTreeSet;

/// Comments a run may open (or reopen) at most, unless configured otherwise.
pub const DEFAULT_CAP: usize = 15;

/// A published finding, with where it could go inline (`None`: overview only).
#[derive(Clone, Debug)]
pub struct Candidate<'a> {
    pub finding: &'a Published,
    pub anchor: Option<Anchor>,
    /// A fix the adversarial loop produced for it (`--suggest`).
    pub fix: Option<ReviewedFix>,
}

/// Which paths a run reviewed. Threads and held findings on other paths are
/// carried over untouched: the run knows nothing about them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Reviewed {
    /// Every path (a full review).
    #[default]
    All,
    /// Only these (an incremental review).
    Only(BTreeSet<String>),
    /// Every path but these (a full review that left some files out).
    AllBut(BTreeSet<String>),
}

impl Reviewed {
    pub fn contains(&self, path: &str) -> bool {
        match self {
            Reviewed::All => true,
            Reviewed::Only(paths) => paths.contains(path),
            Reviewed::AllBut(paths) => !paths.contains(path),
        }
    }

    /// [`Reviewed::contains`] for a path known only by its [`crate::marker::path_tag`].
    pub fn contains_tag(&self, tag: &str) -> bool {
        let tagged = |paths: &BTreeSet<String>| paths.iter().any(|p| crate::marker::path_tag(p) == tag);
        match self {
            Reviewed::All => true,
            Reviewed::Only(paths) => tagged(paths),
            Reviewed::AllBut(paths) => !tagged(paths),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Comments to open or reopen at most; the rest go to the overview.
    pub cap: usize,
    /// Paths this run reviewed.
    pub reviewed: &'a Reviewed,
    /// The head under review, named in resolved comments.
    pub head: &'a str,
    /// How the host takes suggested fixes.
    pub dialect: Dialect,
    /// Which of the threads are dismissed ([`crate::dismissal::check`]).
    pub dismissals: &'a Dismissals,
}

/// One change to the pull request. `finding` indexes the candidates, `thread`
/// the existing threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Create {
        finding: usize,
        anchor: Anchor,
        body: String,
    },
    Update {
        thread: usize,
        finding: usize,
        body: String,
        reopen: bool,
    },
    Resolve {
        thread: usize,
        body: String,
    },
    /// An open thread kept as it is: its finding (`Some`) is unchanged, or it
    /// is on a path this run did not review (`None`).
    Leave {
        thread: usize,
        finding: Option<usize>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub actions: Vec<Action>,
    /// Candidates for the overview: not placeable inline, or over the cap.
    pub overview: Vec<usize>,
    /// Candidates a person dismissed earlier: not raised again.
    pub dismissed: Vec<usize>,
    /// Candidates sent to the overview only because the cap was reached.
    pub over_cap: usize,
    /// Threads whose finding still stands though this run did not look at it
    /// again: open, or resolved by someone whose resolution is no dismissal, on
    /// a path this run did not review. They count toward `--fail-on`.
    pub standing: Vec<usize>,
    /// Findings an earlier overview held (no inline thread) on paths this run
    /// did not review, and that nobody dismissed: they stand, and the new
    /// overview keeps them ([`crate::sync::preview`] fills this in).
    pub carried: Vec<Held>,
}

impl Plan {
    /// Threads that will be open after the plan runs.
    pub fn open_inline(&self) -> usize {
        self.actions.iter().filter(|a| !matches!(a, Action::Resolve { .. })).count()
    }
}

/// Where a thread stands, as far as the pipeline is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    /// The pipeline resolved it on an earlier run: the finding had gone.
    ResolvedByUs,
    /// Resolved by someone whose resolution is not a dismissal (the author, a
    /// person without write access, or nobody the host could name).
    ResolvedByOther,
    /// Dismissed by someone allowed to.
    Dismissed,
}

struct Known<'t> {
    thread: &'t Thread,
    marker: FindingMarker,
    claim: String,
    state: State,
}

/// Thread `t` as the plan sees it. A command naming its finding by id
/// dismisses it as a command in the thread would.
fn known<'t>(thread: &'t Thread, t: usize, dismissals: &Dismissals) -> Option<Known<'t>> {
    let marker = FindingMarker::parse(&thread.body)?;
    let dismissed = dismissals.is_dismissed(t) || dismissals.is_finding_dismissed(&marker.id);
    let claim = body::parse(&thread.body).map(|p| p.claim).unwrap_or_default();
    let state = if dismissed {
        State::Dismissed
    } else if marker.resolved {
        State::ResolvedByUs
    } else if thread.resolved {
        State::ResolvedByOther
    } else {
        State::Open
    };
    Some(Known { thread, marker, claim, state })
}

/// Decide every action for this run. `candidates` come in rank order: when the
/// cap bites, the most important findings get the comments.
pub fn plan_sync(threads: &[Thread], candidates: &[Candidate<'_>], opts: &Options<'_>) -> Plan {
    let known: Vec<Option<Known<'_>>> =
        threads.iter().enumerate().map(|(t, thread)| known(thread, t, opts.dismissals)).collect();
    let matches = match_threads(&known, candidates);
    let mut plan = Plan::default();
    let mut budget = opts.cap;
    let mut taken = vec![false; threads.len()];
    for (i, c) in candidates.iter().enumerate() {
        // Dismissed by id (`/gauntlet dismiss <id>` outside its threads): a
        // finding the overview holds has no other way to be dismissed.
        if opts.dismissals.is_finding_dismissed(&c.finding.id) && !matches!(matches[i], Match::Dismissed(_)) {
            if let Match::Thread(t) = matches[i] {
                taken[t] = true;
            }
            plan.dismissed.push(i);
            continue;
        }
        match &matches[i] {
            Match::Dismissed(ts) => {
                ts.iter().for_each(|&t| taken[t] = true);
                plan.dismissed.push(i);
            }
            &Match::Thread(t) => {
                taken[t] = true;
                let k = known[t].as_ref().expect("matched threads are known");
                matched(&mut plan, &mut budget, (i, c), t, k, opts.dialect);
            }
            Match::None => match (&c.anchor, budget) {
                (Some(anchor), 1..) => {
                    budget -= 1;
                    let (anchor, body) = create(c, anchor, opts.dialect);
                    plan.actions.push(Action::Create { finding: i, anchor, body });
                }
                (Some(_), 0) => {
                    plan.over_cap += 1;
                    plan.overview.push(i);
                }
                (None, _) => plan.overview.push(i),
            },
        }
    }
    for (t, k) in known.iter().enumerate() {
        let Some(k) = k.as_ref().filter(|_| !taken[t]) else { continue };
        // Resolving is two calls on some hosts (edit, then resolve): a run stopped
        // between them leaves an open thread that already says it is resolved. With
        // no reply on it, nobody reopened it on purpose, so the resolution is finished.
        if k.state == State::ResolvedByUs && !k.thread.resolved && k.thread.replies.is_empty() {
            plan.actions.push(Action::Resolve { thread: t, body: k.thread.body.clone() });
            continue;
        }
        let reviewed = opts.reviewed.contains(&k.thread.path);
        if !reviewed && matches!(k.state, State::Open | State::ResolvedByOther) {
            plan.standing.push(t);
        }
        if k.state != State::Open {
            continue;
        }
        plan.actions.push(if reviewed {
            Action::Resolve { thread: t, body: body::resolved(&k.thread.body, &k.marker.id, opts.head) }
        } else {
            Action::Leave { thread: t, finding: None }
        });
    }
    plan
}

/// Where a new comment goes and what it says. A fix that can be suggested moves
/// the comment onto the lines its suggestion replaces (the finding's lines are
/// among them).
fn create(c: &Candidate<'_>, anchor: &Anchor, dialect: Dialect) -> (Anchor, String) {
    let Some(fix) = &c.fix else { return (anchor.clone(), body::inline(c.finding)) };
    let anchor = match &fix.fit {
        Ok(s) if fix.converged && dialect != Dialect::Plain => s.anchor.clone(),
        _ => anchor.clone(),
    };
    let section = body::fix(fix, dialect, Some(&anchor));
    (anchor, body::inline_with(c.finding, Some(&section)))
}

/// The action for candidate `i` matched to thread `t`.
fn matched(
    plan: &mut Plan,
    budget: &mut usize,
    (i, c): (usize, &Candidate<'_>),
    t: usize,
    k: &Known<'_>,
    dialect: Dialect,
) {
    // An existing thread's lines cannot move, so a fix is described there, never suggested.
    let section = c.fix.as_ref().map(|f| body::fix(f, dialect, None));
    let body = body::inline_with(c.finding, section.as_deref());
    match k.state {
        State::Open if changed(k, c.finding) => {
            plan.actions.push(Action::Update { thread: t, finding: i, body, reopen: false })
        }
        State::Open => plan.actions.push(Action::Leave { thread: t, finding: Some(i) }),
        State::ResolvedByUs | State::ResolvedByOther if *budget > 0 => {
            *budget -= 1;
            plan.actions.push(Action::Update { thread: t, finding: i, body, reopen: true });
        }
        State::ResolvedByUs | State::ResolvedByOther => {
            plan.over_cap += 1;
            plan.overview.push(i);
        }
        State::Dismissed => plan.dismissed.push(i),
    }
}

/// Whether an open thread's comment no longer says what the finding says: a
/// different fingerprint, severity, lens or reviewer, or a claim that is no
/// longer a rewording of the old one. Rewordings leave the comment alone.
fn changed(k: &Known<'_>, p: &Published) -> bool {
    let old = body::parse(&k.thread.body);
    k.marker.id != p.id
        || old.as_ref().is_none_or(|o| o.header != body::header(p))
        || claim_overlap(&k.claim, &text(&p.claim)) < TWIN_OVERLAP
}

#[derive(Clone, Debug)]
enum Match {
    None,
    Thread(usize),
    /// Every thread of the finding a person dismissed.
    Dismissed(Vec<usize>),
}

/// Exact fingerprints first, for every candidate, then claim overlap on the
/// same path among the threads left, so a fuzzy match never takes a thread
/// another finding owns outright.
///
/// A dismissed thread is matched by its exact fingerprint only. A person
/// dismissed the finding they saw; a finding that merely shares most words of
/// its claim (a short claim shares 80% easily) may be another defect, perhaps a
/// more severe one. Of the two guards possible (same fingerprint, or a severity
/// no higher than the dismissed one) this is the stricter: a severity guard
/// would still let one dismissal silence a different defect of equal or lower
/// severity. The cost is that a finding whose fingerprint drifted is raised
/// again after a dismissal, which a person sees and can dismiss again; the
/// other way round a real defect would go unseen.
fn match_threads(known: &[Option<Known<'_>>], candidates: &[Candidate<'_>]) -> Vec<Match> {
    let mut result = vec![Match::None; candidates.len()];
    let mut taken = vec![false; known.len()];
    let exact = |k: &Known<'_>, p: &Published| k.marker.id == p.id;
    let fuzzy = |k: &Known<'_>, p: &Published| {
        k.state != State::Dismissed
            && k.thread.path == path_of(p)
            && claim_overlap(&k.claim, &text(&p.claim)) >= TWIN_OVERLAP
    };
    for pass in [&exact as &dyn Fn(&Known<'_>, &Published) -> bool, &fuzzy] {
        for (i, c) in candidates.iter().enumerate() {
            if !matches!(result[i], Match::None) {
                continue;
            }
            let hits: Vec<usize> = (0..known.len())
                .filter(|&t| !taken[t] && known[t].as_ref().is_some_and(|k| pass(k, c.finding)))
                .collect();
            let state = |t: usize| known[t].as_ref().map(|k| k.state);
            let dismissed: Vec<usize> = hits.iter().copied().filter(|&t| state(t) == Some(State::Dismissed)).collect();
            result[i] = if !dismissed.is_empty() {
                dismissed.iter().for_each(|&t| taken[t] = true);
                Match::Dismissed(dismissed)
            } else if let Some(&t) = hits.iter().find(|&&t| state(t) == Some(State::Open)).or(hits.first()) {
                taken[t] = true;
                Match::Thread(t)
            } else {
                Match::None
            };
        }
    }
    result
}

/// The path part of a finding's `path:LINE` location.
pub(crate) fn path_of(p: &Published) -> &str {
    p.location.rsplit_once(':').map_or(p.location.as_str(), |(path, _)| path)
}

#[cfg(test)]
mod tests {
    use super::Reviewed;
    use crate::marker::path_tag;

    #[test]
    fn what_a_run_reviewed_by_path_and_by_tag() {
        let set = |p: &[&str]| p.iter().map(|s| s.to_string()).collect();
        for (reviewed, a, b) in [
            (Reviewed::All, true, true),
            (Reviewed::Only(set(&["a.rs"])), true, false),
            (Reviewed::AllBut(set(&["a.rs"])), false, true),
            (Reviewed::Only(set(&[])), false, false),
        ] {
            assert_eq!((reviewed.contains("a.rs"), reviewed.contains("b.rs")), (a, b), "{reviewed:?}");
            let tags = (reviewed.contains_tag(&path_tag("a.rs")), reviewed.contains_tag(&path_tag("b.rs")));
            assert_eq!(tags, (a, b), "{reviewed:?}");
        }
    }
}
