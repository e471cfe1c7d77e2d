//! Indexing what a review needs: the changed files, the names their hunks use and
//! touch, and the other files at head that mention those names (found in one
//! multi-pattern pass, so only they are parsed).

use crate::repo::RepoRead;
use gauntlet_change::{Change, ChangedFile, Hunk, LineKind};
use gauntlet_code::prose::is_prose_path;
use gauntlet_code::{Index, Kind, mentioning, spellings};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

/// A name found in more files than this says nothing about where it is defined or
/// who depends on the change (`id`, `len`, `log`); it is not followed.
pub const MAX_FILES_PER_NAME: usize = 40;

/// Something a hunk defines, modifies or removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touched {
    pub name: String,
    /// Its kind at head; `None` for a name the change removed from its file.
    pub kind: Option<Kind>,
    /// The changed file and head line where the change touched it.
    pub path: String,
    pub line: u32,
}

/// A name a changed line uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsedAt {
    pub name: String,
    pub path: String,
    pub line: u32,
    pub role: gauntlet_code::Role,
    /// The new-side lines of its hunk (a definition inside them is already shown).
    pub hunk: (u32, u32),
}

/// The index of one change, and what its hunks touch and use.
pub struct Scan {
    pub index: Index,
    /// Head text of every indexed file (masked as the repository reader masks it).
    pub texts: HashMap<String, String>,
    pub touched: Vec<Touched>,
    pub used: Vec<UsedAt>,
    /// Names left unfollowed because too many files mention them.
    pub common: BTreeSet<String>,
    /// The changed files (the change listing shows them already).
    pub changed: BTreeSet<String>,
}

fn word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("the identifier pattern compiles"))
}

/// Names of removed lines that the file no longer holds anywhere: renamed or
/// deleted fields, members, functions. `head_words` are the words of the file's head.
fn removed_names<'a>(h: &'a Hunk, head_words: &HashSet<&str>) -> Vec<(&'a str, u32)> {
    let mut out: Vec<(&str, u32)> = Vec::new();
    let mut seen = HashSet::new();
    for l in h.lines.iter().filter(|l| l.kind == LineKind::Removed) {
        for m in word().find_iter(&l.text) {
            let w = m.as_str();
            if w.len() >= 3 && !head_words.contains(w) && seen.insert(w) {
                out.push((w, l.anchor));
            }
        }
    }
    out
}

/// What the hunks of a change touch and use, each name once.
#[derive(Default)]
struct Found {
    touched: Vec<Touched>,
    used: Vec<UsedAt>,
    touched_names: HashSet<String>,
    used_keys: HashSet<(String, String, gauntlet_code::Role)>,
}

impl Found {
    fn touch(&mut self, name: &str, kind: Option<Kind>, path: &str, line: u32) {
        if self.touched_names.insert(name.to_string()) {
            self.touched.push(Touched { name: name.to_string(), kind, path: path.to_string(), line });
        }
    }
}

/// What one changed file's hunks touch and use.
fn hunks_of(f: &ChangedFile, index: &Index, found: &mut Found) {
    let path = f.diff.path();
    let head_words: HashSet<&str> =
        f.head_text.as_deref().map(|t| word().find_iter(t).map(|m| m.as_str()).collect()).unwrap_or_default();
    let symbols = index.file(path);
    for h in &f.diff.hunks {
        let span = h.new_side();
        let hunk = (*span.start(), *span.end());
        if f.head_text.is_some() {
            for (name, line) in removed_names(h, &head_words) {
                found.touch(name, None, path, line);
            }
        } else {
            // A deleted file: what it defined, read from the lines it lost.
            let lost: String = h.lines.iter().map(|l| format!("{}\n", l.text)).collect();
            for d in gauntlet_code::symbols(path, &lost).definitions {
                found.touch(&d.name, None, path, h.new_start.max(1));
            }
        }
        let Some(symbols) = symbols else { continue };
        for l in h.lines.iter().filter(|l| l.kind != LineKind::Context) {
            let n = l.anchor;
            if l.kind == LineKind::Added {
                for d in symbols.defined_in(n, n) {
                    found.touch(&d.name, Some(d.kind), path, n);
                }
                for u in symbols.uses_in(n, n) {
                    if found.used_keys.insert((u.name.clone(), path.to_string(), u.role)) {
                        let name = u.name.clone();
                        found.used.push(UsedAt { name, path: path.to_string(), line: n, role: u.role, hunk });
                    }
                }
            }
            // The definition a changed line sits in is modified: its users depend on it.
            if let Some(d) = symbols.enclosing(n) {
                found.touch(&d.name, Some(d.kind), path, n);
            }
        }
    }
}

/// The names to look for in other files: what the hunks use and touch, with the
/// other spellings of multi-word fields (a Python `display_name` read as
/// `displayName` by a client).
fn wanted(touched: &[Touched], used: &[UsedAt]) -> Vec<String> {
    let mut names: BTreeSet<String> = used.iter().map(|u| u.name.clone()).collect();
    for t in touched {
        if matches!(t.kind, Some(Kind::Field) | None) {
            names.extend(spellings(&t.name));
        } else {
            names.insert(t.name.clone());
        }
    }
    names.into_iter().filter(|n| n.len() >= 2).collect()
}

/// Add to `index` the files at head outside `change` that mention any of `names`
/// (one multi-pattern pass over them), skipping links, files over `file_bytes`,
/// gauntlet's own folder and prose (licences, changelogs, READMEs, text), which
/// mentions names without depending on them. A name more than [`MAX_FILES_PER_NAME`] files mention
/// does not bring files in on its own; those names are returned.
pub fn add_mentioning(
    index: &mut Index,
    texts: &mut HashMap<String, String>,
    change: &Change,
    repo: &dyn RepoRead,
    names: &[String],
    file_bytes: usize,
) -> BTreeSet<String> {
    let others: Vec<&str> = repo
        .files()
        .into_iter()
        .filter(|p| change.file(p).is_none() && !p.starts_with(".gauntlet/") && repo.link_target(p).is_none())
        .filter(|p| !is_prose_path(p))
        .collect();
    // The search reads unmasked text; what it picks is read again, masked, below.
    let read: Vec<(&str, String)> = others
        .iter()
        .zip(repo.unmasked_texts(&others))
        .filter_map(|(p, t)| Some((*p, t?)))
        .filter(|(_, t)| t.len() <= file_bytes)
        .collect();
    let hits = mentioning(names, read.iter().map(|(_, t)| t.as_str()));
    let mut files_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (_, found) in &hits {
        for n in found {
            *files_of.entry(*n).or_default() += 1;
        }
    }
    let common: BTreeSet<usize> =
        files_of.iter().filter(|(_, count)| **count > MAX_FILES_PER_NAME).map(|(n, _)| *n).collect();
    let picked: Vec<&str> =
        hits.iter().filter(|(_, found)| found.iter().any(|n| !common.contains(n))).map(|(i, _)| read[*i].0).collect();
    let masked = repo.texts(&picked);
    let wanted_files: Vec<(&str, &str)> =
        picked.iter().zip(&masked).filter_map(|(p, t)| Some((*p, t.as_deref()?))).collect();
    index.add_all(&wanted_files);
    texts.extend(wanted_files.iter().map(|(p, t)| (p.to_string(), t.to_string())));
    common.into_iter().map(|i| names[i].clone()).collect()
}

/// Index `change`: its files, then the files at head that mention what its hunks
/// use or touch. Files over `file_bytes`, links and gauntlet's own folder are left
/// out, as the tools leave them out.
pub fn scan(change: &Change, repo: &dyn RepoRead, file_bytes: usize) -> Scan {
    let mut index = Index::default();
    let mut texts: HashMap<String, String> = HashMap::new();
    let changed: Vec<(&str, &str)> = change
        .files
        .iter()
        .filter(|f| !is_prose_path(f.diff.path()))
        .filter_map(|f| Some((f.diff.path(), f.head_text.as_deref()?)))
        .filter(|(_, t)| t.len() <= file_bytes)
        .collect();
    index.add_all(&changed);
    texts.extend(changed.iter().map(|(p, t)| (p.to_string(), t.to_string())));
    let mut found = Found::default();
    for f in change.files.iter().filter(|f| !is_prose_path(f.diff.path())) {
        hunks_of(f, &index, &mut found);
    }
    let Found { touched, mut used, .. } = found;
    let names = wanted(&touched, &used);
    let common = add_mentioning(&mut index, &mut texts, change, repo, &names, file_bytes);
    used.retain(|u| !common.contains(&u.name));
    let changed = change.files.iter().map(|f| f.diff.path().to_string()).collect();
    Scan { index, texts, touched, used, common, changed }
}
