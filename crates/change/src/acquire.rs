//! Turning a user's choice of change ([`Target`]) into a [`Change`].

use crate::diff::Body;
use crate::parse::parse_file_patches;
use crate::{Change, ChangeError, ChangedFile, FileDiff, FileStatus, LineKind, Snapshot, git::Git};
use diffy::Patch;
use std::collections::HashMap;
use std::path::PathBuf;

/// Which change to review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Current branch (HEAD) against its merge-base with the default branch.
    Default,
    /// `--base REV --head REV` (head defaults to HEAD). Reviews merge-base(base, head)..head.
    /// A base that is git's empty tree ([`is_empty_tree`]) reviews everything head
    /// holds: a root commit's own change.
    Range { base: String, head: Option<String> },
    /// Staged changes (index against HEAD).
    Staged,
    /// Working-tree changes against HEAD (staged and unstaged, tracked files).
    Worktree,
    /// A unified diff from a file, or stdin when `None`... see [`PatchSource`].
    Patch(PatchSource),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchSource {
    File(PathBuf),
    /// Already-read text (the CLI reads stdin for `--patch -`).
    Text(String),
}

/// Resolve `target` to a [`Change`]: run the diff, parse it, and load each changed
/// file's head text from the matching [`Snapshot`].
pub fn acquire(git: &Git, target: &Target) -> Result<Change, ChangeError> {
    match target {
        Target::Default => {
            // HEAD and the default branch's candidates in one git process.
            let mut revs = vec!["HEAD"];
            revs.extend(crate::git::DEFAULT_BRANCHES);
            let shas = git.try_resolve_many(&revs)?;
            let head = shas[0].clone().ok_or_else(|| ChangeError::BadRevision { rev: "HEAD".into() })?;
            let tip = shas[1..].iter().flatten().next().ok_or(ChangeError::NoDefaultBranch)?;
            commit_range(git, tip, head)
        }
        Target::Range { base, head } if is_empty_tree(base) => {
            let head = git.resolve(head.as_deref().unwrap_or("HEAD"))?;
            let text = git.diff(&[base, &head, "--"])?;
            from_git_diff(git, base.clone(), head.clone(), Snapshot::Commit(head), &text)
        }
        Target::Range { base, head } => {
            let [head, tip] = git.resolve_all([head.as_deref().unwrap_or("HEAD"), base])?;
            commit_range(git, &tip, head)
        }
        Target::Staged => {
            let base = head_or_empty_tree(git)?;
            let text = git.diff(&["--cached", &base, "--"])?;
            from_git_diff(git, base, "INDEX".into(), Snapshot::Index, &text)
        }
        Target::Worktree => {
            let base = head_or_empty_tree(git)?;
            let text = git.diff(&[&base, "--"])?;
            from_git_diff(git, base, "WORKTREE".into(), Snapshot::Worktree, &text)
        }
        Target::Patch(source) => from_patch(git, source),
    }
}

/// git's empty tree, in SHA-1 and SHA-256 repositories: the base of a change
/// that starts from nothing (a root commit).
pub const EMPTY_TREES: [&str; 2] =
    ["4b825dc642cb6eb9a060e54bf8d69288fbee4904", "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"];

/// Whether `rev` names git's empty tree by its full id.
pub fn is_empty_tree(rev: &str) -> bool {
    EMPTY_TREES.contains(&rev)
}

/// Review `merge-base(tip, head)..head`: only what the head side added, not what landed
/// on the base branch meanwhile.
fn commit_range(git: &Git, tip: &str, head: String) -> Result<Change, ChangeError> {
    // Unrelated histories have no merge base; comparing the tips is the best left.
    let base = git.merge_base(tip, &head)?.unwrap_or_else(|| tip.to_string());
    let snapshot = Snapshot::Commit(head.clone());
    let text = if base == head { String::new() } else { git.diff(&[&base, &head, "--"])? };
    from_git_diff(git, base, head, snapshot, &text)
}

/// HEAD's sha, or the empty tree in a repository without commits, so a first commit's
/// staged files can still be reviewed.
fn head_or_empty_tree(git: &Git) -> Result<String, ChangeError> {
    match git.try_resolve("HEAD")? {
        Some(sha) => Ok(sha),
        None => git.empty_tree(),
    }
}

/// Build the change from diff text, reading the head text of every changed file in
/// one batch.
fn from_git_diff(git: &Git, base: String, head: String, snapshot: Snapshot, text: &str) -> Result<Change, ChangeError> {
    let diffs = parse_file_patches(text)?;
    let wanted: Vec<&str> =
        diffs.iter().filter(|(d, body)| unreadable_reason(d, body).is_none()).map(|(d, _)| d.path()).collect();
    let read = git.read_many(&snapshot, &wanted)?;
    let mut contents: HashMap<String, Option<Vec<u8>>> = wanted.iter().map(|p| p.to_string()).zip(read).collect();
    let mut files = Vec::new();
    for (diff, body) in diffs {
        let (head_text, unreadable) = match unreadable_reason(&diff, &body) {
            Some(reason) => (None, Some(reason.to_string())),
            None => decode(contents.remove(diff.path()).flatten()),
        };
        files.push(ChangedFile { diff, head_text, unreadable });
    }
    Ok(finish(base, head, snapshot, files))
}

/// Why a submodule is not reviewed: its content lives in another repository.
pub const SUBMODULE: &str = "submodule pointer: only the commit it points to changed, and that commit's code \
    lives in another repository; review the submodule's own change there";

/// Files whose head text is not worth reading at all.
fn unreadable_reason(diff: &FileDiff, body: &Body<'_>) -> Option<&'static str> {
    if matches!(body, Body::UnreadableName) {
        Some(crate::UNREADABLE_NAME)
    } else if diff.is_submodule() {
        Some(SUBMODULE)
    } else if diff.status == FileStatus::Deleted {
        Some("deleted")
    } else if diff.binary {
        Some("binary")
    } else {
        None
    }
}

/// Head text and why it is missing, from the bytes a snapshot gave.
fn decode(bytes: Option<Vec<u8>>) -> (Option<String>, Option<String>) {
    match bytes.map(String::from_utf8) {
        Some(Ok(text)) => (Some(text), None),
        Some(Err(_)) => (None, Some("not valid UTF-8".into())),
        None => (None, Some("missing at head".into())),
    }
}

fn finish(base: String, head: String, snapshot: Snapshot, mut files: Vec<ChangedFile>) -> Change {
    files.sort_by(|a, b| a.diff.path().cmp(b.diff.path()));
    Change { base, head, snapshot, files }
}

fn from_patch(git: &Git, source: &PatchSource) -> Result<Change, ChangeError> {
    let text = match source {
        PatchSource::Text(text) => text.clone(),
        PatchSource::File(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| ChangeError::PatchRead { path: path.display().to_string(), message: e.to_string() })?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    let mut files = Vec::new();
    for (diff, body) in parse_file_patches(&text)? {
        let (head_text, unreadable) = match (unreadable_reason(&diff, &body), body) {
            (Some(reason), _) => (None, Some(reason.to_string())),
            (None, Body::Text(patch)) => patched_head(git, &diff, &patch),
            (None, _) => (None, Some("binary".to_string())),
        };
        files.push(ChangedFile { diff, head_text, unreadable });
    }
    Ok(finish("patch".into(), "patch".into(), Snapshot::Worktree, files))
}

/// Head text for a patch file: the working tree if the patch is already applied there,
/// else the patch applied to the old side on disk.
fn patched_head(git: &Git, diff: &FileDiff, patch: &Patch<'_, str>) -> (Option<String>, Option<String>) {
    let on_disk = git.read(&Snapshot::Worktree, diff.path()).ok().flatten();
    let current = match on_disk.map(String::from_utf8) {
        Some(Ok(text)) => Some(text),
        Some(Err(_)) => return (None, Some("not valid UTF-8".into())),
        None => None,
    };
    let applied = current.as_deref().map(|text| post_image_at_hunks(text, diff));
    if let (Some(text), Some(Some(true))) = (&current, applied) {
        return (Some(text.clone()), None);
    }
    let old = match diff.status {
        FileStatus::Added => Some(String::new()),
        _ => diff
            .old_path
            .as_deref()
            .and_then(|p| git.read(&Snapshot::Worktree, p).ok().flatten())
            .and_then(|bytes| String::from_utf8(bytes).ok()),
    };
    if let Some(new) = old.and_then(|old| diffy::apply(&old, patch).ok()) {
        return (Some(new), None);
    }
    // Deletion-only hunks leave nothing to compare, and a failed apply suggests the
    // removal already happened.
    if let (Some(text), Some(None)) = (current, applied) {
        return (Some(text), None);
    }
    (None, Some("patch does not apply to the working tree".into()))
}

/// Whether `text` holds every hunk's new-side lines at their new-side line numbers.
/// `None` when the hunks have no new-side lines to compare.
fn post_image_at_hunks(text: &str, diff: &FileDiff) -> Option<bool> {
    let lines: Vec<&str> = text.lines().collect();
    let mut compared = diff.hunks.is_empty();
    for hunk in &diff.hunks {
        let expected = hunk.lines.iter().filter(|l| l.kind != LineKind::Removed);
        for (offset, line) in expected.enumerate() {
            let index = (hunk.new_start as usize).saturating_sub(1) + offset;
            if lines.get(index) != Some(&line.text.as_str()) {
                return Some(false);
            }
            compared = true;
        }
    }
    compared.then_some(true)
}
