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
    /// For a file that mixes packaging with tool settings (`setup.cfg`,
    /// `pyproject.toml`, `Cargo.toml`): whether each line (0-based) sits in a
    /// section that configures a linter, formatter, test runner or CI tool.
    tooling: Vec<bool>,
}

/// Why a hunk of a fix repairs no defect, if it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cosmetic {
    /// Only comments, docstrings, literal text or layout changed.
    Prose,
    /// Only version numbers changed, in a manifest.
    Bump,
    /// Only the settings of linters, formatters, test runners or CI changed.
    Tooling,
}

impl Reading {
    pub(crate) fn new(path: &str, text: Option<&str>) -> Reading {
        Reading {
            path: path.to_string(),
            tokens: text.and_then(|t| gauntlet_code::code_tokens(path, t)),
            tooling: text.map(|t| tool_sections(path, t)).unwrap_or_default(),
        }
    }

    /// Whether lines `first..first + count` all sit in tool sections (none: false).
    fn all_tooling(&self, first: u32, count: u32) -> bool {
        count > 0 && (first..first + count).all(|n| self.tooling.get(n as usize - 1).copied().unwrap_or(false))
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
        if self.all_tooling(n, 1) {
            return false;
        }
        match self.tokens_in(n, 1) {
            Some(tokens) => tokens.iter().any(|t| *t != STRING_TOKEN && !t.chars().all(|c| ",;:()[]{}".contains(c))),
            None => hunks::is_code(&self.path, line),
        }
    }
}

/// Whether a hunk changes nothing a defect could sit in (`old` and `new` read the
/// file before and after the fix).
pub(crate) fn cosmetic(old: &Reading, new: &Reading, h: &Hunk) -> Option<Cosmetic> {
    let old_tooling = h.old_count == 0 || old.all_tooling(h.old_start, h.old_count);
    let new_tooling = h.new_count == 0 || new.all_tooling(h.new_start, h.new_count);
    if old_tooling && new_tooling && (h.old_count > 0 || h.new_count > 0) {
        return Some(Cosmetic::Tooling);
    }
    if is_manifest(&old.path) && is_bump(&h.removed, &h.added) {
        return Some(Cosmetic::Bump);
    }
    let before = old.tokens_in(h.old_start, h.old_count);
    let after = new.tokens_in(h.new_start, h.new_count);
    let prose = match (before, after) {
        (Some(a), Some(b)) => a == b,
        _ => {
            let code = |l: &String| hunks::is_code(&old.path, l);
            let blank = !h.removed.iter().any(code) && !h.added.iter().any(code);
            // Only a trailing `# ...` comment changed (`version = "1" # keep in sync`).
            let words = |lines: &[String]| -> Vec<String> {
                let code = lines.iter().map(|l| without_hash_comment(l));
                code.flat_map(|l| super::refactor::tokens(l).into_iter().map(str::to_string).collect::<Vec<_>>())
                    .collect()
            };
            blank || (hash_comments(&old.path) && words(&h.removed) == words(&h.added))
        }
    };
    prose.then_some(Cosmetic::Prose)
}

/// Whether `#` starts a comment in a file no grammar reads: TOML, YAML, INI-style
/// settings, shell, Makefiles and Dockerfiles, requirement lists.
fn hash_comments(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    ["toml", "yml", "yaml", "cfg", "ini", "conf", "sh", "bash", "zsh", "rb", "pl", "r", "nix", "cmake", "in"]
        .contains(&ext.as_str())
        || ["Makefile", "Dockerfile", "Gemfile", "Rakefile", "Pipfile", "CMakeLists.txt"].contains(&name)
        || name.starts_with("requirements")
}

/// A line up to a `#` that starts a comment: at the start or after a space, and
/// outside quotes.
fn without_hash_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q && previous != '\\' => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return &line[..i],
            None => {}
        }
        previous = c;
    }
    line
}

/// Per line (0-based) of a packaging file that also holds tool settings, whether
/// it sits in such a section: `[flake8]`, `[mypy]`, `[tool:pytest]`,
/// `[coverage:run]` in `setup.cfg`; `[tool.black]`, `[tool.ruff.lint]` in
/// `pyproject.toml`; `[lints]`, `[badges]`, `[package.metadata.*]` in
/// `Cargo.toml`; blank lines count as in any section. Other files: empty.
pub fn tool_sections(path: &str, text: &str) -> Vec<bool> {
    static SECTIONS: OnceLock<[(&str, Regex); 3]> = OnceLock::new();
    let sections = SECTIONS.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("the section patterns are valid");
        [
            (
                "setup.cfg",
                re(r"^\[(flake8|pycodestyle|pep8|pydocstyle|pylint\S*|mypy\S*|isort|tool:\S+|pytest|coverage:\S+|bdist_wheel|egg_info|aliases|build_sphinx|upload_docs|check-manifest|tox:\S+|codespell|bumpversion\S*)\]"),
            ),
            (
                "pyproject.toml",
                re(r"^\[\[?tool\.(black|isort|mypy|pytest|ruff|coverage|pylint|flake8|tox|pyright|codespell|bandit|towncrier|cibuildwheel|bumpversion|commitizen|pydocstyle|docformatter|autopep8|yapf)\b"),
            ),
            ("Cargo.toml", re(r"^\[(lints|workspace\.lints|badges|package\.metadata)\b")),
        ]
    });
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, pattern)) = sections.iter().find(|(file, _)| *file == name) else { return Vec::new() };
    let mut inside = false;
    text.lines()
        .map(|line| {
            let t = line.trim();
            if t.starts_with('[') {
                inside = pattern.is_match(t);
            }
            // A blank line says nothing: it sits in whatever section a hunk is in.
            inside || t.is_empty()
        })
        .collect()
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
    fn linter_and_test_runner_sections_are_tool_settings_and_packaging_is_not() {
        let cfg = "[metadata]\nname = shop\n[flake8]\nmax-line-length = 80\n[options]\npackages = find:\n";
        assert_eq!(tool_sections("setup.cfg", cfg), vec![false, false, true, true, false, false]);
        let badges = "[package]\nname = 'a'\n\n[badges]\nci = 'x'\n";
        assert_eq!(
            tool_sections("Cargo.toml", badges),
            vec![false, false, true, true, true],
            "blank lines go with any"
        );
        let py = "[project]\nname = 'a'\n[tool.ruff.lint]\nselect = ['E']\n[tool.setuptools]\nzip-safe = false\n";
        assert_eq!(tool_sections("pyproject.toml", py), vec![false, false, true, true, false, false]);
        assert!(tool_sections("src/setup.py", cfg).is_empty());
        let (a, b) = (Reading::new("setup.cfg", Some(cfg)), Reading::new("setup.cfg", Some(&cfg.replace("80", "99"))));
        assert_eq!(
            cosmetic(&a, &b, &hunk((4, 1), (4, 1), &["max-line-length = 80"], &["max-line-length = 99"])),
            Some(Cosmetic::Tooling)
        );
        let packages = hunk((6, 1), (6, 1), &["packages = find:"], &["packages = shop"]);
        assert_eq!(cosmetic(&a, &b, &packages), None);
    }

    #[test]
    fn a_trailing_hash_comment_is_prose_where_no_grammar_reads_the_file() {
        let r = Reading::new("env/Cargo.toml", None);
        let note =
            hunk((3, 1), (3, 1), &["version = \"0.4.3\""], &["version = \"0.4.3\" # keep html_root_url in step"]);
        assert_eq!(cosmetic(&r, &r, &note), Some(Cosmetic::Prose));
        let hash = hunk((3, 1), (3, 1), &["color = \"red\""], &["color = \"#ff0000\""]);
        assert_eq!(cosmetic(&r, &r, &hash), None, "a `#` inside quotes is no comment");
        let sh = Reading::new("run.sh", None);
        assert_eq!(cosmetic(&sh, &sh, &hunk((1, 1), (1, 1), &["make"], &["make # all"])), Some(Cosmetic::Prose));
        assert_eq!(cosmetic(&sh, &sh, &hunk((1, 1), (1, 1), &["make"], &["make all"])), None);
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
