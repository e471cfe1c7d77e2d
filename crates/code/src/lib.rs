//! The code at the reviewed head, seen as symbols.
//!
//! A review needs to know, for the lines a change touches, what the names on them
//! mean (where a called function, a used type or a read constant is defined) and
//! who depends on what the change defines (the callers of a changed function, the
//! readers of a renamed field, the `match` over an enum that gained a member). This
//! crate answers both from the source alone, without building or running anything:
//!
//! - [`symbols`] turns one file's text into [`FileSymbols`]: its [`Definition`]s
//!   (functions, methods, types, fields, enum members, constants, routes), with the
//!   region each spans, and the identifiers each line uses ([`Use`]). With the
//!   default `grammars` feature, Rust, Python, TypeScript/TSX, JavaScript, Go, Java
//!   and C# are parsed with tree-sitter and the tag queries in `src/queries/`; every
//!   other file, and every file when the feature is off, is read with line
//!   heuristics.
//! - [`Index`] holds the symbols of the files a review needs and answers
//!   "where is `name` defined" and "where is `name` used"; [`mentioning`] finds,
//!   in one multi-pattern pass, which other files could use the names a change
//!   touches, so only those are parsed. Parses are cached per git blob id, so a
//!   file seen again (the next part of a split change, the next backtest case)
//!   costs a hash lookup.
//!
//! ```
//! use gauntlet_code::{Index, Kind};
//! let mut index = Index::default();
//! index.add("billing.py", "def total(order):\n    return sum(order.lines)\n");
//! index.add("report.py", "from billing import total\n\nprint(total(o))\n");
//! let def = index.definitions("total").next().unwrap();
//! assert_eq!((def.path, def.definition.kind, def.definition.end), ("billing.py", Kind::Function, 2));
//! let used: Vec<_> = index.uses("total").map(|u| (u.path, u.line)).collect();
//! assert_eq!(used, [("report.py", 1), ("report.py", 3)]);
//! ```

#[cfg(feature = "grammars")]
mod grammar;
mod index;
mod lang;
mod lines;
pub mod prose;
mod search;

pub use index::{Found, FoundUse, Index, blob_id, enclosing, forget_parses, parsed};
pub use lang::Lang;
pub use lines::{block_end, indent};
pub use search::{mentioning, spellings, words};

use std::sync::Arc;

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Function,
    Method,
    Type,
    Field,
    /// A member of an enum (a variant, an enum constant).
    Member,
    Constant,
    /// An HTTP route a framework serves (`@app.get("/orders")`, `[HttpGet("...")]`).
    Route,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Type => "type",
            Kind::Field => "field",
            Kind::Member => "enum member",
            Kind::Constant => "constant",
            Kind::Route => "route",
        }
    }

    /// Whether code runs inside it (its region is a body worth showing whole).
    pub fn is_callable(self) -> bool {
        matches!(self, Kind::Function | Kind::Method)
    }
}

/// One definition in a file. Lines are 1-based and inclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub kind: Kind,
    /// The line of the name itself.
    pub line: u32,
    /// The lines the whole definition spans (attributes and decorators included
    /// where the grammar attaches them).
    pub start: u32,
    pub end: u32,
}

impl Definition {
    pub fn contains(&self, line: u32) -> bool {
        self.start <= line && line <= self.end
    }
    pub fn lines(&self) -> u32 {
        self.end - self.start + 1
    }
}

/// How a line uses an identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A plain name: a variable, a call, a path segment.
    Name,
    /// A type position (`x: Rest`, `new Rest()` where the grammar says so).
    Type,
    /// A member of something: `o.total`, `{total: 1}`, `row["total"]`, `total=1`.
    Member,
}

/// An identifier used on a line (not the name of a definition).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    pub name: String,
    pub line: u32,
    pub role: Role,
}

/// What one file defines and uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSymbols {
    /// The grammar that read it; `None`: line heuristics.
    pub lang: Option<Lang>,
    pub definitions: Vec<Definition>,
    /// Sorted by line.
    pub uses: Vec<Use>,
    pub line_count: u32,
}

impl FileSymbols {
    /// The innermost function, method or type whose region holds `line`: what a
    /// finding at that line sits in.
    pub fn enclosing(&self, line: u32) -> Option<&Definition> {
        self.definitions
            .iter()
            .filter(|d| matches!(d.kind, Kind::Function | Kind::Method | Kind::Type) && d.contains(line))
            .min_by_key(|d| (d.lines(), std::cmp::Reverse(d.start)))
    }

    /// The identifiers used on lines `start..=end`.
    pub fn uses_in(&self, start: u32, end: u32) -> impl Iterator<Item = &Use> {
        let from = self.uses.partition_point(|u| u.line < start);
        self.uses[from..].iter().take_while(move |u| u.line <= end)
    }

    /// Definitions whose name sits on lines `start..=end`.
    pub fn defined_in(&self, start: u32, end: u32) -> impl Iterator<Item = &Definition> {
        self.definitions.iter().filter(move |d| start <= d.line && d.line <= end)
    }
}

/// Read one file's symbols: with its grammar when there is one (and the `grammars`
/// feature is on), else with line heuristics. Never fails: text a grammar cannot
/// parse still yields what the parser recovered, and an unknown language the
/// heuristics' best guess.
pub fn symbols(path: &str, text: &str) -> FileSymbols {
    let lang = Lang::of(path);
    #[cfg(feature = "grammars")]
    if let Some(found) = lang.and_then(|lang| grammar::symbols(lang, text)) {
        return found;
    }
    let _ = lang;
    lines::symbols(text)
}

/// One token of code: its 1-based line and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub line: u32,
    pub text: String,
}

/// The text every string or character literal stands as in [`code_tokens`].
pub const STRING_TOKEN: &str = "\"\"";

/// The tokens of a file's code, in order, as its grammar reads them: comments are
/// left out and each string or character literal (a docstring too) is one
/// [`STRING_TOKEN`], so two versions of a file whose tokens are equal differ only
/// in comments, docstrings, literal text or layout. `None` where no grammar reads
/// the file (or the `grammars` feature is off): the caller falls back to line
/// heuristics.
pub fn code_tokens(path: &str, text: &str) -> Option<Vec<Token>> {
    #[cfg(feature = "grammars")]
    return Lang::of(path).and_then(|lang| grammar::code_tokens(lang, text));
    #[cfg(not(feature = "grammars"))]
    {
        let _ = (path, text);
        None
    }
}

/// Shared, immutable symbols of one file (the cache hands out the same copy).
pub type Shared = Arc<FileSymbols>;
