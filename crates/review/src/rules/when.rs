//! When a reviewer has something to work with: the `[when]` table of its front
//! matter, read before any model call.
//!
//! A reviewer's `applies_to` globs say which changed files it reads. `[when]`
//! narrows that further, so a specialist runs only when the change gives it
//! something in its specialty: a changed file whose path matches `paths`, or a
//! changed line (of a file it applies to) that matches one of the `lines`
//! patterns. Each line is tested as a diff writes it, `+` for an added line and
//! `-` for a removed one, so a pattern can ask for added lines only (`^\+`).
//! Prose files (READMEs, licences, changelogs, text) and comment-only lines never
//! set a reviewer off: they mention code without being it.
//! Without a `[when]` table a reviewer runs whenever `applies_to` matches.

use gauntlet_change::{FileDiff, LineKind};
use gauntlet_code::prose::{is_comment_line, is_prose_path};
use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexSet};
use serde::Deserialize;

/// The `[when]` table as written in a rule file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WhenFront {
    /// What the reviewer looks for, in a few words, for the listing's reasons.
    /// Default: none (required in this table).
    about: String,
    /// Globs; a changed file matching one sets the reviewer off. Default: `[]`.
    #[serde(default)]
    paths: Vec<String>,
    /// Regular expressions tested on each changed line of a file it applies to, as
    /// the diff writes it (`+text`, `-text`); a match sets the reviewer off.
    /// Default: `[]`.
    #[serde(default)]
    lines: Vec<String>,
}

/// A reviewer's trigger, compiled.
#[derive(Clone, Debug)]
pub struct When {
    pub about: String,
    pub paths: Vec<String>,
    pub lines: Vec<String>,
    path_set: GlobSet,
    line_set: RegexSet,
    line_res: Vec<Regex>,
}

/// What set a reviewer off: the first path or line that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// A changed file matching `[when] paths`.
    Path(String),
    /// A changed line matching `[when] lines`: where, and the pattern's text.
    Line { at: String, pattern: String },
}

impl When {
    /// Compile a `[when]` table; the error names the field at fault.
    pub(super) fn compile(front: WhenFront) -> Result<When, String> {
        if front.about.trim().is_empty() {
            return Err("[when] about is empty: say in a few words what the reviewer looks for".into());
        }
        if front.paths.is_empty() && front.lines.is_empty() {
            return Err("[when] has neither paths nor lines, so the reviewer would never run; \
                        remove the table to run it on every matching file"
                .into());
        }
        let mut set = GlobSetBuilder::new();
        for g in &front.paths {
            set.add(Glob::new(g).map_err(|e| format!("[when] paths: {e}"))?);
        }
        let path_set = set.build().map_err(|e| format!("[when] paths: {e}"))?;
        let line_set = RegexSet::new(&front.lines).map_err(|e| format!("[when] lines: {e}"))?;
        let line_res =
            front.lines.iter().map(|p| Regex::new(p).expect("each pattern of a valid set compiles")).collect();
        Ok(When { about: front.about, paths: front.paths, lines: front.lines, path_set, line_set, line_res })
    }

    /// The first thing in `files` that gives the reviewer work: a path of `[when]
    /// paths` among all changed files, else a changed line of a file `reads` (its
    /// `applies_to`) accepts matching `[when] lines`.
    pub fn trigger(&self, files: &[&FileDiff], reads: impl Fn(&str) -> bool) -> Option<Trigger> {
        if let Some(f) = files.iter().find(|f| self.path_set.is_match(f.path())) {
            return Some(Trigger::Path(f.path().to_string()));
        }
        if self.lines.is_empty() {
            return None;
        }
        let mut line = String::new();
        for f in files.iter().filter(|f| reads(f.path()) && !is_prose_path(f.path())) {
            for l in f.hunks.iter().flat_map(|h| &h.lines).filter(|l| !is_comment_line(&l.text)) {
                let marker = match l.kind {
                    LineKind::Added => '+',
                    LineKind::Removed => '-',
                    LineKind::Context => continue,
                };
                line.clear();
                line.push(marker);
                line.push_str(&l.text);
                if let Some(i) = self.line_set.matches(&line).iter().next() {
                    let pattern = self.line_res[i].as_str().to_string();
                    return Some(Trigger::Line { at: format!("{}:{}", f.path(), l.anchor), pattern });
                }
            }
        }
        None
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::Path(p) => write!(f, "{p} matches [when] paths"),
            Trigger::Line { at, .. } => write!(f, "{at} matches [when] lines"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_change::parse_patch;

    fn when(paths: &[&str], lines: &[&str]) -> When {
        let front = WhenFront {
            about: "things".into(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            lines: lines.iter().map(|s| s.to_string()).collect(),
        };
        When::compile(front).unwrap()
    }

    const PATCH: &str = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,3 +1,3 @@\n \
                         x = 1\n-y = old()\n+y = new()\n z = 3\n";

    #[test]
    fn a_line_pattern_sees_the_diff_marker_and_names_where_it_matched() {
        let files = parse_patch(PATCH).unwrap();
        let refs: Vec<&FileDiff> = files.iter().collect();
        let added = when(&[], &[r"^\+.*new\("]).trigger(&refs, |_| true);
        assert_eq!(added, Some(Trigger::Line { at: "src/a.py:2".into(), pattern: r"^\+.*new\(".into() }));
        assert!(when(&[], &[r"^\+.*old\("]).trigger(&refs, |_| true).is_none(), "old() was removed, not added");
        assert!(when(&[], &[r"^-.*old\("]).trigger(&refs, |_| true).is_some());
        assert!(when(&[], &["x = 1"]).trigger(&refs, |_| true).is_none(), "context lines are not the change");
        assert!(when(&[], &["new"]).trigger(&refs, |_| false).is_none(), "only files the reviewer reads count");
        assert_eq!(when(&["src/**"], &[]).trigger(&refs, |_| false), Some(Trigger::Path("src/a.py".into())));
    }

    #[test]
    fn prose_files_and_comment_lines_set_nothing_off() {
        let patch = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n\
                     -old\n+Log in with your password.\n\
                     diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n\
                     -x = 1\n+# the password is checked elsewhere\n";
        let files = parse_patch(patch).unwrap();
        let refs: Vec<&FileDiff> = files.iter().collect();
        assert_eq!(when(&[], &["password"]).trigger(&refs, |_| true), None);
    }

    #[test]
    fn a_table_that_could_never_fire_or_does_not_parse_is_refused() {
        let bad = |paths: &[&str], lines: &[&str]| {
            When::compile(WhenFront {
                about: "x".into(),
                paths: paths.iter().map(|s| s.to_string()).collect(),
                lines: lines.iter().map(|s| s.to_string()).collect(),
            })
            .unwrap_err()
        };
        assert!(bad(&[], &[]).contains("never run"));
        assert!(bad(&[], &["("]).contains("[when] lines"));
        assert!(bad(&["a/{"], &[]).contains("[when] paths"));
    }
}
