//! Which changed code defines or uses a shape other code depends on (a serialised
//! type, a route or handler, a client call, a schema file), and the names such a
//! change touches, in every spelling languages use for them.
//!
//! Relevance is decided per hunk, not per file: a Rust file that serialises one type
//! and sorts a list in a function below it has one shape hunk and one that is not,
//! and searching the repository for the sort's variables would only find noise.

use gauntlet_change::{ChangedFile, FileStatus, Hunk, LineKind};
use regex::{Regex, RegexSet};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Lines above a hunk searched for the type it sits in, and lines above that
/// type's declaration searched for its serialisation attributes.
const TYPE_REACH: usize = 120;
const ATTRIBUTE_REACH: usize = 6;

/// Whether a file may hold a shape at all (a cheap first filter).
pub fn is_shape_file(path: &str, text: &str) -> bool {
    is_schema_path(path) || markers().is_match(text)
}

pub fn is_schema_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let ext = name.rsplit('.').next().unwrap_or("");
    matches!(ext, "proto" | "graphql" | "gql" | "avsc")
        || name.ends_with(".schema.json")
        || ((name.starts_with("openapi") || name.starts_with("swagger") || name.contains(".openapi."))
            && matches!(ext, "yaml" | "yml" | "json"))
}

/// Attributes and bases that make a type go over the wire.
const SERIALISED: [&str; 7] = [
    r"#\[derive\([^)]*\b(Serialize|Deserialize)\b",
    r"#\[serde\(",
    r"\[(JsonPropertyName|JsonProperty|DataMember|DataContract|JsonSerializable)\b",
    r"\bexport\s+(interface|type)\s+\w+",
    r"\(\s*(BaseModel|Schema|TypedDict)\s*\)",
    r#"`json:""#,
    r"@JsonProperty|@SerializedName|@Serializable|@JsonClass",
];

/// Routes, handlers and calls to them.
const ENDPOINTS: [&str; 9] = [
    r#"\.route\(\s*""#,
    r#"#\[(get|post|put|patch|delete|route)\(""#,
    r"\[(Http(Get|Post|Put|Patch|Delete)|Route|ApiController|FromBody)\b",
    r"\bMap(Get|Post|Put|Patch|Delete)\(",
    r"\b(app|router|server|api)\.(get|post|put|patch|delete|route)\(",
    r"\bfetch\(|\baxios\b|\bHttpClient\b",
    r"@(app|router|bp|blueprint)\.(route|get|post|put|patch|delete)\(",
    r"\bHandleFunc\(",
    r"@(Get|Post|Put|Patch|Delete|Request)Mapping|@RestController",
];

fn serialised() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| RegexSet::new(SERIALISED).expect("serialisation markers are valid"))
}

fn endpoints() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| RegexSet::new(ENDPOINTS).expect("endpoint markers are valid"))
}

/// Both lists in one set: whole files are scanned in a single pass.
fn markers() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| RegexSet::new(SERIALISED.iter().chain(&ENDPOINTS)).expect("shape markers are valid"))
}

fn type_decl() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b(struct|class|interface|type|record|enum|message)\s+([A-Z][A-Za-z0-9_]*)").expect("valid")
    })
}

/// A function or method starting, or a top-level block closing: the scan for an
/// enclosing type stops there.
fn block_edge() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[})]|\b(fn|def|func|function)\s+\w+|=>\s*\{?\s*$").expect("valid"))
}

/// Names that say "this type is a message" even without an attribute (C# and Java
/// serialise plain classes).
fn message_name() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(dto|request|response|payload|model|schema|contract|event|message|body|resource)$")
            .expect("valid")
    })
}

/// The type declared around head line `at` (1-based), if the code there sits in one:
/// (index of its declaration line, its name).
fn enclosing_type<'a>(lines: &[&'a str], at: usize) -> Option<(usize, &'a str)> {
    let start = at.saturating_sub(1).min(lines.len());
    for i in (start.saturating_sub(TYPE_REACH)..start).rev() {
        if let Some(c) = type_decl().captures(lines[i]) {
            return Some((i, c.get(2).map_or("", |m| m.as_str())));
        }
        if block_edge().is_match(lines[i]) {
            return None;
        }
    }
    None
}

/// Whether a hunk changes a shape: anywhere in a schema file or in a file that
/// serves or calls routes (a handler, a client), else only inside a type that is
/// serialised.
pub fn hunk_is_shape(file: &ChangedFile, hunk: &Hunk) -> bool {
    if is_schema_path(file.diff.path()) {
        return true;
    }
    let Some(head) = &file.head_text else {
        // A deleted file: judged by what it held.
        let held: Vec<&str> = hunk.lines.iter().map(|l| l.text.as_str()).collect();
        return held.iter().any(|t| serialised().is_match(t) || endpoints().is_match(t));
    };
    let lines: Vec<&str> = head.lines().collect();
    if lines.iter().any(|l| endpoints().is_match(l)) {
        return true;
    }
    let first = hunk.lines.iter().find(|l| l.kind != LineKind::Context).map_or(hunk.new_start, |l| l.anchor);
    let Some((decl, name)) = enclosing_type(&lines, first as usize + 1) else {
        return false;
    };
    let above = &lines[decl.saturating_sub(ATTRIBUTE_REACH)..(first as usize).min(lines.len()).max(decl + 1)];
    above.iter().any(|l| serialised().is_match(l)) || message_name().is_match(name)
}

/// A name the change touched in a shape.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Term {
    pub name: String,
    /// `removed`, `route`, `type` or `added`.
    pub how: &'static str,
    pub file: String,
}

impl Term {
    pub fn weight(&self) -> usize {
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
    "init",
];

/// Identifiers of a line that could name a field or type: not keywords, not calls.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    static ID: OnceLock<Regex> = OnceLock::new();
    let id = ID.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("identifier pattern is valid"));
    id.find_iter(text)
        .filter(|m| !text[m.end()..].trim_start().starts_with('('))
        .map(|m| m.as_str())
        .filter(|s| s.len() >= 3 && !STOP.contains(s) && s.chars().any(|c| c.is_ascii_lowercase()))
}

/// Names a file's shape hunks rename, add or remove, the types they sit in, and the
/// routes they mention. A new file defines no contract anyone relied on yet, and a
/// hunk that only adds lines renames nothing, so their new names are left out.
pub fn terms(file: &ChangedFile) -> Vec<Term> {
    static ROUTE: OnceLock<Regex> = OnceLock::new();
    let route = ROUTE.get_or_init(|| Regex::new(r#"["'`](/[A-Za-z0-9_\-./{}:$<>]*)"#).expect("valid"));
    if file.diff.status == FileStatus::Added {
        return Vec::new();
    }
    // One entry per name, the strongest reason kept (the order of RANK).
    let mut best: BTreeMap<String, &'static str> = BTreeMap::new();
    let mut term = |name: &str, how: &'static str| {
        let slot = best.entry(name.to_string()).or_insert(how);
        if rank(how) < rank(slot) {
            *slot = how;
        }
    };
    for h in file.diff.hunks.iter().filter(|h| hunk_is_shape(file, h)) {
        let side = |kind| -> BTreeSet<&str> {
            h.lines.iter().filter(|l| l.kind == kind).flat_map(|l| identifiers(&l.text)).collect()
        };
        let (removed, added) = (side(LineKind::Removed), side(LineKind::Added));
        removed.difference(&added).for_each(|n| term(n, "removed"));
        if !removed.is_empty() {
            added.difference(&removed).for_each(|n| term(n, "added"));
        }
        // Types declared in the hunk or named by its header are the shapes it edits.
        for text in h.lines.iter().map(|l| l.text.as_str()).chain([h.header.as_str()]) {
            type_decl().captures_iter(text).for_each(|c| term(&c[2], "type"));
        }
        for l in &h.lines {
            for c in route.captures_iter(&l.text) {
                if let Some(r) = route_prefix(&c[1]) {
                    term(&r, "route");
                }
            }
        }
    }
    let path = file.diff.path().to_string();
    best.into_iter().map(|(name, how)| Term { name, how, file: path.clone() }).collect()
}

/// Which reasons for a name matter most when names must be dropped.
const RANK: [&str; 4] = ["removed", "route", "type", "added"];

fn rank(how: &str) -> usize {
    RANK.iter().position(|h| *h == how).unwrap_or(RANK.len())
}

/// The `max` names most worth searching for: a huge change would otherwise search
/// for every identifier it touches.
pub fn strongest(mut terms: Vec<Term>, max: usize) -> Vec<Term> {
    terms.sort_by(|a, b| rank(a.how).cmp(&rank(b.how)).then(b.weight().cmp(&a.weight())).then(a.name.cmp(&b.name)));
    terms.dedup_by(|a, b| a.name == b.name);
    terms.truncate(max);
    terms
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

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_change::parse_patch;

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

    fn changed(head: &str, patch: &str) -> ChangedFile {
        ChangedFile { diff: parse_patch(patch).unwrap().remove(0), head_text: Some(head.into()), unreadable: None }
    }

    const HEAD: &str = "#[derive(Serialize)]\npub struct UserDto {\n    pub full_name: String,\n}\n\n\
pub fn sorted(mut v: Vec<u32>) -> Vec<u32> {\n    v.sort_unstable();\n    v\n}\n";

    #[test]
    fn only_hunks_inside_a_serialised_type_give_names_to_search() {
        let patch = "diff --git a/src/u.rs b/src/u.rs\n--- a/src/u.rs\n+++ b/src/u.rs\n\
@@ -3 +3 @@ pub struct UserDto {\n-    pub display_name: String,\n+    pub full_name: String,\n\
@@ -7 +7 @@ pub fn sorted(mut v: Vec<u32>) -> Vec<u32> {\n-    v.sort_by_key(|x| *x);\n+    v.sort_unstable();\n";
        let names: Vec<(String, &str)> = terms(&changed(HEAD, patch)).into_iter().map(|t| (t.name, t.how)).collect();
        assert!(names.contains(&("display_name".into(), "removed")), "{names:?}");
        assert!(names.contains(&("full_name".into(), "added")), "{names:?}");
        assert!(names.contains(&("UserDto".into(), "type")), "{names:?}");
        assert!(!names.iter().any(|(n, _)| n.starts_with("sort")), "the function's edit is no shape: {names:?}");
    }
}
