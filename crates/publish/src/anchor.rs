//! Where a finding can be commented on inline.
//!
//! A host accepts an inline comment only on a line the pull request's diff
//! shows on its new side, and GitHub rejects a whole review when one comment
//! misses. So a finding is placed only where the reviewed diff itself has that
//! head line inside a hunk; anything else goes to the overview.

use crate::host::Anchor;
use gauntlet_change::{FileDiff, Hunk, LineKind};

/// The anchor for head lines `start..=end` of `diff`, or `None` when the start
/// line is not on the new side of any hunk. A range that leaves its hunk is
/// shortened to the start line: hosts want both ends in one hunk.
pub fn place(diff: &FileDiff, start: u32, end: u32) -> Option<Anchor> {
    let path = diff.new_path.clone()?;
    let hunk = diff.hunks.iter().find(|h| new_line(h, start).is_some())?;
    let line = if end > start && new_line(hunk, end).is_some() { end } else { start };
    let old_line = new_line(hunk, line).flatten();
    Some(Anchor { old_path: diff.old_path.clone().unwrap_or_else(|| path.clone()), path, start, line, old_line })
}

/// `Some(old)` when head line `line` is in `hunk`: `old` is its old-side number
/// for unchanged context, `None` for an added line.
fn new_line(hunk: &Hunk, line: u32) -> Option<Option<u32>> {
    let l = hunk.lines.iter().find(|l| l.new == Some(line) && l.kind != LineKind::Removed)?;
    Some(if l.kind == LineKind::Context { l.old } else { None })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff() -> FileDiff {
        let text = "diff --git a/src/old.rs b/src/new.rs\nsimilarity index 80%\nrename from src/old.rs\nrename to src/new.rs\n--- a/src/old.rs\n+++ b/src/new.rs\n@@ -10,3 +10,4 @@\n ctx10\n-gone\n+added11\n+added12\n ctx13\n";
        gauntlet_change::parse_patch(text).unwrap().remove(0)
    }

    #[test]
    fn added_and_context_lines_are_placed() {
        let a = place(&diff(), 11, 12).unwrap();
        assert_eq!((a.start, a.line, a.old_line), (11, 12, None));
        assert_eq!((a.path.as_str(), a.old_path.as_str()), ("src/new.rs", "src/old.rs"));
        let ctx = place(&diff(), 13, 13).unwrap();
        assert_eq!(ctx.old_line, Some(12));
    }

    #[test]
    fn lines_outside_hunks_are_not_placed_and_long_ranges_shrink() {
        assert_eq!(place(&diff(), 9, 9), None);
        assert_eq!(place(&diff(), 14, 14), None);
        let a = place(&diff(), 12, 40).unwrap();
        assert_eq!((a.start, a.line), (12, 12));
    }
}
