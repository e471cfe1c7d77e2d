//! Prior-feedback context: review comments humans left on earlier pull requests
//! that touched the changed files. Comments come from an export file
//! (`.gauntlet/feedback.jsonl`, one JSON object per line) or, in CI, from the code
//! host's API (cached by the caller); this module only parses and selects them.

use super::{Block, ContextError, ContextKind, Gathered, Sources, cut};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The export file, relative to the repository root.
pub const EXPORT_FILE: &str = ".gauntlet/feedback.jsonl";

/// Comments shown per changed file, and in all, newest first.
const MAX_PER_FILE: usize = 10;
const MAX_TOTAL: usize = 40;
const MAX_BODY_BYTES: usize = 1_200;

/// Comments gauntlet posted itself carry this marker; learning from its own output
/// would only echo it.
const OWN_MARKER: &str = "<!-- gauntlet";

/// One review comment on an earlier pull request.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Comment {
    /// The file the comment was left on (path in that pull request).
    pub path: String,
    pub body: String,
    /// Pull or merge request number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<u64>,
    /// The line it was left on, in that pull request's version of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// ISO 8601 time; comments are ordered newest first by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A finding of gauntlet's on an earlier pull request that someone allowed to
/// dismiss it dismissed with a reason. Only the host's own records, read through
/// the one definition of a counted dismissal, produce these: never an export
/// file, which anyone who can change the repository could write.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Dismissal {
    pub path: String,
    pub pr: u64,
    /// What the finding claimed.
    pub claim: String,
    pub reason: String,
}

/// Characters kept of a dismissal's reason and of the claim it answered.
const MAX_REASON_CHARS: usize = 200;
const MAX_CLAIM_CHARS: usize = 200;
/// Dismissals shown per changed file.
const MAX_DISMISSALS_PER_FILE: usize = 5;

/// One line of at most `max` characters: control characters and line breaks
/// become spaces, runs of spaces one.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let words: Vec<&str> = flat.split_whitespace().collect();
    let joined = words.join(" ");
    if joined.chars().count() <= max { joined } else { joined.chars().take(max).collect::<String>() + "…" }
}

/// Whether a comment's first non-blank line is a `/gauntlet` command: such
/// replies are dismissals, shown only when they count (see [`Dismissal`]).
fn is_command(body: &str) -> bool {
    body.lines().map(str::trim).find(|l| !l.is_empty()).is_some_and(|l| l.starts_with("/gauntlet"))
}

/// Parse JSON Lines; `source` names the file in errors. Blank lines and lines
/// starting with `#` are skipped.
pub fn parse_jsonl(source: &str, text: &str) -> Result<Vec<Comment>, ContextError> {
    let mut comments = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let comment: Comment = serde_json::from_str(line).map_err(|e| ContextError::Feedback {
            path: source.to_string(),
            line: i + 1,
            message: e.to_string(),
        })?;
        comments.push(comment);
    }
    Ok(comments)
}

/// Write comments as JSON Lines (the cache and export format).
pub fn to_jsonl(comments: &[Comment]) -> String {
    comments.iter().map(|c| serde_json::to_string(c).expect("comments serialise") + "\n").collect()
}

pub(super) fn gather(src: &Sources<'_>) -> Gathered {
    // A comment on a renamed file's old name still applies to it.
    let mut by_path: BTreeMap<&str, &str> = BTreeMap::new();
    for f in &src.change.files {
        by_path.insert(f.diff.path(), f.diff.path());
        if let Some(old) = &f.diff.old_path {
            by_path.entry(old.as_str()).or_insert(f.diff.path());
        }
    }
    let mut per_file: BTreeMap<&str, Vec<&Comment>> = BTreeMap::new();
    for c in &src.config.feedback {
        if c.body.contains(OWN_MARKER) || c.body.trim().is_empty() || is_command(&c.body) {
            continue;
        }
        if let Some(changed) = by_path.get(c.path.as_str()) {
            per_file.entry(changed).or_default().push(c);
        }
    }
    let mut dismissed: BTreeMap<&str, Vec<&Dismissal>> = BTreeMap::new();
    for d in &src.config.dismissals {
        if let Some(changed) = by_path.get(d.path.as_str()) {
            let list = dismissed.entry(changed).or_default();
            if list.len() < MAX_DISMISSALS_PER_FILE && !list.iter().any(|e| e.reason == d.reason && e.claim == d.claim)
            {
                list.push(d);
            }
        }
    }
    if per_file.is_empty() && dismissed.is_empty() {
        return Gathered::Nothing(format!(
            "no earlier review comment on the changed files (from {})",
            src.config.feedback_source
        ));
    }
    let mut blocks = Vec::new();
    for (path, list) in dismissed {
        blocks.push(Block {
            kind: ContextKind::Feedback,
            label: format!("dismissed findings on {path}"),
            text: list.iter().map(|d| describe_dismissal(d)).collect::<Vec<_>>().join("\n"),
            about: vec![path.to_string()],
            code: Vec::new(),
        });
    }
    let mut total = 0;
    for (path, mut comments) in per_file {
        // Newest first; comments without a time go last, in their file order.
        comments
            .sort_by(|a, b| b.created_at.is_some().cmp(&a.created_at.is_some()).then(b.created_at.cmp(&a.created_at)));
        comments.truncate(MAX_PER_FILE.min(MAX_TOTAL - total));
        total += comments.len();
        if comments.is_empty() {
            break;
        }
        blocks.push(Block {
            kind: ContextKind::Feedback,
            label: format!("earlier review comments on {path}"),
            text: comments.iter().map(|c| describe(c)).collect::<Vec<_>>().join("\n"),
            about: vec![path.to_string()],
            code: Vec::new(),
        });
    }
    Gathered::Found(blocks)
}

fn describe_dismissal(d: &Dismissal) -> String {
    format!(
        "--- PR #{} · {}\na maintainer dismissed a similar finding here: {}\n(the finding said: {})\n",
        d.pr,
        one_line(&d.path, MAX_CLAIM_CHARS),
        one_line(&d.reason, MAX_REASON_CHARS),
        one_line(&d.claim, MAX_CLAIM_CHARS)
    )
}

fn describe(c: &Comment) -> String {
    let mut head = Vec::new();
    if let Some(pr) = c.pr {
        head.push(format!("PR #{pr}"));
    }
    head.extend(c.author.clone());
    head.extend(c.created_at.as_deref().map(|t| t.chars().take(10).collect::<String>()));
    head.push(match c.line {
        Some(l) => format!("{}:{l}", c.path),
        None => c.path.clone(),
    });
    format!("--- {}\n{}\n", head.join(" · "), cut(c.body.trim(), MAX_BODY_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_export_line_is_named_with_its_number() {
        let err = parse_jsonl(".gauntlet/feedback.jsonl", "{\"path\":\"a\",\"body\":\"b\"}\n\n{\"body\":\"x\"}\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("feedback.jsonl line 3") && err.contains("path"), "{err}");
    }

    #[test]
    fn command_replies_are_not_ordinary_feedback_and_reasons_are_one_capped_line() {
        assert!(is_command("\n  /gauntlet dismiss the caller checks"));
        assert!(!is_command("Please see /gauntlet dismiss in the docs"));
        assert_eq!(one_line("a\n\n b\u{7}\tc", 10), "a b c");
        assert_eq!(one_line(&"x".repeat(300), MAX_REASON_CHARS).chars().count(), MAX_REASON_CHARS + 1);
    }

    #[test]
    fn export_lines_round_trip() {
        let c = Comment {
            path: "src/a.rs".into(),
            body: "Use the shared client".into(),
            pr: Some(7),
            line: Some(3),
            author: Some("alice".into()),
            created_at: Some("2025-01-02T03:04:05Z".into()),
            url: None,
        };
        assert_eq!(parse_jsonl("x", &to_jsonl(std::slice::from_ref(&c))).unwrap(), vec![c]);
    }
}
