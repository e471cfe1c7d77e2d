//! Splitting a change that does not fit the model's context into parts that do.
//!
//! Files are kept whole when they fit; a file too large to show whole is shown as
//! its hunks (with their context lines); a file whose hunks alone do not fit is
//! not reviewed, and the report says so. Nothing is cut silently.

use crate::part::PartFile;
use crate::review::NotReviewed;
use gauntlet_change::{Change, ChangedFile};

/// Tokens, estimated at four characters each (the prompt numbers every line, which
/// the per-line allowance covers).
fn tokens(chars: usize, lines: usize) -> usize {
    (chars + lines * 8) / 4
}

fn whole_cost(f: &ChangedFile) -> usize {
    let text = f.head_text.as_deref().unwrap_or("");
    tokens(text.len(), text.bytes().filter(|b| *b == b'\n').count()) + hunks_cost(f)
}

fn hunks_cost(f: &ChangedFile) -> usize {
    let lines = f.diff.hunks.iter().flat_map(|h| &h.lines);
    let (chars, count) = lines.fold((0, 0), |(c, n), l| (c + l.text.len() + 1, n + 1));
    tokens(chars, count) + 32
}

/// Split `change` into parts of at most `budget` estimated tokens each. A file
/// with nothing to show ([`ChangedFile::is_showable`]: binary, a submodule
/// pointer, a name not in UTF-8) goes in no part: a part of only such files
/// would have reviewers read an empty diff. The report already lists them.
pub fn plan(change: &Change, budget: usize) -> (Vec<Vec<PartFile<'_>>>, Vec<NotReviewed>) {
    let mut parts: Vec<Vec<PartFile<'_>>> = Vec::new();
    let mut current: Vec<PartFile<'_>> = Vec::new();
    let mut used = 0;
    let mut too_large = Vec::new();
    for f in change.files.iter().filter(|f| f.is_showable()) {
        let (whole, hunks) = (whole_cost(f), hunks_cost(f));
        let (file, cost) = if whole <= budget {
            (PartFile { file: f, whole: true }, whole)
        } else if hunks <= budget {
            (PartFile { file: f, whole: false }, hunks)
        } else {
            too_large.push(NotReviewed::new(
                f.diff.path(),
                format!(
                    "too large: its changes alone are ~{hunks} tokens, over the ~{budget} that fit; review it \
                     in smaller commits, or raise `[review] context_tokens` if the model's window is larger"
                ),
            ));
            continue;
        };
        if used + cost > budget && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
            used = 0;
        }
        used += cost;
        current.push(file);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    (parts, too_large)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_change::{Snapshot, parse_patch};

    fn file(path: &str, head_lines: usize, changed: usize) -> ChangedFile {
        let mut patch = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,0 +1,{changed} @@\n");
        patch.extend((0..changed).map(|i| format!("+line {i} of the change with some words\n")));
        let head: String = (0..head_lines).map(|i| format!("line {i} of the file with some words\n")).collect();
        ChangedFile { diff: parse_patch(&patch).unwrap().remove(0), head_text: Some(head), unreadable: None }
    }

    fn change(files: Vec<ChangedFile>) -> Change {
        Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
    }

    #[test]
    fn a_change_that_fits_is_one_part() {
        let c = change(vec![file("a", 10, 2), file("b", 10, 2)]);
        let (parts, skipped) = plan(&c, 10_000);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].len(), 2);
        assert!(skipped.is_empty());
    }

    #[test]
    fn three_files_that_each_fill_most_of_the_context_make_three_parts() {
        let c = change(vec![file("a", 300, 5), file("b", 300, 5), file("c", 300, 5)]);
        let each = whole_cost(&c.files[0]);
        let (parts, skipped) = plan(&c, each + each / 2);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![1, 1, 1]);
        assert!(parts.iter().all(|p| p[0].head_text().is_some()), "files that fit stay whole");
        assert!(skipped.is_empty());
    }

    #[test]
    fn a_file_too_large_whole_is_shown_as_hunks() {
        let c = change(vec![file("big", 5_000, 3)]);
        let (parts, skipped) = plan(&c, 1_000);
        assert!(skipped.is_empty());
        assert!(parts[0][0].head_text().is_none());
        assert!(parts[0][0].unshown_reason().unwrap().contains("hunks"));
    }

    #[test]
    fn a_file_with_nothing_to_show_goes_in_no_part() {
        let binary =
            "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n";
        let binary = ChangedFile { diff: parse_patch(binary).unwrap().remove(0), head_text: None, unreadable: None };
        let alone = change(vec![binary.clone()]);
        let (parts, skipped) = plan(&alone, 10_000);
        assert!(parts.is_empty() && skipped.is_empty(), "no part, so no reviewer runs");
        let beside = change(vec![binary, file("a", 10, 2)]);
        let (parts, _) = plan(&beside, 10_000);
        assert_eq!(parts.iter().flatten().map(|f| f.path()).collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn a_file_whose_changes_alone_do_not_fit_is_listed_not_dropped_silently() {
        let c = change(vec![file("huge", 10, 5_000), file("small", 10, 2)]);
        let (parts, skipped) = plan(&c, 1_000);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].path, "huge");
        assert!(skipped[0].reason.contains("too large"));
        assert!(skipped[0].reason.contains("[review] context_tokens"), "says what to do: {}", skipped[0].reason);
        assert_eq!(parts[0][0].path(), "small");
    }
}
