//! Drafting a rule from an escaped defect: given the commit that fixed it, propose
//! a reviewer rule (which built-in reviewer it is closest to, what to look for, a
//! bad and a good example taken from the fix) for a human to edit and commit. The
//! draft is text; nothing here writes a file.

use gauntlet_change::{FileDiff, LineKind};
use serde::Serialize;
use std::collections::BTreeSet;

/// Lines of each example, and files the examples are taken from.
const MAX_EXAMPLE_LINES: usize = 15;
const MAX_EXAMPLE_FILES: usize = 2;

/// The fix commit of an escaped defect.
pub struct Escape<'a> {
    pub sha: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
    pub files: &'a [FileDiff],
}

/// A drafted rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    pub name: String,
    /// The built-in reviewer whose specialty the defect falls under.
    pub closest: &'static str,
    /// The whole rule file.
    pub text: String,
}

#[derive(Serialize)]
struct Front<'a> {
    name: &'a str,
    description: String,
    applies_to: Vec<String>,
    tier: &'a str,
    max_findings: usize,
    enabled: bool,
}

/// Words that point a defect at one built-in reviewer; correctness otherwise.
const SPECIALTIES: [(&str, &[&str]); 3] = [
    (
        "security-privacy",
        &[
            "auth",
            "permission",
            "token",
            "secret",
            "password",
            "xss",
            "csrf",
            "inject",
            "sanitiz",
            "leak",
            "pii",
            "privilege",
        ],
    ),
    ("error-handling", &["error", "exception", "panic", "unwrap", "catch", "except", "retry", "timeout", "rollback"]),
    (
        "contract-drift",
        &["api", "field", "schema", "route", "endpoint", "json", "serializ", "client", "contract", "proto"],
    ),
];

fn closest(escape: &Escape<'_>) -> &'static str {
    let is_test = |p: &str| p.contains("test") || p.contains("spec");
    if !escape.files.is_empty() && escape.files.iter().all(|f| is_test(f.path())) {
        return "tests";
    }
    let text = format!("{} {}", escape.subject, escape.body).to_lowercase();
    SPECIALTIES
        .iter()
        .map(|(name, words)| (words.iter().filter(|w| text.contains(*w)).count(), *name))
        .filter(|(hits, _)| *hits > 0)
        .max_by_key(|(hits, name)| (*hits, std::cmp::Reverse(*name)))
        .map_or("correctness", |(_, name)| name)
}

/// Globs covering the fixed files: their folder and extension.
fn applies_to(files: &[FileDiff]) -> Vec<String> {
    let globs: BTreeSet<String> = files
        .iter()
        .map(|f| {
            let path = f.path();
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            let ext = name.rsplit_once('.').map_or(name.to_string(), |(_, e)| format!("*.{e}"));
            if dir.is_empty() { format!("**/{ext}") } else { format!("{dir}/**/{ext}") }
        })
        .collect();
    if globs.is_empty() { vec!["**".into()] } else { globs.into_iter().collect() }
}

/// One side of the first hunks of the first files (context lines and the lines of
/// `kind`), as an example block: the code before or after the fix.
fn example(files: &[FileDiff], kind: LineKind) -> String {
    let mut out = String::new();
    for f in files.iter().filter(|f| !f.binary).take(MAX_EXAMPLE_FILES) {
        let lines: Vec<&str> = f
            .hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == kind || l.kind == LineKind::Context)
            .map(|l| l.text.as_str())
            .take(MAX_EXAMPLE_LINES)
            .collect();
        if !lines.is_empty() {
            out.push_str(&format!("{}:\n```\n{}\n```\n", f.path(), lines.join("\n")));
        }
    }
    if out.is_empty() { "(none in this commit)\n".into() } else { out }
}

/// Draft a rule from the fix of an escaped defect.
pub fn draft(escape: &Escape<'_>) -> Draft {
    let short = &escape.sha[..escape.sha.len().min(10)];
    let name = format!("escape-{}", &escape.sha[..escape.sha.len().min(7)]);
    let closest = closest(escape);
    let front = Front {
        name: &name,
        description: format!("Brings back the defect fixed in {short}: {}", escape.subject.trim()),
        applies_to: applies_to(escape.files),
        tier: "standard",
        max_findings: 3,
        enabled: true,
    };
    let why = escape.body.split("\n\n").next().unwrap_or("").trim();
    let mut text = format!("+++\n{}+++\n", toml::to_string(&front).expect("front matter serialises"));
    text.push_str(&format!(
        "<!-- Drafted by `gauntlet rules draft` from fix commit {short}; closest built-in reviewer: {closest}.\n\
         Edit the text below, then commit this file under .gauntlet/reviewers/ and re-run\n\
         `gauntlet rules lock`. -->\n\n\
         You look for a change that brings back a defect this repository already shipped\n\
         and fixed once (commit {short}: \"{}\").\n\n",
        escape.subject.trim()
    ));
    if !why.is_empty() {
        text.push_str(&format!("What went wrong, in the fix's words:\n\n> {}\n\n", why.replace('\n', "\n> ")));
    }
    text.push_str("Flag new or changed code that repeats the pattern of the bad example below, and\n");
    text.push_str("quote the line that does. Code written like the good example is fine.\n\n");
    text.push_str(&format!("Bad (before the fix):\n\n{}\n", example(escape.files, LineKind::Removed)));
    text.push_str(&format!("Good (after the fix):\n\n{}", example(escape.files, LineKind::Added)));
    Draft { name, closest, text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Origin, Reviewer};

    const PATCH: &str = "diff --git a/src/api/auth.py b/src/api/auth.py
--- a/src/api/auth.py
+++ b/src/api/auth.py
@@ -1,2 +1,4 @@
 def can_delete(user, doc):
-    return True
+    if user.is_admin:
+        return True
+    return doc.owner_id == user.id
";

    #[test]
    fn a_draft_is_a_valid_rule_with_examples_from_the_fix() {
        let files = gauntlet_change::parse_patch(PATCH).unwrap();
        let escape = Escape {
            sha: "0123456789abcdef",
            subject: "Fix: restore the ownership check on delete",
            body: "Any user could delete any document.\n\nReported by support.",
            files: &files,
        };
        let d = draft(&escape);
        assert_eq!(d.name, "escape-0123456");
        let parsed = Reviewer::parse("draft.md", &d.text, Origin::Builtin).expect("the draft parses as a rule");
        assert_eq!(parsed.applies_to, vec!["src/api/**/*.py"]);
        let bad = "Bad (before the fix):\n\nsrc/api/auth.py:\n```\ndef can_delete(user, doc):\n    return True\n```";
        assert!(d.text.contains(bad), "{}", d.text);
        assert!(d.text.contains("return doc.owner_id == user.id"));
        assert!(d.text.contains("> Any user could delete any document."));
    }

    #[test]
    fn the_closest_reviewer_follows_the_fix_message() {
        let files = gauntlet_change::parse_patch(PATCH).unwrap();
        let of = |subject| closest(&Escape { sha: "a", subject, body: "", files: &files });
        assert_eq!(of("Fix auth bypass: check permission"), "security-privacy");
        assert_eq!(of("Handle the timeout error instead of panicking"), "error-handling");
        assert_eq!(of("Rename the JSON field back for the client"), "contract-drift");
        assert_eq!(of("Fix off-by-one in pagination"), "correctness");
    }
}
