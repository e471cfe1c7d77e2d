//! The commits to mine, read with one `git log`: ids, parents, commit time,
//! message and the changed lines of each file.

use gauntlet_change::ChangeError;
use gauntlet_change::git::Git;

/// Which part of the history to read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Window {
    /// Everything reachable from HEAD.
    #[default]
    All,
    /// Commits since a date git understands (`2024-01-01`, `6 months ago`).
    Since(String),
    /// The last N commits.
    Last(usize),
}

/// One commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub id: String,
    pub parents: Vec<String>,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    /// `Name <email>` of the author.
    pub author: String,
    pub message: String,
    /// (path, added, removed) against the first parent; binary files count 0.
    pub files: Vec<(String, usize, usize)>,
}

impl Commit {
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }

    pub fn is_merge(&self) -> bool {
        self.parents.len() > 1
    }

    pub fn short(&self) -> &str {
        &self.id[..self.id.len().min(12)]
    }
}

const RECORD: char = '\u{1e}';
const FIELD: char = '\u{1f}';
const END: char = '\u{1d}';

/// Parse the log written with [`FORMAT`].
fn parse(text: &str) -> Vec<Commit> {
    text.split(RECORD)
        .filter(|r| !r.trim().is_empty())
        .filter_map(|record| {
            let (head, stat) = record.split_once(END)?;
            let mut fields = head.splitn(5, FIELD);
            let id = fields.next()?.trim().to_string();
            let parents = fields.next()?.split_whitespace().map(str::to_string).collect();
            let time = fields.next()?.trim().parse().ok()?;
            let author = fields.next()?.to_string();
            let message = fields.next()?.trim_end().to_string();
            let files = stat.lines().filter_map(numstat).collect();
            Some(Commit { id, parents, time, author, message, files })
        })
        .collect()
}

fn numstat(line: &str) -> Option<(String, usize, usize)> {
    let mut parts = line.splitn(3, '\t');
    let added = parts.next()?;
    let removed = parts.next()?;
    let path = parts.next()?.to_string();
    Some((path, added.parse().unwrap_or(0), removed.parse().unwrap_or(0)))
}

const FORMAT: &str = "--format=%x1e%H%x1f%P%x1f%ct%x1f%an <%ae>%x1f%B%x1d";

/// The commits of `window` reachable from `head`, newest first (git's order).
pub fn read(git: &Git, head: &str, window: &Window) -> Result<Vec<Commit>, ChangeError> {
    let mut args = vec![
        "-c".to_string(),
        "core.quotePath=false".into(),
        "log".into(),
        FORMAT.into(),
        "--numstat".into(),
        "--no-renames".into(),
        "--no-color".into(),
        "--encoding=UTF-8".into(),
    ];
    match window {
        Window::All => {}
        Window::Since(date) => args.push(format!("--since={date}")),
        Window::Last(n) => args.push(format!("--max-count={n}")),
    }
    args.push(head.to_string());
    args.push("--".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = git.run(&args)?;
    Ok(parse(&String::from_utf8_lossy(&out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_parents_time_message_and_numstat() {
        let text = "\u{1e}aaa\u{1f}p1 p2\u{1f}100\u{1f}A <a@b>\u{1f}Merge x\n\nbody\n\u{1d}\n\
                    \u{1e}bbb\u{1f}p1\u{1f}90\u{1f}B <b@c>\u{1f}Fix y\n\u{1d}\n\n3\t1\tsrc/a.py\n-\t-\tlogo.png\n";
        let commits = parse(text);
        assert_eq!(commits.len(), 2);
        assert!(commits[0].is_merge() && commits[0].files.is_empty());
        assert_eq!(commits[0].message, "Merge x\n\nbody");
        assert_eq!(commits[1].subject(), "Fix y");
        assert_eq!(commits[1].time, 90);
        assert_eq!(commits[1].author, "B <b@c>");
        assert_eq!(commits[1].files, vec![("src/a.py".into(), 3, 1), ("logo.png".into(), 0, 0)]);
    }
}
