//! Consumers context for contract drift: when the change touches a file that
//! produces or consumes a shape (an HTTP handler or route, a type serialised to
//! JSON, a schema file), the names its changed lines rename, add or remove (fields,
//! types, routes) are searched for across the repository at head, in every
//! language and naming convention, and the files that use them are shown beside
//! the change.

use super::{Block, CodeRange, ContextError, ContextKind, Gathered, Sources};
use crate::prompt::numbered;
use gauntlet_change::{ChangedFile, LineKind};
use regex::{Regex, RegexSet};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Consumer files shown, lines shown around each mention, and lines per file.
const MAX_FILES: usize = 6;
const WINDOW: u32 = 6;
const MAX_LINES_PER_FILE: usize = 120;
/// A name found in more files than this is too common to point at consumers.
const MAX_FILES_PER_TERM: usize = 25;
const MAX_HITS: usize = 20_000;

/// Whether a file defines or uses a shape another piece of code depends on.
pub fn is_shape_file(path: &str, text: &str) -> bool {
    is_schema_path(path) || markers().is_match(text)
}

fn is_schema_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let ext = name.rsplit('.').next().unwrap_or("");
    matches!(ext, "proto" | "graphql" | "gql" | "avsc")
        || name.ends_with(".schema.json")
        || ((name.starts_with("openapi") || name.starts_with("swagger") || name.contains(".openapi."))
            && matches!(ext, "yaml" | "yml" | "json"))
}

/// Code that serialises a type, declares a route, or calls one, in common languages.
fn markers() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        RegexSet::new([
            r"#\[derive\([^)]*\b(Serialize|Deserialize)\b",
            r"#\[serde\(",
            r"serde_json::",
            r#"\.route\(\s*""#,
            r#"#\[(get|post|put|patch|delete|route)\(""#,
            r"\[(Http(Get|Post|Put|Patch|Delete)|Route|ApiController|JsonPropertyName|JsonProperty|DataMember|FromBody)\b",
            r"\bMap(Get|Post|Put|Patch|Delete)\(",
            r"\b(app|router|server|api)\.(get|post|put|patch|delete|route)\(",
            r"\bexport\s+(interface|type)\s+\w+",
            r"\bfetch\(|\baxios\b|\bHttpClient\b|\bJSON\.(parse|stringify)\(",
            r"@(app|router|bp|blueprint)\.(route|get|post|put|patch|delete)\(",
            r"\(\s*(BaseModel|Schema|TypedDict)\s*\)",
            r#"`json:""#,
            r"\bHandleFunc\(",
            r"@(Get|Post|Put|Patch|Delete|Request)Mapping|@JsonProperty|@SerializedName",
        ])
        .expect("shape markers are valid")
    })
}

/// A name the change touched in a shape file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Term {
    pub name: String,
    /// `removed`, `added`, `type` or `route`.
    pub how: &'static str,
    pub file: String,
}

impl Term {
    fn weight(&self) -> usize {
        match self.how {
            "route" => 3,
            _ if words(&self.name).len() > 1 => 2,
            _ => 1,
        }
    }
}

/// Words too common in code to say anything about a contract.
const STOP: &[&str] = &[
    "self",
    "this",
    "return",
    "String",
    "string",
    "str",
    "int",
    "bool",
    "boolean",
    "number",
    "Option",
    "Vec",
    "pub",
    "let",
    "const",
    "var",
    "function",
    "class",
    "struct",
    "new",
    "null",
    "None",
    "true",
    "false",
    "True",
    "False",
    "async",
    "await",
    "value",
    "data",
    "type",
    "Some",
    "Err",
    "Result",
    "public",
    "private",
    "protected",
    "get",
    "set",
    "def",
    "import",
    "from",
    "export",
    "interface",
    "static",
    "void",
    "use",
    "mut",
    "impl",
    "for",
    "while",
    "else",
    "elif",
    "match",
    "case",
    "default",
    "null",
    "undefined",
    "readonly",
    "override",
    "virtual",
    "required",
    "optional",
    "message",
    "repeated",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "float",
    "double",
    "object",
    "array",
    "properties",
    "items",
    "description",
    "format",
    "enum",
    "record",
    "where",
    "with",
    "the",
    "and",
    "not",
];

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    static ID: OnceLock<Regex> = OnceLock::new();
    let id = ID.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("identifier pattern is valid"));
    id.find_iter(text)
        .map(|m| m.as_str())
        .filter(|s| s.len() >= 3 && !STOP.contains(s) && s.chars().any(|c| c.is_ascii_lowercase()))
}

/// Names a shape file's hunks rename, add or remove, the types they sit in, and the
/// routes they mention.
pub fn terms(file: &ChangedFile) -> Vec<Term> {
    static TYPE: OnceLock<Regex> = OnceLock::new();
    static ROUTE: OnceLock<Regex> = OnceLock::new();
    let ty = TYPE.get_or_init(|| {
        Regex::new(r"\b(struct|class|interface|type|record|enum|message)\s+([A-Z][A-Za-z0-9_]*)").expect("valid")
    });
    let route = ROUTE.get_or_init(|| Regex::new(r#"["'`](/[A-Za-z0-9_\-./{}:$<>]*)"#).expect("valid"));
    let path = file.diff.path().to_string();
    let mut out = BTreeSet::new();
    let mut term = |name: &str, how| out.insert(Term { name: name.to_string(), how, file: path.clone() });
    for h in &file.diff.hunks {
        let side = |kind| -> BTreeSet<&str> {
            h.lines.iter().filter(|l| l.kind == kind).flat_map(|l| identifiers(&l.text)).collect()
        };
        let (removed, added) = (side(LineKind::Removed), side(LineKind::Added));
        removed.difference(&added).for_each(|n| _ = term(n, "removed"));
        added.difference(&removed).for_each(|n| _ = term(n, "added"));
        // Types declared around the change (its context lines, the hunk header) are
        // the shapes the changed fields belong to.
        for text in h.lines.iter().map(|l| l.text.as_str()).chain([h.header.as_str()]) {
            ty.captures_iter(text).for_each(|c| _ = term(&c[2], "type"));
        }
        for l in &h.lines {
            for c in route.captures_iter(&l.text) {
                if let Some(r) = route_prefix(&c[1]) {
                    term(&r, "route");
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The fixed part of a route (`/api/users/:id` → `/api/users`), when it names something.
fn route_prefix(route: &str) -> Option<String> {
    let cut = route.find(['{', ':', '<', '$']).unwrap_or(route.len());
    let fixed = route[..cut].trim_end_matches('/');
    (fixed.len() >= 3 && fixed.chars().any(|c| c.is_ascii_alphabetic())).then(|| fixed.to_string())
}

/// The words of an identifier (`displayName`, `display_name`, `DisplayName` → display, name).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let boundary = c.is_ascii_uppercase()
            && i > 0
            && (chars[i - 1].is_ascii_lowercase()
                || chars[i - 1].is_ascii_digit()
                || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()) && chars[i - 1].is_ascii_uppercase());
        if *c == '_' || *c == '-' || boundary {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if *c == '_' || *c == '-' {
                continue;
            }
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The spellings one name takes across languages: as written, snake_case,
/// camelCase, PascalCase and kebab-case.
pub fn variants(name: &str) -> Vec<String> {
    if name.starts_with('/') {
        return vec![name.to_string()];
    }
    let w = words(name);
    let cap = |s: &String| s[..1].to_ascii_uppercase() + &s[1..];
    let mut out = BTreeSet::from([name.to_string(), w.join("_"), w.iter().map(cap).collect::<String>()]);
    if let Some((first, rest)) = w.split_first() {
        out.insert(first.clone() + &rest.iter().map(cap).collect::<String>());
    }
    if w.len() > 1 {
        out.insert(w.join("-"));
    }
    out.retain(|v| !v.is_empty());
    out.into_iter().collect()
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
            let removed: String = f.diff.hunks.iter().flat_map(|h| &h.lines).map(|l| l.text.as_str()).collect();
            is_shape_file(f.diff.path(), f.head_text.as_deref().unwrap_or(&removed))
        })
        .collect();
    if shape_files.is_empty() {
        return Ok(Gathered::Nothing(
            "no changed file defines or uses an API shape (handler, route, serialised type, schema)".into(),
        ));
    }
    let terms: Vec<Term> = shape_files.iter().flat_map(|f| terms(f)).collect();
    let spelled: Vec<(String, usize)> =
        terms.iter().enumerate().flat_map(|(i, t)| variants(&t.name).into_iter().map(move |v| (v, i))).collect();
    let patterns: Vec<String> = spelled.iter().map(|(v, _)| v.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let hits = src.git.grep_words(&src.change.snapshot, &patterns, MAX_HITS)?;
    // Which terms each file outside the change mentions, on which lines.
    let mut files_of_term: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    let mut mentions: BTreeMap<&str, (BTreeSet<usize>, BTreeSet<u32>)> = BTreeMap::new();
    for hit in hits.iter().filter(|h| src.change.file(&h.path).is_none() && !h.path.starts_with(".gauntlet/")) {
        for (_, i) in spelled.iter().filter(|(v, _)| has_word(&hit.text, v)) {
            files_of_term.entry(*i).or_default().insert(&hit.path);
            let entry = mentions.entry(&hit.path).or_default();
            entry.0.insert(*i);
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
    fn a_name_is_searched_in_every_common_spelling() {
        assert_eq!(variants("display_name"), vec!["DisplayName", "display-name", "displayName", "display_name"]);
        assert!(variants("DisplayName").contains(&"displayName".to_string()));
        assert!(variants("HTTPServer").contains(&"http_server".to_string()));
        assert_eq!(variants("/api/users"), vec!["/api/users"]);
    }

    #[test]
    fn routes_are_searched_by_their_fixed_prefix() {
        assert_eq!(route_prefix("/api/users/:id").as_deref(), Some("/api/users"));
        assert_eq!(route_prefix("/api/users/{id}/").as_deref(), Some("/api/users"));
        assert_eq!(route_prefix("/"), None);
    }

    #[test]
    fn handlers_dtos_and_schemas_are_shape_files() {
        assert!(is_shape_file("src/api.rs", "#[derive(Debug, Serialize)]\npub struct UserDto {}"));
        assert!(is_shape_file("Api/UsersController.cs", "[HttpGet(\"{id}\")]\npublic UserDto Get(int id)"));
        assert!(is_shape_file("web/client.ts", "const r = await fetch(`/api/users/${id}`);"));
        assert!(is_shape_file("api/openapi.yaml", "openapi: 3.0.0"));
        assert!(!is_shape_file("src/math.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }"));
    }

    #[test]
    fn whole_words_only() {
        assert!(has_word("user.displayName;", "displayName"));
        assert!(!has_word("user.displayNameShort", "displayName"));
        assert!(has_word("fetch('/api/users/' + id)", "/api/users"));
    }
}
