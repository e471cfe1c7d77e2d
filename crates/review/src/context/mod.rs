//! Context that a reviewer's rule file asks for (`context = ["history"]`), gathered
//! by code before any model call: the commits that touched the changed lines, the
//! review comments left on earlier pull requests, the consumers of a changed shape,
//! the design tokens.
//!
//! Gathering is deterministic (git, files, a search), so the same change gets the
//! same context. The result goes into that reviewer's own turn, fenced as data, and
//! into that session's shown record where it is code at head, so findings quoting a
//! consumer can be grounded. It never goes into the shared block, which stays the
//! same for every session and therefore cacheable.
//!
//! A reviewer whose context turns out empty does not run: a history reviewer with no
//! fix in the lines' past, or a contract reviewer with no changed shape, has nothing
//! to work with and would only add cost and noise.

pub mod block;
pub mod consumers;
pub mod feedback;
pub mod history;
pub mod shape;
pub mod tokens;

pub use block::{Block, CodeRange, ContextKind};

use crate::repo::RepoRead;
use crate::rules::Reviewer;
use crate::shown::Shown;
use gauntlet_change::{Change, ChangeError, git::Git};
use std::collections::BTreeMap;

/// Record what `blocks` show of head code.
pub fn shown_of<'a>(blocks: impl IntoIterator<Item = &'a Block>) -> Shown {
    let mut shown = Shown::default();
    for range in blocks.into_iter().flat_map(|b| &b.code) {
        let lines: Vec<&str> = range.lines.iter().map(String::as_str).collect();
        shown.add_range(&range.path, range.start, &lines);
    }
    shown
}

/// The outcome of gathering one kind: blocks, or why there is nothing to work with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gathered {
    Found(Vec<Block>),
    Nothing(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Git(#[from] ChangeError),
    #[error(
        "{path} line {line}: {message}; each line is one JSON object such as {{\"path\": \"src/a.rs\", \"body\": \"...\"}}"
    )]
    Feedback { path: String, line: usize, message: String },
    #[error("token file {path} is not a text file at head: fix `[context] token_files` in gauntlet.toml")]
    TokenFile { path: String },
}

/// What gathering is configured with.
#[derive(Clone, Debug)]
pub struct Config {
    /// How far back history looks, in days before the base commit.
    pub history_days: u32,
    /// Design-token files (paths at head).
    pub token_files: Vec<String>,
    /// Prior review comments, already loaded (export file or host API).
    pub feedback: Vec<feedback::Comment>,
    /// Where those comments came from, for notes ("`.gauntlet/feedback.jsonl`").
    pub feedback_source: String,
    /// Reasons people allowed to dismiss gave for dismissing gauntlet's findings on
    /// earlier pull requests (read from the code host in CI).
    pub dismissals: Vec<feedback::Dismissal>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            history_days: history::DEFAULT_DAYS,
            token_files: Vec::new(),
            feedback: Vec::new(),
            feedback_source: feedback::EXPORT_FILE.into(),
            dismissals: Vec::new(),
        }
    }
}

/// Everything gathering reads.
pub struct Sources<'a> {
    pub git: &'a Git,
    pub change: &'a Change,
    pub head: &'a dyn RepoRead,
    pub config: &'a Config,
}

/// Gather one kind of context.
pub fn gather(kind: ContextKind, src: &Sources<'_>) -> Result<Gathered, ContextError> {
    match kind {
        ContextKind::History => history::gather(src),
        ContextKind::Feedback => Ok(feedback::gather(src)),
        ContextKind::Consumers => consumers::gather(src),
        ContextKind::Tokens => tokens::gather(src),
    }
}

/// Selected reviewers with their context attached, and what happened to the rest.
#[derive(Debug, Default)]
pub struct Prepared {
    pub reviewers: Vec<Reviewer>,
    /// Reviewers left out because their context is empty, with the reason.
    pub notes: Vec<String>,
    /// The same reviewers as (name, why), for listings.
    pub left_out: Vec<(String, String)>,
    /// Reviewers left out because their context could not be gathered: (name, why).
    pub failures: Vec<(String, String)>,
}

/// Gather what each reviewer asks for (each kind once) and attach it. A reviewer
/// runs when at least one of its kinds found something.
pub fn prepare(src: &Sources<'_>, reviewers: Vec<Reviewer>) -> Prepared {
    let mut cache: BTreeMap<ContextKind, Result<Gathered, String>> = BTreeMap::new();
    let mut out = Prepared::default();
    for mut reviewer in reviewers {
        let mut reasons = Vec::new();
        let mut failed = None;
        for kind in reviewer.context.clone() {
            let got = cache.entry(kind).or_insert_with(|| gather(kind, src).map_err(|e| e.to_string()));
            match got {
                Ok(Gathered::Found(blocks)) => reviewer.gathered.extend(blocks.iter().cloned()),
                Ok(Gathered::Nothing(why)) => reasons.push(why.clone()),
                Err(e) => failed = Some(format!("its {} context could not be gathered: {e}", kind.as_str())),
            }
        }
        if let Some(why) = failed {
            out.failures.push((reviewer.name, why));
        } else if !reviewer.context.is_empty() && reviewer.gathered.is_empty() {
            out.notes.push(format!("reviewer {} did not run: {}", reviewer.name, reasons.join("; ")));
            out.left_out.push((reviewer.name, reasons.join("; ")));
        } else {
            out.reviewers.push(reviewer);
        }
    }
    out
}

/// Mask secrets in gathered context, as the change itself is masked: a fix commit's
/// patch or an earlier review comment may quote a key that the head no longer holds.
pub fn mask(reviewers: &mut [Reviewer], masker: &crate::secrets::Masker) {
    for block in reviewers.iter_mut().flat_map(|r| r.gathered.iter_mut()) {
        block.text = masker.text(&block.text).0;
        for line in block.code.iter_mut().flat_map(|c| c.lines.iter_mut()) {
            *line = masker.line(line).0;
        }
    }
}

/// Every text of the gathered context, so the run's fence boundary avoids them.
pub fn untrusted_texts(reviewers: &[Reviewer]) -> Vec<&str> {
    reviewers.iter().flat_map(|r| &r.gathered).flat_map(|b| [b.label.as_str(), b.text.as_str()]).collect()
}

/// Cut `text` to at most `max` bytes at a character boundary, saying so.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let at = (0..=max).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    format!("{}\n[cut at {max} bytes]", &text[..at])
}
