//! Findings that stand on the pull request though a run did not raise them
//! itself: open threads on files an incremental run did not review, and the
//! findings an earlier overview held on such files. `--fail-on` counts them,
//! so neither an incremental run nor a skipped re-run of the same head turns a
//! blocking pull request green.

use crate::body;
use crate::dismissal::Dismissals;
use crate::host::Existing;
use crate::marker::FindingMarker;
use crate::plan::{Options, Plan, Reviewed, plan_sync};
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
/// [`Plan::standing`] threads, at the severity their comment's header names
/// (high when the header cannot be read: a finding nobody can grade blocks
/// rather than passes), and its [`Plan::carried`] overview findings.
pub fn standing(existing: &Existing, plan: &Plan) -> Vec<Standing> {
    let threads = plan.standing.iter().filter_map(|&t| {
        let thread = existing.threads.get(t)?;
        let id = FindingMarker::parse(&thread.body)?.id;
        let severity = body::severity(&thread.body).unwrap_or(Severity::High);
        Some(Standing { id, severity, thread_path: Some(thread.path.clone()) })
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
    plan.carried = held.into_iter().filter(|h| !dismissals.is_finding_dismissed(&h.id)).collect();
    Some(standing(existing, &plan))
}
