//! Findings that stand on the pull request though a run did not raise them
//! itself: open threads on files an incremental run did not review, and the
//! findings an earlier overview held on such files. `--fail-on` counts them,
//! so neither an incremental run nor a skipped re-run of the same head turns a
//! blocking pull request green.
//!
//! A thread's comment is the pipeline's, but anyone with write access may edit
//! it (the pull request's author among them), marker and header included. What
//! a thread counts for is therefore bound to the sealed overview
//! ([`crate::Existing::marker`]), which lists the findings its threads showed
//! open and at which severity ([`crate::marker::OverviewMarker::open`]): a
//! thread is never read as resolved by the pipeline, nor at a lower severity,
//! than that overview says.

use crate::body;
use crate::dismissal::Dismissals;
use crate::host::{Existing, Thread};
use crate::marker;
use crate::marker::{FindingMarker, Held};
use crate::plan::{Action, Candidate, Options, Plan, Reviewed, plan_sync};
use crate::suggest::Dialect;
use gauntlet_review::contract::Severity;
use std::collections::BTreeSet;

/// A finding an earlier run raised that still stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub id: String,
    pub severity: Severity,
    /// Where it is shown: an inline thread on this path, or `None` for the overview.
    pub thread_path: Option<String>,
}

/// The findings `plan` leaves standing without raising them: its
/// [`Plan::standing`] threads, at their [`severity`], and its [`Plan::carried`]
/// overview findings.
pub fn standing(existing: &Existing, plan: &Plan) -> Vec<Standing> {
    let threads = plan.standing.iter().filter_map(|&t| {
        let thread = existing.threads.get(t)?;
        let id = FindingMarker::parse(&thread.body)?.id;
        Some(Standing { id, severity: severity(existing, thread), thread_path: Some(thread.path.clone()) })
    });
    let held = plan.carried.iter().map(|h| Standing { id: h.id.clone(), severity: h.severity, thread_path: None });
    threads.chain(held).collect()
}

/// What stands on the pull request when this run reviews nothing (the head was
/// reviewed already): every open thread nobody dismissed, and every finding the
/// overview holds. `None` when the overview cannot be taken as the pipeline's own
/// ([`Existing::marker`]), or was written before it recorded the findings it
/// holds: then only a review can tell.
pub fn without_review(existing: &Existing, dismissals: &Dismissals) -> Option<Vec<Standing>> {
    let marker = existing.marker()?;
    let held = marker.held?;
    let nothing = Reviewed::Only(BTreeSet::new());
    let opts = Options { cap: 0, reviewed: &nothing, head: &marker.head, dialect: Dialect::Plain, dismissals };
    let mut plan = plan_sync(&existing.threads, &[], &opts);
    let held = held.into_iter().chain(orphans(existing));
    plan.carried = held.filter(|h| !dismissals.is_finding_dismissed(&h.id)).collect();
    Some(standing(existing, &plan))
}

/// The severity thread `thread` stands at: what its comment's header names, but
/// never lower than the sealed overview recorded for its finding. When that
/// overview lists the threads it left open and this one's finding is not among
/// them, someone changed the marker's id: high, as for a header that cannot be
/// read (a finding nobody can grade blocks rather than passes).
pub fn severity(existing: &Existing, thread: &Thread) -> Severity {
    let header = body::severity(&thread.body).unwrap_or(Severity::High);
    let Some(open) = existing.marker().and_then(|m| m.open) else { return header };
    let id = FindingMarker::parse(&thread.body).map(|m| m.id).unwrap_or_default();
    match open.iter().filter(|h| h.id == id).map(|h| h.severity).max() {
        Some(sealed) => header.max(sealed),
        None => Severity::High,
    }
}

/// Read the threads in `existing` as the sealed overview says: a thread whose
/// finding it lists as open has a marker that says "resolved by the pipeline"
/// only because someone edited it, so that claim is taken out (in memory only),
/// and the thread counts as open, or as resolved by whoever resolved it. Call
/// once the overview has been checked ([`Existing::overview_edited`]); an
/// overview that decides nothing binds nothing, and the run reviews every path.
pub fn bind(existing: &mut Existing) {
    let Some(open) = existing.marker().and_then(|m| m.open) else { return };
    for thread in &mut existing.threads {
        let Some(marker) = FindingMarker::parse(&thread.body) else { continue };
        if marker.resolved && open.iter().any(|h| h.id == marker.id) {
            let rest = crate::marker::strip(&thread.body).to_string();
            thread.body = format!("{}{rest}", FindingMarker { resolved: false, ..marker }.render());
        }
    }
}

/// The findings the checked overview lists as open in a thread that is no longer
/// there under that finding's id (deleted, or its marker's id edited): they stand
/// as findings the overview holds, until a review of their file says otherwise.
pub fn orphans(existing: &Existing) -> Vec<Held> {
    let Some(open) = existing.marker().and_then(|m| m.open) else { return Vec::new() };
    let ids: BTreeSet<String> =
        existing.threads.iter().filter_map(|t| FindingMarker::parse(&t.body)).map(|m| m.id).collect();
    open.into_iter().filter(|h| !ids.contains(&h.id)).collect()
}

/// The findings the pipeline's threads show open once `plan` is carried out, for
/// the next overview to seal: those this run comments on (new, updated, reopened
/// or left as they are) and the threads that stand on paths it did not review.
pub fn open(existing: &Existing, plan: &Plan, candidates: &[Candidate<'_>]) -> Vec<Held> {
    let raised = plan.actions.iter().filter_map(|a| match a {
        Action::Create { finding, .. } | Action::Update { finding, .. } => Some(*finding),
        Action::Leave { finding, .. } => *finding,
        Action::Resolve { .. } => None,
    });
    let raised = raised.filter_map(|i| candidates.get(i)).map(|c| {
        let path = marker::path_tag(crate::plan::path_of(c.finding));
        (c.finding.id.clone(), c.finding.severity, path)
    });
    let kept = plan.standing.iter().filter_map(|&t| existing.threads.get(t)).filter_map(|thread| {
        let id = FindingMarker::parse(&thread.body)?.id;
        Some((id, severity(existing, thread), marker::path_tag(&thread.path)))
    });
    let mut seen = BTreeSet::new();
    raised
        .chain(kept)
        .filter(|(id, ..)| seen.insert(id.clone()))
        .map(|(id, severity, path)| Held { id, severity, path, line: None, reviewers: Vec::new(), era: None })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Handle, Overview};
    use crate::marker::{OverviewMarker, path_tag};

    fn thread(id: &str, extra: &str, severity: &str) -> Thread {
        let body = format!(
            "<!-- gauntlet:finding v1 id={id}{extra} -->\n\n**{severity}** · failure scenario · reviewer `x`\n\nclaim"
        );
        let handle = Handle { thread: id.into(), comment: id.into() };
        Thread {
            handle,
            path: "src/a.rs".into(),
            body,
            resolved: false,
            resolved_by: None,
            replies: Vec::new(),
            thumbs_down: Vec::new(),
        }
    }

    /// A checked overview whose marker says `f1` is open at high, and the
    /// threads as the host lists them now.
    fn existing(threads: Vec<Thread>, open: Option<Vec<Held>>) -> Existing {
        let marker = OverviewMarker {
            head: "abc".into(),
            rules: "r".into(),
            config: "c".into(),
            held: Some(Vec::new()),
            era: None,
            gone: Vec::new(),
            incomplete: false,
            open,
        };
        let overview = Overview { handle: Handle { thread: "o".into(), comment: "o".into() }, body: marker.render() };
        Existing { overview: Some(overview), threads, ..Existing::default() }
    }

    fn high(id: &str) -> Held {
        let path = path_tag("src/a.rs");
        Held { id: id.into(), severity: Severity::High, path, line: None, reviewers: Vec::new(), era: None }
    }

    fn stands(existing: &Existing) -> Vec<(String, Severity)> {
        let standing = without_review(existing, &Dismissals::default()).expect("a marker that holds findings");
        standing.into_iter().map(|s| (s.id, s.severity)).collect()
    }

    #[test]
    fn an_edited_thread_stands_as_the_checked_overview_recorded_it() {
        let f1 = || vec![("f1".to_string(), Severity::High)];
        // Header lowered: the overview's severity wins.
        let mut lowered = existing(vec![thread("f1", "", "low")], Some(vec![high("f1")]));
        bind(&mut lowered);
        assert_eq!(stands(&lowered), f1());
        // Marker edited to "resolved by the pipeline": still open.
        let mut resolved = existing(vec![thread("f1", " state=resolved", "high")], Some(vec![high("f1")]));
        bind(&mut resolved);
        assert_eq!(stands(&resolved), f1());
        // Marker's id edited: the thread stands at high, and so does the finding it hid.
        let mut renamed = existing(vec![thread("zz", "", "low")], Some(vec![high("f1")]));
        bind(&mut renamed);
        assert_eq!(stands(&renamed), vec![("zz".to_string(), Severity::High), ("f1".to_string(), Severity::High)]);
        // Thread deleted: the finding stands as one the overview holds.
        assert_eq!(stands(&existing(Vec::new(), Some(vec![high("f1")]))), f1());
    }

    #[test]
    fn without_a_checked_overview_that_lists_threads_nothing_is_bound() {
        // An older overview (no `open=`): the thread reads as its comment says.
        let mut older = existing(vec![thread("f1", "", "low")], None);
        bind(&mut older);
        assert_eq!(stands(&older), vec![("f1".to_string(), Severity::Low)]);
        // An overview that decides nothing binds nothing.
        let mut unchecked = existing(vec![thread("f1", " state=resolved", "high")], Some(vec![high("f1")]));
        unchecked.overview_edited = Some("edited".into());
        bind(&mut unchecked);
        assert!(FindingMarker::parse(&unchecked.threads[0].body).unwrap().resolved);
        assert_eq!(orphans(&unchecked), Vec::new());
    }

    #[test]
    fn the_open_threads_survive_the_overview_marker_round_trip() {
        let e = existing(Vec::new(), Some(vec![high("f1"), Held { severity: Severity::Low, ..high("f2") }]));
        let marker = e.marker().unwrap();
        assert_eq!(marker.open.map(|o| o.len()), Some(2));
        assert_eq!(existing(Vec::new(), Some(Vec::new())).marker().unwrap().open, Some(Vec::new()));
    }
}
