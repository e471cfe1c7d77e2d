//! Repository guidance: the files in which a repository tells reviewers how it
//! wants to be reviewed. Read at head (at the base commit in `gauntlet ci`) from
//! the root and from every folder that holds a changed file (and its ancestors),
//! handed to reviewers and validator.

use gauntlet_change::{Change, ChangeError, Snapshot, git::Git};
use std::collections::BTreeSet;

/// Guidance file names, looked up in each folder.
pub const NAMES: [&str; 5] =
    ["AGENTS.md", "CLAUDE.md", "REVIEW.md", ".github/copilot-instructions.md", ".gauntlet/guidelines.md"];

/// Guidance larger than this is cut, with a note saying so (it is context, not code).
const MAX_BYTES: usize = 32 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guidance {
    pub path: String,
    pub text: String,
}

/// Candidate guidance paths for a change, root first, in a stable order.
pub fn candidate_paths(change: &Change) -> Vec<String> {
    let mut dirs = BTreeSet::from([String::new()]);
    for file in &change.files {
        let mut dir = file.diff.path();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            dirs.insert(format!("{parent}/"));
            dir = parent;
        }
    }
    let mut paths = Vec::new();
    for dir in &dirs {
        for name in NAMES {
            // `.github/` and `.gauntlet/` files only make sense at the root.
            if dir.is_empty() || !name.contains('/') {
                paths.push(format!("{dir}{name}"));
            }
        }
    }
    paths
}

/// Read the guidance files that exist at the change's head.
pub fn load(git: &Git, change: &Change) -> Result<Vec<Guidance>, ChangeError> {
    load_at(git, &change.snapshot, change)
}

/// The guidance files for `change` as they are at `snapshot` (`gauntlet ci`
/// reads them at the base commit: a pull request's own guidance applies once
/// merged).
pub fn load_at(git: &Git, snapshot: &Snapshot, change: &Change) -> Result<Vec<Guidance>, ChangeError> {
    let candidates = candidate_paths(change);
    let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
    let mut found = Vec::new();
    for (path, bytes) in candidates.iter().zip(git.read_many(snapshot, &refs)?) {
        if let Some(bytes) = bytes {
            let mut text = String::from_utf8_lossy(&bytes).into_owned();
            if text.len() > MAX_BYTES {
                let cut = (0..=MAX_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
                text.truncate(cut);
                text.push_str("\n[guidance truncated at 32 KiB]\n");
            }
            found.push(Guidance { path: path.clone(), text });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_change::{ChangedFile, FileDiff, FileStatus, Snapshot};

    fn change_of(paths: &[&str]) -> Change {
        let files = paths
            .iter()
            .map(|p| ChangedFile {
                diff: FileDiff {
                    old_path: Some(p.to_string()),
                    new_path: Some(p.to_string()),
                    status: FileStatus::Modified,
                    binary: false,
                    old_mode: None,
                    new_mode: None,
                    hunks: vec![],
                },
                head_text: Some(String::new()),
                unreadable: None,
            })
            .collect();
        Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
    }

    #[test]
    fn guidance_is_looked_up_at_root_and_in_each_changed_folder() {
        let paths = candidate_paths(&change_of(&["src/api/user.rs", "README.md"]));
        assert!(paths.contains(&"AGENTS.md".to_string()));
        assert!(paths.contains(&".gauntlet/guidelines.md".to_string()));
        assert!(paths.contains(&"src/REVIEW.md".to_string()));
        assert!(paths.contains(&"src/api/CLAUDE.md".to_string()));
        assert!(!paths.contains(&"src/.github/copilot-instructions.md".to_string()));
        assert_eq!(paths[0], "AGENTS.md", "root guidance comes first");
    }
}
