//! [`RepoRead`] over a git snapshot.

use super::RepoRead;
use crate::ground::HeadFiles;
use gauntlet_change::{Change, ChangeError, Snapshot, git::Git};
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

/// The repository at the change's head: changed files from the change itself, the
/// rest read through git on demand (and cached).
pub struct RepoHead<'a> {
    git: &'a Git,
    snapshot: Snapshot,
    change: &'a Change,
    files: BTreeSet<String>,
    cache: Mutex<HashMap<String, Option<String>>>,
}

impl<'a> RepoHead<'a> {
    pub fn new(git: &'a Git, change: &'a Change) -> Result<RepoHead<'a>, ChangeError> {
        let mut files: BTreeSet<String> = git.list_files(&change.snapshot)?.into_iter().collect();
        // A patch's new files may not be on disk; they exist at its head all the same.
        files.extend(change.files.iter().filter(|f| f.head_text.is_some()).map(|f| f.diff.path().to_string()));
        Ok(RepoHead { git, snapshot: change.snapshot.clone(), change, files, cache: Mutex::new(HashMap::new()) })
    }
}

impl HeadFiles for RepoHead<'_> {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.text(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for RepoHead<'_> {
    fn text(&self, path: &str) -> Option<String> {
        if let Some(f) = self.change.file(path) {
            return f.head_text.clone();
        }
        if !self.files.contains(path) {
            return None;
        }
        let mut cache = self.cache.lock().expect("head cache lock");
        cache
            .entry(path.to_string())
            .or_insert_with(|| {
                let bytes = self.git.read(&self.snapshot, path).ok().flatten()?;
                String::from_utf8(bytes).ok()
            })
            .clone()
    }
}
