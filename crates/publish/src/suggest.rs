//! Reviewed fixes on a pull request (`gauntlet ci --suggest`): which fix can be
//! offered as the host's one-click suggestion, and on which lines.
//!
//! A suggestion replaces a block of head lines with new text, and the host applies
//! it as a commit. [`propose`] is a pure function from the fix's patch, the
//! finding's anchor and the pull request's diff of that file to that block, or
//! to the reason the fix has to be described instead: it must touch only the
//! commented file, in one hunk, change at most [`MAX_CHANGED_LINES`] lines, and
//! stay inside the diff hunk the comment sits in (a host only takes comments,
//! and so suggestions, on lines its diff shows).

use crate::host::Anchor;
use gauntlet_change::{FileDiff, FileStatus, Hunk, LineKind};
use std::collections::{BTreeMap, BTreeSet};

/// Most lines a suggested fix may change (the larger of lines removed and lines
/// added): past this a reader should look at a patch, not click a button.
pub const MAX_CHANGED_LINES: usize = 5;

/// What a host can do with a fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// GitHub: a ```` ```suggestion ```` block replaces the commented lines.
    GitHub,
    /// GitLab: ```` ```suggestion:-N+M ```` replaces N lines above and M below the
    /// commented line, which included.
    GitLab,
    /// No suggestion feature (Azure DevOps): fixes are shown as diffs.
    Plain,
}

/// A fix the adversarial loop produced for one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewedFix {
    /// The kept patch, against the reviewed head.
    pub patch: String,
    /// Whether it survived the adversary (approved, or only minor issues left).
    pub converged: bool,
    pub rounds: usize,
    /// How the loop ended, in words ("approved", "round cap").
    pub exit: String,
    /// The suggestion it makes on this pull request, or why it cannot make one.
    pub fit: Result<Suggestion, Unsuitable>,
}

/// Head lines `anchor.start..=anchor.line` replaced by `lines`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// Where the comment must sit for the suggestion to replace exactly the
    /// right lines (GitHub: `start_line`..`line`).
    pub anchor: Anchor,
    pub lines: Vec<String>,
    /// Lines the fix changes.
    pub changed: usize,
}

/// Why a fix is described rather than suggested.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsuitable {
    #[error("the finding is not on a line of the diff")]
    NotInline,
    #[error("the patch could not be read ({0})")]
    Unreadable(String),
    #[error("the patch changes nothing")]
    Empty,
    #[error("the patch touches other files than the commented one, or renames it")]
    OtherFiles,
    #[error("the patch has {0} separate hunks")]
    Hunks(usize),
    #[error("the patch changes {0} lines, more than the {MAX_CHANGED_LINES} a suggestion may")]
    TooLarge(usize),
    #[error("the patch changes lines outside the diff hunk the comment is on")]
    OutsideHunk,
    #[error("the patch does not match the head the comment is on")]
    Stale,
}

/// The suggestion `patch` makes for a comment at `anchor`, whose file the pull
/// request changes as `diff`.
///
/// The replaced block is the smallest that covers both the anchor's lines and
/// every line the patch removes or inserts next to; each of its lines must be a
/// new-side line of the anchor's hunk.
pub fn propose(patch: &str, diff: &FileDiff, anchor: &Anchor) -> Result<Suggestion, Unsuitable> {
    let files = gauntlet_change::parse_patch(patch).map_err(|e| Unsuitable::Unreadable(e.to_string()))?;
    let [file] = files.as_slice() else {
        return Err(if files.is_empty() { Unsuitable::Empty } else { Unsuitable::OtherFiles });
    };
    let same_path = file.old_path.as_deref() == Some(anchor.path.as_str()) && file.new_path == file.old_path;
    if !same_path || file.status != FileStatus::Modified || file.binary || file.old_mode != file.new_mode {
        return Err(Unsuitable::OtherFiles);
    }
    let fix = match file.hunks.as_slice() {
        [] => return Err(Unsuitable::Empty),
        [one] => Edit::of(one),
        many => return Err(Unsuitable::Hunks(many.len())),
    };
    match fix.changed() {
        0 => return Err(Unsuitable::Empty),
        n if n > MAX_CHANGED_LINES => return Err(Unsuitable::TooLarge(n)),
        _ => {}
    }
    let hunk = diff.hunks.iter().find(|h| head_text(h).contains_key(&anchor.start)).ok_or(Unsuitable::OutsideHunk)?;
    let head = head_text(hunk);
    if fix.kept.iter().any(|(line, text)| head.get(line).is_some_and(|h| h != text)) {
        return Err(Unsuitable::Stale);
    }
    let (start, end) = fix.span(anchor.start, anchor.line);
    if !(start..=end).all(|l| head.contains_key(&l)) {
        return Err(Unsuitable::OutsideHunk);
    }
    let mut lines = Vec::new();
    for l in start..=end {
        if l == start {
            lines.extend(fix.inserted(l - 1));
        }
        if !fix.deleted.contains(&l) {
            lines.push(head[&l].to_string());
        }
        lines.extend(fix.inserted(l));
    }
    // A fix that only changes line endings or the final newline reads the same
    // once parsed: suggesting it would offer the same lines back.
    if lines.iter().map(String::as_str).eq((start..=end).map(|l| head[&l])) {
        return Err(Unsuitable::Empty);
    }
    let old_line = hunk.lines.iter().find(|d| d.new == Some(end) && d.kind == LineKind::Context).and_then(|d| d.old);
    let anchor = Anchor { start, line: end, old_line, ..anchor.clone() };
    Ok(Suggestion { anchor, lines, changed: fix.changed() })
}

/// The new-side lines of a pull request hunk (head line -> text).
fn head_text(hunk: &Hunk) -> BTreeMap<u32, &str> {
    hunk.lines.iter().filter(|l| l.kind != LineKind::Removed).filter_map(|l| Some((l.new?, l.text.as_str()))).collect()
}

/// One fix hunk as edits to head lines (the fix's old side is the head).
struct Edit {
    deleted: BTreeSet<u32>,
    /// Lines inserted after head line N (0: before the first line).
    inserts: BTreeMap<u32, Vec<String>>,
    added: usize,
    /// Head lines the fix quotes (context and removed) with their text.
    kept: Vec<(u32, String)>,
}

impl Edit {
    fn of(hunk: &Hunk) -> Edit {
        let mut edit = Edit { deleted: BTreeSet::new(), inserts: BTreeMap::new(), added: 0, kept: Vec::new() };
        // A hunk that removes nothing names the line it inserts after; any other
        // names its first line.
        let mut after = if hunk.old_lines == 0 { hunk.old_start } else { hunk.old_start.saturating_sub(1) };
        for line in &hunk.lines {
            match (line.kind, line.old) {
                (LineKind::Added, _) => {
                    edit.added += 1;
                    edit.inserts.entry(after).or_default().push(line.text.clone());
                }
                (kind, Some(old)) => {
                    after = old;
                    if kind == LineKind::Removed {
                        edit.deleted.insert(old);
                    }
                    edit.kept.push((old, line.text.clone()));
                }
                (_, None) => {}
            }
        }
        edit
    }

    fn changed(&self) -> usize {
        self.deleted.len().max(self.added)
    }

    fn inserted(&self, after: u32) -> impl Iterator<Item = String> + '_ {
        self.inserts.get(&after).into_iter().flatten().cloned()
    }

    /// The smallest block of head lines holding `start..=end`, every deleted line,
    /// and a line on either side of every insertion point.
    fn span(&self, start: u32, end: u32) -> (u32, u32) {
        let firsts = self.deleted.iter().copied().chain(self.inserts.keys().map(|&p| p + 1));
        let lasts = self.deleted.iter().copied().chain(self.inserts.keys().copied());
        (firsts.fold(start, u32::min), lasts.fold(end, u32::max))
    }
}

#[cfg(test)]
#[path = "suggest_tests.rs"]
mod tests;
