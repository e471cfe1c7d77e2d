//! History context: for each changed file, the commits that touched the changed
//! lines (their base-side ranges) within a window before the base, with fix and
//! revert commits flagged and shown with what they did to those lines.

use super::{Block, ContextError, ContextKind, Gathered, Sources, cut};
use crate::shown::normalize;
use gauntlet_change::{ChangedFile, FileStatus, LineCommit, LineKind, Snapshot};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;

pub const DEFAULT_DAYS: u32 = 180;

/// Bounds that keep the context (and the git work) proportionate.
const MAX_FILES: usize = 40;
const MAX_RANGES_PER_FILE: usize = 30;
const MAX_COMMITS_PER_FILE: usize = 20;
const MAX_PATCH_BYTES: usize = 4_000;
const MAX_BODY_BYTES: usize = 800;
/// Commits the quick look before the line histories reads at most.
const MAX_SCANNED_COMMITS: usize = 5_000;

/// Why a commit matters to the history reviewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    Fix,
    Revert,
}

fn fix_pattern() -> &'static Regex {
    static FIX: OnceLock<Regex> = OnceLock::new();
    FIX.get_or_init(|| {
        Regex::new(
            r"(?i)^(fix|bugfix|hotfix)(\([^)]*\))?!?:|\b(fix(e[sd])?|bug ?fix|hotfix|regression|crash(es|ed)?|patch(e[sd])?)\b",
        )
        .expect("fix pattern is valid")
    })
}

/// Whether a commit message marks a fix or a revert.
pub fn flag(commit: &LineCommit) -> Option<Flag> {
    if commit.subject.starts_with("Revert \"") || commit.body.contains("This reverts commit") {
        return Some(Flag::Revert);
    }
    let fix = fix_pattern();
    (fix.is_match(&commit.subject) || fix.is_match(&commit.body)).then_some(Flag::Fix)
}

/// Whether a whole raw commit message might be flagged by [`flag`]: true for every
/// message [`flag`] marks (and perhaps a few more), so a quick look that finds none
/// can be trusted.
fn may_flag(message: &str) -> bool {
    // git joins the subject's lines with a space, so `Revert` may end a line here.
    let revert = message.match_indices("Revert").any(|(i, w)| message[i + w.len()..].trim_start().starts_with('"'));
    revert || message.contains("This reverts commit") || fix_pattern().is_match(message)
}

pub(super) fn gather(src: &Sources<'_>) -> Result<Gathered, ContextError> {
    let git = src.git;
    // History is read from the base commit; without one (a patch outside history)
    // HEAD stands in, and without that there is no history at all.
    let base = match git.try_resolve(&src.change.base)? {
        Some(sha) => sha,
        None => match git.try_resolve("HEAD")? {
            Some(sha) => sha,
            None => return Ok(Gathered::Nothing("the repository has no commits to look back on".into())),
        },
    };
    let since = git.commit_time(&base)? - i64::from(src.config.history_days) * 86_400;
    let nothing = || {
        Gathered::Nothing(format!(
            "no fix or revert commit touched the changed lines in the {} days before the base",
            src.config.history_days
        ))
    };
    // Line histories cost a git process per file. When no fix or revert commit in the
    // window touched these files at all, none can have touched their lines.
    let files: Vec<&ChangedFile> = src.change.files.iter().filter(|f| has_base_side(f)).take(MAX_FILES).collect();
    let old_paths: Vec<&str> = files.iter().map(|f| f.diff.old_path.as_deref().unwrap_or(f.diff.path())).collect();
    if old_paths.is_empty()
        || git.wanted_commit_touches(&base, &old_paths, since, &may_flag, MAX_SCANNED_COMMITS) == Some(false)
    {
        return Ok(nothing());
    }
    let mut blocks = Vec::new();
    let mut any_flagged = false;
    for (file, old_path) in files.into_iter().zip(old_paths) {
        let Some(bytes) = git.read(&Snapshot::Commit(base.clone()), old_path)? else {
            continue;
        };
        let old_len = String::from_utf8_lossy(&bytes).lines().count() as u32;
        let ranges = base_ranges(file, old_len);
        let commits = git.line_log(&base, old_path, &ranges, Some(since), MAX_COMMITS_PER_FILE)?;
        if commits.is_empty() {
            continue;
        }
        any_flagged |= commits.iter().any(|c| flag(c).is_some());
        blocks.push(Block {
            kind: ContextKind::History,
            label: format!("history {}", file.diff.path()),
            text: describe(file, &commits, src.config.history_days),
            about: vec![file.diff.path().to_string()],
            code: Vec::new(),
        });
    }
    if !any_flagged {
        return Ok(nothing());
    }
    Ok(Gathered::Found(blocks))
}

/// Files whose changed lines existed at the base (not added, not binary).
fn has_base_side(file: &ChangedFile) -> bool {
    !file.diff.binary && !matches!(file.diff.status, FileStatus::Added) && !file.diff.hunks.is_empty()
}

/// The base-side line ranges a file's hunks touch. A pure insertion touches no base
/// line, so the lines on each side of the insertion point stand for it.
pub fn base_ranges(file: &ChangedFile, old_len: u32) -> Vec<(u32, u32)> {
    if old_len == 0 {
        return Vec::new();
    }
    let mut ranges: Vec<(u32, u32)> = file
        .diff
        .hunks
        .iter()
        .map(|h| {
            // Only changed lines count; the hunk's context lines were not touched.
            let removed: Vec<u32> =
                h.lines.iter().filter(|l| l.kind == LineKind::Removed).filter_map(|l| l.old).collect();
            match (removed.first(), removed.last()) {
                (Some(first), Some(last)) => (*first, *last),
                _ => {
                    let before = insertion_point(h);
                    (before.max(1), (before + 1).min(old_len).max(1))
                }
            }
        })
        .map(|(s, e)| (s.min(old_len), e.min(old_len)))
        .collect();
    ranges.sort_unstable();
    ranges.dedup();
    ranges.truncate(MAX_RANGES_PER_FILE);
    ranges
}

/// The base line after which a hunk without removals inserts its lines.
fn insertion_point(h: &gauntlet_change::Hunk) -> u32 {
    let mut last_old = h.old_start.saturating_sub(1);
    for l in &h.lines {
        match l.kind {
            LineKind::Context => last_old = l.old.unwrap_or(last_old),
            LineKind::Added => return last_old,
            LineKind::Removed => {}
        }
    }
    last_old
}

/// The block text: one line per commit, flagged ones with their message and patch,
/// and a note where the change removes lines a flagged commit added.
fn describe(file: &ChangedFile, commits: &[LineCommit], days: u32) -> String {
    let removed: BTreeSet<String> = file
        .diff
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == LineKind::Removed)
        .map(|l| normalize(&l.text))
        .filter(|t| t.len() >= 4)
        .collect();
    let mut out = format!(
        "Commits that touched the changed lines of {} in the {days} days before the base, newest first:\n",
        file.diff.path()
    );
    for c in commits {
        let short = &c.sha[..c.sha.len().min(12)];
        let tag = match flag(c) {
            Some(Flag::Fix) => " [fix]",
            Some(Flag::Revert) => " [revert]",
            None => "",
        };
        out.push_str(&format!("\n{short} {} {}{tag}: {}\n", date(c.time), c.author, c.subject));
        if flag(c).is_none() {
            continue;
        }
        if !c.body.is_empty() {
            out.push_str(&format!("{}\n", cut(&c.body, MAX_BODY_BYTES)));
        }
        let undone: Vec<&str> = added_lines(&c.patch).filter(|l| removed.contains(&normalize(l))).collect();
        if !undone.is_empty() {
            out.push_str(&format!("This change removes lines that {short} added:\n"));
            for l in undone {
                out.push_str(&format!("    {}\n", l.trim()));
            }
        }
        out.push_str(&format!("What {short} did to these lines:\n{}\n", cut(&c.patch, MAX_PATCH_BYTES)));
    }
    out
}

/// Lines a `git log -L` patch adds (without the `+` marker).
fn added_lines(patch: &str) -> impl Iterator<Item = &str> {
    patch.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).map(|l| &l[1..])
}

/// `YYYY-MM-DD` (UTC) of an epoch time, without a date library.
pub fn date(epoch: i64) -> String {
    // Howard Hinnant's days-to-civil algorithm.
    let z = epoch.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_look_accepts_every_message_flag_marks() {
        // (raw message, git's %s, git's %b)
        for (raw, subject, body) in [
            ("Revert\n\"Add pagination\"\n", "Revert \"Add pagination\"", ""),
            ("Revert\r\n\"Add pagination\"\r\n", "Revert \"Add pagination\"", ""),
            ("Tidy\n\nThis reverts commit abc.\n", "Tidy", "This reverts commit abc."),
            ("Bug\nfix for paging\n", "Bug fix for paging", ""),
            ("fix(pager): off by one\n", "fix(pager): off by one", ""),
            ("Tidy\n\nCrashed on empty input\n", "Tidy", "Crashed on empty input"),
        ] {
            assert!(flag(&commit(subject, body)).is_some(), "{subject:?}");
            assert!(may_flag(raw), "{raw:?}");
        }
        assert!(!may_flag("Tidy the pager\n\nRename a variable.\n"));
    }

    fn commit(subject: &str, body: &str) -> LineCommit {
        LineCommit {
            sha: "a".repeat(40),
            author: "Ann".into(),
            time: 0,
            subject: subject.into(),
            body: body.into(),
            patch: String::new(),
        }
    }

    #[test]
    fn fix_and_revert_commits_are_flagged_and_plain_ones_are_not() {
        assert_eq!(flag(&commit("Fix off-by-one in pagination", "")), Some(Flag::Fix));
        assert_eq!(flag(&commit("fix(api): clamp page", "")), Some(Flag::Fix));
        assert_eq!(flag(&commit("Handle empty list", "Fixes #12")), Some(Flag::Fix));
        assert_eq!(flag(&commit("Revert \"Add cache\"", "This reverts commit abc.")), Some(Flag::Revert));
        assert_eq!(flag(&commit("Add pagination", "prefix handling")), None);
        assert_eq!(flag(&commit("Rename fixture files", "")), None);
    }

    #[test]
    fn epoch_dates_are_civil_utc_dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_709_251_200), "2024-03-01");
        assert_eq!(date(951_782_400), "2000-02-29");
    }
}
