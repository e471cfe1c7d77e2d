//! The change under review.
//!
//! A [`Change`] is what every later stage reads: the files a change touched, their
//! hunks with old/new line numbers, and the full text of each changed file at the
//! head side. It is acquired through [`git::Git`] from a commit range, the index,
//! the working tree, or a patch file ([`Target`]): diffs come from the `git` CLI,
//! lookups in commits are made in-process where gitoxide can (`store`).
//!
//! ```no_run
//! use gauntlet_change::{git::Git, Target, acquire};
//! let git = Git::discover(std::path::Path::new(".")).unwrap();
//! let change = acquire(&git, &Target::Default).unwrap();
//! for file in &change.files {
//!     println!("{} (+{} -{})", file.diff.path(), file.diff.added(), file.diff.removed());
//! }
//! ```

pub mod acquire;
pub mod diff;
pub mod git;
pub mod history;
mod names;
mod parse;
pub mod search;
mod store;

pub use acquire::{Target, acquire, is_empty_tree};
pub use diff::{DiffLine, FileDiff, FileStatus, Hunk, LineKind};
pub use history::LineCommit;
pub use names::UNREADABLE_NAME;
pub use parse::parse_patch;
pub use search::GrepHit;

use serde::Serialize;

/// Errors a user can hit while obtaining a change. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    #[error("not inside a git repository ({path}): run gauntlet inside a git checkout, or point it at one with -C DIR")]
    NotARepo { path: String },
    #[error("revision `{rev}` does not resolve in this repository: check the name, or `git fetch` it first")]
    BadRevision { rev: String },
    #[error(
        "no default branch found (tried origin/HEAD, main, master): pass --base REV, or run `git remote set-head origin --auto`"
    )]
    NoDefaultBranch,
    #[error("could not parse the diff: {0}")]
    Parse(String),
    #[error("could not read patch {path}: {message}")]
    PatchRead { path: String, message: String },
    #[error("git {args} failed: {stderr}")]
    Git { args: String, stderr: String },
    #[error("could not run git: {0} (is git installed and on PATH?)")]
    Spawn(String),
    #[error("git {needed} or later is needed {why}, but this is {found}: install a newer git on the runner")]
    GitTooOld { needed: &'static str, found: String, why: &'static str },
}

/// Where the head side of a change lives, so more files can be read from it later
/// (context files, tool reads).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "rev", rename_all = "snake_case")]
pub enum Snapshot {
    /// A commit (full sha).
    Commit(String),
    /// The index (`git add`ed content).
    Index,
    /// Files on disk.
    Worktree,
}

/// One changed file: its diff, and its full text at head when it is a readable text file.
#[derive(Clone, Debug)]
pub struct ChangedFile {
    pub diff: FileDiff,
    /// Full head text. `None` for deleted, binary, non-UTF-8 or unreadable files; see `unreadable`.
    pub head_text: Option<String>,
    /// Why `head_text` is `None`, for the report's `not_reviewed[]` ("deleted", "binary", ...).
    pub unreadable: Option<String>,
}

impl ChangedFile {
    /// Whether a model can be shown anything of this file: its text at head, or
    /// lines of its diff. Not so for a binary file, a submodule pointer (its
    /// lines are commit ids, its code lives elsewhere), or a file whose name is
    /// not UTF-8.
    pub fn is_showable(&self) -> bool {
        self.head_text.is_some() || (!self.diff.hunks.is_empty() && !self.diff.is_submodule())
    }
}

/// A change: the files it touched between `base` and `head`.
#[derive(Clone, Debug)]
pub struct Change {
    /// Resolved base (full sha), or a label such as `HEAD` / `patch` when there is no commit.
    pub base: String,
    /// Resolved head (full sha), or `INDEX` / `WORKTREE` / `patch`.
    pub head: String,
    /// Where more head files can be read from.
    pub snapshot: Snapshot,
    pub files: Vec<ChangedFile>,
}

impl Change {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn file(&self, path: &str) -> Option<&ChangedFile> {
        self.files.iter().find(|f| f.diff.new_path.as_deref() == Some(path))
    }
}
