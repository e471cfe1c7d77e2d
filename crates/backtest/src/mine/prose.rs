//! Which changed lines of a fix say something about a defect: not those inside
//! comments, docstrings or string literals, not a layout change, not a version
//! bump in a manifest (pure, given the files' texts).
//!
//! Where a grammar reads the file, its tokens decide ([`gauntlet_code::code_tokens`]:
//! comments dropped, every literal one token); elsewhere the line heuristics of
//! [`hunks::is_code`] do.

use super::hunks::{self, Hunk};
use gauntlet_code::{STRING_TOKEN, Token};
use regex::Regex;
use std::sync::OnceLock;

/// One version of a file as the miner reads it.
pub(crate) struct Reading {
    path: String,
    /// The grammar's tokens, by line; `None`: no grammar reads the file.
    tokens: Option<Vec<Token>>,
}

/// Why a hunk of a fix repairs no defect, if it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cosmetic {
    /// Only comments, docstrings, literal text or layout changed.
    Prose,
    /// Only version numbers changed, in a manifest.
    Bump,
}

impl Reading {
    pub(crate) fn new(path: &str, text: Option<&str>) -> Reading {
        Reading { path: path.to_string(), tokens: text.and_then(|t| gauntlet_code::code_tokens(path, t)) }
    }

    /// The tokens that start on lines `first..first + count`.
    fn tokens_in(&self, first: u32, count: u32) -> Option<Vec<&str>> {
        let tokens = self.tokens.as_ref()?;
        let from = tokens.partition_point(|t| t.line < first);
        let upto = tokens.partition_point(|t| t.line < first + count);
        Some(tokens[from..upto].iter().map(|t| t.text.as_str()).collect())
    }

    /// Whether line `n` (its text `line`) carries code: with a grammar, a token that
    /// is neither a literal nor a bracket or separator starts on it.
    pub(crate) fn is_code(&self, n: u32, line: &str) -> bool {
        match self.tokens_in(n, 1) {
            Some(tokens) => tokens.iter().any(|t| *t != STRING_TOKEN && !t.chars().all(|c| ",;:()[]{}".contains(c))),
            None => hunks::is_code(&self.path, line),
        }
    }
}

/// Whether a hunk changes nothing a defect could sit in (`old` and `new` read the
/// file before and after the fix).
pub(crate) fn cosmetic(old: &Reading, new: &Reading, h: &Hunk) -> Option<Cosmetic> {
    if is_manifest(&old.path) && is_bump(&h.removed, &h.added) {
        return Some(Cosmetic::Bump);
    }
    let before = old.tokens_in(h.old_start, h.old_count);
    let after = new.tokens_in(h.new_start, h.new_count);
    let prose = match (before, after) {
        (Some(a), Some(b)) => a == b,
        _ => {
            let code = |l: &String| hunks::is_code(&old.path, l);
            !h.removed.iter().any(code) && !h.added.iter().any(code)
        }
    };
    prose.then_some(Cosmetic::Prose)
}

/// Files that declare a package's version and dependencies.
pub fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    const NAMES: [&str; 14] = [
        "package.json",
        "Cargo.toml",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "Gemfile",
        "composer.json",
        "Pipfile",
        "environment.yml",
        "Directory.Packages.props",
    ];
    NAMES.contains(&name)
        || [".gemspec", ".csproj", ".fsproj", ".nuspec"].iter().any(|e| name.ends_with(e))
        || (name.starts_with("requirements") && name.ends_with(".txt"))
}

/// Whether each removed line became the added line at its place with only version
/// numbers (and their range operators) changed: `version='0.11'` → `version='0.12'`,
/// `serde = "1.0"` → `serde = "^1.2"`.
pub fn is_bump(removed: &[String], added: &[String]) -> bool {
    static VERSION: OnceLock<Regex> = OnceLock::new();
    let version = VERSION.get_or_init(|| Regex::new(r"[\^~>=<!]*v?\d[\w.*+-]*").expect("the version pattern is valid"));
    let plain = |l: &str| version.replace_all(l.trim(), "V").into_owned();
    !removed.is_empty()
        && removed.len() == added.len()
        && removed.iter().zip(added).all(|(a, b)| a != b && plain(a) == plain(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(old: (u32, u32), new: (u32, u32), removed: &[&str], added: &[&str]) -> Hunk {
        Hunk {
            old_start: old.0,
            old_count: old.1,
            new_start: new.0,
            new_count: new.1,
            removed: removed.iter().map(|s| s.to_string()).collect(),
            added: added.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_docstring_or_message_text_change_is_prose_and_a_changed_call_is_not() {
        let old = "def f(x):\n    \"\"\"Checks weather x.\"\"\"\n    raise E('an error ocurred',\n            x)\n";
        let new = old.replace("weather", "whether").replace("ocurred", "occurred");
        let (a, b) = (Reading::new("a.py", Some(old)), Reading::new("a.py", Some(&new)));
        assert_eq!(cosmetic(&a, &b, &hunk((2, 1), (2, 1), &[], &[])), Some(Cosmetic::Prose));
        assert_eq!(cosmetic(&a, &b, &hunk((3, 1), (3, 1), &[], &[])), Some(Cosmetic::Prose));
        let called = old.replace("E('an error ocurred',", "E(repr('an error ocurred'),");
        let c = Reading::new("a.py", Some(&called));
        assert_eq!(cosmetic(&a, &c, &hunk((3, 1), (3, 1), &[], &[])), None);
        assert!(!a.is_code(2, "") && a.is_code(3, "") && a.is_code(4, ""));
    }

    #[test]
    fn without_a_grammar_comment_lines_are_prose() {
        let (a, b) = (Reading::new("a.rb", Some("# old\nx = 1\n")), Reading::new("a.rb", Some("# new\nx = 1\n")));
        assert_eq!(cosmetic(&a, &b, &hunk((1, 1), (1, 1), &["# old"], &["# new"])), Some(Cosmetic::Prose));
        assert_eq!(cosmetic(&a, &b, &hunk((2, 1), (2, 1), &["x = 1"], &["x = 2"])), None);
    }

    #[test]
    fn version_bumps_count_only_in_manifests() {
        assert!(is_bump(&["    version='0.11',".into()], &["    version='0.12',".into()]));
        assert!(is_bump(&["serde = \"1.0\"".into()], &["serde = \"^1.2.3\"".into()]));
        assert!(!is_bump(&["serde = \"1.0\"".into()], &["serde_json = \"1.0\"".into()]));
        assert!(is_manifest("Cargo.toml") && is_manifest("pkg/setup.py") && is_manifest("requirements-dev.txt"));
        assert!(!is_manifest("src/timeouts.py"));
        let r = Reading::new("src/limits.rb", None);
        assert_eq!(cosmetic(&r, &r, &hunk((1, 1), (1, 1), &["TIMEOUT = 30"], &["TIMEOUT = 60"])), None);
    }
}
