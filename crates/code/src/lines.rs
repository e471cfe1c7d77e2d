//! Line heuristics: what a file defines and uses when no grammar reads it (another
//! language, or a build without the `grammars` feature), and the routes frameworks
//! declare, which no grammar names as such.
//!
//! A definition is a line that starts with a defining keyword (`def`, `fn`,
//! `class`, `func`, ...); its region runs to the last line indented deeper than it
//! (plus a closing bracket at its own indentation). Uses are the identifier-shaped
//! words of each line: after a `.` a member, capitalised a type, else a name.

use crate::{Definition, FileSymbols, Kind, Role, Use};
use regex::Regex;
use std::sync::OnceLock;

fn definition() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^\s*(?:(?:export|default|pub(?:\([^)]*\))?|async|static|public|private|protected|internal|final|abstract|override|unsafe|extern|inline|virtual|open|suspend)\s+)*(def|fn|function|func|fun|sub|procedure|class|struct|enum|trait|interface|record|object|type|module|const)\s+([A-Za-z_][A-Za-z0-9_]*)",
        )
        .expect("the definition pattern compiles")
    })
}

fn word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("the word pattern compiles"))
}

/// A line that brings names in from elsewhere.
fn import() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*(?:import|from|use|using|require|require_relative|include|package|extern crate)\b")
            .expect("the import pattern compiles")
    })
}

/// Routes declared by the common frameworks: the path string is group 1.
fn route() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"(?x)
            (?: @(?:app|router|bp|blueprint|api)\.(?:route|get|post|put|patch|delete)\(
              | \b(?:app|router|server|api)\.(?:get|post|put|patch|delete|route)\(
              | \#\[(?:get|post|put|patch|delete|route)\(
              | \[(?:Http(?:Get|Post|Put|Patch|Delete)|Route)\(
              | \bMap(?:Get|Post|Put|Patch|Delete)\(
              | @(?:Get|Post|Put|Patch|Delete|Request)Mapping\((?:value\s*=\s*|path\s*=\s*)?
              | \bHandleFunc\(
            )\s*["'`]([^"'`]*)["'`]"#,
        )
        .expect("the route pattern compiles")
    })
}

#[cfg(feature = "grammars")]
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub fn indent(line: &str) -> Option<usize> {
    if line.trim().is_empty() {
        return None;
    }
    Some(line.chars().take_while(|c| c.is_whitespace()).map(|c| if c == '\t' { 4 } else { 1 }).sum())
}

fn keyword_kind(keyword: &str, indented: bool) -> Kind {
    match keyword {
        "class" | "struct" | "enum" | "trait" | "interface" | "record" | "object" | "type" | "module" => Kind::Type,
        "const" => Kind::Constant,
        _ if indented => Kind::Method,
        _ => Kind::Function,
    }
}

/// The last line (0-based) of the block whose header is line `head`: the lines
/// indented deeper, and a closing `}`, `)`, `]` or `end` at the header's depth.
pub fn block_end(lines: &[&str], head: usize, head_indent: usize) -> usize {
    let mut last = head;
    for (i, line) in lines.iter().enumerate().skip(head + 1) {
        match indent(line) {
            None => continue,
            Some(ind) if ind > head_indent => last = i,
            Some(_) => {
                let t = line.trim_start();
                if t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end ") {
                    last = i;
                }
                break;
            }
        }
    }
    last
}

/// Symbols of a file no grammar reads.
pub(crate) fn symbols(text: &str) -> FileSymbols {
    let lines: Vec<&str> = text.lines().collect();
    let mut definitions = Vec::new();
    let mut uses = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let n = i as u32 + 1;
        let mut defined = None;
        if let Some(c) = definition().captures(line) {
            let ind = indent(line).unwrap_or(0);
            let name = c.get(2).expect("the pattern has a name group");
            let kind = keyword_kind(&c[1], ind > 0);
            let end = if kind == Kind::Constant { i } else { block_end(&lines, i, ind) };
            definitions.push(Definition { name: name.as_str().into(), kind, line: n, start: n, end: end as u32 + 1 });
            defined = Some(name.start());
        }
        if crate::prose::is_comment_line(line) {
            continue;
        }
        // An import names its module in a string as often as not (`require 'patch'`).
        let imports = import().is_match(line);
        let code = if imports { line.to_string() } else { code_part(line) };
        for m in word().find_iter(&code) {
            if Some(m.start()) == defined {
                continue;
            }
            let before = code[..m.start()].trim_end();
            let after = code[m.end()..].trim_start();
            let role = if before.ends_with('.') || before.ends_with("->") {
                Role::Member
            } else if m.as_str().starts_with(|c: char| c.is_ascii_uppercase()) {
                Role::Type
            } else {
                Role::Name
            };
            // A name that is also an ordinary word counts only where code uses it:
            // a call, a receiver or path segment, an import.
            let in_code = after.starts_with(['(', '.']) || after.starts_with("::") || before.ends_with("::") || imports;
            if role == Role::Name && crate::prose::is_plain_word(m.as_str()) && !in_code {
                continue;
            }
            uses.push(Use { name: m.as_str().into(), line: n, role });
        }
    }
    definitions.extend(route_definitions(text, &definitions));
    definitions.sort_by_key(|d| (d.start, d.line, d.end));
    FileSymbols { lang: None, definitions, uses, line_count: lines.len() as u32 }
}

/// `line` with its string literals and trailing comment blanked out (same
/// length, so offsets still point into `line`): words there are text, not code.
fn code_part(line: &str) -> String {
    let mut bytes = line.as_bytes().to_vec();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' && i + 1 < bytes.len() {
                    bytes[i] = b' ';
                    bytes[i + 1] = b' ';
                    i += 1;
                } else if b == q {
                    quote = None;
                }
                bytes[i] = b' ';
            }
            None if matches!(b, b'"' | b'\'' | b'`') => {
                quote = Some(b);
                bytes[i] = b' ';
            }
            None => {
                let spaced = i == 0 || bytes[i - 1].is_ascii_whitespace();
                let comment = (b == b'/' && bytes.get(i + 1) == Some(&b'/'))
                    || (b == b'#' && spaced && !matches!(bytes.get(i + 1), Some(b'[' | b'{' | b'!')));
                if comment {
                    bytes[i..].fill(b' ');
                    break;
                }
            }
        }
        i += 1;
    }
    String::from_utf8(bytes).expect("only whole characters are blanked")
}

/// Routes declared in `text`: each spans the handler right below (or around) its
/// declaration when one of `known` starts within two lines, else its own line.
pub(crate) fn route_definitions(text: &str, known: &[Definition]) -> Vec<Definition> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(c) = route().captures(line) else { continue };
        let path = c[1].trim();
        if !path.starts_with('/') {
            continue;
        }
        let n = i as u32 + 1;
        let handler =
            known.iter().filter(|d| d.kind.is_callable() && d.start <= n + 2 && d.end >= n).min_by_key(|d| d.lines());
        let (start, end) = handler.map_or((n, n), |d| (d.start.min(n), d.end.max(n)));
        out.push(Definition { name: path.to_string(), kind: Kind::Route, line: n, start, end });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_definitions_span_their_indented_block() {
        let text = "defmodule Shop do\n  def total(order) do\n    order.sum\n  end\nend\n";
        let s = symbols(text);
        let total = s.definitions.iter().find(|d| d.name == "total").expect("total is found");
        assert_eq!((total.kind, total.start, total.end), (Kind::Method, 2, 4));
        assert!(s.uses.iter().any(|u| u.name == "sum" && u.role == Role::Member && u.line == 3));
        assert!(!s.uses.iter().any(|u| u.name == "total"), "a definition's own name is no use");
    }

    #[test]
    fn words_in_comments_strings_and_plain_prose_are_no_uses() {
        let text = "require 'patch'\n# apply runs last\nputs \"apply it\" // apply\nx = apply\npatch.apply(text)\n";
        let s = symbols(text);
        let at = |name: &str| s.uses.iter().filter(|u| u.name == name).map(|u| u.line).collect::<Vec<_>>();
        assert_eq!(at("apply"), vec![5], "only the call counts: {:?}", s.uses);
        assert_eq!(at("patch"), vec![1, 5], "an import and a receiver are code");
    }

    #[test]
    fn routes_are_definitions_named_by_their_path() {
        let text = "@app.get(\"/orders/{id}\")\ndef show(id):\n    return load(id)\n";
        let known = vec![Definition { name: "show".into(), kind: Kind::Function, line: 2, start: 1, end: 3 }];
        let routes = route_definitions(text, &known);
        assert_eq!(routes.len(), 1);
        assert_eq!((routes[0].name.as_str(), routes[0].start, routes[0].end), ("/orders/{id}", 1, 3));
    }
}
