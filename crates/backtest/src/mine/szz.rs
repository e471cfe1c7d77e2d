//! SZZ for one fix: blame what the fix removed or changed at the fix's parent and
//! decide which commit introduced the defect, where its lines sit in that commit,
//! and how sure that is.

use super::blame::Blamed;
use super::detect::Evidence;
use super::hunks::{self, FileDiff};
use super::prose::{self, Cosmetic};
use super::{Confidence, Miner, untouched};
use gauntlet_change::{ChangeError, Snapshot};
use gauntlet_review::enclosing::enclosing;
use std::collections::{BTreeMap, BTreeSet};

/// Lines of code blamed on each side of a pure insertion.
const AROUND: usize = 3;
/// The longest function an insertion is blamed inside.
const MAX_FUNCTION_LINES: u32 = 400;

/// The introducing commit of one fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub introducer: String,
    pub confidence: Confidence,
    /// (path, line) in the introducing commit's version of its files.
    pub lines: BTreeSet<(String, u32)>,
    /// Why the confidence is C when blame alone would say B.
    pub why_c: Option<&'static str>,
}

/// What mining one fix gave: a case, or the reason there is none; and every commit
/// blame named, so such commits are never sampled as clean.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub found: Option<Result<Found, String>>,
    pub blamed: BTreeSet<String>,
}

/// A hunk of the fix that only inserts lines, some of them code.
struct Insertion {
    /// The path at the parent.
    path: String,
    /// The path at the fix.
    new_path: String,
    /// The parent's line the insertion follows (0: the top of the file).
    after: u32,
    /// The inserted lines in the fix's version of the file.
    first: u32,
    last: u32,
    /// The inserted lines.
    added: Vec<String>,
}

/// What the fix's diff gives to blame.
struct Touched {
    /// Paths at the parent, of code files.
    paths: BTreeSet<String>,
    /// (path at the parent, old line) of removed or changed code lines.
    removed: Vec<(String, u32)>,
    /// Pure insertions.
    inserted: Vec<Insertion>,
    /// For removed lines the fix edited rather than replaced: the tokens it took
    /// out ([`untouched::taken_out`]).
    taken: BTreeMap<(String, u32), Vec<Vec<String>>>,
    /// For removed lines the fix only inserted tokens into: where
    /// ([`untouched::gaps_in_hunk`]).
    gaps: BTreeMap<(String, u32), Vec<Vec<String>>>,
}

/// The reason a fix that changes only comments, docstrings or literal text is skipped.
pub(crate) const PROSE_ONLY: &str = "the fix changes only comments, docstrings, string literals or layout";

/// Why a fix that only inserts code into lines whose blamed commit did not make
/// those places gets confidence C: what is missing was more likely taken out, or
/// never written, by another commit.
pub const GAPS_PREDATE: &str = "the fix only inserts code into its lines, at places older than the commit blame names";

/// The reason blame that ends at a shallow clone's boundary gives no case.
pub const BEYOND_SHALLOW: &str =
    "the blamed lines lie beyond the history this clone holds (a shallow boundary; fetch more history)";

/// The reason a fix of CI or tool configuration alone (workflows, `tox.ini`, the
/// linter sections of `setup.cfg`) is skipped: what runs the checks is not the
/// code a reviewer is asked to find defects in.
pub const TOOLING_ONLY: &str =
    "the fix changes only CI or tool configuration (workflows, tox.ini, linter and test-runner settings)";

/// The reason a fix that adds back code an earlier commit removed is skipped.
pub const DELETED_CODE: &str = "a defect made by deleting code (the fix adds back lines an earlier commit removed)";
/// The reason a fix that only adds lines outside any function is skipped.
pub const OUTSIDE_FUNCTIONS: &str =
    "the fix only adds lines outside any function (or in one too long to blame), so no code around them can be blamed";
/// Commits `git log -S` may list for one restored line before the search stops.
const DELETERS_LOOKED_AT: &str = "50";

impl Miner<'_> {
    /// Mine one fix commit (`parent` is its first parent).
    pub(super) fn szz(&self, fix: &str, parent: &str, evidence: &Evidence) -> Result<Outcome, ChangeError> {
        let diff = self.git.diff(&["-U0", "-w", "--full-index", parent, fix])?;
        let files = hunks::parse(&diff);
        let touched = match self.touched(parent, fix, &files)? {
            Ok(t) => t,
            Err(reason) => return Ok(Outcome { found: Some(Err(reason)), blamed: BTreeSet::new() }),
        };
        let added_only = touched.removed.is_empty();
        let named = matches!(evidence, Evidence::Trailer(_) | Evidence::Revert(_));
        if added_only
            && !named
            && let Some(deleter) = self.restored(parent, &touched.inserted)?
        {
            // The defect is the deletion: blame cannot name it, but the deleting
            // commit is no clean case.
            return Ok(Outcome { found: Some(Err(DELETED_CODE.into())), blamed: BTreeSet::from([deleter]) });
        }
        let targets = match added_only {
            false => touched.removed.clone(),
            true => self.around_insertions(parent, fix, &touched.inserted)?,
        };
        // A commit the message names needs no blamed line (its own changed lines are the defect).
        if targets.is_empty() && !named {
            let reason = match added_only && !touched.inserted.is_empty() {
                true => OUTSIDE_FUNCTIONS,
                false => "the fix removes no line of code (only blank lines or comments)",
            };
            return Ok(Outcome { found: Some(Err(reason.into())), blamed: BTreeSet::new() });
        }
        let mut by_path: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (path, line) in &targets {
            by_path.entry(path.as_str()).or_default().push(*line);
        }
        let mut blamed: Vec<Blamed> = Vec::new();
        // Every commit blame named, also one it then walked past: none is a clean case.
        let mut commits: BTreeSet<String> = BTreeSet::new();
        // Whether every line is one the fix only inserted into, at places the
        // blamed commit did not make.
        let mut gaps_predate = !added_only;
        for (path, lines) in by_path {
            for b in self.blame(parent, path, &lines)? {
                if !b.boundary {
                    commits.insert(b.commit.clone());
                }
                let key = (path.to_string(), b.at);
                let runs = touched.taken.get(&key).map_or(&[][..], Vec::as_slice);
                let b = self.past_untouched(b, runs)?;
                let gaps = touched.gaps.get(&key).map_or(&[][..], Vec::as_slice);
                gaps_predate = gaps_predate && self.gaps_predate(&b, gaps)?;
                blamed.push(b);
            }
        }
        commits.extend(blamed.iter().filter(|b| !b.boundary).map(|b| b.commit.clone()));
        let found = match evidence {
            Evidence::Trailer(id) => self.named(id, Confidence::A, parent, &blamed, &touched.paths)?,
            Evidence::Revert(id) => self.named(id, Confidence::B, parent, &blamed, &touched.paths)?,
            _ => self.by_blame(&blamed, added_only)?.map(|mut f| {
                if gaps_predate && f.confidence == Confidence::B {
                    f.confidence = Confidence::C;
                    f.why_c = Some(GAPS_PREDATE);
                }
                f
            }),
        };
        Ok(Outcome { found: Some(found), blamed: commits })
    }

    /// The code lines the fix removed and the places it inserted code, or why there
    /// are none to look at.
    fn touched(&self, parent: &str, fix: &str, files: &[FileDiff]) -> Result<Result<Touched, String>, ChangeError> {
        let mut t = Touched {
            paths: BTreeSet::new(),
            removed: Vec::new(),
            inserted: Vec::new(),
            taken: BTreeMap::new(),
            gaps: BTreeMap::new(),
        };
        let (mut tests, mut ci) = (0, 0);
        let mut cosmetic = BTreeSet::new();
        for f in files {
            let Some(path) = f.old.clone().or(f.new.clone()) else { continue };
            if let Some(why) = hunks::not_code(&path) {
                tests += usize::from(why == "test");
                ci += usize::from(why == hunks::CI);
                continue;
            }
            let text = match &f.old {
                Some(old) => self.git.read(&Snapshot::Commit(parent.to_string()), old)?,
                None => None,
            };
            let text = text.map(|b| String::from_utf8_lossy(&b).into_owned());
            if self.rules.reason(&path, text.as_deref()).is_some() {
                continue;
            }
            t.paths.insert(path.clone());
            let Some(old) = &f.old else { continue };
            let after = match &f.new {
                Some(new) => self.git.read(&Snapshot::Commit(fix.to_string()), new)?,
                None => None,
            };
            let after = after.map(|b| String::from_utf8_lossy(&b).into_owned());
            let blob = |side: fn(&(String, String)) -> &String| f.blobs.as_ref().map(|b| side(b).as_str());
            let before = self.reading(old, text.as_deref(), blob(|b| &b.0));
            let after = self.reading(old, after.as_deref(), blob(|b| &b.1));
            for h in &f.hunks {
                if let Some(why) = prose::cosmetic(&before, &after, h) {
                    cosmetic.insert(why);
                    continue;
                }
                if h.old_count == 0 {
                    let added = h.added.iter().enumerate();
                    if added.clone().any(|(i, l)| after.is_code(h.new_start + i as u32, l)) {
                        t.inserted.push(Insertion {
                            path: old.clone(),
                            new_path: f.new.clone().unwrap_or_else(|| old.clone()),
                            after: h.old_start,
                            first: h.new_start,
                            last: h.new_start + h.new_count.max(1) - 1,
                            added: h.added.clone(),
                        });
                    }
                    continue;
                }
                // Tokens of code only: a comment the fix added says nothing about them.
                let removed: Vec<String> = (h.old_start..)
                    .zip(&h.removed)
                    .map(|(n, l)| if before.is_code(n, l) { l.clone() } else { String::new() })
                    .collect();
                let added: Vec<String> = (h.new_start..)
                    .zip(&h.added)
                    .filter(|(n, l)| after.is_code(*n, l))
                    .map(|(_, l)| l.clone())
                    .collect();
                let mut taken = untouched::taken_from_hunk(&removed, &added);
                let mut gaps = untouched::gaps_in_hunk(&removed, &added);
                for (i, l) in h.removed.iter().enumerate() {
                    let n = h.old_start + i as u32;
                    if !before.is_code(n, l) {
                        continue;
                    }
                    t.removed.push((old.clone(), n));
                    if let Some(runs) = taken.remove(&i) {
                        t.taken.insert((old.clone(), n), runs);
                    }
                    if let Some(pairs) = gaps.remove(&i) {
                        t.gaps.insert((old.clone(), n), pairs);
                    }
                }
            }
        }
        if t.removed.is_empty() && t.inserted.is_empty() && !cosmetic.is_empty() {
            return Ok(Err(if cosmetic.contains(&Cosmetic::Prose) {
                PROSE_ONLY.into()
            } else if cosmetic.contains(&Cosmetic::Bump) {
                "the fix only bumps versions in manifests".into()
            } else {
                TOOLING_ONLY.into()
            }));
        }
        if t.paths.is_empty() {
            return Ok(Err(if tests > 0 && tests == files.len() {
                "the fix touches only tests".into()
            } else if ci > 0 && ci == files.len() {
                TOOLING_ONLY.into()
            } else {
                "the fix touches no source file (tests, documents, CI, generated or vendored files only)".into()
            }));
        }
        Ok(Ok(t))
    }

    /// For pure insertions: up to [`AROUND`] code lines on each side, inside the
    /// function that encloses the insertion at the parent. The function comes from
    /// the symbol index where a grammar reads the file, else from indentation.
    fn around_insertions(
        &self,
        parent: &str,
        fix: &str,
        inserted: &[Insertion],
    ) -> Result<Vec<(String, u32)>, ChangeError> {
        let mut out = Vec::new();
        for ins in inserted {
            let Some(bytes) = self.git.read(&Snapshot::Commit(parent.to_string()), &ins.path)? else { continue };
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            let after = ins.after;
            let symbols = gauntlet_code::symbols(&ins.path, &text);
            let region = match symbols.lang {
                Some(_) => match holding(&symbols, after) {
                    Some(d) => Some(d),
                    // No function holds both sides of the insertion, but it may still
                    // end one (the last lines of a Python function): the fix's own
                    // version of the file shows that.
                    None => {
                        let new = self.git.read(&Snapshot::Commit(fix.to_string()), &ins.new_path)?;
                        let new = new.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
                        extended(&symbols, &ins.new_path, &new, ins)
                    }
                }
                .filter(|(from, to)| to - from < MAX_FUNCTION_LINES),
                // No grammar reads the file: indentation.
                None => {
                    let probe = [after + 1, after].into_iter().filter(|&l| l >= 1 && l as usize <= lines.len());
                    probe.into_iter().find_map(|l| enclosing(&lines, l, l, MAX_FUNCTION_LINES))
                }
            };
            let Some((from, to)) = region else { continue };
            let code = |n: &u32| hunks::is_code(&ins.path, lines[*n as usize - 1]);
            let to = to.min(lines.len() as u32);
            let before: Vec<u32> = (from..=after.min(to)).rev().filter(code).take(AROUND).collect();
            let after_lines: Vec<u32> = (after + 1..=to).filter(code).take(AROUND).collect();
            out.extend(before.into_iter().chain(after_lines).map(|n| (ins.path.clone(), n)));
        }
        Ok(out)
    }

    /// The commit that removed the code a fix adds back, if the fix only restores
    /// deleted lines: every inserted code line of some file (trimmed) is among the
    /// lines one earlier commit removed from that file, and one of them is
    /// substantive (not a lone brace or keyword). `git log -S` on the longest line
    /// finds the candidates.
    fn restored(&self, parent: &str, inserted: &[Insertion]) -> Result<Option<String>, ChangeError> {
        let mut by_path: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for ins in inserted {
            let code = ins.added.iter().filter(|l| hunks::is_code(&ins.path, l)).map(|l| l.trim());
            by_path.entry(ins.path.as_str()).or_default().extend(code);
        }
        for (path, added) in by_path {
            let Some(needle) = added.iter().filter(|l| substantive(l)).max_by_key(|l| (l.len(), **l)) else {
                continue;
            };
            let pickaxe = format!("-S{needle}");
            let args = [
                "-c",
                "core.quotePath=false",
                "log",
                pickaxe.as_str(),
                "-n",
                DELETERS_LOOKED_AT,
                "--format=%x1e%H",
                "-p",
                "-U0",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                parent,
                "--",
                path,
            ];
            let log = String::from_utf8_lossy(&self.git.run(&args)?).into_owned();
            for record in log.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
                let (sha, patch) = record.split_once('\n').unwrap_or((record, ""));
                let files = hunks::parse(patch);
                let removed: BTreeSet<&str> = files
                    .iter()
                    .filter(|f| f.old.as_deref() == Some(path))
                    .flat_map(|f| f.hunks.iter().flat_map(|h| h.removed.iter().map(|l| l.trim())))
                    .collect();
                if added.iter().all(|l| removed.contains(l)) {
                    return Ok(Some(sha.trim().to_string()));
                }
            }
        }
        Ok(None)
    }

    /// A commit the message named (trailer or revert): it wins over blame. Its lines
    /// are the blamed ones that land on it, else its own changed lines in the files
    /// the fix touched.
    fn named(
        &self,
        id: &str,
        confidence: Confidence,
        parent: &str,
        blamed: &[Blamed],
        paths: &BTreeSet<String>,
    ) -> Result<Result<Found, String>, ChangeError> {
        let Some(sha) = self.git.try_resolve(id)? else {
            return Ok(Err("the commit the message names does not resolve".into()));
        };
        let ancestor = super::is_ancestor(self.git, &sha, parent)?;
        if !ancestor {
            return Ok(Err("the commit the message names is not in the fix's history".into()));
        }
        if let Some(reason) = self.unusable(&sha)? {
            return Ok(Err(reason));
        }
        let mut lines: BTreeSet<(String, u32)> =
            blamed.iter().filter(|b| b.commit == sha).map(|b| (b.path.clone(), b.line)).collect();
        if lines.is_empty() {
            lines = self.changed_lines(&sha, paths)?;
        }
        if lines.is_empty() {
            return Ok(Err("the commit the message names changed none of the files the fix touched".into()));
        }
        Ok(Ok(Found { introducer: sha, confidence, lines, why_c: None }))
    }

    /// No commit named: the one most blamed lines land on.
    fn by_blame(&self, blamed: &[Blamed], added_only: bool) -> Result<Result<Found, String>, ChangeError> {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for b in blamed.iter().filter(|b| !b.boundary) {
            *count.entry(b.commit.as_str()).or_default() += 1;
        }
        // Most lines first; among equals the smaller id, so the choice is stable.
        let Some((&top, _)) = count.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else {
            return Ok(Err(BEYOND_SHALLOW.into()));
        };
        if let Some(reason) = self.unusable(top)? {
            return Ok(Err(reason));
        }
        let single = count.len() == 1 && blamed.iter().all(|b| !b.boundary);
        let confidence = if single && !added_only { Confidence::B } else { Confidence::C };
        let lines = blamed.iter().filter(|b| b.commit == top).map(|b| (b.path.clone(), b.line)).collect();
        Ok(Ok(Found { introducer: top.to_string(), confidence, lines, why_c: None }))
    }

    /// Why a commit cannot be a case's head: a merge, a sweep, a shallow clone's
    /// boundary (its parent is not here). A root commit can: its case's base is
    /// the empty tree.
    fn unusable(&self, sha: &str) -> Result<Option<String>, ChangeError> {
        let commit = self.commit(sha)?;
        Ok(if commit.is_merge() {
            Some("the introducing commit is a merge".into())
        } else if self.shallow.contains(sha) {
            Some(BEYOND_SHALLOW.into())
        } else if self.size(&commit) > self.options.max_changed_lines {
            Some(format!(
                "the introducing commit is a sweep (more than {} changed lines)",
                self.options.max_changed_lines
            ))
        } else {
            None
        })
    }

    /// The code lines `sha` added or changed in `paths`, in its own line numbers.
    fn changed_lines(&self, sha: &str, paths: &BTreeSet<String>) -> Result<BTreeSet<(String, u32)>, ChangeError> {
        let parent = match self.commit(sha)?.parents.first() {
            Some(p) => p.clone(),
            None => self.git.empty_tree()?,
        };
        let mut args = vec!["-U0", "-w", parent.as_str(), sha, "--"];
        args.extend(paths.iter().map(String::as_str));
        let diff = self.git.diff(&args)?;
        let mut out = BTreeSet::new();
        for f in hunks::parse(&diff) {
            let Some(path) = f.new else { continue };
            for h in &f.hunks {
                let code = h.added.iter().enumerate().filter(|(_, l)| hunks::is_code(&path, l));
                out.extend(code.map(|(i, _)| (path.clone(), h.new_start + i as u32)));
            }
        }
        Ok(out)
    }
}

/// Whether a line says enough to be recognised when it comes back: six letters or
/// digits at least (`return doc`; not `}`, `else:` or `pass`).
fn substantive(line: &str) -> bool {
    line.chars().filter(|c| c.is_alphanumeric()).count() >= 6
}

/// The innermost function or method of the parent that holds both the line an
/// insertion follows and the line after it.
fn holding(symbols: &gauntlet_code::FileSymbols, after: u32) -> Option<(u32, u32)> {
    let d = symbols
        .definitions
        .iter()
        .filter(|d| d.kind.is_callable() && d.start <= after && after < d.end)
        .min_by_key(|d| d.lines())?;
    Some((d.start, d.end))
}

/// For an insertion right after the last line of a function of the parent: that
/// function, when the fix's version puts the inserted lines inside it (the same
/// name and kind, starting before them).
fn extended(at_parent: &gauntlet_code::FileSymbols, new_path: &str, new: &str, ins: &Insertion) -> Option<(u32, u32)> {
    let at_fix = gauntlet_code::symbols(new_path, new);
    let holder = at_fix
        .definitions
        .iter()
        .filter(|d| d.kind.is_callable() && d.start < ins.first && ins.last <= d.end)
        .min_by_key(|d| d.lines())?;
    let d = at_parent
        .definitions
        .iter()
        .filter(|d| d.kind == holder.kind && d.name == holder.name && d.start <= ins.after && d.end == ins.after)
        .min_by_key(|d| d.lines())?;
    Some((d.start, d.end))
}
