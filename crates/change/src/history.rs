//! The past of the lines a change touches: `git log -L` over line ranges, and one
//! commit read whole (for drafting a rule from a fix).

use crate::{ChangeError, git::Git};

/// One commit that touched some of the lines asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineCommit {
    pub sha: String,
    pub author: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub subject: String,
    pub body: String,
    /// What the commit did to those lines (the `git log -L` diff), as git printed it.
    pub patch: String,
}

// Separators git is asked to print between records and fields: control characters
// that cannot occur in a subject line and are vanishingly rare in bodies.
const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';
const END_OF_HEADER: char = '\u{1d}';
const FORMAT: &str = "--format=%x1e%H%x1f%an%x1f%ct%x1f%s%x1f%b%x1d";

impl Git {
    /// Commits reachable from `rev` that touched `ranges` (1-based, inclusive lines of
    /// `path` as it is at `rev`), newest first, committed at or after `since` (epoch
    /// seconds), at most `max`.
    pub fn line_log(
        &self,
        rev: &str,
        path: &str,
        ranges: &[(u32, u32)],
        since: Option<i64>,
        max: usize,
    ) -> Result<Vec<LineCommit>, ChangeError> {
        if ranges.is_empty() {
            return Ok(Vec::new());
        }
        let mut args: Vec<String> = vec!["log".into(), FORMAT.into(), format!("--max-count={max}")];
        if let Some(since) = since {
            args.push(format!("--since=@{since}"));
        }
        // `-L` takes the path after a colon; a `:` in the path itself is fine since
        // git splits at the first colon after the range.
        args.extend(ranges.iter().map(|(start, end)| format!("-L{start},{end}:{path}")));
        args.push(rev.into());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.run(&refs)?;
        Ok(parse_log(&String::from_utf8_lossy(&out)))
    }

    /// Whether any commit reachable from `rev` since `since` (epoch seconds) whose
    /// message `wanted` accepts may have changed one of `paths`: a quick look,
    /// in-process, that lets [`Git::line_log`] be skipped when nothing could turn up.
    /// A commit lacking a path counts as changing it (the file may have had another
    /// name). `None` when the answer would take long (more than `max` commits in the
    /// window) or cannot be had in-process: look the long way then.
    pub fn wanted_commit_touches(
        &self,
        rev: &str,
        paths: &[&str],
        since: i64,
        wanted: &dyn Fn(&str) -> bool,
        max: usize,
    ) -> Option<bool> {
        self.store()?.wanted_commit_touches(rev, paths, since, wanted, max)
    }

    /// Subjects of the commits in `base..head`, merges left out; empty when either
    /// end is not a commit (the index or working tree as head).
    pub fn commit_subjects(&self, base: &str, head: &str) -> Vec<String> {
        if let Some(subjects) = self.store().and_then(|s| s.subjects(base, head)) {
            return subjects;
        }
        let range = format!("{base}..{head}");
        match self.run(&["log", "--format=%s", "--no-merges", &range, "--"]) {
            Ok(out) => String::from_utf8_lossy(&out).lines().map(str::to_string).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The whole messages (subject and body) of the commits in `base..head`, newest
    /// first, merges left out: what the commits say the change does. Empty when
    /// git cannot tell.
    pub fn commit_messages(&self, base: &str, head: &str) -> Vec<String> {
        let range = format!("{base}..{head}");
        match self.run(&["log", "--format=%B%x1e", "--no-merges", &range, "--"]) {
            Ok(out) => String::from_utf8_lossy(&out)
                .split('\x1e')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Committer time of `rev`, seconds since the epoch.
    pub fn commit_time(&self, rev: &str) -> Result<i64, ChangeError> {
        if let Some(time) = self.store().and_then(|s| s.commit_time(rev)) {
            return Ok(time);
        }
        let out = self.run(&["log", "-1", "--format=%ct", rev, "--"])?;
        let text = String::from_utf8_lossy(&out);
        text.trim()
            .parse()
            .map_err(|_| ChangeError::Git { args: format!("log -1 --format=%ct {rev}"), stderr: text.into_owned() })
    }

    /// One commit's metadata (no patch): author, time, subject and body.
    pub fn commit_info(&self, rev: &str) -> Result<LineCommit, ChangeError> {
        let out = self.run(&["log", "-1", FORMAT, rev, "--"])?;
        parse_log(&String::from_utf8_lossy(&out))
            .into_iter()
            .next()
            .ok_or_else(|| ChangeError::BadRevision { rev: rev.to_string() })
    }
}

/// Split `git log` output printed with [`FORMAT`] into commits.
fn parse_log(out: &str) -> Vec<LineCommit> {
    out.split(RECORD)
        .filter(|r| !r.trim().is_empty())
        .filter_map(|record| {
            let (header, patch) = record.split_once(END_OF_HEADER).unwrap_or((record, ""));
            let mut fields = header.splitn(5, FIELD);
            let sha = fields.next()?.trim().to_string();
            let author = fields.next()?.to_string();
            let time = fields.next()?.trim().parse().ok()?;
            let subject = fields.next()?.to_string();
            let body = fields.next().unwrap_or("").trim().to_string();
            Some(LineCommit { sha, author, time, subject, body, patch: patch.trim_matches('\n').to_string() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_records_split_into_commits_with_their_line_patches() {
        let out = "\u{1e}abc\u{1f}Ann\u{1f}100\u{1f}Fix c\u{1f}why\n\u{1d}\n\ndiff --git a/f b/f\n@@ -3,1 +3,1 @@\n-c\n+C\n\
                   \u{1e}def\u{1f}Bo\u{1f}50\u{1f}init\u{1f}\u{1d}\n\ndiff --git a/f b/f\n";
        let commits = parse_log(out);
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].sha, "abc");
        assert_eq!(commits[0].subject, "Fix c");
        assert_eq!(commits[0].body, "why");
        assert_eq!(commits[0].time, 100);
        assert!(commits[0].patch.starts_with("diff --git") && commits[0].patch.ends_with("+C"));
        assert_eq!(commits[1].body, "");
    }
}
