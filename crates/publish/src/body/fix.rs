//! The part of an inline comment about a reviewed fix: a one-click suggestion
//! where the host has them and the fix fits, else the patch described.

use crate::host::Anchor;
use crate::suggest::{Dialect, ReviewedFix};
use gauntlet_report::markdown::text;
use std::fmt::Write as _;

/// Lines and characters of a patch shown in a comment when it is described
/// rather than suggested; a longer one is only mentioned.
pub const PATCH_LINES: usize = 40;
pub const PATCH_CHARS: usize = 4_000;

/// The section of an inline comment about `fix`: the host's suggestion block when
/// the fix converged, fits, and the comment sits at `placed` (the lines the
/// suggestion replaces), otherwise a labelled diff or a short note.
///
/// The patch is model text: it only ever appears inside a fence longer than any
/// backtick run it holds, where hosts render no HTML, links or mentions, and
/// below the marker line, which is the only line markers are read from.
pub fn fix(fix: &ReviewedFix, dialect: Dialect, placed: Option<&Anchor>) -> String {
    let rounds = plural(fix.rounds, "round", "rounds");
    let how = format!("{} after {rounds}", text(&fix.exit));
    if !fix.converged {
        return format!(
            "**A fix was attempted** but did not survive adversarial review ({how}), so none is proposed here; \
             `gauntlet fix` on this branch shows the best attempt and the objections left.\n\n"
        );
    }
    let suggestion = match &fix.fit {
        Ok(s) => s,
        Err(why) => return described(fix, &how, &why.to_string()),
    };
    let lines = plural(suggestion.changed, "line", "lines");
    match (dialect, placed) {
        (Dialect::GitHub, Some(at)) if at.start == suggestion.anchor.start && at.line == suggestion.anchor.line => {
            let head = format!("**Suggested fix** ({lines}); it survived adversarial review ({how}):\n\n");
            head + &suggestion_block("suggestion", &suggestion.lines)
        }
        (Dialect::GitLab, Some(at)) if (suggestion.anchor.start..=suggestion.anchor.line).contains(&at.line) => {
            let (above, below) = (at.line - suggestion.anchor.start, suggestion.anchor.line - at.line);
            let head = format!("**Suggested fix** ({lines}); it survived adversarial review ({how}):\n\n");
            head + &suggestion_block(&format!("suggestion:-{above}+{below}"), &suggestion.lines)
        }
        (Dialect::Plain, _) => format!(
            "**Proposed fix, reviewed** ({lines}): it survived adversarial review ({how}). This host has no \
             one-click suggestions; apply the patch below by hand, or run `gauntlet fix --apply` on this branch.\n\n{}",
            gauntlet_report::markdown::fenced_as("diff", &fix.patch)
        ),
        _ => described(fix, &how, "this comment was opened before the fix, on lines it cannot replace"),
    }
}

/// A converged fix that is not a suggestion: why, and the patch when it is short.
fn described(fix: &ReviewedFix, how: &str, why: &str) -> String {
    let count = fix.patch.lines().count();
    let mut out = format!(
        "**A reviewed fix is available** ({how}), not offered as a suggestion: {}.",
        text(why.trim_end_matches('.'))
    );
    if count <= PATCH_LINES && fix.patch.len() <= PATCH_CHARS {
        out.push_str(" The patch:\n\n");
        out.push_str(&gauntlet_report::markdown::fenced_as("diff", &fix.patch));
    } else {
        let _ = write!(out, " Its patch has {count} lines: run `gauntlet fix` on this branch to get it.\n\n");
    }
    out
}

/// A suggestion block: `lines` exactly (an empty list deletes the commented
/// lines), fenced longer than any backtick run they hold.
fn suggestion_block(info: &str, lines: &[String]) -> String {
    let longest = lines.iter().flat_map(|l| l.split(|c| c != '`')).map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat((longest + 1).max(3));
    let mut out = format!("{ticks}{info}\n");
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    let _ = write!(out, "{ticks}\n\n");
    out
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
