//! [`RepoRead`] over files held in memory.

use super::{HeadFiles, RepoRead};
use std::collections::BTreeMap;

/// The repository at head as a map from path to text: for tests, benchmarks and
/// callers that already hold the files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory(pub BTreeMap<String, String>);

impl HeadFiles for Memory {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.0.get(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for Memory {
    fn text(&self, path: &str) -> Option<String> {
        self.0.get(path).cloned()
    }

    fn files(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}
