//! What gathered context is made of: the kinds a rule may ask for, and the fenced
//! blocks they produce.

use serde::{Deserialize, Serialize};

/// A kind of context a rule may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// Commits that touched the changed lines within the history window.
    History,
    /// Review comments on earlier pull requests touching the changed files.
    Feedback,
    /// Files that use the names (fields, types, routes) a changed shape defines.
    Consumers,
    /// The configured design-token files, and literals that equal a token.
    Tokens,
}

impl ContextKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ContextKind::History => "history",
            ContextKind::Feedback => "feedback",
            ContextKind::Consumers => "consumers",
            ContextKind::Tokens => "tokens",
        }
    }
}

/// Lines of a file at head that a block shows, recorded in the session's shown record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeRange {
    pub path: String,
    pub start: u32,
    pub lines: Vec<String>,
}

/// One fenced block of gathered context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: ContextKind,
    /// The fence label: what the block is ("consumer web/src/api.ts").
    pub label: String,
    pub text: String,
    /// Changed files the block is about. A part of a split change gets the blocks of
    /// its own files; an empty list means every part.
    pub about: Vec<String>,
    /// Head code the block shows, for grounding.
    pub code: Vec<CodeRange>,
}

impl Block {
    /// Whether a part holding `paths` should see this block.
    pub fn concerns<'a>(&self, mut paths: impl Iterator<Item = &'a str>) -> bool {
        self.about.is_empty() || paths.any(|p| self.about.iter().any(|a| a == p))
    }
}
