//! The repository at the reviewed head, as every part of the review reads it.
//!
//! Grounding, gathered context, the tool sandbox and the pipeline all read code
//! through [`RepoRead`]; this module sits below all of them and uses none of them.

mod head;
mod memory;

pub use head::RepoHead;
pub use memory::Memory;

/// What grounding needs to know about the repository at head.
pub trait HeadFiles {
    /// Number of lines of `path` at head, or `None` when it is not a file there.
    fn line_count(&self, path: &str) -> Option<u32>;
}

/// Reading the repository at head: what grounding and validator context need.
pub trait RepoRead: HeadFiles + Send + Sync {
    /// Full text of `path` at head, if it is a text file there.
    fn text(&self, path: &str) -> Option<String>;
    /// Every file path at head, sorted: what tool listings and searches see. A
    /// snapshot's listing already leaves out what .gitignore excludes.
    fn files(&self) -> Vec<&str> {
        Vec::new()
    }
    /// The target stored by the symbolic link at `path`, when it is one.
    fn link_target(&self, _path: &str) -> Option<String> {
        None
    }
    /// The texts of many files, in order (one git process where the snapshot allows).
    fn texts(&self, paths: &[&str]) -> Vec<Option<String>> {
        paths.iter().map(|p| self.text(p)).collect()
    }
    /// [`RepoRead::texts`] before secret masking, for a search that only decides
    /// which files to read: nothing it returns may be shown to a model or a user.
    /// Reading the few files it picks through [`RepoRead::texts`] then masks them.
    fn unmasked_texts(&self, paths: &[&str]) -> Vec<Option<String>> {
        self.texts(paths)
    }
}
