//! What every code host offers the publisher, and the data it exchanges.

use crate::PublishError;
use crate::status::Status;
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
/// Only the host that made them reads them as ids; `stats` also builds a link
/// to the thread from them (`gauntlet_report::weblink`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Handle {
    pub thread: String,
    pub comment: String,
}

/// Someone on the code host, as the host identifies them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Person {
    /// What the host's permission API takes: the GitHub login, the GitLab user id,
    /// the Azure DevOps identity id.
    pub id: String,
    /// What a reader recognises: login, username or display name.
    pub name: String,
}

/// A reply in a thread, by anyone but the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub author: Person,
    pub body: String,
    /// Whether someone other than its author changed it, as far as the host says.
    pub edited: Edited,
}

/// Whether a reply reads as its author wrote it. Only GitHub says who last
/// edited a comment; GitLab's REST notes and Azure DevOps comments do not, so
/// their replies are always [`Edited::NotByOthers`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Edited {
    /// Never edited, edited by its author only, or the host does not say.
    #[default]
    NotByOthers,
    /// Last edited by this person, who is not its author.
    By(Person),
    /// Edited, and the host does not name who did it (a deleted account).
    ByUnknown,
}

/// An inline thread the pipeline opened on an earlier run, with what people
/// did on it as the host recorded it. [`crate::dismissal`] decides what of
/// that counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub handle: Handle,
    pub path: String,
    /// Body of the pipeline's comment, marker line included.
    pub body: String,
    /// Whether the host shows the thread as resolved (GitHub, GitLab) or as any
    /// status other than active (Azure DevOps).
    pub resolved: bool,
    /// Who resolved the thread, when it is resolved, the host says who, and it was
    /// not the pipeline (GitHub `resolvedBy`, GitLab `resolved_by`, Azure DevOps the
    /// author of the status change).
    pub resolved_by: Option<Person>,
    /// Replies by anyone but the pipeline, oldest first.
    pub replies: Vec<Reply>,
    /// Who left the host's negative reaction on the pipeline's comment (GitHub's
    /// thumbs-down, GitLab's `thumbsdown` award; Azure DevOps has none).
    pub thumbs_down: Vec<Person>,
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
    /// Who opened the pull request, when the host says.
    pub author: Option<Person>,
    /// Comments on the pull request outside the pipeline's threads, by anyone but
    /// the pipeline, oldest first: where `/gauntlet dismiss <finding id>` is read
    /// for findings that have no thread of their own.
    pub general: Vec<Reply>,
    /// What could not be read in full (a listing cut at its page cap): the
    /// overview says so, since a dismissal may be in the part not read.
    pub unread: Vec<String>,
    /// Why the overview cannot be taken as the pipeline's own, when it cannot:
    /// someone besides the pipeline last edited it (GitLab keeps just a note's last
    /// editor, which the next run's rewrite would hide), or its text is not what the
    /// pipeline last wrote there, as `ci` checks against a record it keeps outside
    /// the comment (on GitHub any workflow posts and edits under the pipeline's
    /// identity). Such an overview decides nothing ([`Existing::marker`]), and what
    /// its marker remembers is not carried over but for the held findings' ids
    /// ([`crate::sync::sync`]).
    pub overview_edited: Option<String>,
}

impl Existing {
    /// The overview's marker, when the overview can be taken as the pipeline's own
    /// ([`Existing::overview_edited`] is unset): only then may it say which head
    /// was reviewed, or what stands.
    pub fn marker(&self) -> Option<crate::marker::OverviewMarker> {
        let overview = self.overview.as_ref().filter(|_| self.overview_edited.is_none())?;
        crate::marker::OverviewMarker::parse(&overview.body)
    }
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

    /// Wait at most `limit` when the host refuses a request for its rate limit
    /// and asks to be called again later (`[network] max_retry_after_secs`); a
    /// longer wait fails the request at once. Two minutes until this is called.
    fn wait_at_most(&mut self, limit: std::time::Duration);

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

    /// Whether the host reports `who` as able to write to the repository: GitHub
    /// collaborator permission write, maintain or admin; GitLab access Developer or
    /// above; Azure DevOps a member of the project's Contributors or Project
    /// Administrators. The one question a dismissal's author must pass.
    async fn may_write(&self, who: &Person) -> Result<bool, PublishError>;

    /// Show the run's verdict where the host shows one (GitHub: a check run on
    /// `head`; Azure DevOps: a pull request status) and say what was done;
    /// `Ok(None)` where the host has no such place for a pipeline's token
    /// (GitLab, whose Code Quality report is a job artifact instead).
    async fn report_status(&self, head: &str, status: &Status<'_>) -> Result<Option<String>, PublishError> {
        let _ = (head, status);
        Ok(None)
    }
}
