//! Consumers context for contract drift: when the change touches a file that
//! produces or consumes a shape (an HTTP handler or route, a type serialised to
//! JSON, a schema file), the names its changed lines rename, add or remove (fields,
//! types, routes) are searched for across the repository at head, in every
//! language and naming convention, and the files that use them are shown beside
//! the change.

use super::shape::{Term, hunk_is_shape, is_shape_file, strongest, terms, variants};
use super::{Block, CodeRange, ContextError, ContextKind, Gathered, Sources};
use crate::listing::numbered;
use gauntlet_change::ChangedFile;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Consumer files shown, lines shown around each mention, and lines per file.
const MAX_FILES: usize = 6;
const WINDOW: u32 = 6;
const MAX_LINES_PER_FILE: usize = 120;
/// A name found in more files than this is too common to point at consumers.
const MAX_FILES_PER_TERM: usize = 25;
const MAX_HITS: usize = 20_000;
/// Names searched for at most.
const MAX_TERMS: usize = 40;

/// Finds which terms a line mentions: identifier spellings by looking up each
/// identifier of the line, the few others (routes, kebab-case) by search.
struct Matcher<'a> {
    idents: BTreeMap<&'a str, Vec<usize>>,
    others: Vec<(&'a str, usize)>,
}

impl<'a> Matcher<'a> {
    fn new(spelled: &'a [(String, usize)]) -> Matcher<'a> {
        let is_ident = |v: &str| v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let mut idents: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut others = Vec::new();
        for (v, i) in spelled {
            if is_ident(v) {
                idents.entry(v.as_str()).or_default().push(*i);
            } else {
                others.push((v.as_str(), *i));
            }
        }
        Matcher { idents, others }
    }

    fn terms_in(&self, text: &str) -> BTreeSet<usize> {
        static WORD: OnceLock<Regex> = OnceLock::new();
        let word = WORD.get_or_init(|| Regex::new(r"[A-Za-z0-9_]+").expect("word pattern is valid"));
        let mut found: BTreeSet<usize> =
            word.find_iter(text).filter_map(|m| self.idents.get(m.as_str())).flatten().copied().collect();
        found.extend(self.others.iter().filter(|(v, _)| has_word(text, v)).map(|(_, i)| *i));
        found
    }
}

fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_word)
            && !text[i + word.len()..].chars().next().is_some_and(is_word)
    })
}

pub(super) fn gather(src: &Sources<'_>) -> Result<Gathered, ContextError> {
    let shape_files: Vec<&ChangedFile> = src
        .change
        .files
        .iter()
        .filter(|f| {
            let held = match &f.head_text {
                Some(text) => is_shape_file(f.diff.path(), text),
                // A deleted file: judged by the lines it lost.
                None => {
                    let removed: String = f.diff.hunks.iter().flat_map(|h| &h.lines).map(|l| l.text.as_str()).collect();
                    is_shape_file(f.diff.path(), &removed)
                }
            };
            held && f.diff.hunks.iter().any(|h| hunk_is_shape(f, h))
        })
        .collect();
    if shape_files.is_empty() {
        return Ok(Gathered::Nothing(
            "no changed line is in an API shape (a serialised type, a route or handler, a client call, a schema)"
                .into(),
        ));
    }
    let terms = strongest(shape_files.iter().flat_map(|f| terms(f)).collect(), MAX_TERMS);
    let spelled: Vec<(String, usize)> =
        terms.iter().enumerate().flat_map(|(i, t)| variants(&t.name).into_iter().map(move |v| (v, i))).collect();
    let patterns: Vec<String> = spelled.iter().map(|(v, _)| v.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let hits = src.git.grep_words(&src.change.snapshot, &patterns, MAX_HITS)?;
    let matcher = Matcher::new(&spelled);
    // Which terms each file outside the change mentions, on which lines.
    let mut files_of_term: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    let mut mentions: BTreeMap<&str, (BTreeSet<usize>, BTreeSet<u32>)> = BTreeMap::new();
    for hit in hits.iter().filter(|h| src.change.file(&h.path).is_none() && !h.path.starts_with(".gauntlet/")) {
        for i in matcher.terms_in(&hit.text) {
            files_of_term.entry(i).or_default().insert(&hit.path);
            let entry = mentions.entry(&hit.path).or_default();
            entry.0.insert(i);
            entry.1.insert(hit.line);
        }
    }
    let common: BTreeSet<usize> =
        files_of_term.iter().filter(|(_, files)| files.len() > MAX_FILES_PER_TERM).map(|(i, _)| *i).collect();
    let mut ranked: Vec<(usize, &str, BTreeSet<usize>, &BTreeSet<u32>)> = mentions
        .iter()
        .map(|(path, (ts, lines))| {
            let ts: BTreeSet<usize> = ts.difference(&common).copied().collect();
            (ts.iter().map(|i| terms[*i].weight()).sum(), *path, ts, lines)
        })
        .filter(|(score, ..)| *score > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    ranked.truncate(MAX_FILES);
    if ranked.is_empty() && shape_files.len() < 2 {
        return Ok(Gathered::Nothing(format!(
            "no file outside the change uses the names the change touches in {}",
            shape_files.iter().map(|f| f.diff.path()).collect::<Vec<_>>().join(", ")
        )));
    }
    let mut blocks = vec![summary(&shape_files, &terms, &files_of_term, &common)];
    for (_, path, ts, lines) in &ranked {
        if let Some(block) = consumer_block(src, path, ts, lines, &terms) {
            blocks.push(block);
        }
    }
    Ok(Gathered::Found(blocks))
}

/// What was searched for and where it was found.
fn summary(
    shape_files: &[&ChangedFile],
    terms: &[Term],
    files_of_term: &BTreeMap<usize, BTreeSet<&str>>,
    common: &BTreeSet<usize>,
) -> Block {
    let mut text = String::from("Changed files that define or use an API shape: ");
    text.push_str(&shape_files.iter().map(|f| f.diff.path()).collect::<Vec<_>>().join(", "));
    text.push_str("\n\nNames their changed lines touch, and the files outside the change that use them:\n");
    for (i, t) in terms.iter().enumerate() {
        let found = match files_of_term.get(&i) {
            _ if common.contains(&i) => "too common to tell consumers apart".to_string(),
            Some(files) => files.iter().copied().collect::<Vec<_>>().join(", "),
            None => "no other file".to_string(),
        };
        let spelled = variants(&t.name).join(", ");
        text.push_str(&format!("- {} ({} in {}; searched as {spelled}): {found}\n", t.name, t.how, t.file));
    }
    Block {
        kind: ContextKind::Consumers,
        label: "contract search".into(),
        text,
        about: shape_files.iter().map(|f| f.diff.path().to_string()).collect(),
        code: Vec::new(),
    }
}

/// Windows of a consumer file around its mentions, numbered as at head.
fn consumer_block(
    src: &Sources<'_>,
    path: &str,
    ts: &BTreeSet<usize>,
    lines: &BTreeSet<u32>,
    terms: &[Term],
) -> Option<Block> {
    let text = src.head.text(path)?;
    let all: Vec<&str> = text.lines().collect();
    let mut windows: Vec<(u32, u32)> = Vec::new();
    for &l in lines {
        let (s, e) = (l.saturating_sub(WINDOW).max(1), (l + WINDOW).min(all.len() as u32));
        match windows.last_mut() {
            Some(last) if s <= last.1 + 1 => last.1 = last.1.max(e),
            _ => windows.push((s, e)),
        }
    }
    let mut code = Vec::new();
    let mut budget = MAX_LINES_PER_FILE;
    for (s, e) in windows {
        let take = ((e - s + 1) as usize).min(budget);
        if take == 0 {
            break;
        }
        budget -= take;
        let lines = all[(s - 1) as usize..(s - 1) as usize + take].iter().map(|l| l.to_string()).collect();
        code.push(CodeRange { path: path.to_string(), start: s, lines });
    }
    let names: Vec<&str> = ts.iter().map(|i| terms[*i].name.as_str()).collect();
    let about: BTreeSet<String> = ts.iter().map(|i| terms[*i].file.clone()).collect();
    let mut body = format!("{path} at head (mentions {}):\n", names.join(", "));
    let listed: Vec<String> = code.iter().map(|r| numbered(r.start, &r.lines)).collect();
    body.push_str(&listed.join("  ...\n"));
    Some(Block {
        kind: ContextKind::Consumers,
        label: format!("consumer {path}"),
        text: body,
        about: about.into_iter().collect(),
        code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert!(has_word("user.displayName;", "displayName"));
        assert!(!has_word("user.displayNameShort", "displayName"));
        assert!(has_word("fetch('/api/users/' + id)", "/api/users"));
    }
}
