//! Posting a finished review to a pull request, from CI only.
//!
//! The pieces, in the order a run uses them:
//! - a [`CodeHost`] ([`github`], [`gitlab`], [`azure`]) lists what the pipeline
//!   posted before ([`Existing`]): the overview comment and the inline threads,
//!   each found by a hidden [`marker`];
//! - [`dismissal::check`] decides which threads people dismissed, and which
//!   attempts to dismiss did not count: the one definition of "dismissed";
//! - [`anchor::place`] decides which findings can sit on a diff line;
//! - [`plan_sync`], a pure function, decides what to create, update, resolve
//!   or leave, honouring dismissals and the per-run cap;
//! - [`suggest::propose`], also pure, turns a reviewed fix into the host's
//!   suggestion block where it fits (`gauntlet ci --suggest`);
//! - [`sync`] carries the plan out and upserts the overview last;
//! - [`CodeHost::report_status`] then shows the run's [`status::Verdict`] where
//!   the host has a place for one (a GitHub check run, an Azure DevOps pull
//!   request status), findings people dismissed left out.
//!
//! ```no_run
//! # async fn run(host: &dyn gauntlet_publish::CodeHost, review: &gauntlet_review::Review) -> Result<(), gauntlet_publish::PublishError> {
//! use gauntlet_publish::{Candidate, OverviewMarker, Request, Reviewed, DEFAULT_CAP};
//! let existing = host.existing(&review.head).await?;
//! let dismissals = gauntlet_publish::dismissal::check(host, &existing, Default::default()).await;
//! let candidates = review.published.iter().map(|p| Candidate { finding: p, anchor: None, fix: None }).collect();
//! let marker =
//!     OverviewMarker { head: review.head.clone(), rules: review.rules_version.clone(), config: "c".into(), held: None, era: None, gone: Vec::new(), incomplete: false, open: None };
//! let request = Request { review, candidates, marker, cap: DEFAULT_CAP, reviewed: Reviewed::All, notes: vec![], dismissals, since_last: None, unapplied_rules: vec![] };
//! let summary = gauntlet_publish::sync(host, &existing, request).await?;
//! println!("{summary}");
//! # Ok(()) }
//! ```

pub mod anchor;
pub mod azure;
pub mod body;
pub mod dismissal;
pub mod earned;
pub mod github;
pub mod gitlab;
pub mod history;
pub mod host;
mod http;
pub mod marker;
pub mod outcome;
pub mod plan;
pub mod standing;
pub mod status;
pub mod suggest;
pub mod sync;

pub use dismissal::{Dismissals, Policy};
pub use host::{Anchor, CodeHost, Edited, Existing, Handle, NewComment, Overview, Person, Reply, Thread};
pub use http::{MAX_RESPONSE_BYTES, read_json};
pub use marker::{FindingMarker, Held, OverviewMarker};
pub use plan::{Action, Candidate, DEFAULT_CAP, Plan, Reviewed, plan_sync};
pub use standing::Standing;
pub use status::{Status, Verdict};
pub use suggest::{Dialect, ReviewedFix, Suggestion, Unsuitable};
pub use sync::{Request, Summary, preview, sync};

/// A failure talking to a code host. Messages name the host and the request,
/// never a token.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("{host} refused to {what} (HTTP {status}): {message}")]
    Denied { host: &'static str, what: String, status: u16, message: String },
    #[error("{host} answered HTTP {status} to {what}: {message}")]
    Http { host: &'static str, what: String, status: u16, message: String },
    #[error("could not reach {host} to {what}: {message}")]
    Network { host: &'static str, what: String, message: String },
    #[error("{host} sent an unexpected answer to {what}: {message}")]
    Response { host: &'static str, what: String, message: String },
    /// A write whose answer leaves it unknown whether the host stored it: a 5xx,
    /// or no answer at all. Such a write is not retried (a retry could duplicate;
    /// only a refusal for a rate limit, which stores nothing, is sent again); the
    /// next run finds whatever was stored by its marker.
    #[error(
        "{host} answered {answer} to {what} ({message}); it may or may not have been stored, and the next run \
         reconciles what the pull request shows without posting anything twice"
    )]
    Uncertain { host: &'static str, what: String, answer: String, message: String },
    /// A failure after some writes had already gone through.
    #[error(
        "{source}; before that, this run had {done}. Run it again to finish: comments already on the pull \
         request are recognised by their markers and are not posted twice"
    )]
    Partial { done: String, source: Box<PublishError> },
}

impl PublishError {
    /// The token lacks the right to do this (HTTP 401 or 403): the case of a
    /// fork's read-only token, or a missing pipeline permission.
    pub fn is_denied(&self) -> bool {
        match self {
            PublishError::Denied { .. } => true,
            PublishError::Partial { source, .. } => source.is_denied(),
            _ => false,
        }
    }

    /// This error, recording that `done` had already reached the pull request (kept
    /// as it is when it records that already).
    pub(crate) fn after(self, done: String) -> PublishError {
        match self {
            PublishError::Partial { .. } => self,
            source => PublishError::Partial { done, source: Box::new(source) },
        }
    }

    /// Whether anything is known to have reached the pull request before the failure.
    pub fn posted_something(&self) -> bool {
        matches!(self, PublishError::Partial { .. })
    }

    /// Whether the failing write may have been stored all the same (see
    /// [`PublishError::Uncertain`]).
    pub fn outcome_unknown(&self) -> bool {
        match self {
            PublishError::Uncertain { .. } => true,
            PublishError::Partial { source, .. } => source.outcome_unknown(),
            _ => false,
        }
    }
}
