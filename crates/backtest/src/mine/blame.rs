//! `git blame` for the lines a fix touched: which commit wrote each line, and
//! where that line sits in that commit's own version of the file.
//!
//! Blame runs at the fix's parent with `-w` (whitespace-only changes are looked
//! through), `-M -C` (lines moved within or copied across files keep their
//! author) and the repository's `.git-blame-ignore-revs`, over a few lines more
//! than asked on each side (see [`WIDEN`]).

use gauntlet_change::git::Git;
use gauntlet_change::{ChangeError, Snapshot};
use std::path::Path;

/// One blamed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blamed {
    /// The commit that wrote the line.
    pub commit: String,
    /// The file's path in that commit.
    pub path: String,
    /// The line's number in that commit's version of the file.
    pub line: u32,
    /// The line's number in the blamed revision.
    pub at: u32,
    /// The commit lies outside the history blame could walk (a shallow clone's
    /// boundary). A root commit is no boundary: it wrote its lines.
    pub boundary: bool,
}

/// Parse `git blame --line-porcelain` output.
pub fn parse(text: &str) -> Vec<Blamed> {
    let mut out = Vec::new();
    let mut current: Option<Blamed> = None;
    for line in text.lines() {
        if line.starts_with('\t') {
            out.extend(current.take());
            continue;
        }
        let mut words = line.split(' ');
        let first = words.next().unwrap_or("");
        if current.is_none() && first.len() >= 40 && first.bytes().all(|b| b.is_ascii_hexdigit()) {
            let line = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
            let at = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
            current = Some(Blamed { commit: first.to_string(), path: String::new(), line, at, boundary: false });
            continue;
        }
        let Some(c) = current.as_mut() else { continue };
        if line == "boundary" {
            c.boundary = true;
        } else if let Some(path) = line.strip_prefix("filename ") {
            c.path = path.to_string();
        }
    }
    out
}

/// Lines blamed on each side of a requested run, so a moved or copied block is
/// judged whole: git counts a block as copied from another file only when the
/// part it blames holds at least 40 letters and digits, which one short line of a
/// copied function does not.
const WIDEN: u32 = 5;

/// Blame `lines` (1-based, any order) of `path` at `rev`. `ignore_revs` is a file
/// of commit ids blame looks through. Only the requested lines are returned; lines
/// of the root commit are its own (`--root`), not boundary lines.
pub fn blame(
    git: &Git,
    rev: &str,
    path: &str,
    lines: &[u32],
    ignore_revs: Option<&Path>,
) -> Result<Vec<Blamed>, ChangeError> {
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let text = git.read(&Snapshot::Commit(rev.to_string()), path)?.unwrap_or_default();
    let total = String::from_utf8_lossy(&text).lines().count() as u32;
    let mut wanted: Vec<u32> = lines.iter().copied().filter(|&l| l >= 1 && l <= total).collect();
    wanted.sort_unstable();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let mut widened: Vec<u32> =
        wanted.iter().flat_map(|&l| l.saturating_sub(WIDEN).max(1)..=(l + WIDEN).min(total)).collect();
    widened.sort_unstable();
    widened.dedup();
    let ranges: Vec<String> =
        super::hunks::runs(&widened).into_iter().flat_map(|(a, b)| ["-L".to_string(), format!("{a},{b}")]).collect();
    let mut args: Vec<&str> =
        vec!["-c", "core.quotePath=false", "blame", "--root", "--line-porcelain", "-w", "-M", "-C"];
    let ignore = ignore_revs.map(|p| p.to_string_lossy().into_owned());
    if let Some(file) = &ignore {
        args.extend(["--ignore-revs-file", file]);
    }
    args.extend(ranges.iter().map(String::as_str));
    args.extend([rev, "--", path]);
    let out = git.run(&args)?;
    let mut blamed = parse(&String::from_utf8_lossy(&out));
    blamed.retain(|b| wanted.binary_search(&b.at).is_ok());
    Ok(blamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_porcelain_gives_commit_path_and_both_line_numbers() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let text = format!(
            "{a} 3 4 2\nauthor X\nsummary s\nfilename src/old.py\n\treturn True\n\
             {a} 4 5\nauthor X\nsummary s\nfilename src/old.py\n\tpass\n\
             {b} 1 9 1\nauthor Y\nboundary\nfilename src/new.py\n\tdef f():\n"
        );
        let got = parse(&text);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], Blamed { commit: a.clone(), path: "src/old.py".into(), line: 3, at: 4, boundary: false });
        assert_eq!((got[1].line, got[1].at), (4, 5));
        assert_eq!((got[2].commit.as_str(), got[2].boundary, got[2].path.as_str()), (b.as_str(), true, "src/new.py"));
    }
}
