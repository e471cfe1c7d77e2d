//! Consumers context for contract drift: when the change touches a file that
//! produces or consumes a shape (an HTTP handler or route, a type serialised to
//! JSON, a schema file), the names its changed lines rename, add or remove (fields,
//! types, routes) are looked up in the symbol index of the head, in every
//! language's spelling of a multi-word name, and the files that use them are
//! shown beside the change. An identifier that merely contains or resembles a
//! name (a local `rest` beside a type `Rest`) is not a use.

use super::shape::{Term, hunk_is_shape, is_shape_file, strongest, terms};
use super::{Block, CodeRange, ContextError, ContextKind, Gathered, Sources};
use crate::listing::numbered;
use crate::related::scan::add_mentioning;
use crate::sandbox::Limits;
use gauntlet_change::ChangedFile;
use gauntlet_code::{Index, Kind, Role, spellings};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Consumer files shown, lines shown around each mention, and lines per file.
const MAX_FILES: usize = 6;
const WINDOW: u32 = 6;
const MAX_LINES_PER_FILE: usize = 120;
/// A name found in more files than this is too common to point at consumers.
const MAX_FILES_PER_TERM: usize = 25;
/// Names searched for at most.
const MAX_TERMS: usize = 40;

fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_word)
            && !text[i + word.len()..].chars().next().is_some_and(is_word)
    })
}

/// How a term is looked for: a route as its text, a multi-word name in each
/// language's spelling, a one-word name only as written (a type `Rest` is not a
/// variable `rest`).
fn spelled(name: &str) -> Vec<String> {
    if name.starts_with('/') { vec![name.to_string()] } else { spellings(name) }
}

/// `(path, line, term)` for every use or definition of a term in the indexed files
/// outside the change: identifiers from the symbol index (a respelled name only as
/// a member, as in `o.displayName` or a DTO's `display_name` field), routes as
/// whole strings on a line.
fn uses_of(
    index: &Index,
    texts: &HashMap<String, String>,
    spelled: &[(String, usize)],
    terms: &[Term],
) -> Vec<(String, u32, usize)> {
    let mut out = Vec::new();
    for (v, i) in spelled {
        if v.starts_with('/') {
            for (path, text) in texts {
                let lines = text.lines().enumerate().filter(|(_, l)| has_word(l, v));
                out.extend(lines.map(|(n, _)| (path.clone(), n as u32 + 1, *i)));
            }
            continue;
        }
        let same = v == &terms[*i].name;
        for u in index.uses(v).filter(|u| same || u.role == Role::Member) {
            out.push((u.path.to_string(), u.line, *i));
        }
        // The other side of a wire defines the shape itself (a DTO's field).
        let member = |k: Kind| matches!(k, Kind::Field | Kind::Member | Kind::Method);
        for f in index.definitions(v).filter(|f| same || member(f.definition.kind)) {
            out.push((f.path.to_string(), f.definition.line, *i));
        }
    }
    out.sort();
    out.dedup();
    out
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
        terms.iter().enumerate().flat_map(|(i, t)| spelled(&t.name).into_iter().map(move |v| (v, i))).collect();
    let names: Vec<String> = spelled.iter().map(|(v, _)| v.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let (mut index, mut texts) = (Index::default(), HashMap::new());
    add_mentioning(&mut index, &mut texts, src.change, src.head, &names, Limits::default().file_bytes);
    // Which terms each file outside the change uses, on which lines.
    let mut files_of_term: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut mentions: BTreeMap<String, (BTreeSet<usize>, BTreeSet<u32>)> = BTreeMap::new();
    for (path, line, i) in uses_of(&index, &texts, &spelled, &terms) {
        files_of_term.entry(i).or_default().insert(path.clone());
        let entry = mentions.entry(path).or_default();
        entry.0.insert(i);
        entry.1.insert(line);
    }
    let common: BTreeSet<usize> =
        files_of_term.iter().filter(|(_, files)| files.len() > MAX_FILES_PER_TERM).map(|(i, _)| *i).collect();
    let mut ranked: Vec<(usize, &str, BTreeSet<usize>, &BTreeSet<u32>)> = mentions
        .iter()
        .map(|(path, (ts, lines))| {
            let ts: BTreeSet<usize> = ts.difference(&common).copied().collect();
            (ts.iter().map(|i| terms[*i].weight()).sum(), path.as_str(), ts, lines)
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
        if let Some(block) = consumer_block(&texts, path, ts, lines, &terms) {
            blocks.push(block);
        }
    }
    Ok(Gathered::Found(blocks))
}

/// What was searched for and where it was found.
fn summary(
    shape_files: &[&ChangedFile],
    terms: &[Term],
    files_of_term: &BTreeMap<usize, BTreeSet<String>>,
    common: &BTreeSet<usize>,
) -> Block {
    let mut text = String::from("Changed files that define or use an API shape: ");
    text.push_str(&shape_files.iter().map(|f| f.diff.path()).collect::<Vec<_>>().join(", "));
    text.push_str("\n\nNames their changed lines touch, and the files outside the change that use them:\n");
    for (i, t) in terms.iter().enumerate() {
        let found = match files_of_term.get(&i) {
            _ if common.contains(&i) => "too common to tell consumers apart".to_string(),
            Some(files) => files.iter().map(String::as_str).collect::<Vec<_>>().join(", "),
            None => "no other file".to_string(),
        };
        let spelled = spelled(&t.name).join(", ");
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
    texts: &HashMap<String, String>,
    path: &str,
    ts: &BTreeSet<usize>,
    lines: &BTreeSet<u32>,
    terms: &[Term],
) -> Option<Block> {
    let text = texts.get(path)?;
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
