//! Reading a file with its tree-sitter grammar: definitions from the tag queries in
//! `queries/`, uses from the identifier leaves of the syntax tree.

use crate::lines::route_definitions;
use crate::{Definition, FileSymbols, Kind, Lang, Role, STRING_TOKEN, Token, Use};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Language, Node, Parser, Query, QueryCursor};

fn language(lang: Lang) -> Language {
    match lang {
        Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Lang::Go => tree_sitter_go::LANGUAGE.into(),
        Lang::Java => tree_sitter_java::LANGUAGE.into(),
        Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
    }
}

fn query_source(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => include_str!("queries/rust.scm"),
        Lang::Python => include_str!("queries/python.scm"),
        Lang::TypeScript | Lang::Tsx => include_str!("queries/typescript.scm"),
        Lang::JavaScript => include_str!("queries/javascript.scm"),
        Lang::Go => include_str!("queries/go.scm"),
        Lang::Java => include_str!("queries/java.scm"),
        Lang::CSharp => include_str!("queries/csharp.scm"),
    }
}

const ALL: [Lang; 8] =
    [Lang::Rust, Lang::Python, Lang::TypeScript, Lang::Tsx, Lang::JavaScript, Lang::Go, Lang::Java, Lang::CSharp];

/// The compiled tag query of a language, compiled the first time a file of that
/// language is read (a query takes milliseconds to compile; a review of a Python
/// change should not pay for the other seven).
fn query(lang: Lang) -> &'static Query {
    static QUERIES: [OnceLock<Query>; ALL.len()] = [const { OnceLock::new() }; ALL.len()];
    let at = ALL.iter().position(|l| *l == lang).expect("every language has a query");
    QUERIES[at].get_or_init(|| {
        Query::new(&language(lang), query_source(lang))
            .unwrap_or_else(|e| panic!("the {} tag query is invalid: {e}", lang.as_str()))
    })
}

fn kind_of(capture: &str) -> Option<Kind> {
    Some(match capture.strip_prefix("definition.")? {
        "function" => Kind::Function,
        "method" => Kind::Method,
        "type" => Kind::Type,
        "field" => Kind::Field,
        "member" => Kind::Member,
        "constant" => Kind::Constant,
        _ => return None,
    })
}

/// Which kind wins when several patterns capture one name (a method is also a
/// function; an arrow function bound at the top level is also a constant).
fn precedence(kind: Kind) -> u8 {
    match kind {
        Kind::Method => 0,
        Kind::Function => 1,
        Kind::Type => 2,
        Kind::Member => 3,
        Kind::Field => 4,
        Kind::Constant => 5,
        Kind::Route => 6,
    }
}

thread_local! {
    /// One parser per thread and language: parsers are not shared across threads.
    static PARSERS: RefCell<BTreeMap<Lang, Parser>> = const { RefCell::new(BTreeMap::new()) };
}

/// Symbols of `text` read as `lang`; `None` if the parser gave up (a time or size
/// limit), so the caller falls back to line heuristics.
pub(crate) fn symbols(lang: Lang, text: &str) -> Option<FileSymbols> {
    let tree = parse(lang, text)?;
    let root = tree.root_node();
    let src = text.as_bytes();
    let (mut definitions, names) = definitions(lang, root, src);
    definitions.extend(route_definitions(text, &definitions));
    definitions.sort_by_key(|d| (d.start, d.line, d.end));
    let mut uses = Vec::new();
    collect_uses(root, src, &names, &mut uses);
    uses.sort_by_key(|u| u.line);
    Some(FileSymbols { lang: Some(lang), definitions, uses, line_count: text.lines().count() as u32 })
}

fn parse(lang: Lang, text: &str) -> Option<tree_sitter::Tree> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = parsers.entry(lang).or_insert_with(|| {
            let mut p = Parser::new();
            p.set_language(&language(lang)).expect("grammar and tree-sitter versions are compatible");
            p
        });
        parser.parse(text, None)
    })
}

/// The code tokens of `text` read as `lang` (see [`crate::code_tokens`]); `None`
/// if the parser gave up.
pub(crate) fn code_tokens(lang: Lang, text: &str) -> Option<Vec<Token>> {
    let tree = parse(lang, text)?;
    let src = text.as_bytes();
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        let line = node.start_position().row as u32 + 1;
        if kind.contains("comment") {
            continue;
        }
        if is_string_literal(kind) {
            out.push(Token { line, text: STRING_TOKEN.to_string() });
            // What is interpolated into a string is code (`f"{user.name}"`).
            let parts = node.named_children(&mut cursor).filter(|c| {
                let k = c.kind();
                k.contains("interpolation") || k.contains("substitution")
            });
            let mut parts: Vec<Node<'_>> = parts.collect();
            parts.reverse();
            stack.extend(parts);
            continue;
        }
        if node.child_count() == 0 {
            if let Some(text) = node.utf8_text(src).ok().map(str::trim).filter(|t| !t.is_empty()) {
                out.push(Token { line, text: text.to_string() });
            }
            continue;
        }
        let mut children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        children.reverse();
        stack.extend(children);
    }
    Some(out)
}

/// Whole string and character literals, across the grammars.
fn is_string_literal(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "string_literal"
            | "raw_string_literal"
            | "char_literal"
            | "character_literal"
            | "rune_literal"
            | "interpreted_string_literal"
            | "template_string"
            | "verbatim_string_literal"
            | "interpolated_string_expression"
            | "text_block"
    )
}

/// The definitions the tag query finds, and the byte offsets of their names (which
/// are not uses).
fn definitions(lang: Lang, root: Node<'_>, src: &[u8]) -> (Vec<Definition>, Vec<usize>) {
    let query = query(lang);
    let names = query.capture_names();
    let mut by_name: BTreeMap<usize, Definition> = BTreeMap::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, src);
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut whole = None;
        for c in m.captures {
            match names[c.index as usize] {
                "name" => name = Some(c.node),
                other => {
                    if let Some(kind) = kind_of(other) {
                        whole = Some((kind, c.node));
                    }
                }
            }
        }
        let (Some(name), Some((kind, node))) = (name, whole) else { continue };
        let Ok(text) = name.utf8_text(src) else { continue };
        let def = Definition {
            name: text.to_string(),
            kind,
            line: name.start_position().row as u32 + 1,
            start: start_line(node),
            end: end_line(node),
        };
        by_name
            .entry(name.start_byte())
            .and_modify(|d| {
                if precedence(def.kind) < precedence(d.kind) {
                    d.kind = def.kind;
                }
                d.start = d.start.min(def.start);
                d.end = d.end.max(def.end);
            })
            .or_insert(def);
    }
    let offsets = by_name.keys().copied().collect();
    (by_name.into_values().collect(), offsets)
}

/// The first line of a node, with the Rust attributes (`#[derive(..)]`) stacked
/// right above it, which the Rust grammar keeps as siblings.
fn start_line(node: Node<'_>) -> u32 {
    let mut first = node;
    while let Some(prev) = first.prev_named_sibling().filter(|p| p.kind() == "attribute_item") {
        first = prev;
    }
    first.start_position().row as u32 + 1
}

/// The last line a node covers (a node ending at column 0 ends on the line before).
fn end_line(node: Node<'_>) -> u32 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row { end.row - 1 } else { end.row };
    row as u32 + 1
}

/// Every identifier leaf (and every string literal that spells an identifier, as in
/// `row["total"]`) that is not the name of a definition.
fn collect_uses(root: Node<'_>, src: &[u8], definition_names: &[usize], out: &mut Vec<Use>) {
    let mut cursor = root.walk();
    // Each node with its parent: tree-sitter finds a parent by walking down from the
    // root, which per identifier costs more than the parse.
    let mut stack: Vec<(Node<'_>, Option<Node<'_>>)> = vec![(root, None)];
    while let Some((node, parent)) = stack.pop() {
        let kind = node.kind();
        if kind.ends_with("identifier") && node.named_child_count() == 0 {
            let named = definition_names.binary_search(&node.start_byte()).is_ok();
            if let (false, Ok(name)) = (named, node.utf8_text(src)) {
                let line = node.start_position().row as u32 + 1;
                out.push(Use { name: name.to_string(), line, role: role(node, parent) });
            }
            continue;
        }
        if is_string_piece(kind) {
            let text = node.utf8_text(src).unwrap_or("").trim_matches(['"', '\'', '`']);
            if crate::lines::is_identifier(text) {
                let line = node.start_position().row as u32 + 1;
                out.push(Use { name: text.to_string(), line, role: Role::Member });
            }
            continue;
        }
        stack.extend(node.named_children(&mut cursor).map(|child| (child, Some(node))));
    }
}

/// The node kinds that hold a string literal's text, across the grammars.
fn is_string_piece(kind: &str) -> bool {
    matches!(
        kind,
        "string_content"
            | "string_fragment"
            | "string_literal_content"
            | "interpreted_string_literal"
            | "string_literal"
    )
}

fn role(node: Node<'_>, parent: Option<Node<'_>>) -> Role {
    let kind = node.kind();
    if kind == "type_identifier" {
        return Role::Type;
    }
    if matches!(
        kind,
        "field_identifier"
            | "property_identifier"
            | "shorthand_property_identifier"
            | "shorthand_property_identifier_pattern"
    ) {
        return Role::Member;
    }
    let Some(parent) = parent else { return Role::Name };
    let field_of = |field: &str| parent.child_by_field_name(field).is_some_and(|n| n.id() == node.id());
    match parent.kind() {
        // Python `o.total`, Java `o.total`, C# `o.Total`, keyword arguments.
        "attribute" if field_of("attribute") => Role::Member,
        "field_access" if field_of("field") => Role::Member,
        "member_access_expression" if field_of("name") => Role::Member,
        "keyword_argument" if field_of("name") => Role::Member,
        "generic_type" | "scoped_type_identifier" | "object_creation_expression" if !field_of("arguments") => {
            Role::Type
        }
        _ => Role::Name,
    }
}
