//! Output formats for a finished [`Review`]: a terminal report for people, a
//! single JSON object for machines, GitHub-flavoured Markdown for comments,
//! SARIF 2.1.0 for code-scanning services, reviewdog's `rdjson`/`rdjsonl` and
//! GitLab's Code Quality report (`codequality`).
//!
//! Every format reads the same `Review` and nothing else. Text that came from a
//! model (claims, evidence, validator answers, provider errors) is untrusted: the
//! terminal format neutralises control characters, the Markdown format escapes
//! anything that could change the document's structure or smuggle in HTML.

pub mod codequality;
pub mod coverage;
mod fmt;
pub mod html;
mod json;
pub mod markdown;
pub mod number;
pub mod plain;
mod rdjson;
pub mod sarif;
mod terminal;
pub mod weblink;

use gauntlet_review::Review;
use std::str::FromStr;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Terminal,
    Json,
    Markdown,
    Sarif,
    Rdjson,
    /// reviewdog's line-delimited form: one diagnostic per line.
    Rdjsonl,
    /// GitLab's Code Quality report (a CodeClimate subset).
    Codequality,
}

impl Format {
    /// Every format, in the order help text lists them.
    pub const ALL: [Format; 7] = [
        Format::Terminal,
        Format::Json,
        Format::Markdown,
        Format::Sarif,
        Format::Rdjson,
        Format::Rdjsonl,
        Format::Codequality,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Terminal => "terminal",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Sarif => "sarif",
            Format::Rdjson => "rdjson",
            Format::Rdjsonl => "rdjsonl",
            Format::Codequality => "codequality",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl std::fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        write!(f, "unknown format `{}`; valid formats: {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Presentation switches. The machine formats (JSON, SARIF, rdjson, Code Quality) ignore both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Also show what was dropped, and why.
    pub verbose: bool,
    /// Colour the terminal report with ANSI escapes.
    pub color: bool,
}

/// Render `review` in `format`. The result ends with a newline, except
/// `rdjsonl` of a complete review with nothing published, which is empty.
pub fn render(review: &Review, format: Format, opts: &Options) -> String {
    match format {
        Format::Terminal => terminal::render(review, opts),
        Format::Json => json::render(review),
        Format::Markdown => markdown::render(review, opts),
        Format::Sarif => sarif::render(review),
        Format::Rdjson => rdjson::render(review),
        Format::Rdjsonl => rdjson::render_lines(review),
        Format::Codequality => codequality::report(&review.published, &review.undecided()),
    }
}
