//! SZZ for one fix: blame what the fix removed or changed at the fix's parent and
//! decide which commit introduced the defect, where its lines sit in that commit,
//! and how sure that is.

use super::blame::{Blamed, blame};
use super::detect::Evidence;
use super::hunks::{self, FileDiff};
use super::{Confidence, Miner};
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
}

/// What mining one fix gave: a case, or the reason there is none; and every commit
/// blame named, so such commits are never sampled as clean.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub found: Option<Result<Found, String>>,
    pub blamed: BTreeSet<String>,
}

/// What the fix's diff gives to blame.
struct Touched {
    /// Paths at the parent, of code files.
    paths: BTreeSet<String>,
    /// (path at the parent, old line) of removed or changed code lines.
    removed: Vec<(String, u32)>,
    /// (path at the parent, old line the insertion follows) of pure insertions.
    inserted: Vec<(String, u32)>,
}

impl Miner<'_> {
    /// Mine one fix commit (`parent` is its first parent).
    pub(super) fn szz(&self, fix: &str, parent: &str, evidence: &Evidence) -> Result<Outcome, ChangeError> {
        let diff = self.git.diff(&["-U0", "-w", parent, fix])?;
        let files = hunks::parse(&diff);
        let touched = match self.touched(parent, &files)? {
            Ok(t) => t,
            Err(reason) => return Ok(Outcome { found: Some(Err(reason)), blamed: BTreeSet::new() }),
        };
        let added_only = touched.removed.is_empty();
        let targets = match added_only {
            false => touched.removed.clone(),
            true => self.around_insertions(parent, &touched.inserted)?,
        };
        if targets.is_empty() {
            let reason = match added_only && !touched.inserted.is_empty() {
                true => "the fix only adds lines outside any function: a defect made by deleting code cannot be blamed",
                false => "the fix removes no line of code (only blank lines or comments)",
            };
            return Ok(Outcome { found: Some(Err(reason.into())), blamed: BTreeSet::new() });
        }
        let mut by_path: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (path, line) in &targets {
            by_path.entry(path.as_str()).or_default().push(*line);
        }
        let mut blamed: Vec<Blamed> = Vec::new();
        for (path, lines) in by_path {
            blamed.extend(blame(self.git, parent, path, &lines, self.ignore_revs)?);
        }
        let commits: BTreeSet<String> = blamed.iter().filter(|b| !b.boundary).map(|b| b.commit.clone()).collect();
        let found = match evidence {
            Evidence::Trailer(id) => self.named(id, Confidence::A, parent, &blamed, &touched.paths)?,
            Evidence::Revert(id) => self.named(id, Confidence::B, parent, &blamed, &touched.paths)?,
            _ => self.by_blame(&blamed, added_only)?,
        };
        Ok(Outcome { found: Some(found), blamed: commits })
    }

    /// The code lines the fix removed and the places it inserted code, or why there
    /// are none to look at.
    fn touched(&self, parent: &str, files: &[FileDiff]) -> Result<Result<Touched, String>, ChangeError> {
        let mut t = Touched { paths: BTreeSet::new(), removed: Vec::new(), inserted: Vec::new() };
        let mut tests = 0;
        for f in files {
            let Some(path) = f.old.clone().or(f.new.clone()) else { continue };
            if let Some(why) = hunks::not_code(&path) {
                tests += usize::from(why == "test");
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
            for h in &f.hunks {
                if h.old_count == 0 {
                    if h.added.iter().any(|l| hunks::is_code(old, l)) {
                        t.inserted.push((old.clone(), h.old_start));
                    }
                    continue;
                }
                let code = h.removed.iter().enumerate().filter(|(_, l)| hunks::is_code(old, l));
                t.removed.extend(code.map(|(i, _)| (old.clone(), h.old_start + i as u32)));
            }
        }
        if t.paths.is_empty() {
            return Ok(Err(match tests > 0 && tests == files.len() {
                true => "the fix touches only tests".into(),
                false => "the fix touches no source file (tests, documents, generated or vendored files only)".into(),
            }));
        }
        Ok(Ok(t))
    }

    /// For pure insertions: up to [`AROUND`] code lines on each side, inside the
    /// function that encloses the insertion at the parent.
    fn around_insertions(&self, parent: &str, inserted: &[(String, u32)]) -> Result<Vec<(String, u32)>, ChangeError> {
        let mut out = Vec::new();
        for (path, after) in inserted {
            let Some(bytes) = self.git.read(&Snapshot::Commit(parent.to_string()), path)? else { continue };
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            let probe = [after + 1, *after].into_iter().filter(|&l| l >= 1 && l as usize <= lines.len());
            let Some((from, to)) = probe.into_iter().find_map(|l| enclosing(&lines, l, l, MAX_FUNCTION_LINES)) else {
                continue;
            };
            let code = |n: &u32| hunks::is_code(path, lines[*n as usize - 1]);
            let before: Vec<u32> = (from..=*after.min(&to)).rev().filter(code).take(AROUND).collect();
            let after_lines: Vec<u32> = (after + 1..=to).filter(code).take(AROUND).collect();
            out.extend(before.into_iter().chain(after_lines).map(|n| (path.clone(), n)));
        }
        Ok(out)
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
        Ok(Ok(Found { introducer: sha, confidence, lines }))
    }

    /// No commit named: the one most blamed lines land on.
    fn by_blame(&self, blamed: &[Blamed], added_only: bool) -> Result<Result<Found, String>, ChangeError> {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for b in blamed.iter().filter(|b| !b.boundary) {
            *count.entry(b.commit.as_str()).or_default() += 1;
        }
        // Most lines first; among equals the smaller id, so the choice is stable.
        let Some((&top, _)) = count.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else {
            return Ok(Err("the blamed lines come from the first commit, which has no parent to compare".into()));
        };
        if let Some(reason) = self.unusable(top)? {
            return Ok(Err(reason));
        }
        let single = count.len() == 1 && blamed.iter().all(|b| !b.boundary);
        let confidence = if single && !added_only { Confidence::B } else { Confidence::C };
        let lines = blamed.iter().filter(|b| b.commit == top).map(|b| (b.path.clone(), b.line)).collect();
        Ok(Ok(Found { introducer: top.to_string(), confidence, lines }))
    }

    /// Why a commit cannot be a case's head: a merge, a sweep, the root commit.
    fn unusable(&self, sha: &str) -> Result<Option<String>, ChangeError> {
        let commit = self.commit(sha)?;
        Ok(if commit.is_merge() {
            Some("the introducing commit is a merge".into())
        } else if commit.parents.is_empty() {
            Some("the introducing commit is the first commit, which has no parent to compare".into())
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
        let parent = format!("{sha}^");
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
