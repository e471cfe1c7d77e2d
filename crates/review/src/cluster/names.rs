//! The code a finding names: identifiers of its evidence and of the code its claim
//! mentions, normalised so reviewers that write `fetchAll`, `fetch_all` or
//! `self.fetch_all()` are heard to name one thing.
//!
//! In a claim, code is what sits in backticks, plus prose words shaped like code
//! (`snake_case`, `camelCase`, `a.b`, `call()`); plain English words never count,
//! so two claims worded alike about different code share nothing. String literals
//! in code are skipped (their words are data), and so are keywords, built-in
//! values and one-letter names, which every function has.

use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The names of one finding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Named {
    /// What the claim is about: the code its claim names, or its evidence's names
    /// when the claim names no code.
    pub subject: BTreeSet<String>,
    /// Every name of claim and evidence.
    pub all: BTreeSet<String>,
    /// The names of the evidence alone: code copied verbatim, independent of wording.
    pub quoted: BTreeSet<String>,
    /// Whether the claim itself names code (else `subject` is the evidence's names).
    pub claim_names_code: bool,
}

pub fn named(claim: &str, evidence: &str) -> Named {
    let in_claim = in_prose(claim);
    let quoted = in_code(evidence);
    let subject = if in_claim.is_empty() { quoted.clone() } else { in_claim.clone() };
    let all = in_claim.union(&quoted).cloned().collect();
    Named { subject, all, quoted, claim_names_code: !in_claim.is_empty() }
}

/// Share of `subject` that `other` names too (0 when `subject` is empty).
pub fn cover(subject: &BTreeSet<String>, other: &BTreeSet<String>) -> f64 {
    if subject.is_empty() {
        return 0.0;
    }
    let hit = subject.iter().filter(|s| other.iter().any(|o| same_name(s, o))).count();
    hit as f64 / subject.len() as f64
}

/// Equal, or one is a qualified form of the other (`c.items` and `items`).
pub fn same_name(a: &str, b: &str) -> bool {
    let qualified = |long: &str, short: &str| {
        long.len() > short.len() && long.ends_with(short) && { long.as_bytes()[long.len() - short.len() - 1] == b'.' }
    };
    a == b || qualified(a, b) || qualified(b, a)
}

fn identifier() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]*)*(\s*\()?")
            .expect("the identifier pattern compiles")
    })
}

fn string_literal() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"#).expect("the string pattern compiles"))
}

fn backticked() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"`([^`]+)`").expect("the backtick pattern compiles"))
}

/// Every name in a piece of code.
pub fn in_code(code: &str) -> BTreeSet<String> {
    let code = string_literal().replace_all(code, " ");
    identifier().find_iter(&code).filter_map(|m| normalise(m.as_str().trim_end_matches(['(', ' ']))).collect()
}

/// The code a piece of prose names: backticked spans, and words shaped like code.
pub fn in_prose(text: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    for span in backticked().captures_iter(text) {
        out.extend(in_code(&span[1]));
    }
    let rest = backticked().replace_all(text, " ");
    for word in rest.split_whitespace() {
        // `path:LINE` citations are locations, handled by the cross-file rule.
        if word.contains(':') && word.split(':').nth(1).is_some_and(|l| l.starts_with(|c: char| c.is_ascii_digit())) {
            continue;
        }
        for m in identifier().find_iter(word) {
            if looks_like_code(m.as_str()) && !is_file_name(m.as_str()) {
                out.extend(normalise(m.as_str().trim_end_matches(['(', ' '])));
            }
        }
    }
    out
}

fn looks_like_code(word: &str) -> bool {
    let bytes = word.as_bytes();
    let camel = bytes.windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    word.contains('_') || word.ends_with('(') || camel || word.contains('.') || word.contains("::")
}

const FILE_EXTENSIONS: &[&str] = &[
    "py", "rs", "go", "ts", "tsx", "js", "jsx", "java", "rb", "c", "h", "cc", "cpp", "cs", "kt", "swift", "php", "md",
    "json", "toml", "yaml", "yml", "sql", "html", "css",
];

fn is_file_name(word: &str) -> bool {
    word.rsplit_once('.').is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext))
}

/// Whether `word` (one normalised segment) is a keyword, a built-in value or a name
/// too common to tell two defects apart.
pub fn is_stop(word: &str) -> bool {
    STOP.contains(&word)
}

/// Keywords, built-in values and names too common to tell two defects apart.
const STOP: &[&str] = &[
    "and",
    "as",
    "async",
    "await",
    "bool",
    "break",
    "case",
    "catch",
    "chan",
    "class",
    "cls",
    "const",
    "continue",
    "def",
    "default",
    "defer",
    "delete",
    "elif",
    "else",
    "enum",
    "err",
    "error",
    "except",
    "false",
    "finally",
    "fn",
    "for",
    "from",
    "func",
    "function",
    "go",
    "if",
    "impl",
    "import",
    "in",
    "int",
    "interface",
    "is",
    "len",
    "let",
    "loop",
    "make",
    "match",
    "mut",
    "new",
    "nil",
    "none",
    "not",
    "null",
    "or",
    "print",
    "private",
    "protected",
    "pub",
    "public",
    "raise",
    "return",
    "select",
    "self",
    "static",
    "str",
    "string",
    "struct",
    "super",
    "switch",
    "this",
    "throw",
    "throws",
    "trait",
    "true",
    "try",
    "type",
    "undefined",
    "use",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// `self.fetchAll` → `fetch_all`; `Cache::Put` → `cache.put`; `None` for stop words
/// and one-letter names.
fn normalise(path: &str) -> Option<String> {
    let segments: Vec<String> =
        path.split(['.', ':']).flat_map(|s| s.split("->")).filter(|s| !s.is_empty()).map(words).collect();
    let skip = segments.iter().take_while(|s| matches!(s.as_str(), "self" | "this" | "cls")).count();
    let segments = &segments[skip..];
    match segments {
        [] => None,
        [one] if one.chars().count() < 2 || STOP.contains(&one.as_str()) => None,
        _ if segments.iter().all(|s| s.chars().count() < 2) => None,
        _ => Some(segments.join(".")),
    }
}

/// One identifier's words, lowercased and joined by `_`.
fn words(ident: &str) -> String {
    gauntlet_code::words(ident).join("_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn case_and_word_separators_do_not_make_two_names() {
        assert_eq!(in_code("fetchAll(x)"), set(&["fetch_all"]));
        assert_eq!(in_code("fetch_all(x)"), set(&["fetch_all"]));
        assert_eq!(in_code("self.save_batch(rows)"), set(&["rows", "save_batch"]));
        assert_eq!(in_code("HTTPServer.ListenAndServe()"), set(&["http_server.listen_and_serve"]));
        assert_eq!(in_code("Cache::put"), set(&["cache.put"]));
    }

    #[test]
    fn keywords_literals_and_one_letter_names_are_not_names() {
        assert_eq!(in_code("return True"), set(&[]));
        assert_eq!(in_code("if err != nil { return nil, err }"), set(&[]));
        assert_eq!(in_code("logger.info(\"user %s logged in\", u)"), set(&["logger.info"]));
        assert_eq!(in_code("x = 0x1F"), set(&[]));
    }

    #[test]
    fn prose_names_only_backticked_and_code_shaped_words() {
        let claim = "When the cache is full, `Put` drops the entry and load_all never sees it (see a.py:3, e.g. x).";
        assert_eq!(in_prose(claim), set(&["load_all", "put"]));
        assert_eq!(in_prose("The log line leaks personal data into the log store."), set(&[]));
    }

    #[test]
    fn a_qualified_name_is_the_same_as_its_last_part() {
        assert!(same_name("c.items", "items"));
        assert!(same_name("save_batch", "store.save_batch"));
        assert!(!same_name("user.email", "user.phone"));
        assert!(!same_name("batch", "save_batch"), "a word inside a name is not the name");
    }

    #[test]
    fn the_subject_falls_back_to_the_evidence_when_the_claim_names_no_code() {
        let n = named("Nobody drains the channel after a cancellation.", "results <- r");
        assert_eq!(n.subject, set(&["results"]));
        let n = named("`flush` never awaits it.", "self.save_batch(rows)");
        assert_eq!((n.subject, n.all), (set(&["flush"]), set(&["flush", "rows", "save_batch"])));
    }
}
