//! Unified-diff model and parser (git extended format: renames, copies, binary,
//! modes, quoted paths, missing newline at end of file).

use diffy::Line;
use diffy::Patch;
use diffy::patch_set::{FileMode, FileOperation, FilePatch, ParseOptions, PatchKind, PatchSet};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk, markers stripped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: LineKind,
    /// Line number on the old side (context and removed lines).
    pub old: Option<u32>,
    /// Line number on the new side (context and added lines).
    pub new: Option<u32>,
    /// The head line this line is located at: `new` for context and added lines; for a
    /// removed line, the head line where the removal happened (the new-side line that
    /// follows it, clamped to the file's last line, at least 1).
    pub anchor: u32,
    /// Text without the leading marker and without the line terminator.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// Function context after the second `@@`, if any.
    pub header: String,
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// Head lines an inline comment may be placed on: the new-side range, or for a
    /// deletion-only hunk the single anchor line.
    pub fn new_side(&self) -> std::ops::RangeInclusive<u32> {
        let start = self.new_start.max(1);
        // Saturating: a hand-built hunk may say anything; parsed ones are checked.
        start..=start.saturating_add(self.new_lines.max(1) - 1)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub status: FileStatus,
    pub binary: bool,
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    pub hunks: Vec<Hunk>,
}

impl FileDiff {
    /// The path at head, or the old path for a deleted file.
    pub fn path(&self) -> &str {
        self.new_path.as_deref().or(self.old_path.as_deref()).unwrap_or("")
    }
    pub fn added(&self) -> usize {
        self.count(LineKind::Added)
    }
    pub fn removed(&self) -> usize {
        self.count(LineKind::Removed)
    }
    fn count(&self, kind: LineKind) -> usize {
        self.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind == kind).count()
    }
    /// Whether this entry is a submodule (a gitlink, mode 160000) on either side: its
    /// "lines" are the commit ids the pointer moved between, not code. A bump names
    /// the mode only on its `index` line, which the parser does not keep, so the
    /// hunks' shape decides then: git writes a pointer as one `Subproject commit`
    /// line per side.
    pub fn is_submodule(&self) -> bool {
        let by_mode = [&self.old_mode, &self.new_mode].into_iter().flatten().any(|m| m == SUBMODULE_MODE);
        by_mode || (!self.hunks.is_empty() && self.hunks.iter().all(is_pointer_hunk))
    }
    /// Whether head line `line` lies in some hunk's new-side range.
    pub fn in_hunk(&self, line: u32) -> bool {
        self.hunks.iter().any(|h| h.new_side().contains(&line))
    }
}

/// What a parsed file diff carries besides its [`FileDiff`].
pub(crate) enum Body<'a> {
    /// The diffy patch it came from, kept so `--patch` can apply it to the working tree.
    Text(Patch<'a, str>),
    Binary,
    /// A file whose name is not valid UTF-8 ([`crate::names`]): its path is shown
    /// escaped, and nothing of it can be read or commented on.
    UnreadableName,
}

/// A parsed file diff and what came with it.
pub(crate) type ParsedFile<'a> = (FileDiff, Body<'a>);

/// Every file of `text` (in git's diff format when `git`), or the first error.
pub(crate) fn parse_with(text: &str, git: bool) -> Result<Vec<ParsedFile<'_>>, crate::ChangeError> {
    let options = if git { ParseOptions::gitdiff() } else { ParseOptions::unidiff() };
    PatchSet::parse(text, options).map(|file| file.map_err(parse_error).and_then(convert_file)).collect()
}

fn parse_error(err: diffy::patch_set::PatchSetParseError) -> crate::ChangeError {
    let message = err.to_string();
    if message.ends_with("no valid patches found") {
        return crate::ChangeError::Parse(
            "no file diffs found: expected `git diff` output (`diff --git` or `---`/`+++` headers followed by `@@` hunks)".into(),
        );
    }
    crate::ChangeError::Parse(message)
}

fn convert_file(file: FilePatch<'_, str>) -> Result<ParsedFile<'_>, crate::ChangeError> {
    let (old_path, new_path, status) = file_paths(file.operation());
    let old_mode = file.old_mode().map(|m| mode_string(*m));
    let new_mode = file.new_mode().map(|m| mode_string(*m));
    let mut diff = FileDiff { old_path, new_path, status, binary: false, old_mode, new_mode, hunks: Vec::new() };
    match file.into_patch() {
        PatchKind::Text(patch) => {
            diff.hunks = patch.hunks().iter().map(convert_hunk).collect::<Result<_, _>>()?;
            Ok((diff, Body::Text(patch)))
        }
        PatchKind::Binary(_) => {
            diff.binary = true;
            Ok((diff, Body::Binary))
        }
    }
}

/// Old path, new path and status. `---`/`+++` and `diff --git` paths carry the `a/`/`b/`
/// prefixes; `rename from`/`copy from` headers never do.
pub(crate) fn file_paths(op: &FileOperation<'_, str>) -> (Option<String>, Option<String>, FileStatus) {
    match op {
        FileOperation::Create(path) => (None, Some(strip(path, "b/")), FileStatus::Added),
        FileOperation::Delete(path) => (Some(strip(path, "a/")), None, FileStatus::Deleted),
        FileOperation::Modify { original, modified } => {
            // Strip only when both sides carry the prefixes, so a `--no-prefix` or plain
            // `diff -u` path that merely starts with `a/` keeps its directory.
            let prefixed = original.starts_with("a/") && modified.starts_with("b/");
            let (old, new) = if prefixed {
                (strip(original, "a/"), strip(modified, "b/"))
            } else {
                (original.to_string(), modified.to_string())
            };
            (Some(old), Some(new), FileStatus::Modified)
        }
        FileOperation::Rename { from, to } => (Some(from.to_string()), Some(to.to_string()), FileStatus::Renamed),
        FileOperation::Copy { from, to } => (Some(from.to_string()), Some(to.to_string()), FileStatus::Copied),
    }
}

fn strip(path: &str, prefix: &str) -> String {
    path.strip_prefix(prefix).unwrap_or(path).to_string()
}

/// A hunk git writes for a submodule pointer: at most one line per side, each
/// `Subproject commit <id>` (with `-dirty` for a modified worktree).
fn is_pointer_hunk(hunk: &Hunk) -> bool {
    let pointer = |l: &DiffLine| {
        let id = l.text.strip_prefix("Subproject commit ").map(|rest| rest.trim_end_matches("-dirty"));
        id.is_some_and(|id| (40..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let count = |kind| hunk.lines.iter().filter(|l| l.kind == kind).count();
    hunk.lines.iter().all(pointer) && count(LineKind::Added) <= 1 && count(LineKind::Removed) <= 1
}

/// Git's file mode of a submodule entry (a gitlink).
pub const SUBMODULE_MODE: &str = "160000";

pub(crate) fn mode_string(mode: FileMode) -> String {
    match mode {
        FileMode::Regular => "100644",
        FileMode::Executable => "100755",
        FileMode::Symlink => "120000",
        FileMode::Gitlink => SUBMODULE_MODE,
    }
    .to_string()
}

fn convert_hunk(hunk: &diffy::Hunk<'_, str>) -> Result<Hunk, crate::ChangeError> {
    let (old, new) = (hunk.old_range(), hunk.new_range());
    // Every line number of the hunk, and the one after it, must fit in a u32.
    let fits = |start: usize, len: usize| start.checked_add(len).is_some_and(|end| end <= u32::MAX as usize);
    if !fits(old.start(), old.len()) || !fits(new.start(), new.len()) {
        return Err(crate::ChangeError::Parse(format!(
            "hunk `@@ -{},{} +{},{} @@` has line numbers beyond {}, the largest supported; is the diff corrupt?",
            old.start(),
            old.len(),
            new.start(),
            new.len(),
            u32::MAX
        )));
    }
    // Line 0 only exists as the start of an empty side (`@@ -0,0 +1,2 @@`).
    if (old.start() == 0 && !old.is_empty()) || (new.start() == 0 && !new.is_empty()) {
        return Err(crate::ChangeError::Parse(format!(
            "hunk `@@ -{},{} +{},{} @@` has lines numbered from 0; lines are numbered from 1",
            old.start(),
            old.len(),
            new.start(),
            new.len()
        )));
    }
    let mut out = Hunk {
        old_start: to_u32(old.start()),
        old_lines: to_u32(old.len()),
        new_start: to_u32(new.start()),
        new_lines: to_u32(new.len()),
        header: hunk.function_context().unwrap_or("").trim_end().to_string(),
        lines: Vec::with_capacity(hunk.lines().len()),
    };
    // A removed line sits before the next new-side line; clamping to the hunk's
    // new-side range keeps removals at end of file (and deletion-only hunks, whose
    // `new_start` is the line *before* the removal) on a line a comment can target.
    let side = out.new_side();
    let (mut old, mut new) = (out.old_start, out.new_start);
    for line in hunk.lines() {
        let (kind, old_no, new_no, text) = match *line {
            Line::Context(text) => (LineKind::Context, Some(old), Some(new), text),
            Line::Delete(text) => (LineKind::Removed, Some(old), None, text),
            Line::Insert(text) => (LineKind::Added, None, Some(new), text),
        };
        let anchor = new_no.unwrap_or_else(|| new.clamp(*side.start(), *side.end()));
        out.lines.push(DiffLine { kind, old: old_no, new: new_no, anchor, text: strip_eol(text).to_string() });
        old += u32::from(old_no.is_some());
        new += u32::from(new_no.is_some());
    }
    Ok(out)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn strip_eol(text: &str) -> &str {
    match text.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => text,
    }
}
