//! Where the files that decide how a change is reviewed are read from: the
//! repository's rule files, `gauntlet.lock`, `.gitattributes` (which marks files
//! generated, so ignored, and at any depth tells git which files are binary, so
//! never shown to a model), the guidance files and the feedback export.
//!
//! A local `review` reads them from the user's own checkout: the user reviews
//! with the rules they are writing. `gauntlet ci` reads them, like
//! `gauntlet.toml`, from the base commit's tree: the head is the pull request
//! author's, and a change must not be able to decide its own review (turn the
//! reviewers off and re-lock, mark its files generated, start a new era of the
//! record of precision, hide a file with `-diff`). Its changes to these files take
//! effect once merged. For git's own reading of attributes, `ci` runs every git
//! command with `--attr-source` set to the base (`Git::attributes_from`).

use anyhow::{Context as _, Result};
use gauntlet_change::{Change, Snapshot, git::Git};
use gauntlet_review::guidance;
use gauntlet_review::rules::{REPO_DIR, lock};
use std::path::PathBuf;

/// The tree the files that govern a review are read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Trusted {
    /// The checkout (`review`, `reviewers`, `rules`): rule files and the lock on
    /// disk; `.gitattributes` and guidance as the change has them.
    #[default]
    Local,
    /// The base commit (`ci`), by its full sha.
    Base(String),
}

impl Trusted {
    /// Where `.gitattributes` and guidance are read for `change`.
    pub fn snapshot(&self, change: &Change) -> Snapshot {
        match self {
            Trusted::Local => change.snapshot.clone(),
            Trusted::Base(commit) => Snapshot::Commit(commit.clone()),
        }
    }

    /// The text of `path` (relative to the repository's root), `None` when absent.
    pub fn read(&self, git: &Git, path: &str) -> Result<Option<String>> {
        match self {
            Trusted::Local => {
                let on_disk = git.root().join(path);
                match std::fs::read_to_string(&on_disk) {
                    Ok(text) => Ok(Some(text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(e).with_context(|| format!("reading {}", on_disk.display())),
                }
            }
            Trusted::Base(commit) => {
                let bytes = git.read(&Snapshot::Commit(commit.clone()), path)?;
                Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
            }
        }
    }

    /// The repository's own rule files (`.gauntlet/reviewers/*.md`) at the base,
    /// as `(path, text)` sorted by path; `None` for the checkout, which the rules
    /// loader reads from disk itself.
    pub fn rule_files(&self, git: &Git) -> Result<Option<Vec<(PathBuf, String)>>> {
        let Trusted::Base(commit) = self else { return Ok(None) };
        let snapshot = Snapshot::Commit(commit.clone());
        let prefix = format!("{REPO_DIR}/");
        let paths: Vec<String> = git
            .list_files(&snapshot)?
            .into_iter()
            .filter(|p| p.strip_prefix(&prefix).is_some_and(|name| !name.contains('/') && name.ends_with(".md")))
            .collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let texts = git.read_many(&snapshot, &refs)?;
        let files = paths
            .iter()
            .zip(texts)
            .filter_map(|(path, bytes)| Some((PathBuf::from(path), String::from_utf8_lossy(&bytes?).into_owned())));
        Ok(Some(files.collect()))
    }

    /// Where the lock was read, for messages.
    pub fn describe(&self, git: &Git) -> String {
        match self {
            Trusted::Local => git.root().display().to_string(),
            Trusted::Base(commit) => format!("the base commit {}", crate::commands::ci::short(commit)),
        }
    }
}

/// Whether `path` is one of the files that decide how a change is reviewed.
pub fn governs(path: &str) -> bool {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    let guidance = guidance::NAMES.iter().any(|g| if g.contains('/') { path == *g } else { name == *g });
    // A `.gitattributes` at any depth says what git treats as binary below it.
    let attributes = name == ".gitattributes";
    ["gauntlet.toml", lock::FILE_NAME].contains(&path) || attributes || path.starts_with(".gauntlet/") || guidance
}

/// The files that govern a review which the pull request (`merge_base..head`)
/// adds, changes or removes: what the overview says was not applied.
pub fn changed_by(git: &Git, merge_base: &str, head: &str) -> Result<Vec<String>> {
    let out = git.run(&["diff", "--name-only", "-z", "--no-renames", merge_base, head])?;
    let mut paths: Vec<String> = out
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| governs(p))
        .collect();
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::governs;

    #[test]
    fn the_files_that_decide_a_review_are_told_from_the_code_it_reviews() {
        for path in [
            "gauntlet.toml",
            "gauntlet.lock",
            ".gitattributes",
            "src/.gitattributes",
            ".gauntlet/reviewers/correctness.md",
            ".gauntlet/feedback.jsonl",
            "REVIEW.md",
            "src/api/AGENTS.md",
            ".github/copilot-instructions.md",
        ] {
            assert!(governs(path), "{path}");
        }
        for path in ["src/gauntlet.toml", "docs/gauntlet.lock.md", "src/main.rs", "x/.gauntlet/reviewers/a.md"] {
            assert!(!governs(path), "{path}");
        }
    }
}
