//! Blame past refactors: when the commit blame names only moved, reformatted or
//! renamed a line (its tokens are those of a line it removed, modulo whitespace and
//! a consistent rename), the defect was already in its parent, so blame goes on
//! from the line it replaced.
//!
//! `git blame -w -M -C` already looks through whitespace and through blocks it can
//! match as moved; what it cannot see is a line split or joined, a renamed
//! variable, or a short line moved alone.

use super::Miner;
use super::blame::Blamed;
use super::hunks::{self, FileDiff};
use gauntlet_change::{ChangeError, Snapshot};
use std::collections::{BTreeMap, BTreeSet};

/// How many refactoring commits one line is followed through.
const MAX_HOPS: usize = 8;

/// Words that are never a renamed name: changing one changes what code does.
const KEYWORDS: [&str; 30] = [
    "and", "or", "not", "is", "in", "if", "else", "elif", "for", "while", "return", "True", "False", "None", "true",
    "false", "null", "nil", "self", "this", "let", "const", "var", "mut", "pub", "fn", "def", "class", "break",
    "continue",
];

/// The tokens of a line, for comparison: words, numbers, and single punctuation.
pub fn tokens(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
        let start = i;
        if word(c) {
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
        } else {
            i += line[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(&line[start..i]);
    }
    out
}

fn is_name(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$') && !KEYWORDS.contains(&token)
}

/// The names renamed between two token lists of equal shape, or `None` when they
/// differ in anything else (or rename one name two ways).
pub fn renames<'a>(old: &[&'a str], new: &[&'a str]) -> Option<BTreeMap<&'a str, &'a str>> {
    if old.len() != new.len() {
        return None;
    }
    let mut map: BTreeMap<&str, &str> = BTreeMap::new();
    let mut back: BTreeMap<&str, &str> = BTreeMap::new();
    for (a, b) in old.iter().zip(new) {
        if a == b && !is_name(a) {
            continue;
        }
        if !is_name(a) || !is_name(b) {
            return None;
        }
        // A name kept in one place and renamed in another is no rename.
        if *map.entry(a).or_insert(b) != *b || *back.entry(b).or_insert(a) != *a {
            return None;
        }
    }
    map.retain(|a, b| a != b);
    Some(map)
}

/// Whether each renamed name left the file and each new name is new to it: a
/// rename, not a change to another variable that was already there.
fn consistent(map: &BTreeMap<&str, &str>, old_text: &str, new_text: &str) -> bool {
    if map.is_empty() {
        return true;
    }
    let old_words: BTreeSet<&str> = tokens(old_text).into_iter().collect();
    let new_words: BTreeSet<&str> = tokens(new_text).into_iter().collect();
    map.iter().all(|(a, b)| !new_words.contains(a) && !old_words.contains(b))
}

/// Where a line of a commit came from, when the commit only reformatted, renamed or
/// moved it: (path, line) at the commit's parent.
struct Origin {
    path: String,
    line: u32,
}

impl Miner<'_> {
    /// Follow a blamed line back through commits that only refactored it.
    pub(super) fn past_refactors(&self, mut b: Blamed) -> Result<Blamed, ChangeError> {
        for _ in 0..MAX_HOPS {
            if b.boundary {
                break;
            }
            let commit = self.commit(&b.commit)?;
            let Some(parent) = commit.parents.first() else { break };
            let Some(origin) = self.origin(parent, &b)? else { break };
            let Some(earlier) = self.blame(parent, &origin.path, &[origin.line])?.into_iter().next() else {
                break;
            };
            b = Blamed { at: b.at, ..earlier };
        }
        Ok(b)
    }

    fn origin(&self, parent: &str, b: &Blamed) -> Result<Option<Origin>, ChangeError> {
        let files = self.own_diff(&b.commit, parent)?;
        let Some(file) = files.iter().find(|f| f.new.as_deref() == Some(b.path.as_str())) else { return Ok(None) };
        let Some(h) = file.hunks.iter().find(|h| h.new_start <= b.line && b.line < h.new_start + h.new_count) else {
            return Ok(None);
        };
        let target = h.added[(b.line - h.new_start) as usize].as_str();
        if !h.removed.is_empty()
            && let Some(old) = &file.old
        {
            let read = |rev: &str, path: &str| -> Result<String, ChangeError> {
                let bytes = self.git.read(&Snapshot::Commit(rev.to_string()), path)?.unwrap_or_default();
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            };
            let (old_text, new_text) = (read(parent, old)?, read(&b.commit, &b.path)?);
            if let Some(line) = reformatted(h, b.line, &old_text, &new_text) {
                return Ok(Some(Origin { path: old.clone(), line }));
            }
        }
        Ok(moved(&files, target))
    }
}

/// For a hunk whose added lines are its removed lines re-laid out or renamed: the
/// removed line holding the first token of added line `line`; else a removed line
/// that is `line` alone, renamed.
fn reformatted(h: &hunks::Hunk, line: u32, old_text: &str, new_text: &str) -> Option<u32> {
    let numbered = |lines: &[String], first: u32| -> Vec<(u32, String)> {
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            out.extend(tokens(l).into_iter().map(|t| (first + i as u32, t.to_string())));
        }
        out
    };
    let old = numbered(&h.removed, h.old_start);
    let new = numbered(&h.added, h.new_start);
    let (o, n): (Vec<&str>, Vec<&str>) =
        (old.iter().map(|(_, t)| t.as_str()).collect(), new.iter().map(|(_, t)| t.as_str()).collect());
    if renames(&o, &n).is_some_and(|m| consistent(&m, old_text, new_text)) {
        let at = new.iter().position(|(l, _)| *l == line)?;
        return Some(old[at].0);
    }
    let target = tokens(&h.added[(line - h.new_start) as usize]);
    if target.is_empty() {
        return None;
    }
    h.removed.iter().enumerate().find_map(|(i, r)| {
        let map = renames(&tokens(r), &target)?;
        (!map.is_empty() && consistent(&map, old_text, new_text)).then_some(h.old_start + i as u32)
    })
}

/// A line the commit removed somewhere with exactly the tokens of `target`, which
/// says enough to be recognised (see [`super::szz`]'s rule for restored lines).
fn moved(files: &[FileDiff], target: &str) -> Option<Origin> {
    let want = tokens(target);
    if target.chars().filter(|c| c.is_alphanumeric()).count() < 6 {
        return None;
    }
    for f in files {
        let Some(old) = &f.old else { continue };
        for h in &f.hunks {
            if let Some(i) = h.removed.iter().position(|r| tokens(r) == want) {
                return Some(Origin { path: old.clone(), line: h.old_start + i as u32 });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rename_maps_names_one_to_one_and_nothing_else_changes() {
        let t = |s| tokens(s);
        assert_eq!(t("x=a.b(1)"), vec!["x", "=", "a", ".", "b", "(", "1", ")"]);
        let map = renames(&t("total = price * qty"), &t("total = cost * qty")).unwrap();
        assert_eq!(map.into_iter().collect::<Vec<_>>(), vec![("price", "cost")]);
        assert!(renames(&t("salt is self.salt"), &t("salt = self.salt")).is_none(), "an operator changed");
        assert!(renames(&t("a and b"), &t("a or b")).is_none(), "keywords are not names");
        assert!(renames(&t("f(a, a)"), &t("f(a, b)")).is_none(), "one name renamed two ways");
        assert!(renames(&t("f(a, b)"), &t("f(c, c)")).is_none(), "two names made one");
    }

    #[test]
    fn a_rename_to_a_name_the_file_already_had_is_a_change_not_a_rename() {
        let map = BTreeMap::from([("b", "c")]);
        assert!(consistent(&map, "x = a + b\n", "x = a + c\n"));
        assert!(!consistent(&map, "c = 1\nx = a + b\n", "c = 1\nx = a + c\n"), "c was already there");
        assert!(!consistent(&map, "x = a + b\ny = b\n", "x = a + c\ny = b\n"), "b is still used");
    }
}
