//! The gate: a deterministic decision, before any model call, on whether a change
//! deserves a review, and which of its files are worth reviewing.
//!
//! Every input is gathered by the caller (flags, CI event, git, local state); this
//! module only decides, so each reason is a plain unit test.

use gauntlet_change::Change;
use globset::{Glob, GlobSet, GlobSetBuilder};

/// Pull-request facts, from flags, the CI event or the host API. All optional: a
/// local run knows none of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrMeta {
    pub draft: bool,
    pub closed: bool,
    pub author: Option<String>,
    pub title: Option<String>,
    /// The description (body), which finders read as the author's stated intent.
    pub body: Option<String>,
}

/// Gate settings (resolved from `[gate]` in gauntlet.toml).
#[derive(Clone, Debug)]
pub struct GateConfig {
    /// Authors treated as bots besides any name ending in `[bot]`.
    pub bot_authors: Vec<String>,
    /// Commit subjects of automated commits (regular expressions).
    pub automated_subjects: Vec<String>,
    /// Extra globs of files never worth reviewing.
    pub ignore: Vec<String>,
    /// Fewer reviewable changed lines (added + deleted) than this: skip.
    pub min_changed_lines: usize,
    /// More reviewable changed lines than this: skip (None: no limit; large changes are chunked).
    pub max_changed_lines: Option<usize>,
    /// Whether a "generated" banner near the top of a file sets it aside. `ci`
    /// turns this off: the banner is text the change's author writes.
    pub head_banners: bool,
}

impl Default for GateConfig {
    fn default() -> GateConfig {
        GateConfig {
            bot_authors: vec!["dependabot".into(), "renovate".into(), "github-actions".into()],
            // Whole-subject patterns of dependency bots, so a human subject that merely
            // starts the same way ("Bump version ... and fix the API") is not one.
            automated_subjects: vec![
                r"^(chore|build|fix)\(deps(-dev)?\): (bump|update) \S+( requirement)? from \S+ to \S+$".into(),
                r"^Bump \S+( and \S+)? from \S+ to \S+( in /\S*)?$".into(),
                r"^(chore\(deps\): )?[Uu]pdate ([a-z-]+ ){0,2}\S+ to v?[0-9]\S*$".into(),
            ],
            ignore: Vec::new(),
            min_changed_lines: 1,
            max_changed_lines: None,
            head_banners: true,
        }
    }
}

/// Lockfiles: machine-written, reviewed by their generator.
const LOCKFILES: [&str; 14] = [
    "**/Cargo.lock",
    "**/package-lock.json",
    "**/npm-shrinkwrap.json",
    "**/yarn.lock",
    "**/pnpm-lock.yaml",
    "**/bun.lockb",
    "**/poetry.lock",
    "**/Pipfile.lock",
    "**/uv.lock",
    "**/Gemfile.lock",
    "**/composer.lock",
    "**/go.sum",
    "**/flake.lock",
    "**/packages.lock.json",
];
const VENDORED: [&str; 5] =
    ["**/vendor/**", "**/node_modules/**", "**/third_party/**", "**/vendored/**", "**/*.min.js"];
/// What generators write near the top of a file (Go's, Facebook's `@generated`,
/// and the common "this file was generated" banners). Loose phrases such as a bare
/// "DO NOT EDIT" appear in hand-written headers too, so they do not count alone.
const GENERATED_MARKERS: &str =
    r"@generated|Code generated .* DO NOT EDIT|(?i)this (file|code) (was|is) (automatically|auto-?)generated";

/// What the gate saw, gathered by the caller.
pub struct GateInput<'a> {
    pub change: &'a Change,
    pub pr: &'a PrMeta,
    /// Subjects of the commits in the range (empty for index, worktree and patches).
    pub commit_subjects: &'a [String],
    /// Globs marked `linguist-generated` in `.gitattributes`.
    pub generated_globs: &'a [String],
    /// A review with the same head, rules and config already ran.
    pub already_reviewed: bool,
    pub force: bool,
}

/// The gate's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Review {
        /// Changed files set aside, with the reason (`lockfile`, `generated`, ...).
        ignored: Vec<(String, String)>,
        /// Added + deleted lines of the reviewable files.
        changed_lines: usize,
    },
    Skip {
        reason: String,
    },
}

/// Build a glob set, naming the bad glob on error.
pub fn globset(globs: impl IntoIterator<Item = impl AsRef<str>>) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g.as_ref()).map_err(|e| format!("bad glob `{}`: {e}", g.as_ref()))?);
    }
    b.build().map_err(|e| e.to_string())
}

/// Why a path is not worth reviewing, if it is not.
fn ignore_reason(path: &str, head: Option<&str>, sets: &[(&GlobSet, &'static str)]) -> Option<&'static str> {
    if let Some((_, why)) = sets.iter().find(|(set, _)| set.is_match(path)) {
        return Some(why);
    }
    static MARKERS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let markers = MARKERS.get_or_init(|| regex::Regex::new(GENERATED_MARKERS).expect("marker pattern is valid"));
    let top: String = head.unwrap_or("").lines().take(5).collect::<Vec<_>>().join("\n");
    markers.is_match(&top).then_some("generated")
}

/// The gate's ignore rules, compiled once: lockfiles, vendored files, globs marked
/// generated, `[gate] ignore`, and generated-file markers near the top of a file.
pub struct IgnoreRules {
    generated: GlobSet,
    configured: GlobSet,
    banners: bool,
}

impl IgnoreRules {
    pub fn new(generated_globs: &[String], config: &GateConfig) -> Result<IgnoreRules, String> {
        Ok(IgnoreRules {
            generated: globset(generated_globs)?,
            configured: globset(&config.ignore)?,
            banners: config.head_banners,
        })
    }

    /// Why `path` (with its text, when known) is not worth reviewing, if it is not.
    pub fn reason(&self, path: &str, text: Option<&str>) -> Option<&'static str> {
        // The built-in lists never change: compiled once, not on every call.
        static BUILT_IN: std::sync::OnceLock<[(GlobSet, &'static str); 2]> = std::sync::OnceLock::new();
        let built_in = BUILT_IN.get_or_init(|| {
            let set = |globs: &[&str]| globset(globs).expect("built-in globs are valid");
            [(set(&LOCKFILES), "lockfile"), (set(&VENDORED), "vendored")]
        });
        let sets = [
            (&built_in[0].0, built_in[0].1),
            (&built_in[1].0, built_in[1].1),
            (&self.generated, "generated"),
            (&self.configured, "ignored by [gate] ignore"),
        ];
        ignore_reason(path, text.filter(|_| self.banners), &sets)
    }
}

/// Files not worth reviewing (path, reason), and the changed lines of the rest.
pub fn classify(
    change: &Change,
    generated_globs: &[String],
    config: &GateConfig,
) -> Result<(Vec<(String, String)>, usize), String> {
    let rules = IgnoreRules::new(generated_globs, config)?;
    let mut ignored = Vec::new();
    let mut changed_lines = 0;
    for f in &change.files {
        match rules.reason(f.diff.path(), f.head_text.as_deref()) {
            Some(why) => ignored.push((f.diff.path().to_string(), why.to_string())),
            // Binary files carry no reviewable lines, and a submodule's are commit ids.
            None if f.diff.is_submodule() => {}
            None => changed_lines += f.diff.added() + f.diff.removed(),
        }
    }
    Ok((ignored, changed_lines))
}

/// Decide. `Err` is a configuration error (a bad glob or pattern).
pub fn decide(input: &GateInput<'_>, config: &GateConfig) -> Result<Decision, String> {
    let (ignored, changed_lines) = classify(input.change, input.generated_globs, config)?;
    if input.force {
        return Ok(Decision::Review { ignored, changed_lines });
    }
    let skip = |reason: String| Ok(Decision::Skip { reason });
    if input.pr.closed {
        return skip("the pull request is closed".into());
    }
    if input.pr.draft {
        return skip("the pull request is a draft (reviews start when it is marked ready)".into());
    }
    if let Some(author) = &input.pr.author {
        let bare = author.trim_end_matches("[bot]");
        if author.ends_with("[bot]") || config.bot_authors.iter().any(|b| b.eq_ignore_ascii_case(bare)) {
            return skip(format!("the author `{author}` is a bot"));
        }
    }
    if !input.commit_subjects.is_empty() {
        // One set: compiling it costs less than each pattern alone, and a subject is
        // matched in one pass. Patterns too large to share a set run one by one.
        let automated: Box<dyn Fn(&str) -> bool> = match regex::RegexSet::new(&config.automated_subjects) {
            Ok(set) => Box::new(move |s| set.is_match(s)),
            Err(_) => {
                let mut patterns = Vec::new();
                for p in &config.automated_subjects {
                    let re = regex::Regex::new(p).map_err(|e| format!("bad automated_subjects pattern `{p}`: {e}"))?;
                    patterns.push(re);
                }
                Box::new(move |s| patterns.iter().any(|p| p.is_match(s)))
            }
        };
        if input.commit_subjects.iter().all(|s| automated(s)) {
            return skip(format!("every commit is automated (e.g. `{}`)", input.commit_subjects[0]));
        }
    }
    if !input.change.files.is_empty() && ignored.len() == input.change.files.len() {
        return skip("only ignored files changed (lockfiles, generated or vendored files)".into());
    }
    // A change whose every file is one no model can be shown is not a small
    // change but an unreviewed one: the review runs, finds nothing it can show,
    // and says so (exit 1), rather than skip as if nothing were there.
    if changed_lines < config.min_changed_lines && !only_unshowable(input.change, &ignored) {
        return skip(format!(
            "{changed_lines} reviewable changed line(s), fewer than min_changed_lines = {}{}",
            config.min_changed_lines,
            unreadable_note(input.change)
        ));
    }
    if let Some(max) = config.max_changed_lines.filter(|m| changed_lines > *m) {
        return skip(format!(
            "{changed_lines} changed lines, more than max_changed_lines = {max}: split the change, raise \
             `[gate] max_changed_lines` in gauntlet.toml, or pass --force to review it anyway"
        ));
    }
    if input.already_reviewed {
        return skip(
            "already reviewed at this head commit with the same rules and config (--force reviews again)".into(),
        );
    }
    Ok(Decision::Review { ignored, changed_lines })
}

/// Whether the change, once its ignored files are set aside, holds files but
/// none a model can be shown ([`gauntlet_change::ChangedFile::is_showable`]),
/// and at least one of them is still there at head (a deleted binary file
/// alone leaves nothing to review).
fn only_unshowable(change: &Change, ignored: &[(String, String)]) -> bool {
    let kept: Vec<_> = change.files.iter().filter(|f| !ignored.iter().any(|(p, _)| p == f.diff.path())).collect();
    let present = |f: &&gauntlet_change::ChangedFile| f.diff.status != gauntlet_change::FileStatus::Deleted;
    kept.iter().all(|f| !f.is_showable()) && kept.iter().any(present)
}

/// The changed files that hold no reviewable lines because of what they are
/// (binary, a submodule pointer), named with the reason: "0 changed lines" alone
/// would hide that something did change.
fn unreadable_note(change: &Change) -> String {
    let named: Vec<String> = change
        .files
        .iter()
        .filter(|f| f.diff.binary || f.diff.is_submodule())
        .map(|f| {
            let what = if f.diff.is_submodule() { "submodule pointer" } else { "binary" };
            format!("{} ({what})", f.diff.path())
        })
        .collect();
    if named.is_empty() { String::new() } else { format!("; changed but not reviewable: {}", named.join(", ")) }
}

/// Globs marked `linguist-generated` (or `linguist-generated=true`) in a `.gitattributes` text.
pub fn generated_globs(gitattributes: &str) -> Vec<String> {
    gitattributes
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let pattern = parts.next()?;
            let generated = parts.any(|a| a == "linguist-generated" || a == "linguist-generated=true");
            generated.then(|| {
                // A pattern without a slash matches at any depth, as in gitattributes.
                if pattern.contains('/') {
                    pattern.trim_start_matches('/').to_string()
                } else {
                    format!("**/{pattern}")
                }
            })
        })
        .collect()
}
