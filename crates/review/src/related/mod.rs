//! Related code: what every session of a change is shown beside the change itself,
//! so that a defect proven by an untouched file is in view of every reviewer and
//! validator (and of the backtest's single-pass baseline).
//!
//! For each hunk, from the symbol index of the head ([`gauntlet_code`]):
//! - the definitions of the names its changed lines use that live outside it
//!   (a callee's body up to a size, else its signature; types, enums, constants);
//! - the places that use what it defines, modifies or removes (callers, readers and
//!   writers of a changed field, `match`/`switch` sites of a changed enum, client
//!   code still spelling a removed name).
//!
//! Entries are ranked (what can break first, then what explains; nearer files
//! first) and cut to a token budget (`[context] related_tokens`). Each says why it
//! is there. The text comes through the same reader as the validator's tools
//! (secrets masked, the same size limit), and every entry shown joins the shown
//! record of each session, so findings and disproofs may rest on it.

mod entries;
pub mod scan;

pub use entries::Entry;

use crate::fence::Fence;
use crate::listing::numbered;
use crate::repo::RepoRead;
use crate::shown::Shown;
use gauntlet_change::Change;

/// Locations of left-out entries listed at most.
const MAX_OMITTED_LISTED: usize = 20;

/// The related code of a change (or of one part of it), already cut to its budget.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Related {
    pub entries: Vec<Entry>,
    /// Locations of entries left out for the budget, best first.
    pub omitted: Vec<String>,
    /// The budget it was cut to, in estimated tokens.
    pub budget: usize,
}

/// Tokens an entry costs, estimated as the rest of the prompt is (four characters
/// a token, plus the line numbers).
fn tokens(e: &Entry) -> usize {
    let chars: usize =
        e.lines.iter().map(|l| l.len() + 1).sum::<usize>() + e.why.iter().map(|w| w.len() + 8).sum::<usize>();
    (chars + e.lines.len() * 8) / 4 + 24
}

/// Gather the related code of `change`, cut to `budget` tokens (0: none). Files are
/// read through `repo`; files over `file_bytes` are left out as tools leave them.
pub fn gather(change: &Change, repo: &dyn RepoRead, file_bytes: usize, budget: usize) -> Related {
    if budget == 0 || change.files.is_empty() {
        return Related { budget, ..Related::default() };
    }
    let scan = scan::scan(change, repo, file_bytes);
    let ranked = entries::ranked(&scan);
    cut(ranked, budget)
}

/// Keep the best entries that fit in `budget`; list the rest by location.
fn cut(ranked: Vec<Entry>, budget: usize) -> Related {
    let mut used = 0;
    let mut related = Related { budget, ..Related::default() };
    for e in ranked {
        let cost = tokens(&e);
        if used + cost <= budget {
            used += cost;
            related.entries.push(e);
        } else {
            related.omitted.push(e.location());
        }
    }
    related.entries.sort_by(|a, b| a.path.cmp(&b.path).then(a.start.cmp(&b.start)));
    related
}

impl Related {
    /// Estimated tokens of the entries kept.
    pub fn tokens(&self) -> usize {
        self.entries.iter().map(tokens).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries about any of `paths` (a part of a split change shows the related
    /// code of its own files).
    pub fn for_files<'a>(&self, paths: impl Iterator<Item = &'a str> + Clone) -> Related {
        let keep = |e: &Entry| e.about.iter().any(|a| paths.clone().any(|p| p == a));
        Related {
            entries: self.entries.iter().filter(|e| keep(e)).cloned().collect(),
            omitted: self.omitted.clone(),
            budget: self.budget,
        }
    }

    /// Record what the entries show, for grounding and disproofs.
    pub fn add_to(&self, shown: &mut Shown) {
        for e in &self.entries {
            let lines: Vec<&str> = e.lines.iter().map(String::as_str).collect();
            shown.add_range(&e.path, e.start, &lines);
        }
    }

    /// The fenced entries, one block each, as the shared block's related-code
    /// section lists them; empty when there are none.
    pub fn listing(&self, fence: &Fence) -> String {
        let mut out = String::new();
        for e in &self.entries {
            let body = format!("why: {}\n{}:\n{}", e.why.join("; "), e.path, numbered(e.start, &e.lines));
            out.push_str(&fence.wrap(&format!("related {}", e.location()), &body));
        }
        out
    }

    /// Left-out locations as one line for the prompt, when entries were left out.
    pub fn omitted_line(&self) -> Option<String> {
        if self.omitted.is_empty() {
            return None;
        }
        let listed: Vec<&str> = self.omitted.iter().take(MAX_OMITTED_LISTED).map(String::as_str).collect();
        let more = self.omitted.len().saturating_sub(listed.len());
        let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
        Some(format!("{}{tail}", listed.join(", ")))
    }
}

#[cfg(test)]
mod tests;
