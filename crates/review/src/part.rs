//! A changed file as one part of a (possibly split) change shows it.

use gauntlet_change::ChangedFile;

/// A file as one part shows it: whole (with its head text, when it has one), or
/// reduced to its hunks. Borrowed from the change: splitting copies no text.
#[derive(Clone, Copy, Debug)]
pub struct PartFile<'a> {
    pub file: &'a ChangedFile,
    pub whole: bool,
}

impl<'a> PartFile<'a> {
    pub fn path(&self) -> &'a str {
        self.file.diff.path()
    }
    /// The head text this part shows.
    pub fn head_text(&self) -> Option<&'a str> {
        if self.whole { self.file.head_text.as_deref() } else { None }
    }
    /// Why the head text is not shown, when it is not.
    pub fn unshown_reason(&self) -> Option<&'a str> {
        if self.whole { self.file.unreadable.as_deref() } else { Some(REDUCED) }
    }
}

/// Why a reduced file's content is not shown.
pub const REDUCED: &str = "too large to show whole; only its hunks are shown";
