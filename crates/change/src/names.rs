//! Files whose names are not valid UTF-8.
//!
//! git writes such a name quoted, with octal escapes, and the diff parser cannot
//! turn it into a path. Rather than fail the whole change on one file, the diff
//! is parsed again one file at a time, and each file whose name does not decode
//! becomes an entry of its own: its path shown with the bad bytes escaped, no
//! lines, and [`UNREADABLE_NAME`] as the reason it is not reviewed.

use crate::diff::{Body, FileDiff, ParsedFile, file_paths, mode_string, parse_with};
use diffy::patch_set::{FileOperation, ParseOptions, PatchSet};
use std::borrow::Cow;

/// Why a file whose name is not UTF-8 is not reviewed.
pub const UNREADABLE_NAME: &str = "its name is not valid UTF-8, so it can be neither shown to a model nor \
    commented on; rename it to a UTF-8 name to have it reviewed";

/// The files of `text` (git's diff format), parsed one `diff --git` section at a
/// time so a section whose file name is not UTF-8 stands alone. `None` when no
/// section has such a name: the error lies elsewhere.
pub(crate) fn by_section(text: &str) -> Option<Result<Vec<ParsedFile<'_>>, crate::ChangeError>> {
    let mut files = Vec::new();
    let mut found = false;
    for section in sections(text) {
        match parse_with(section, true) {
            Ok(parsed) => files.extend(parsed),
            Err(e) => match unreadable_name(section) {
                Some(diff) => {
                    found = true;
                    files.push((diff, Body::UnreadableName));
                }
                None => return Some(Err(e)),
            },
        }
    }
    found.then_some(Ok(files))
}

/// `text` cut before each `diff --git` line; anything before the first (an
/// email's preamble) stays with the first file.
fn sections(text: &str) -> Vec<&str> {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            starts.push(offset);
        }
        offset += line.len();
    }
    if starts.is_empty() {
        return vec![text];
    }
    starts[0] = 0;
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    starts.iter().zip(ends).map(|(&start, end)| &text[start..end]).collect()
}

/// The entry for `section` when it parses as bytes and one of its paths is not
/// UTF-8: the paths escaped (`\xff`), the status and modes as the header says,
/// and no hunks, since none of its lines can be placed on a path a host knows.
fn unreadable_name(section: &str) -> Option<FileDiff> {
    let file = PatchSet::parse_bytes(section.as_bytes(), ParseOptions::gitdiff()).next()?.ok()?;
    let escaped = |p: &Cow<'_, [u8]>| -> Cow<'static, str> { Cow::Owned(p.escape_ascii().to_string()) };
    let decodes = |p: &Cow<'_, [u8]>| std::str::from_utf8(p).is_ok();
    let (op, all_decode) = match file.operation() {
        FileOperation::Create(p) => (FileOperation::Create(escaped(p)), decodes(p)),
        FileOperation::Delete(p) => (FileOperation::Delete(escaped(p)), decodes(p)),
        FileOperation::Modify { original, modified } => (
            FileOperation::Modify { original: escaped(original), modified: escaped(modified) },
            decodes(original) && decodes(modified),
        ),
        FileOperation::Rename { from, to } => {
            (FileOperation::Rename { from: escaped(from), to: escaped(to) }, decodes(from) && decodes(to))
        }
        FileOperation::Copy { from, to } => {
            (FileOperation::Copy { from: escaped(from), to: escaped(to) }, decodes(from) && decodes(to))
        }
    };
    if all_decode {
        return None;
    }
    let (old_path, new_path, status) = file_paths(&op);
    let old_mode = file.old_mode().map(|m| mode_string(*m));
    let new_mode = file.new_mode().map(|m| mode_string(*m));
    Some(FileDiff { old_path, new_path, status, binary: false, old_mode, new_mode, hunks: Vec::new() })
}
