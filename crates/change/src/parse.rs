//! Reading a whole diff: git's format or plain `diff -u`, and when one file's name
//! is not UTF-8, file by file ([`crate::names`]) so that file costs only itself.

use crate::diff::{FileDiff, ParsedFile, parse_with};

/// Parse `git diff` output (or any unified diff) into file diffs.
///
/// Paths lose their `a/` and `b/` prefixes and git's C-style quoting. Empty input is
/// an empty change, not an error.
pub fn parse_patch(text: &str) -> Result<Vec<FileDiff>, crate::ChangeError> {
    Ok(parse_file_patches(text)?.into_iter().map(|(file, _)| file).collect())
}

pub(crate) fn parse_file_patches(text: &str) -> Result<Vec<ParsedFile<'_>>, crate::ChangeError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    // The git parser only starts a file at `diff --git`, so plain `diff -u` output
    // (no such header) would be "no patches"; it needs the unidiff parser instead.
    let git = text.lines().any(|line| line.starts_with("diff --git "));
    match parse_with(text, git) {
        // One file named in bytes that are not UTF-8 must not cost the rest of the change.
        Err(e) if git => crate::names::by_section(text).unwrap_or(Err(e)),
        parsed => parsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChangeError;
    use crate::diff::FileStatus;

    #[test]
    fn empty_or_blank_input_is_an_empty_change() {
        assert_eq!(parse_patch("").unwrap(), []);
        assert_eq!(parse_patch("\n  \n").unwrap(), []);
    }

    #[test]
    fn garbage_input_is_a_parse_error_that_says_what_was_expected() {
        let err = parse_patch("hello\nthis is not a diff\n").unwrap_err();
        let ChangeError::Parse(message) = err else { panic!("{err:?}") };
        assert!(message.contains("diff --git"), "{message}");
    }

    #[test]
    fn malformed_hunk_is_a_parse_error() {
        let text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-only one line\n";
        assert!(matches!(parse_patch(text), Err(ChangeError::Parse(_))));
    }

    #[test]
    fn plain_unified_diff_without_git_header_still_parses() {
        let text = "--- src/lib.rs\t2024-01-01 00:00:00\n+++ src/lib.rs\t2024-01-02 00:00:00\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n";
        let files = parse_patch(text).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path(), "src/lib.rs");
        assert_eq!(files[0].status, FileStatus::Modified);
        assert_eq!(files[0].hunks[0].lines[2].new, Some(2));
    }

    #[test]
    fn unprefixed_paths_keep_their_leading_directory() {
        let text = "diff --git a/x.rs a/x.rs\n--- a/x.rs\n+++ a/x.rs\n@@ -1 +1 @@\n-o\n+n\n";
        assert_eq!(parse_patch(text).unwrap()[0].path(), "a/x.rs");
    }

    #[test]
    fn line_numbers_past_u32_are_a_parse_error_not_an_overflow() {
        // Found by the `diff` fuzz target: the hunk's new-side range overflowed.
        let text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -4294967295,2 +4294967295,2 @@\n-a\n-b\n+c\n+d\n";
        let Err(ChangeError::Parse(message)) = parse_patch(text) else { panic!("accepted") };
        assert!(message.contains("beyond"), "{message}");
        let last = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -4294967294 +4294967294 @@\n-a\n+b\n";
        let files = parse_patch(last).unwrap();
        assert_eq!(files[0].hunks[0].lines[1].anchor, u32::MAX - 1);
    }

    #[test]
    fn a_non_empty_side_starting_at_line_zero_is_a_parse_error() {
        // Found by the `diff` fuzz target: `+0,2` numbered the first added line 0.
        let text = "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +0,2 @@\n+a\n+b\n";
        let Err(ChangeError::Parse(message)) = parse_patch(text) else { panic!("accepted") };
        assert!(message.contains("numbered from 1"), "{message}");
        let added = "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n";
        assert_eq!(parse_patch(added).unwrap()[0].hunks[0].lines[0].anchor, 1);
    }

    #[test]
    fn crlf_line_endings_are_stripped_from_line_text() {
        let text = "diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-old\r\n+new\r\n";
        let lines = &parse_patch(text).unwrap()[0].hunks[0].lines;
        assert_eq!((lines[0].text.as_str(), lines[1].text.as_str()), ("old", "new"));
    }
}
