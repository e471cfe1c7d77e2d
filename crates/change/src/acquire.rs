//! Turning a user's choice of change ([`Target`]) into a [`Change`].

use crate::diff::parse_file_patches;
use crate::{Change, ChangeError, ChangedFile, FileDiff, FileStatus, LineKind, Snapshot, git::Git, parse_patch};
use diffy::Patch;
use std::collections::HashMap;
use std::path::PathBuf;

/// Which change to review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Current branch (HEAD) against its merge-base with the default branch.
    Default,
    /// `--base REV --head REV` (head defaults to HEAD). Reviews merge-base(base, head)..head.
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

/// Review `merge-base(tip, head)..head`: only what the head side added, not what landed
/// on the base branch meanwhile.
fn commit_range(git: &Git, tip: &str, head: String) -> Result<Change, ChangeError> {
    // Unrelated histories have no merge base; comparing the tips is the best left.
    let base = git.merge_base(tip, &head)?.unwrap_or_else(|| tip.to_string());
    let snapshot = Snapshot::Commit(head.clone());
    if base == head {
        return from_git_diff(git, base, head, snapshot, "");
    }
    // The diff and the head contents are independent git processes: run them side by
    // side, so reading whole files adds little to the time `git diff` takes anyway.
    let (text, prefetched) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| prefetch(git, &base, &head));
        let text = git.diff(&[&base, &head, "--"]);
        (text, reader.join().unwrap_or_else(|_| Ok(HashMap::new())))
    });
    from_git_diff_with(git, base, head, snapshot, &text?, prefetched?)
}

/// Head contents of every file the range adds or changes, keyed by head path. The
/// blob ids come from `git diff --raw`, which is cheap next to the full diff, and
/// reading blobs by id spares git a tree lookup per path.
fn prefetch(git: &Git, base: &str, head: &str) -> Result<HashMap<String, Option<Vec<u8>>>, ChangeError> {
    let raw = git.run(&[
        "diff",
        "--raw",
        "-z",
        "--no-abbrev",
        "--no-ext-diff",
        "--diff-filter=d",
        "-M",
        "-C",
        base,
        head,
        "--",
    ])?;
    let entries = raw_entries(&raw);
    // The checkout often holds these very blobs; git reads only the others.
    let mut contents: Vec<Option<Vec<u8>>> = entries.iter().map(|(path, oid)| git.worktree_blob(path, oid)).collect();
    let missing: Vec<usize> = (0..entries.len()).filter(|i| contents[*i].is_none()).collect();
    let oids: Vec<&str> = missing.iter().map(|i| entries[*i].1.as_str()).collect();
    for (i, blob) in missing.into_iter().zip(git.read_blobs(&oids)?) {
        contents[i] = blob;
    }
    Ok(entries.into_iter().map(|(path, _)| path).zip(contents).collect())
}

/// `(head path, head blob id)` of each entry of `git diff --raw -z --no-abbrev`
/// output (`:MODE MODE OID OID STATUS\0PATH\0`, with a second path for renames and
/// copies). Submodules have no blob at head and are left out.
fn raw_entries(raw: &[u8]) -> Vec<(String, String)> {
    let mut fields = raw.split(|b| *b == 0);
    let mut out = Vec::new();
    while let Some(meta) = fields.next() {
        let Some(meta) = meta.strip_prefix(b":") else {
            continue;
        };
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.split(' ').collect();
        let [_, new_mode, _, new_oid, status] = parts[..] else {
            continue;
        };
        let two_paths = status.starts_with('R') || status.starts_with('C');
        let Some(mut path) = fields.next() else {
            break;
        };
        if two_paths {
            let Some(to) = fields.next() else {
                break;
            };
            path = to;
        }
        if new_mode != "160000" {
            out.push((String::from_utf8_lossy(path).into_owned(), new_oid.to_string()));
        }
    }
    out
}

/// HEAD's sha, or the empty tree in a repository without commits, so a first commit's
/// staged files can still be reviewed.
fn head_or_empty_tree(git: &Git) -> Result<String, ChangeError> {
    match git.try_resolve("HEAD")? {
        Some(sha) => Ok(sha),
        None => git.empty_tree(),
    }
}

fn from_git_diff(git: &Git, base: String, head: String, snapshot: Snapshot, text: &str) -> Result<Change, ChangeError> {
    from_git_diff_with(git, base, head, snapshot, text, HashMap::new())
}

/// Build the change from diff text, taking head contents from `prefetched` where it
/// has them and reading the rest in one batch.
fn from_git_diff_with(
    git: &Git,
    base: String,
    head: String,
    snapshot: Snapshot,
    text: &str,
    mut prefetched: HashMap<String, Option<Vec<u8>>>,
) -> Result<Change, ChangeError> {
    let diffs = parse_patch(text)?;
    let missing: Vec<&str> = diffs
        .iter()
        .filter(|d| unreadable_reason(d).is_none() && !prefetched.contains_key(d.path()))
        .map(|d| d.path())
        .collect();
    let read = git.read_many(&snapshot, &missing)?;
    prefetched.extend(missing.iter().map(|p| p.to_string()).zip(read));
    let mut files = Vec::new();
    for diff in diffs {
        let (head_text, unreadable) = match unreadable_reason(&diff) {
            Some(reason) => (None, Some(reason.to_string())),
            None => decode(prefetched.remove(diff.path()).flatten()),
        };
        files.push(ChangedFile { diff, head_text, unreadable });
    }
    Ok(finish(base, head, snapshot, files))
}

/// Files whose head text is not worth reading at all.
fn unreadable_reason(diff: &FileDiff) -> Option<&'static str> {
    if diff.status == FileStatus::Deleted {
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
    for (diff, patch) in parse_file_patches(&text)? {
        let (head_text, unreadable) = match (unreadable_reason(&diff), patch) {
            (Some(reason), _) => (None, Some(reason.to_string())),
            (None, Some(patch)) => patched_head(git, &diff, &patch),
            (None, None) => (None, Some("binary".to_string())),
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

#[cfg(test)]
mod tests {
    use super::raw_entries;

    #[test]
    fn raw_entries_take_the_head_path_and_blob_and_skip_submodules() {
        let oid = |c: char| c.to_string().repeat(40);
        let raw = format!(
            ":100644 100644 {a} {b} M\0src/lib.rs\0\
             :100644 100644 {a} {c} R087\0old name.rs\0new name.rs\0\
             :100644 100644 {a} {d} C100\0orig.rs\0copy.rs\0\
             :000000 160000 {z} {e} A\0vendor/sub\0\
             :000000 100755 {z} {f} A\0run.sh\0",
            a = oid('a'),
            b = oid('b'),
            c = oid('c'),
            d = oid('d'),
            e = oid('e'),
            f = oid('f'),
            z = oid('0'),
        );
        let got = raw_entries(raw.as_bytes());
        let want: Vec<(String, String)> =
            [("src/lib.rs", 'b'), ("new name.rs", 'c'), ("copy.rs", 'd'), ("run.sh", 'f')]
                .into_iter()
                .map(|(p, c)| (p.to_string(), oid(c)))
                .collect();
        assert_eq!(got, want);
    }
}
