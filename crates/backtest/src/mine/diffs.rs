//! The diffs a person reads to sign a mined case, written beside its `case.toml`:
//! `fix.diff` (the commits that later fixed the defects), `intro.diff` (the
//! commit blamed for them, the blamed lines marked) and, for clean cases,
//! `change.diff`. Each starts with `#` lines saying what it is, then each commit as
//! `git show` prints it (id, author, date, message, diff against its first
//! parent). They are for people only: a backtest reads `case.toml`, and nothing
//! here ever reaches a model.

use super::{Clean, Escape, FixRef};
use gauntlet_change::ChangeError;
use gauntlet_change::git::Git;
use gauntlet_review::contract::Location;

/// The fixing commits' diff.
pub const FIX_FILE: &str = "fix.diff";
/// The introducing commit's diff, blamed lines marked.
pub const INTRO_FILE: &str = "intro.diff";
/// A clean case's own change.
pub const CHANGE_FILE: &str = "change.diff";
/// What starts a blamed line of `intro.diff`, before the diff's own `+` or ` `.
pub const MARK: &str = ">>";

/// `fix.diff` of an escape.
pub fn fix(git: &Git, fixes: &[FixRef]) -> String {
    let mut out = String::from(
        "# The commit(s) that later fixed this case's defects, oldest first. The backtest\n\
         # scores with them; no model is ever shown them.\n",
    );
    for f in fixes {
        out.push('\n');
        out.push_str(&shown(git, &f.sha, None));
    }
    out
}

/// `intro.diff` of an escape: the head commit against its base, every line of a
/// blamed run marked with [`MARK`].
pub fn intro(git: &Git, e: &Escape) -> String {
    let diff = shown(git, &e.head, Some(&e.base));
    let blamed: Vec<String> = e
        .defects
        .iter()
        .map(|(path, start, end)| Location { path: path.clone(), start: *start, end: *end }.to_string())
        .collect();
    let (marked, count) = mark(&diff, &e.defects);
    let mut out = format!(
        "# The commit this case blames for its defects (the case's head) against its base.\n\
         # Lines that start with `{MARK}` are the blamed lines: the code the later fix changed or\n\
         # removed, traced back here by blame (head line numbers): {}.\n",
        blamed.join(", ")
    );
    let in_diff: usize = e.defects.iter().map(|(_, a, b)| (b - a + 1) as usize).sum();
    if count < in_diff {
        out.push_str(&format!(
            "# {} blamed line(s) are not among the lines this diff shows (unchanged code around the fix).\n",
            in_diff - count
        ));
    }
    out.push('\n');
    out.push_str(&marked);
    out
}

/// `change.diff` of a clean case.
pub fn change(git: &Git, c: &Clean) -> String {
    format!(
        "# The change this clean case reviews (its head against its base): no fix ever touched it.\n\n{}",
        shown(git, &c.head, Some(&c.base))
    )
}

/// One commit as `git show` prints it, pinned so no user setting changes it:
/// `commit`, `Author`, `Date` (ISO 8601), the indented message, then the diff
/// against `parent` (its first parent when `None`). What git cannot show is said
/// in its place, so one unreadable commit does not stop the corpus.
fn shown(git: &Git, sha: &str, parent: Option<&str>) -> String {
    let read = || -> Result<String, ChangeError> {
        let format = "--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n%w(0,4,4)%B";
        let head = git.run(&["-c", "log.showSignature=false", "show", "-s", "--no-color", format, sha])?;
        let head = String::from_utf8_lossy(&head).trim_end().to_string();
        let first_parent = format!("{sha}^1");
        let diff = git.diff(&[parent.unwrap_or(&first_parent), sha])?;
        Ok(format!("{head}\n\n{diff}"))
    };
    read().unwrap_or_else(|e| format!("commit {sha}\n# git could not show this commit: {e}\n"))
}

/// Mark with [`MARK`] every line of `diff` (added or context) whose head line
/// number falls in one of `runs` (`(path, first, last)`); returns the marked diff
/// and how many lines were marked.
pub fn mark(diff: &str, runs: &[(String, u32, u32)]) -> (String, usize) {
    let mut out = String::with_capacity(diff.len() + 64);
    let mut path: Option<String> = None;
    let mut line: Option<u32> = None;
    let mut count = 0;
    for text in diff.split_inclusive('\n') {
        let body = text.trim_end_matches(['\n', '\r']);
        if body.starts_with("diff --git ") {
            (path, line) = (None, None);
        } else if let Some(rest) = body.strip_prefix("@@ -") {
            line = rest.split_whitespace().nth(1).and_then(|n| n.strip_prefix('+')?.split(',').next()?.parse().ok());
        } else if let Some(n) = line.filter(|_| body.starts_with(['+', ' '])) {
            let blamed =
                path.as_deref().is_some_and(|p| runs.iter().any(|(rp, a, b)| rp == p && (*a..=*b).contains(&n)));
            if blamed {
                out.push_str(MARK);
                count += 1;
            }
            line = Some(n + 1);
        } else if line.is_none()
            && let Some(new) = body.strip_prefix("+++ ")
        {
            path = super::hunks::path(new, "b/");
        }
        out.push_str(text);
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blamed_lines_are_marked_by_their_head_line_numbers_in_their_own_file() {
        let diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,4 @@\n def f(x):\n\
                    -    return x\n+    y = x\n+    return y + 1\n \n\
                    diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -2 +2 @@\n-a\n+b\n";
        let runs = vec![("a.py".to_string(), 3, 4), ("b.py".to_string(), 9, 9)];
        let (marked, count) = mark(diff, &runs);
        assert_eq!(count, 2, "{marked}");
        assert!(marked.contains("\n+    y = x\n>>+    return y + 1\n>> \ndiff --git a/b.py"), "{marked}");
        assert!(marked.ends_with("@@ -2 +2 @@\n-a\n+b\n"), "b.py:2 is not blamed: {marked}");
    }
}
