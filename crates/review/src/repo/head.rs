//! [`RepoRead`] over a git snapshot.

use super::{HeadFiles, RepoRead};
use crate::secrets::Masker;
use gauntlet_change::{Change, ChangeError, Snapshot, git::Git};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// The repository at the change's head: changed files from the change itself, the
/// rest read through git on demand (and cached).
pub struct RepoHead<'a> {
    git: &'a Git,
    snapshot: Snapshot,
    change: &'a Change,
    files: BTreeSet<String>,
    /// Symbolic links at head and the target each stores.
    links: BTreeMap<String, String>,
    cache: Mutex<HashMap<String, Option<String>>>,
    /// Masks secrets in the files read through git (changed files come masked).
    masker: Option<Arc<Masker>>,
}

impl<'a> RepoHead<'a> {
    pub fn new(git: &'a Git, change: &'a Change) -> Result<RepoHead<'a>, ChangeError> {
        let (files, links) = git.list_files_and_links(&change.snapshot)?;
        let mut files: BTreeSet<String> = files.into_iter().collect();
        // A patch's new files may not be on disk; they exist at its head all the same.
        files.extend(change.files.iter().filter(|f| f.head_text.is_some()).map(|f| f.diff.path().to_string()));
        let links = links.into_iter().collect();
        Ok(RepoHead {
            git,
            snapshot: change.snapshot.clone(),
            change,
            files,
            links,
            cache: Mutex::new(HashMap::new()),
            masker: None,
        })
    }

    /// Mask secrets in every file read through git.
    pub fn masking(mut self, masker: Arc<Masker>) -> Self {
        self.masker = Some(masker);
        self
    }

    fn decode(&self, bytes: Option<Vec<u8>>) -> Option<String> {
        let text = String::from_utf8(bytes?).ok()?;
        Some(match &self.masker {
            Some(m) => m.text(&text).0,
            None => text,
        })
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
            .or_insert_with(|| self.decode(self.git.read(&self.snapshot, path).ok().flatten()))
            .clone()
    }

    fn files(&self) -> Vec<&str> {
        self.files.iter().map(String::as_str).collect()
    }

    fn link_target(&self, path: &str) -> Option<String> {
        self.links.get(path).cloned()
    }

    /// Searches read many files once: one batch, not cached (the cache is for the
    /// few files validators keep coming back to).
    fn texts(&self, paths: &[&str]) -> Vec<Option<String>> {
        self.read_batch(paths, true)
    }

    /// The symbol index's name search runs over every file at head; masking them all
    /// would cost more than the search, and only the files it picks are shown.
    fn unmasked_texts(&self, paths: &[&str]) -> Vec<Option<String>> {
        self.read_batch(paths, false)
    }
}

impl RepoHead<'_> {
    fn read_batch(&self, paths: &[&str], masked: bool) -> Vec<Option<String>> {
        let mut out: Vec<Option<String>> = vec![None; paths.len()];
        let mut batch = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            match self.change.file(path) {
                Some(f) => out[i] = f.head_text.clone(),
                None if self.files.contains(*path) => batch.push(i),
                None => {}
            }
        }
        let wanted: Vec<&str> = batch.iter().map(|i| paths[*i]).collect();
        if let Ok(read) = self.git.read_many(&self.snapshot, &wanted) {
            for (i, bytes) in batch.into_iter().zip(read) {
                out[i] = if masked { self.decode(bytes) } else { bytes.and_then(|b| String::from_utf8(b).ok()) };
            }
        }
        out
    }
}
