//! `gauntlet backtest mine`: a corpus from the repository's own history.
//!
//! Fix commits are found by their messages ([`detect`]); for each, SZZ blames what
//! the fix removed or changed at its parent and names the commit that introduced
//! the defect ([`szz`]), walking past commits that only refactored the line
//! ([`refactor`]) or changed other tokens of it than the ones the fix took out
//! ([`untouched`]). That commit becomes an escape case (base = its first parent,
//! or git's empty tree for a root commit; head = itself; defects = the blamed
//! lines in its own line numbers); old,
//! similar-sized commits no fix ever touched become clean cases ([`clean`]). The
//! cases reference the repository in place ([`write`]).
//!
//! Confidence: `A` when a `Fixes:` trailer named the commit, `B` when every blamed
//! line lands on one commit (or a revert says why), `C` when blame splits over
//! several commits, the fix only added lines (or only inserted code into lines,
//! at places older than the commit blame names), or the fix reads as a port, a
//! compatibility change or an upgrade (its subject, or its size).

pub mod blame;
pub mod clean;
pub mod detect;
pub mod diffs;
pub mod history;
pub mod hunks;
pub mod prose;
pub mod refactor;
mod szz;
pub mod untouched;
pub mod write;

pub use szz::{GAPS_PREDATE, TOOLING_ONLY};

use detect::{Evidence, Patterns};
use gauntlet_change::git::Git;
use gauntlet_change::{ChangeError, Snapshot};
use gauntlet_review::gate::{self, GateConfig, IgnoreRules};
use history::{Commit, Window};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Default `--max-changed-lines`: a larger introducing commit is a sweep.
pub const DEFAULT_MAX_CHANGED_LINES: usize = 800;
/// Default `--clean-window`: clean cases are at least this many days old.
pub const DEFAULT_CLEAN_WINDOW_DAYS: u32 = 180;

/// How sure the miner is that a case's head introduced its defects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Confidence {
    /// A `Fixes:` trailer named the commit.
    A,
    /// Every blamed line lands on this one commit, or a revert of it says why.
    B,
    /// Blame split over several commits (the most blamed one is kept), or the fix
    /// only added lines and the lines around them were blamed.
    C,
}

impl Confidence {
    pub fn parse(text: &str) -> Option<Confidence> {
        match text.trim() {
            "A" | "a" => Some(Confidence::A),
            "B" | "b" => Some(Confidence::B),
            "C" | "c" => Some(Confidence::C),
            _ => None,
        }
    }
}

/// What to mine and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub window: Window,
    pub max_changed_lines: usize,
    /// Clean cases per escape.
    pub clean_ratio: f64,
    pub clean_window_days: u32,
    pub seed: u64,
    /// Confidences kept (the default output keeps A and B).
    pub keep: Vec<Confidence>,
    pub patterns: Patterns,
    pub gate: GateConfig,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            window: Window::All,
            max_changed_lines: DEFAULT_MAX_CHANGED_LINES,
            clean_ratio: 1.0,
            clean_window_days: DEFAULT_CLEAN_WINDOW_DAYS,
            seed: 0,
            keep: vec![Confidence::A, Confidence::B],
            patterns: Patterns::defaults(),
            gate: GateConfig::default(),
        }
    }
}

/// Why mining stopped.
#[derive(Debug, thiserror::Error)]
pub enum MineError {
    #[error(transparent)]
    Git(#[from] ChangeError),
    #[error("[gate] settings: {0}")]
    Gate(String),
    #[error("{0}")]
    Io(String),
}

/// A fix that named or blamed a case's head.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixRef {
    pub sha: String,
    pub subject: String,
    pub body: String,
}

/// An escape case: the commit that introduced defects a later fix repaired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Escape {
    pub head: String,
    pub base: String,
    pub subject: String,
    pub confidence: Confidence,
    /// (path, first line, last line) at head, one per contiguous run.
    pub defects: Vec<(String, u32, u32)>,
    pub fixes: Vec<FixRef>,
    /// Changed lines of code (how clean cases are matched in size).
    pub size: usize,
    /// Commit time of the head (how clean cases are matched in era).
    pub time: i64,
}

/// A clean case: an old commit no fix touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clean {
    pub head: String,
    pub base: String,
    pub subject: String,
    pub size: usize,
    pub time: i64,
}

/// How many escapes and clean cases fall in one bucket (a year, a size class).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub bucket: String,
    pub escapes: usize,
    pub clean: usize,
}

/// What was mined, for the terminal and as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The commit id of HEAD when mined.
    pub mined_at: String,
    pub commits: usize,
    pub fixes_seen: usize,
    /// Escape cases kept, per confidence.
    pub kept: BTreeMap<String, usize>,
    pub clean: usize,
    /// Clean cases the ratio asked for.
    pub clean_wanted: usize,
    /// Fixes (or wanted clean cases) left out, per reason.
    pub skipped: BTreeMap<String, usize>,
    /// What git said when it could not diff or blame a fix (`sha: message`); such
    /// fixes are also counted in `skipped`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Escapes and clean cases per commit year, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eras: Vec<Bucket>,
    /// Escapes and clean cases per size class (changed lines of code: 1, 2-3, 4-7, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<Bucket>,
}

/// The mined corpus, before it is written.
#[derive(Clone, Debug, Default)]
pub struct Mined {
    pub escapes: Vec<Escape>,
    pub cleans: Vec<Clean>,
    pub summary: Summary,
}

/// The state one mining run shares: the repository, the options, and commits read
/// so far (introducing commits may lie before the window).
pub(crate) struct Miner<'a> {
    pub git: &'a Git,
    pub options: &'a Options,
    pub rules: IgnoreRules,
    pub ignore_revs: Option<&'a Path>,
    known: RefCell<HashMap<String, Commit>>,
    /// Commits' own zero-context diffs, read once (blame walks through a refactor
    /// once per line it moved).
    diffs: RefCell<HashMap<String, std::rc::Rc<Vec<hunks::FileDiff>>>>,
    /// The commits a shallow clone stops at: their parents are not here, so they
    /// are boundaries, not root commits.
    pub shallow: BTreeSet<String>,
    /// Files as the miner reads them, by blob id and path: one version is read by
    /// the fix that left it and by the next fix of the file.
    readings: RefCell<HashMap<(String, String), std::rc::Rc<prose::Reading>>>,
}

impl Miner<'_> {
    /// A commit, read once.
    pub(crate) fn commit(&self, sha: &str) -> Result<Commit, ChangeError> {
        if let Some(c) = self.known.borrow().get(sha) {
            return Ok(c.clone());
        }
        let read = history::read(self.git, sha, &Window::Last(1))?;
        let commit = read.into_iter().next().ok_or_else(|| ChangeError::BadRevision { rev: sha.to_string() })?;
        self.known.borrow_mut().insert(sha.to_string(), commit.clone());
        Ok(commit)
    }

    /// A commit's diff against its first parent (`-U0 -w -M`), read once.
    pub(crate) fn own_diff(&self, sha: &str, parent: &str) -> Result<std::rc::Rc<Vec<hunks::FileDiff>>, ChangeError> {
        if let Some(d) = self.diffs.borrow().get(sha) {
            return Ok(d.clone());
        }
        let files = std::rc::Rc::new(hunks::parse(&self.git.diff(&["-U0", "-w", "-M", parent, sha])?));
        self.diffs.borrow_mut().insert(sha.to_string(), files.clone());
        Ok(files)
    }

    /// Blame `lines` of `path` at `rev` ([`blame::blame`]); a shallow clone's
    /// boundary commits are boundaries.
    pub(crate) fn blame(&self, rev: &str, path: &str, lines: &[u32]) -> Result<Vec<blame::Blamed>, ChangeError> {
        let mut blamed = blame::blame(self.git, rev, path, lines, self.ignore_revs)?;
        for b in &mut blamed {
            b.boundary |= self.shallow.contains(&b.commit);
        }
        Ok(blamed)
    }

    /// A version of `path` as the miner reads it, parsed once per blob when the
    /// diff named it (`blob`): the version a fix leaves is the one the next fix of
    /// the file starts from.
    pub(crate) fn reading(&self, path: &str, text: Option<&str>, blob: Option<&str>) -> std::rc::Rc<prose::Reading> {
        let key = blob.filter(|b| b.bytes().any(|c| c != b'0')).map(|b| (b.to_string(), path.to_string()));
        if let Some(r) = key.as_ref().and_then(|k| self.readings.borrow().get(k).cloned()) {
            return r;
        }
        let reading = std::rc::Rc::new(prose::Reading::new(path, text));
        if let Some(key) = key {
            let mut readings = self.readings.borrow_mut();
            // Reuse is between neighbouring fixes: a long history must not keep
            // every version of every file it read.
            if readings.len() >= MAX_READINGS {
                readings.clear();
            }
            readings.insert(key, reading.clone());
        }
        reading
    }

    /// Changed lines of code: files the gate would review that are not tests or documents.
    pub(crate) fn size(&self, commit: &Commit) -> usize {
        let code = |p: &str| hunks::not_code(p).is_none() && self.rules.reason(p, None).is_none();
        commit.files.iter().filter(|(p, ..)| code(p)).map(|(_, a, r)| a + r).sum()
    }
}

/// How many parsed file versions [`Miner::reading`] keeps before starting over.
const MAX_READINGS: usize = 512;

/// Mine the history reachable from HEAD.
pub fn mine(git: &Git, options: &Options) -> Result<Mined, MineError> {
    let head = git.resolve("HEAD")?;
    let snapshot = Snapshot::Commit(head.clone());
    let attributes = git.read(&snapshot, ".gitattributes")?.map(|b| String::from_utf8_lossy(&b).into_owned());
    let rules = IgnoreRules::new(&gate::generated_globs(attributes.as_deref().unwrap_or("")), &options.gate)
        .map_err(MineError::Gate)?;
    let ignore_file = ignore_revs(git, &snapshot)?;
    let commits = history::read(git, &head, &options.window)?;
    let miner = Miner {
        git,
        options,
        rules,
        ignore_revs: ignore_file.as_ref().map(|f| f.path()),
        known: RefCell::new(commits.iter().map(|c| (c.id.clone(), c.clone())).collect()),
        diffs: RefCell::default(),
        shallow: shallow(git)?,
        readings: RefCell::default(),
    };
    let mut summary = Summary { mined_at: head, commits: commits.len(), ..Summary::default() };
    let found = fixes(&miner, &commits, &mut summary)?;
    let mut escapes = escapes(&miner, found.cases)?;
    escapes.sort_by(|a, b| a.head.cmp(&b.head));
    for e in &escapes {
        *summary.kept.entry(format!("{:?}", e.confidence)).or_default() += 1;
    }
    let newest = commits.iter().map(|c| c.time).max().unwrap_or(0);
    let pool = clean::Pool { miner: &miner, commits: &commits, fixes: &found.fixes, blamed: &found.blamed, newest };
    let cleans = clean::sample(&pool, &escapes, &mut summary)?;
    clean::distributions(&escapes, &cleans, &mut summary);
    Ok(Mined { escapes, cleans, summary })
}

/// An introducing commit's case being gathered: confidence, lines, fixes.
type Gathered = (Confidence, BTreeSet<(String, u32)>, Vec<FixRef>);

/// What the fixes of the window gave.
struct Fixes {
    /// Introducing commit → (its confidence, lines, fixes), kept ones only.
    cases: BTreeMap<String, Gathered>,
    /// Every commit detected as a fix.
    fixes: BTreeSet<String>,
    /// Every commit a fix's blame landed on, a fix named, a revert took back or a
    /// fix restored deleted lines of: none of them is ever a clean case.
    blamed: BTreeSet<String>,
}

fn skip(summary: &mut Summary, reason: impl Into<String>) {
    *summary.skipped.entry(reason.into()).or_default() += 1;
}

fn fixes(miner: &Miner<'_>, commits: &[Commit], summary: &mut Summary) -> Result<Fixes, MineError> {
    let automated = regex::RegexSet::new(&miner.options.gate.automated_subjects)
        .map_err(|e| MineError::Gate(format!("automated_subjects: {e}")))?;
    let evidence: Vec<Evidence> =
        commits.iter().map(|c| detect::classify(&c.message, &miner.options.patterns)).collect();
    let is_fix: BTreeSet<String> =
        commits.iter().zip(&evidence).filter(|(_, e)| **e != Evidence::None).map(|(c, _)| c.id.clone()).collect();
    let mut out = Fixes { cases: BTreeMap::new(), fixes: is_fix.clone(), blamed: BTreeSet::new() };
    // Oldest first, so a case's fixes are listed in the order they landed.
    for (commit, evidence) in commits.iter().zip(&evidence).rev() {
        if *evidence == Evidence::None {
            continue;
        }
        summary.fixes_seen += 1;
        // A commit a revert takes back (with a reason or without) or a trailer names is
        // never a clean case, whatever becomes of the fix itself.
        if let Evidence::Trailer(id) | Evidence::Revert(id) | Evidence::BareRevert(id) = evidence
            && let Some(sha) = miner.git.try_resolve(id)?
        {
            out.blamed.insert(sha);
        }
        if let Evidence::BareRevert(_) = evidence {
            skip(summary, "a revert that does not say why (not proof of a bug)");
            continue;
        }
        if automated.is_match(commit.subject()) {
            skip(summary, "an automated commit (dependency bump)");
            continue;
        }
        if miner.options.patterns.excluded(commit.subject()) {
            skip(summary, EXCLUDED_SUBJECT);
            continue;
        }
        let Some(parent) = commit.parents.first() else {
            skip(summary, "the fix is the first commit");
            continue;
        };
        if commit.is_merge() && merged_fixes(miner.git, commit, &is_fix)? {
            skip(summary, "a merge whose own commits are mined one by one");
            continue;
        }
        let outcome = match miner.szz(&commit.id, parent, evidence) {
            Ok(outcome) => outcome,
            // One fix git cannot read (a submodule, a path it refuses) does not stop the run.
            Err(e) => {
                skip(summary, "git could not diff or blame the fix (see `errors`)");
                summary.errors.push(format!("{}: {e}", commit.short()));
                continue;
            }
        };
        out.blamed.extend(outcome.blamed);
        let ported = ported(miner, commit);
        let outcome = outcome.found.map(|found| {
            found.map(|mut f| {
                if ported.is_some() {
                    f.confidence = Confidence::C;
                }
                f
            })
        });
        match outcome {
            Some(Ok(found)) if ported.is_some() && !miner.options.keep.contains(&found.confidence) => {
                skip(summary, format!("confidence C: {}, not kept (see --confidence)", ported.unwrap_or_default()));
            }
            Some(Err(reason)) => skip(summary, reason),
            Some(Ok(found)) if !miner.options.keep.contains(&found.confidence) => match found.why_c {
                Some(why) => skip(summary, format!("confidence C: {why}, not kept (see --confidence)")),
                None => skip(summary, format!("confidence {:?}, not kept (see --confidence)", found.confidence)),
            },
            Some(Ok(found)) => {
                let fix =
                    FixRef { sha: commit.id.clone(), subject: commit.subject().into(), body: body(&commit.message) };
                let entry =
                    out.cases.entry(found.introducer).or_insert((found.confidence, BTreeSet::new(), Vec::new()));
                entry.0 = entry.0.min(found.confidence);
                entry.1.extend(found.lines);
                entry.2.push(fix);
            }
            None => {}
        }
    }
    Ok(out)
}

/// A fix this size or larger (changed lines of code) is a port or a rework more
/// than the repair of one defect.
pub const LARGE_FIX_LINES: usize = 200;

/// Why a fix is more likely a port, a compatibility change or an upgrade than the
/// repair of a defect, if it is: blame then finds code that was right for what it
/// was written against, so such cases get confidence C.
fn ported(miner: &Miner<'_>, fix: &Commit) -> Option<&'static str> {
    if says_port(fix.subject()) {
        Some("the fix's subject says port, compat, upgrade or migrate")
    } else if miner.size(fix) >= LARGE_FIX_LINES {
        Some("the fix is large enough to be a port or rework")
    } else {
        None
    }
}

/// Whether a subject says port, compat, upgrade or migrate (`port to`, not a
/// network `port`), or that the code now compiles on a platform or toolchain
/// (`compilation on Redox`, `build with rustc 1.20`).
pub fn says_port(subject: &str) -> bool {
    static PORT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let port = PORT.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\b(port(ed|ing)?\s+(to|from)\b|compat\w*|upgrad\w*|migrat\w*|py(thon)?\s?3\b|(compil(e|es|ation|ing)|build(s|ing)?)\s+(on|for|with|under)\b)",
        )
            .expect("the port pattern is valid")
    });
    port.is_match(subject)
}

/// The reason a fix whose subject says it repairs words or quiets a linter is skipped.
pub const EXCLUDED_SUBJECT: &str =
    "the subject says typo, spelling, wording, docs or a linter (see [backtest.mine] exclude_subjects)";

fn body(message: &str) -> String {
    message.split_once("\n\n").map(|(_, b)| b.trim().to_string()).unwrap_or_default()
}

/// Whether a merge brought in commits that are fixes themselves (then those are
/// mined, not the merge).
fn merged_fixes(git: &Git, merge: &Commit, is_fix: &BTreeSet<String>) -> Result<bool, ChangeError> {
    let range = format!("{}..{}", merge.parents[0], merge.id);
    let out = git.run(&["rev-list", "--no-merges", &range])?;
    Ok(String::from_utf8_lossy(&out).lines().any(|id| is_fix.contains(id.trim())))
}

fn escapes(miner: &Miner<'_>, cases: BTreeMap<String, Gathered>) -> Result<Vec<Escape>, MineError> {
    let mut out = Vec::new();
    for (head, (confidence, lines, fixes)) in cases {
        let commit = miner.commit(&head)?;
        // A root commit is compared with the empty tree: everything it wrote is new.
        let base = match commit.parents.first() {
            Some(parent) => parent.clone(),
            None => miner.git.empty_tree()?,
        };
        let mut per_path: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (path, line) in &lines {
            per_path.entry(path).or_default().push(*line);
        }
        let defects = per_path
            .into_iter()
            .flat_map(|(path, lines)| hunks::runs(&lines).into_iter().map(move |(a, b)| (path.to_string(), a, b)))
            .collect();
        let size = miner.size(&commit);
        let (subject, time) = (commit.subject().into(), commit.time);
        out.push(Escape { head, base, subject, confidence, defects, fixes, size, time });
    }
    Ok(out)
}

/// The commits listed in the repository's `shallow` file (none in a full clone).
fn shallow(git: &Git) -> Result<BTreeSet<String>, MineError> {
    let path = String::from_utf8_lossy(&git.run(&["rev-parse", "--git-path", "shallow"])?).trim().to_string();
    let path = git.root().join(path);
    Ok(std::fs::read_to_string(path).map(|t| t.lines().map(|l| l.trim().to_string()).collect()).unwrap_or_default())
}

/// `.git-blame-ignore-revs` at HEAD, with only the ids that resolve (blame stops at
/// an unknown one), written to a temporary file.
fn ignore_revs(git: &Git, head: &Snapshot) -> Result<Option<tempfile::NamedTempFile>, MineError> {
    let Some(bytes) = git.read(head, ".git-blame-ignore-revs")? else { return Ok(None) };
    let text = String::from_utf8_lossy(&bytes);
    let mut ids = Vec::new();
    for line in text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()) {
        if let Some(sha) = git.try_resolve(line)? {
            ids.push(sha);
        }
    }
    let mut file = tempfile::NamedTempFile::new().map_err(|e| MineError::Io(e.to_string()))?;
    std::io::Write::write_all(&mut file, (ids.join("\n") + "\n").as_bytes())
        .map_err(|e| MineError::Io(e.to_string()))?;
    Ok(Some(file))
}

/// Whether `a` is an ancestor of `b` (git's own environment and settings, as
/// every other call of this crate; a failing git answers "no").
pub(crate) fn is_ancestor(git: &Git, a: &str, b: &str) -> Result<bool, ChangeError> {
    Ok(git.run(&["merge-base", "--is-ancestor", a, b]).is_ok())
}
