//! Reviewers as rule files: Markdown with TOML front matter between `+++` lines.
//!
//! Built-in reviewers are embedded from the repository's `rules/` folder; an
//! external channel (a git repository pinned by tag, fetched read-only into the
//! cache) adds or overrides them by name from its `rules/` folder, and a repository
//! does the same in `.gauntlet/reviewers/*.md`. [`lock`] pins what is in use;
//! [`draft`] turns an escaped defect into a proposed rule for a human to commit.

pub mod draft;
pub mod lock;
pub mod when;

use crate::context::block::{Block, ContextKind};
use gauntlet_change::FileDiff;
use gauntlet_model::Tier;
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The built-in rule files, embedded at build time.
pub const BUILTIN: [(&str, &str); 9] = [
    ("correctness.md", include_str!("../rules/correctness.md")),
    ("broad.md", include_str!("../rules/broad.md")),
    ("security-privacy.md", include_str!("../rules/security-privacy.md")),
    ("error-handling.md", include_str!("../rules/error-handling.md")),
    ("tests.md", include_str!("../rules/tests.md")),
    ("contract-drift.md", include_str!("../rules/contract-drift.md")),
    ("history.md", include_str!("../rules/history.md")),
    ("prior-feedback.md", include_str!("../rules/prior-feedback.md")),
    ("design-tokens.md", include_str!("../rules/design-tokens.md")),
];

/// Where repositories keep their own reviewers.
pub const REPO_DIR: &str = ".gauntlet/reviewers";

pub const DEFAULT_MAX_FINDINGS: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("{source_name}: {message}")]
    Invalid { source_name: String, message: String },
    #[error("could not read {path}: {message}")]
    Read { path: String, message: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Builtin,
    /// A file of the external channel at `tag`, by its path inside the channel.
    Channel {
        tag: String,
        path: PathBuf,
    },
    Repo(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin => f.write_str("built-in"),
            Origin::Channel { tag, path } => write!(f, "channel {tag}: {}", path.display()),
            Origin::Repo(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The external channel's checkout: a folder (read-only, in the cache) at a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    pub dir: PathBuf,
    pub tag: String,
}

/// Where a channel keeps its rule files.
pub const CHANNEL_DIR: &str = "rules";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    /// The reviewer's name; a rule file of the same name replaces a built-in or
    /// channel reviewer. Default: none (required).
    name: String,
    /// One line on what it looks for. Default: none (required).
    description: String,
    /// Globs of the files it reviews. Default: `["**"]`.
    #[serde(default = "all_files")]
    applies_to: Vec<String>,
    /// Its model tier: `"fast"`, `"standard"` or `"deep"`. Default: `"standard"`.
    #[serde(default = "standard")]
    tier: Tier,
    /// Findings kept per session at most, the most severe first (enforced in
    /// code). Default: `10`.
    #[serde(default = "default_max")]
    max_findings: usize,
    /// Whether it runs at all. Default: `true`.
    #[serde(default = "yes")]
    enabled: bool,
    /// Extra context gathered by code for this reviewer (`history`, `feedback`,
    /// `consumers`, `tokens`). Default: `[]`.
    #[serde(default)]
    context: Vec<ContextKind>,
    /// When the change gives the reviewer something to work with; see [`when`].
    when: Option<when::WhenFront>,
}

fn all_files() -> Vec<String> {
    vec!["**".into()]
}
fn standard() -> Tier {
    Tier::Standard
}
fn default_max() -> usize {
    DEFAULT_MAX_FINDINGS
}
fn yes() -> bool {
    true
}

/// One reviewer: a specialty the finder prompt is built around.
#[derive(Clone, Debug)]
pub struct Reviewer {
    pub name: String,
    pub description: String,
    pub applies_to: Vec<String>,
    pub tier: Tier,
    pub max_findings: usize,
    pub enabled: bool,
    /// The context kinds its rule file asks for.
    pub context: Vec<ContextKind>,
    /// That context, once gathered for a run (empty until then); fenced into this
    /// reviewer's own turn, never into the shared block.
    pub gathered: Vec<Block>,
    /// What, beyond a matching file, makes it run; `None`: every matching file does.
    pub when: Option<when::When>,
    /// The Markdown body: the reviewer's specialty.
    pub body: String,
    pub origin: Origin,
    /// The whole file, for the rules version hash.
    pub source: String,
    globs: GlobSet,
}

impl Reviewer {
    /// Parse a rule file. `source_name` names it in errors.
    pub fn parse(source_name: &str, text: &str, origin: Origin) -> Result<Reviewer, RuleError> {
        let invalid = |message: String| RuleError::Invalid { source_name: source_name.to_string(), message };
        let rest = text
            .strip_prefix("+++\n")
            .or_else(|| text.strip_prefix("+++\r\n"))
            .ok_or_else(|| invalid("a rule file starts with a `+++` line opening its TOML front matter".into()))?;
        let end = rest.find("\n+++").ok_or_else(|| invalid("the front matter is not closed by a `+++` line".into()))?;
        let front: FrontMatter = toml::from_str(&rest[..end]).map_err(|e| invalid(e.message().to_string()))?;
        let body = rest[end + 4..].trim_start_matches(['\r', '\n']).trim_end().to_string();
        if front.name.trim().is_empty()
            || !front.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(invalid(format!("name `{}` must be letters, digits, `-` or `_`", front.name)));
        }
        if front.max_findings == 0 || front.max_findings > 50 {
            return Err(invalid(format!("max_findings is {}; use 1 to 50", front.max_findings)));
        }
        if body.is_empty() {
            return Err(invalid("the body (the reviewer's specialty) is empty".into()));
        }
        let mut set = GlobSetBuilder::new();
        for g in &front.applies_to {
            set.add(Glob::new(g).map_err(|e| invalid(format!("applies_to: {e}")))?);
        }
        let globs = set.build().map_err(|e| invalid(format!("applies_to: {e}")))?;
        let when = front.when.map(when::When::compile).transpose().map_err(invalid)?;
        Ok(Reviewer {
            name: front.name,
            description: front.description,
            applies_to: front.applies_to,
            tier: front.tier,
            max_findings: front.max_findings,
            enabled: front.enabled,
            context: front.context,
            gathered: Vec::new(),
            when,
            body,
            origin,
            source: text.to_string(),
            globs,
        })
    }

    /// The first of `paths` this reviewer applies to, if any.
    pub fn first_match<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
        paths.into_iter().find(|p| self.globs.is_match(p))
    }

    /// Whether the reviewer runs on the changed `files`, and why: a file it
    /// applies to, then its `[when]` trigger when it has one. A reviewer the user
    /// `named` (in `--reviewers` or `[reviewers] only`) skips the trigger: asking
    /// for it by name is reason enough.
    fn selection(&self, files: &[&FileDiff], named: bool) -> Selection {
        let Some(matched) = self.first_match(files.iter().map(|f| f.path())) else {
            return Selection::NoMatch;
        };
        let Some(when) = self.when.as_ref().filter(|_| !named) else {
            return Selection::Runs { matched: matched.to_string(), trigger: None };
        };
        match when.trigger(files, |p| self.globs.is_match(p)) {
            Some(t) => Selection::Runs { matched: matched.to_string(), trigger: Some((t, when.about.clone())) },
            None => Selection::NothingToLookAt { about: when.about.clone() },
        }
    }
}

/// The built-in reviewers.
pub fn builtin() -> Vec<Reviewer> {
    BUILTIN
        .iter()
        .map(|(name, text)| Reviewer::parse(name, text, Origin::Builtin).expect("built-in rules are valid"))
        .collect()
}

/// Built-ins plus the repository's own (`root/.gauntlet/reviewers/*.md`), which
/// add reviewers or replace a built-in of the same name. Sorted by name.
pub fn load(root: &Path) -> Result<Vec<Reviewer>, RuleError> {
    load_with(root, None)
}

/// Built-ins, then the channel's rules, then the repository's: each layer adds
/// reviewers or replaces one of the same name. Sorted by name.
pub fn load_with(root: &Path, channel: Option<&Channel>) -> Result<Vec<Reviewer>, RuleError> {
    load_files(read_md(root, &root.join(REPO_DIR))?, channel)
}

/// [`load_with`], with the repository's rule files already read: `(path, text)`,
/// the path relative to the repository's root. `gauntlet ci` reads them from the
/// base commit's tree rather than from the checkout it reviews.
pub fn load_files(repo: Vec<(PathBuf, String)>, channel: Option<&Channel>) -> Result<Vec<Reviewer>, RuleError> {
    let mut all = builtin();
    if let Some(c) = channel {
        let origin = |rel: PathBuf| Origin::Channel { tag: c.tag.clone(), path: rel };
        overlay(&mut all, read_md(&c.dir, &c.dir.join(CHANNEL_DIR))?, origin)?;
    }
    overlay(&mut all, repo, Origin::Repo)?;
    all.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(all)
}

/// The `*.md` files of `dir`, sorted, each named relative to `base`.
fn read_md(base: &Path, dir: &Path) -> Result<Vec<(PathBuf, String)>, RuleError> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let shown = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| RuleError::Read { path: shown.display().to_string(), message: e.to_string() })?;
            Ok((shown, text))
        })
        .collect()
}

/// Add or replace reviewers from `files`, in order.
fn overlay(
    all: &mut Vec<Reviewer>,
    files: Vec<(PathBuf, String)>,
    origin: impl Fn(PathBuf) -> Origin,
) -> Result<(), RuleError> {
    for (shown, text) in files {
        let reviewer = Reviewer::parse(&shown.display().to_string(), &text, origin(shown))?;
        all.retain(|r| r.name != reviewer.name);
        all.push(reviewer);
    }
    Ok(())
}

/// Whether a reviewer runs on a change, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// A changed file matches `applies_to`; with a `[when]` table, what set it
    /// off and what the reviewer looks for.
    Runs {
        matched: String,
        trigger: Option<(when::Trigger, String)>,
    },
    Disabled {
        by: String,
    },
    NoMatch,
    /// Files match `applies_to`, but the change touches nothing of what its
    /// `[when]` table says it looks for (`about`).
    NothingToLookAt {
        about: String,
    },
}

impl std::fmt::Display for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selection::Runs { matched, trigger: None } => write!(f, "runs: {matched} matches applies_to"),
            Selection::Runs { trigger: Some((t, about)), .. } => write!(f, "runs: {t} ({about})"),
            Selection::Disabled { by } => write!(f, "off: disabled by {by}"),
            Selection::NoMatch => f.write_str("off: no changed file matches applies_to"),
            Selection::NothingToLookAt { about } => write!(
                f,
                "off: the change touches nothing it looks for ({about}): no changed line matches its [when] lines \
                 and no changed file its [when] paths"
            ),
        }
    }
}

/// Decide each reviewer's fate for the changed `files`. `disabled` are names turned
/// off in settings; `only`, when non-empty, turns off every other name.
pub fn select<'a>(
    reviewers: &'a [Reviewer],
    files: &[&FileDiff],
    disabled: &[String],
    only: &[String],
) -> Vec<(&'a Reviewer, Selection)> {
    select_with(reviewers, files, disabled, only, "--reviewers")
}

/// [`select`], naming where `only` came from (`--reviewers`, or the config's
/// `[reviewers] only`) in the reason a reviewer is off.
pub fn select_with<'a>(
    reviewers: &'a [Reviewer],
    files: &[&FileDiff],
    disabled: &[String],
    only: &[String],
    only_by: &str,
) -> Vec<(&'a Reviewer, Selection)> {
    reviewers
        .iter()
        .map(|r| {
            let sel = if !only.is_empty() && !only.contains(&r.name) {
                Selection::Disabled { by: only_by.into() }
            } else if disabled.contains(&r.name) {
                Selection::Disabled { by: "gauntlet.toml [reviewers] disable".into() }
            } else if !r.enabled && !only.contains(&r.name) {
                Selection::Disabled { by: format!("its rule file ({})", r.origin) }
            } else {
                r.selection(files, only.contains(&r.name))
            };
            (r, sel)
        })
        .collect()
}

/// A short hash over the rule files that ran, so reports say which rules produced them.
pub fn version(reviewers: &[&Reviewer]) -> String {
    let mut sorted: Vec<&&Reviewer> = reviewers.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut h = Sha256::new();
    for r in sorted {
        h.update(r.name.as_bytes());
        h.update([0]);
        h.update(r.source.as_bytes());
        h.update([0]);
    }
    format!("sha256:{}", &hex::encode(h.finalize())[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_include_the_required_reviewers() {
        let names: Vec<String> = builtin().into_iter().map(|r| r.name).collect();
        for n in ["correctness", "broad", "security-privacy", "error-handling", "tests"] {
            assert!(names.contains(&n.to_string()), "{n} missing from {names:?}");
        }
    }

    #[test]
    fn the_broad_reviewer_runs_on_every_change_by_default_with_the_finder_contract() {
        let all = builtin();
        let broad = all.iter().find(|r| r.name == "broad").unwrap();
        assert!(broad.enabled && broad.context.is_empty(), "on by default, needing no gathered context");
        assert_eq!(broad.max_findings, DEFAULT_MAX_FINDINGS);
        for paths in [&["src/lib.rs"][..], &["docs/guide.md"], &["db/migrations/0004.sql", "web/app.ts"]] {
            let files: Vec<FileDiff> = paths.iter().map(|p| added(p, "x = 1")).collect();
            let sel = select(&all, &files.iter().collect::<Vec<_>>(), &[], &[]);
            let of = sel.iter().find(|(r, _)| r.name == "broad").unwrap();
            assert!(matches!(of.1, Selection::Runs { .. }), "{paths:?}: {:?}", of.1);
        }
    }

    #[test]
    fn repo_reviewer_overrides_builtin_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let rd = dir.path().join(REPO_DIR);
        std::fs::create_dir_all(&rd).unwrap();
        std::fs::write(
            rd.join("tests.md"),
            "+++\nname = \"tests\"\ndescription = \"ours\"\nmax_findings = 2\n+++\nOur own test rules.\n",
        )
        .unwrap();
        let all = load(dir.path()).unwrap();
        let t = all.iter().find(|r| r.name == "tests").unwrap();
        assert_eq!(t.description, "ours");
        assert_eq!(t.max_findings, 2);
        assert_eq!(all.iter().filter(|r| r.name == "tests").count(), 1);
    }

    #[test]
    fn unknown_front_matter_key_names_the_file_and_key() {
        let err =
            Reviewer::parse("x.md", "+++\nname = \"x\"\ndescription = \"d\"\ncolour = 1\n+++\nbody\n", Origin::Builtin)
                .unwrap_err()
                .to_string();
        assert!(err.contains("x.md") && err.contains("colour"), "{err}");
    }

    #[test]
    fn selection_explains_why_a_reviewer_does_not_run() {
        let all = builtin();
        let lib = added("src/lib.rs", "    let total = price * quantity;");
        let sel = select(&all, &[&lib], &["security-privacy".into()], &[]);
        let of = |n: &str| sel.iter().find(|(r, _)| r.name == n).unwrap().1.clone();
        assert!(matches!(of("correctness"), Selection::Runs { .. }));
        assert!(matches!(of("security-privacy"), Selection::Disabled { .. }));
        assert!(matches!(of("tests"), Selection::NothingToLookAt { .. }), "{:?}", of("tests"));
        let doc = added("docs/guide.md", "Prices are in pence.");
        let sel = select(&all, &[&doc], &[], &[]);
        assert_eq!(sel.iter().find(|(r, _)| r.name == "contract-drift").unwrap().1, Selection::NoMatch);
        let test = added("src/tests/a_test.rs", "    assert total == 3");
        let sel = select(&all, &[&test], &[], &[]);
        assert!(matches!(sel.iter().find(|(r, _)| r.name == "tests").unwrap().1, Selection::Runs { .. }));
        // Named by the user, a specialist runs on any file it applies to.
        let sel = select(&all, &[&lib], &[], &["tests".into()]);
        assert!(matches!(
            sel.iter().find(|(r, _)| r.name == "tests").unwrap().1,
            Selection::Runs { trigger: None, .. }
        ));
    }

    /// The reason each of `names` got, for a change that adds `line` to `path`.
    fn reasons(path: &str, line: &str, names: &[&str]) -> Vec<Selection> {
        let all = builtin();
        let file = added(path, line);
        let sel = select(&all, &[&file], &[], &[]);
        names.iter().map(|n| sel.iter().find(|(r, _)| r.name == *n).unwrap().1.clone()).collect()
    }

    #[test]
    fn a_change_touching_no_auth_data_or_error_path_runs_only_the_core() {
        let line = "    return sum(item.price * item.quantity for item in items)";
        let got = reasons("shop/cart.py", line, &["correctness", "broad", "security-privacy", "error-handling"]);
        assert!(matches!(got[0], Selection::Runs { .. }) && matches!(got[1], Selection::Runs { .. }), "{got:?}");
        for off in &got[2..] {
            let Selection::NothingToLookAt { about } = off else { panic!("{off:?}") };
            assert!(!about.is_empty());
            assert!(off.to_string().starts_with("off: the change touches nothing it looks for"), "{off}");
        }
    }

    #[test]
    fn each_specialist_runs_when_the_change_gives_it_its_kind_of_code() {
        let runs = |path: &str, line: &str, name: &str| {
            let got = reasons(path, line, &[name]).remove(0);
            assert!(matches!(got, Selection::Runs { trigger: Some(_), .. }), "{name} on {line:?}: {got:?}");
            got.to_string()
        };
        let sql =
            runs("app/users.py", "    cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")", "security-privacy");
        assert!(sql.contains("app/users.py:1 matches [when] lines"), "{sql}");
        runs("app/run.py", "    subprocess.run(\"tar xf \" + name, shell=True)", "security-privacy");
        runs("src/login.rs", "    if session.expired() { return deny(); }", "security-privacy");
        runs("src/signup.rs", "    info!(\"new account for {}\", form.email);", "security-privacy");
        runs("sync.py", "    except StorefrontError:", "error-handling");
        runs("src/io.rs", "    let text = std::fs::read_to_string(path).unwrap_or_default();", "error-handling");
        runs("cmd/main.go", "\tif err != nil {", "error-handling");
        runs("test/test_cart.py", "    assert cart.total() == 3", "tests");
        runs("shop/cart.py", "def refund(order, amount):", "tests");
    }

    #[test]
    fn rules_version_changes_with_rule_text() {
        let a = builtin();
        let mut b = builtin();
        b[0].source.push('x');
        let va = version(&a.iter().collect::<Vec<_>>());
        let vb = version(&b.iter().collect::<Vec<_>>());
        assert_ne!(va, vb);
        assert!(va.starts_with("sha256:"));
    }

    /// A changed file at `path` whose one hunk adds `line` as its first line.
    fn added(path: &str, line: &str) -> FileDiff {
        use gauntlet_change::{DiffLine, FileStatus, Hunk, LineKind};
        let line = DiffLine { kind: LineKind::Added, old: None, new: Some(1), anchor: 1, text: line.to_string() };
        let hunk =
            Hunk { old_start: 0, old_lines: 0, new_start: 1, new_lines: 1, header: String::new(), lines: vec![line] };
        FileDiff {
            old_path: Some(path.to_string()),
            new_path: Some(path.to_string()),
            status: FileStatus::Modified,
            binary: false,
            old_mode: None,
            new_mode: None,
            hunks: vec![hunk],
        }
    }
}
