//! What a review did not cover, as plain one-line statements: the coverage gaps,
//! the findings that could not be verified either way, and the files nobody
//! reviewed. The machine formats carry them (rdjson as location-less `INFO`
//! diagnostics) and the command line repeats them on stderr, so a consumer that
//! reads only the findings cannot mistake a partial review for a clean one.

use crate::fmt::{one_line, plural};
use gauntlet_review::Review;

/// What kind of hole in the coverage an [`Item`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A unit of work that failed (a reviewer, a validation, gathering context).
    Gap,
    /// A high-severity finding whose disproof could not be checked.
    Unverified,
    /// A changed file no reviewer saw, for a reason other than the ignore lists.
    NotReviewed,
}

impl Kind {
    /// A stable code for the item, as rdjson's `code.value` carries it.
    pub fn code(self) -> &'static str {
        match self {
            Kind::Gap => "gauntlet/coverage-gap",
            Kind::Unverified => "gauntlet/unverified",
            Kind::NotReviewed => "gauntlet/not-reviewed",
        }
    }
}

/// One statement about what was not covered. `text` holds model and provider
/// text as it came: each format escapes it its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub kind: Kind,
    pub text: String,
}

/// Every hole in the review's coverage, gaps first.
pub fn items(review: &Review) -> Vec<Item> {
    let mut out = Vec::new();
    for (g, reviewers, times) in crate::fmt::repeated_gaps(&review.gaps) {
        let who = match reviewers.as_slice() {
            [] => String::new(),
            [one] => format!(" (reviewer {one})"),
            many => format!(" (reviewers {})", many.join(", ")),
        };
        let text = format!("coverage gap in {}{who}: {}{}", g.step, g.message, crate::fmt::times(times));
        out.push(Item { kind: Kind::Gap, text });
    }
    for u in &review.unverified {
        let text = format!(
            "could not be verified either way, so not published; check it by hand: {} finding at {}: {}",
            u.severity.as_str(),
            u.location,
            u.claim
        );
        out.push(Item { kind: Kind::Unverified, text });
    }
    for n in review.not_reviewed.iter().filter(|n| !n.ignored) {
        out.push(Item { kind: Kind::NotReviewed, text: format!("not reviewed: {} ({})", n.path, n.reason) });
    }
    out
}

/// The counts of what was not covered ("2 coverage gaps, 1 file not reviewed"),
/// or `None` for a complete review.
pub fn counts(review: &Review) -> Option<String> {
    if review.complete() {
        return None;
    }
    let unreviewed = review.not_reviewed.iter().filter(|n| !n.ignored).count();
    let parts: Vec<String> = [
        (review.gaps.len(), "coverage gap", "coverage gaps"),
        (review.unverified.len(), "finding that could not be verified", "findings that could not be verified"),
        (unreviewed, "file not reviewed", "files not reviewed"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(n, one, many))
    .collect();
    // A finding dropped as not validated always comes with its gap.
    Some(parts.join(", "))
}

/// What a command prints on stderr after a machine-readable report: nothing for
/// a complete review, else the counts and one line per item, prefixed
/// `gauntlet:` like every other log line, control characters escaped.
pub fn summary(review: &Review) -> Option<String> {
    let counts = counts(review)?;
    let mut out = format!(
        "gauntlet: the review is incomplete ({counts}); do not take it for a clean review of the whole change:\n"
    );
    for item in items(review) {
        out.push_str(&format!("gauntlet:   - {}\n", one_line(&item.text)));
    }
    Some(out)
}

/// What to say when nothing was published, or `None` when something was (or
/// the review was skipped: the skip line says it all, "no findings" would
/// read as a clean bill of health).
pub(crate) fn empty_verdict(review: &Review) -> Option<String> {
    if !review.published.is_empty() || review.skipped.is_some() {
        return None;
    }
    Some(match counts(review) {
        None if !review.minor.is_empty() => {
            format!(
                "No findings published; {} (see below).",
                crate::fmt::plural(review.minor.len(), "minor finding", "minor findings")
            )
        }
        None => "No findings.".to_string(),
        Some(counts) => format!("No findings published, but coverage is incomplete: {counts} (see below)."),
    })
}
