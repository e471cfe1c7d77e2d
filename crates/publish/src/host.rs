//! What every code host offers the publisher, and the data it exchanges.

use crate::PublishError;
use async_trait::async_trait;

/// Where an inline comment goes: head lines of one file, on the new side of
/// the diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    pub path: String,
    /// The file's path at base (differs from `path` for a rename); GitLab needs it.
    pub old_path: String,
    /// First head line the comment covers (equal to `line` for one line).
    pub start: u32,
    /// Last head line the comment covers; hosts show the comment under it.
    pub line: u32,
    /// `line`'s number on the old side when it is unchanged context: GitLab
    /// places a comment on such a line only with both numbers.
    pub old_line: Option<u32>,
}

/// A host's ids for a thread and for the pipeline's comment that opens it.
/// Only the host that made them reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handle {
    pub thread: String,
    pub comment: String,
}

/// An inline thread the pipeline opened on an earlier run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub handle: Handle,
    pub path: String,
    /// Body of the pipeline's comment, marker line included.
    pub body: String,
    /// Whether the host shows the thread as resolved (GitHub, GitLab) or as any
    /// status other than active (Azure DevOps).
    pub resolved: bool,
    /// Bodies of the replies written by anyone but the pipeline.
    pub replies: Vec<String>,
}

/// The overview comment an earlier run left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overview {
    pub handle: Handle,
    pub body: String,
}

/// Everything of the pipeline's already on the pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Existing {
    /// The overview; when a bug or a race left several, the oldest.
    pub overview: Option<Overview>,
    pub threads: Vec<Thread>,
    /// Why new inline comments cannot be placed on the head under review (the
    /// pull request moved on since the pipeline started), if so.
    pub inline_blocked: Option<String>,
}

/// An inline comment to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewComment {
    pub anchor: Anchor,
    pub body: String,
}

/// A pull request on a code host, seen through the pipeline's own token.
///
/// Implementations are thin clients of the host's REST API: they list and
/// change comments and decide nothing; what to post is [`crate::plan_sync`]'s
/// call.
#[async_trait]
pub trait CodeHost: Send + Sync {
    /// "GitHub", "GitLab" or "Azure DevOps", for messages.
    fn name(&self) -> &'static str;

    /// How the host takes a suggested fix in an inline comment.
    fn dialect(&self) -> crate::suggest::Dialect {
        crate::suggest::Dialect::Plain
    }

    /// The pipeline's overview and inline threads on the pull request. Comments
    /// by anyone else, markers or not, are never listed as the pipeline's.
    async fn existing(&self, head: &str) -> Result<Existing, PublishError>;

    /// Create inline comments on the new side of `head`, in as few requests as
    /// the host allows (GitHub: one review).
    async fn create(&self, head: &str, comments: &[NewComment]) -> Result<(), PublishError>;

    /// Replace the body of the pipeline's comment; `reopen` also reopens a
    /// thread the pipeline resolved earlier.
    async fn update(&self, thread: &Handle, body: &str, reopen: bool) -> Result<(), PublishError>;

    /// Mark a thread resolved, with `body` as the comment's new text.
    async fn resolve(&self, thread: &Handle, body: &str) -> Result<(), PublishError>;

    /// Create the overview, or replace the existing one's body.
    async fn upsert_overview(&self, existing: Option<&Handle>, body: &str) -> Result<(), PublishError>;
}
