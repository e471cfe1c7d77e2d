//! The lines a commit removed, changed and added, from `git diff -U0` (pure), and
//! which paths and lines carry code at all.

use gauntlet_review::gate::globset;
use globset::GlobSet;
use std::sync::OnceLock;

/// One file of a zero-context diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// The path before the change (`None` for an added file).
    pub old: Option<String>,
    /// The path after it (`None` for a deleted file).
    pub new: Option<String>,
    /// The blob ids before and after, from the `index` line (abbreviated unless
    /// the diff ran with `--full-index`; all zeros for a side that is absent).
    pub blobs: Option<(String, String)>,
    pub hunks: Vec<Hunk>,
}

/// One hunk: old lines `old_start..old_start+old_count`, new likewise. A hunk
/// that removes nothing inserts after old line `old_start`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_count: u32,
    pub new_start: u32,
    pub new_count: u32,
    pub removed: Vec<String>,
    pub added: Vec<String>,
}

fn range(text: &str) -> Option<(u32, u32)> {
    let (start, count) = text.split_once(',').unwrap_or((text, "1"));
    Some((start.parse().ok()?, count.parse().ok()?))
}

fn path(text: &str, prefix: &str) -> Option<String> {
    let text = unquote(text.trim_end());
    (text != "/dev/null").then(|| text.strip_prefix(prefix).unwrap_or(&text).to_string())
}

/// A path as git writes it in a diff header: as it is, or, when it holds a
/// character git quotes (a non-ASCII byte, a quote, a backslash, a control
/// character), in double quotes with C escapes and octal bytes.
fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else { return text.to_string() };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(d @ b'0'..=b'7') => {
                let mut n = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&d @ b'0'..=b'7') = chars.peek() {
                        n = n * 8 + u32::from(d - b'0');
                        chars.next();
                    }
                }
                bytes.push(n as u8);
            }
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'a') => bytes.push(7),
            Some(b'b') => bytes.push(8),
            Some(b'f') => bytes.push(12),
            Some(b'v') => bytes.push(11),
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parse `git diff -U0 --src-prefix=a/ --dst-prefix=b/` output. Binary files have
/// no hunks.
pub fn parse(diff: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    // Files git found as copies (`-C`): their source still exists unchanged, so the
    // copy is a new file, and the source lines it lacks were removed from nothing.
    let mut copies: Vec<usize> = Vec::new();
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            files.push(FileDiff::default());
            continue;
        }
        if line.starts_with("copy to ") {
            copies.push(files.len().saturating_sub(1));
        }
        let Some(file) = files.last_mut() else { continue };
        if let Some(hunk) = file.hunks.last_mut().filter(|_| !line.starts_with("@@")) {
            if let Some(text) = line.strip_prefix('-') {
                hunk.removed.push(text.to_string());
                continue;
            }
            if let Some(text) = line.strip_prefix('+') {
                hunk.added.push(text.to_string());
                continue;
            }
            if line.starts_with('\\') {
                continue;
            }
        }
        if let Some(old) = line.strip_prefix("--- ") {
            file.old = path(old, "a/");
        } else if let Some(new) = line.strip_prefix("+++ ") {
            file.new = path(new, "b/");
        } else if let Some(ids) = line.strip_prefix("index ") {
            let ids = ids.split(' ').next().unwrap_or("");
            file.blobs = ids.split_once("..").map(|(a, b)| (a.to_string(), b.to_string()));
        } else if let Some(old) = line.strip_prefix("rename from ") {
            file.old = Some(unquote(old));
        } else if let Some(new) = line.strip_prefix("rename to ") {
            file.new = Some(unquote(new));
        } else if let Some(rest) = line.strip_prefix("@@ -") {
            let mut parts = rest.split_whitespace();
            let old = parts.next().and_then(range);
            let new = parts.next().and_then(|n| range(n.strip_prefix('+')?));
            if let (Some((old_start, old_count)), Some((new_start, new_count))) = (old, new) {
                file.hunks.push(Hunk { old_start, old_count, new_start, new_count, ..Hunk::default() });
            }
        }
    }
    for i in copies {
        if let Some(copy) = files.get_mut(i) {
            copy.old = None;
            for h in &mut copy.hunks {
                h.removed.clear();
            }
        }
    }
    files
}

/// What [`not_code`] says of a CI or tool configuration file.
pub const CI: &str = "ci";

/// Why a path holds no production code worth blaming, if it does not: tests and
/// fixtures, documentation, environment files, CI and tool configuration (what
/// runs the checks is never the defect a reviewer of the code should find).
pub fn not_code(path: &str) -> Option<&'static str> {
    static SETS: OnceLock<[(GlobSet, &'static str); 3]> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        let tests = globset([
            "**/test/**",
            "**/tests/**",
            "**/__tests__/**",
            "**/spec/**",
            "**/testdata/**",
            "**/fixtures/**",
            "**/fixture/**",
            "**/*_test.*",
            "**/test_*.*",
            "**/*.test.*",
            "**/*.spec.*",
            "**/*_spec.*",
            "**/conftest.py",
            // Root-level and single-file suites, and the naming conventions of
            // languages whose tests sit beside the code.
            "**/test.py",
            "**/tests.py",
            "**/*_tests.*",
            "**/*Test.{java,kt,scala,groovy,php,cs}",
            "**/*Tests.{java,kt,scala,cs,swift}",
            "**/*Spec.{scala,groovy,kt}",
        ])
        .expect("test globs are valid");
        let docs = globset([
            "**/*.md",
            "**/*.rst",
            "**/*.txt",
            "**/*.adoc",
            "**/.env",
            "**/.env.*",
            "**/LICENSE*",
            "**/CHANGELOG*",
            "**/README*",
            "**/docs/**",
        ])
        .expect("doc globs are valid");
        let ci = globset([
            "**/.github/**",
            "**/.gitlab-ci.yml",
            "**/.gitlab/**",
            "**/.circleci/**",
            "**/.travis.yml",
            "**/appveyor.yml",
            "**/.appveyor.yml",
            "**/azure-pipelines.yml",
            "**/.azure-pipelines/**",
            "**/Jenkinsfile",
            "**/.cirrus.yml",
            "**/.drone.yml",
            "**/.buildkite/**",
            "**/tox.ini",
            "**/MANIFEST.in",
            "**/noxfile.py",
            "**/.pre-commit-config.yaml",
            "**/.pre-commit-hooks.yaml",
            "**/.flake8",
            "**/pylintrc",
            "**/.pylintrc",
            "**/.coveragerc",
            "**/mypy.ini",
            "**/.isort.cfg",
            "**/pytest.ini",
            "**/.readthedocs.{yml,yaml}",
            "**/codecov.yml",
            "**/.codecov.yml",
            "**/.editorconfig",
            "**/rustfmt.toml",
            "**/.rustfmt.toml",
            "**/clippy.toml",
            "**/.clippy.toml",
            "**/deny.toml",
            "**/.eslintrc*",
            "**/.prettierrc*",
            "**/.golangci.{yml,yaml}",
        ])
        .expect("ci globs are valid");
        [(tests, "test"), (docs, "documentation"), (ci, CI)]
    });
    sets.iter().find(|(set, _)| set.is_match(path)).map(|(_, why)| *why)
}

/// Whether a line carries code: not blank and not only a comment.
pub fn is_code(path: &str, line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    const PREPROCESSOR: [&str; 10] =
        ["include", "define", "if", "ifdef", "ifndef", "else", "elif", "endif", "pragma", "undef"];
    if let Some(rest) = t.strip_prefix('#') {
        // `#[attr]`, `#!` and C preprocessor lines are code; other `#` lines are comments.
        let word = rest.trim_start().split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
        return rest.starts_with(['[', '!']) || PREPROCESSOR.contains(&word);
    }
    if ["//", "/*", "*/", "* "].iter().any(|p| t.starts_with(p)) || t == "*" {
        return false;
    }
    let dashes = [".sql", ".lua", ".hs", ".elm"].iter().any(|e| path.ends_with(e));
    !(dashes && t.starts_with("--"))
}

/// Contiguous runs of sorted, deduplicated line numbers: `[3, 4, 5, 9]` → `[(3, 5), (9, 9)]`.
pub fn runs(lines: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &n in lines {
        match out.last_mut() {
            Some((_, end)) if n == *end + 1 => *end = n,
            Some((_, end)) if n == *end => {}
            _ => out.push((n, n)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_a_new_file_that_removed_nothing_from_its_source() {
        let diff = "diff --git a/src/a.py b/src/b.py\nsimilarity index 80%\ncopy from src/a.py\ncopy to src/b.py\n\
                    --- a/src/a.py\n+++ b/src/b.py\n@@ -3,2 +3 @@\n-    x = 1\n-    y = 2\n+    z = 3\n";
        let files = parse(diff);
        assert_eq!(files.len(), 1);
        assert_eq!((files[0].old.as_deref(), files[0].new.as_deref()), (None, Some("src/b.py")));
        assert!(files[0].hunks[0].removed.is_empty(), "{:?}", files[0].hunks);
        assert_eq!(files[0].hunks[0].added, ["    z = 3"]);
    }

    const DIFF: &str = "diff --git a/src/a.py b/src/a.py
index 1..2 100644
--- a/src/a.py
+++ b/src/a.py
@@ -4 +4 @@ def f():
-    return True
+    return doc.owner == user
@@ -9,0 +10,2 @@ def g():
+    if x is None:
+        return
diff --git a/old.rs b/new.rs
similarity index 90%
rename from old.rs
rename to new.rs
--- a/old.rs
+++ b/new.rs
@@ -2,2 +2 @@
-let a = 1;
-let b = 2;
+let a = 2;
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
\\ No newline at end of file
";

    #[test]
    fn quoted_paths_are_read_as_the_paths_they_name() {
        // What git writes for `café.py` and a rename of `say "hi".py` (core.quotePath on).
        let diff = "diff --git \"a/caf\\303\\251.py\" \"b/caf\\303\\251.py\"\n\
                    --- \"a/caf\\303\\251.py\"\n+++ \"b/caf\\303\\251.py\"\n@@ -2 +2 @@\n-x = 1\n+x = 2\n\
                    diff --git \"a/say \\\"hi\\\".py\" b/said.py\nsimilarity index 90%\n\
                    rename from \"say \\\"hi\\\".py\"\nrename to said.py\n";
        let files = parse(diff);
        assert_eq!(files[0].old.as_deref(), Some("café.py"));
        assert_eq!(files[0].new.as_deref(), Some("café.py"));
        assert_eq!(files[0].hunks[0].removed, vec!["x = 1".to_string()]);
        assert_eq!(files[1].old.as_deref(), Some("say \"hi\".py"));
        assert_eq!(files[1].new.as_deref(), Some("said.py"));
        assert_eq!(unquote(r#""tab\there\\back""#), "tab\there\\back");
        assert_eq!(unquote("plain/path.rs"), "plain/path.rs");
    }

    #[test]
    fn zero_context_hunks_give_removed_lines_and_insertion_points() {
        let files = parse(DIFF);
        assert_eq!(files.len(), 3);
        let a = &files[0];
        assert_eq!((a.old.as_deref(), a.new.as_deref()), (Some("src/a.py"), Some("src/a.py")));
        assert_eq!((a.hunks[0].old_start, a.hunks[0].old_count, a.hunks[0].removed.len()), (4, 1, 1));
        assert_eq!((a.hunks[1].old_start, a.hunks[1].old_count, a.hunks[1].added.len()), (9, 0, 2));
        let moved = &files[1];
        assert_eq!((moved.old.as_deref(), moved.new.as_deref()), (Some("old.rs"), Some("new.rs")));
        assert_eq!(moved.hunks[0].removed, vec!["let a = 1;", "let b = 2;"]);
        assert_eq!((files[2].new.as_deref(), files[2].hunks[0].removed.len()), (None, 1));
    }

    #[test]
    fn comments_and_blank_lines_are_not_code() {
        assert!(is_code("a.py", "    return x"));
        assert!(!is_code("a.py", "   # why this is here"));
        assert!(!is_code("a.rs", "  // note"));
        assert!(!is_code("a.c", " * continued"));
        assert!(is_code("a.rs", "#[derive(Debug)]"));
        assert!(is_code("a.c", "#include <stdio.h>"));
        assert!(!is_code("a.sql", "-- old query"));
        assert!(is_code("a.py", "x = y -- z"));
        assert!(!is_code("a.py", "   "));
    }

    #[test]
    fn tests_fixtures_and_documents_are_not_code() {
        assert_eq!(not_code("tests/test_auth.py"), Some("test"));
        assert_eq!(not_code("pkg/auth_test.go"), Some("test"));
        assert_eq!(not_code("web/page.test.ts"), Some("test"));
        assert_eq!(not_code("src/fixtures/user.json"), Some("test"));
        assert_eq!(not_code("README.md"), Some("documentation"));
        assert_eq!(not_code(".env"), Some("documentation"));
        for suite in ["tests.py", "test.py", "conftest.py", "web/a.spec.ts", "ui/__tests__/a.js", "src/AuthTest.java"] {
            assert_eq!(not_code(suite), Some("test"), "{suite}");
        }
        for ci in
            [".github/workflows/tests.yaml", ".travis.yml", "tox.ini", "sub/.pre-commit-config.yaml", "rustfmt.toml"]
        {
            assert_eq!(not_code(ci), Some(CI), "{ci}");
        }
        assert_eq!(not_code("src/auth.py"), None);
        assert_eq!(not_code("src/github/api.py"), None, "only the `.github` folder is CI");
        assert_eq!(not_code("src/contest.py"), None);
        assert_eq!(not_code("src/latest.py"), None, "`test` inside a word is not a test file");
    }

    #[test]
    fn runs_group_contiguous_lines() {
        assert_eq!(runs(&[3, 4, 5, 9, 9, 10]), vec![(3, 5), (9, 10)]);
        assert!(runs(&[]).is_empty());
    }
}
