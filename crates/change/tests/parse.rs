//! `parse_patch` against real `git diff` output for each shape of change.

mod common;

use common::{Repo, numbered};
use gauntlet_change::{DiffLine, FileDiff, FileStatus, LineKind, parse_patch};

/// Commit `before`, apply `change`, commit again, and parse `git diff <extra>` between.
fn diff_of(before: impl Fn(&Repo), change: impl Fn(&Repo), extra: &[&str]) -> (Repo, Vec<FileDiff>) {
    let repo = Repo::new();
    before(&repo);
    let base = repo.commit("before");
    change(&repo);
    let head = repo.commit("after");
    let text = repo.diff(extra, &base, &head);
    let files = parse_patch(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (repo, files)
}

fn only(files: &[FileDiff]) -> &FileDiff {
    assert_eq!(files.len(), 1, "{files:#?}");
    &files[0]
}

fn line(kind: LineKind, old: Option<u32>, new: Option<u32>, anchor: u32, text: &str) -> DiffLine {
    DiffLine { kind, old, new, anchor, text: text.to_string() }
}

#[test]
fn pure_rename_has_both_paths_and_no_hunks() {
    let (_repo, files) = diff_of(
        |r| r.write("old.txt", numbered(10)),
        |r| {
            r.git(&["mv", "old.txt", "new.txt"]);
        },
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Renamed);
    assert_eq!(file.old_path.as_deref(), Some("old.txt"));
    assert_eq!(file.new_path.as_deref(), Some("new.txt"));
    assert_eq!(file.path(), "new.txt");
    assert!(file.hunks.is_empty());
    assert!(!file.binary);
}

#[test]
fn rename_with_edit_keeps_both_paths_and_new_line_numbers() {
    let (_repo, files) = diff_of(
        |r| r.write("src/old.rs", numbered(20)),
        |r| {
            r.remove("src/old.rs");
            r.write("src/new.rs", numbered(20).replace("line 10\n", "line ten\n"));
        },
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Renamed);
    assert_eq!(file.old_path.as_deref(), Some("src/old.rs"));
    assert_eq!(file.new_path.as_deref(), Some("src/new.rs"));
    let hunk = &file.hunks[0];
    assert_eq!((hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines), (7, 7, 7, 7));
    assert_eq!(hunk.lines[3], line(LineKind::Removed, Some(10), None, 10, "line 10"));
    assert_eq!(hunk.lines[4], line(LineKind::Added, None, Some(10), 10, "line ten"));
    assert_eq!(hunk.lines[5], line(LineKind::Context, Some(11), Some(11), 11, "line 11"));
    assert_eq!((file.added(), file.removed()), (1, 1));
}

#[test]
fn copy_reports_source_and_destination() {
    let (_repo, files) = diff_of(
        |r| r.write("template.txt", numbered(30)),
        |r| r.write("copy.txt", numbered(30)),
        &["-C", "--find-copies-harder"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Copied);
    assert_eq!(file.old_path.as_deref(), Some("template.txt"));
    assert_eq!(file.new_path.as_deref(), Some("copy.txt"));
    assert!(file.hunks.is_empty());
}

#[test]
fn binary_change_is_flagged_without_hunks() {
    let (_repo, files) = diff_of(
        |r| r.write("logo.png", b"\x89PNG\0\0\x01\x02"),
        |r| r.write("logo.png", b"\x89PNG\0\0\x03\x04\x05"),
        &["-M"],
    );
    let file = only(&files);
    assert!(file.binary);
    assert_eq!(file.status, FileStatus::Modified);
    assert_eq!(file.path(), "logo.png");
    assert!(file.hunks.is_empty());
}

#[test]
fn added_binary_file_is_binary_and_added() {
    let (_repo, files) = diff_of(|r| r.write("keep.txt", "x\n"), |r| r.write("blob.bin", b"\0\x01\x02"), &["-M"]);
    let file = only(&files);
    assert!(file.binary);
    assert_eq!(file.status, FileStatus::Added);
    assert_eq!((file.old_path.as_deref(), file.new_path.as_deref()), (None, Some("blob.bin")));
}

#[test]
fn mode_change_only_reports_old_and_new_modes() {
    let (_repo, files) = diff_of(
        |r| {
            // Keeps `git add -A` from resetting the index mode to the file's on-disk mode.
            r.git(&["config", "core.fileMode", "false"]);
            r.write("run.sh", "echo hi\n");
        },
        |r| {
            r.git(&["update-index", "--chmod=+x", "run.sh"]);
        },
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Modified);
    assert_eq!(file.path(), "run.sh");
    assert_eq!(file.old_mode.as_deref(), Some("100644"));
    assert_eq!(file.new_mode.as_deref(), Some("100755"));
    assert!(file.hunks.is_empty());
}

#[test]
fn deleted_file_has_only_old_path_and_anchors_at_line_one() {
    let (_repo, files) = diff_of(
        |r| {
            r.write("keep.txt", "x\n");
            r.write("gone.txt", numbered(3));
        },
        |r| r.remove("gone.txt"),
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Deleted);
    assert_eq!((file.old_path.as_deref(), file.new_path.as_deref()), (Some("gone.txt"), None));
    assert_eq!(file.path(), "gone.txt");
    assert_eq!(file.old_mode.as_deref(), Some("100644"));
    let hunk = &file.hunks[0];
    assert_eq!((hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines), (1, 3, 0, 0));
    assert_eq!(hunk.lines[2], line(LineKind::Removed, Some(3), None, 1, "line 3"));
    assert!(hunk.lines.iter().all(|l| l.anchor == 1));
}

#[test]
fn added_file_numbers_every_line_on_the_new_side() {
    let (_repo, files) = diff_of(|r| r.write("keep.txt", "x\n"), |r| r.write("fresh.rs", numbered(3)), &["-M"]);
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Added);
    assert_eq!((file.old_path.as_deref(), file.new_path.as_deref()), (None, Some("fresh.rs")));
    assert_eq!(file.new_mode.as_deref(), Some("100644"));
    let hunk = &file.hunks[0];
    assert_eq!((hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines), (0, 0, 1, 3));
    let expected: Vec<_> = (1..=3).map(|n| line(LineKind::Added, None, Some(n), n, &format!("line {n}"))).collect();
    assert_eq!(hunk.lines, expected);
    assert!(file.in_hunk(3) && !file.in_hunk(4));
}

#[test]
fn quoted_unicode_and_spaced_paths_decode_to_utf8() {
    let (repo, files) = diff_of(
        |r| {
            r.write("my file.txt", "one\n");
            r.write("caf\u{e9}.txt", numbered(10));
        },
        |r| {
            r.write("my file.txt", "two\n");
            r.write("caf\u{e9}.txt", numbered(10).replace("line 5\n", "cinq\n"));
            r.write("na\u{ef}ve.txt", "new\n");
        },
        &["-M"],
    );
    // Proof that git really quoted the path (core.quotePath defaults to true).
    let raw = repo.diff(&[], "HEAD~", "HEAD");
    assert!(raw.contains(r#""a/caf\303\251.txt""#), "{raw}");
    let paths: Vec<&str> = files.iter().map(FileDiff::path).collect();
    assert_eq!(paths, ["caf\u{e9}.txt", "my file.txt", "na\u{ef}ve.txt"]);
    assert_eq!(files[0].old_path.as_deref(), Some("caf\u{e9}.txt"));
    assert_eq!(files[0].status, FileStatus::Modified);
    assert_eq!(files[1].old_path.as_deref(), Some("my file.txt"));
    assert_eq!(files[2].status, FileStatus::Added);
}

#[test]
fn quoted_rename_headers_decode_both_paths() {
    let (_repo, files) = diff_of(
        |r| r.write("caf\u{e9}.txt", numbered(10)),
        |r| {
            std::fs::create_dir(r.file("dir with space")).expect("mkdir");
            r.git(&["mv", "caf\u{e9}.txt", "dir with space/th\u{e9}.txt"]);
        },
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.status, FileStatus::Renamed);
    assert_eq!(file.old_path.as_deref(), Some("caf\u{e9}.txt"));
    assert_eq!(file.new_path.as_deref(), Some("dir with space/th\u{e9}.txt"));
}

#[test]
fn missing_newline_at_eof_on_both_sides_drops_the_marker() {
    let (_repo, files) = diff_of(|r| r.write("f.txt", "a\nb"), |r| r.write("f.txt", "a\nc"), &["-M"]);
    let hunk = &only(&files).hunks[0];
    assert_eq!(
        hunk.lines,
        [
            line(LineKind::Context, Some(1), Some(1), 1, "a"),
            line(LineKind::Removed, Some(2), None, 2, "b"),
            line(LineKind::Added, None, Some(2), 2, "c"),
        ]
    );
}

#[test]
fn adding_the_final_newline_shows_the_same_text_removed_and_added() {
    let (_repo, files) = diff_of(|r| r.write("f.txt", "a\nb"), |r| r.write("f.txt", "a\nb\n"), &["-M"]);
    let hunk = &only(&files).hunks[0];
    let texts: Vec<_> = hunk.lines.iter().map(|l| (l.kind, l.text.as_str())).collect();
    assert_eq!(texts, [(LineKind::Context, "a"), (LineKind::Removed, "b"), (LineKind::Added, "b")]);
}

#[test]
fn multiple_hunks_track_the_line_shift_between_them() {
    let (_repo, files) = diff_of(
        |r| r.write("f.txt", numbered(40)),
        |r| {
            let text = numbered(40).replace("line 5\n", "line 5\ninserted\n").replace("line 30\n", "line thirty\n");
            r.write("f.txt", text);
        },
        &["-M"],
    );
    let file = only(&files);
    assert_eq!(file.hunks.len(), 2);
    let (first, second) = (&file.hunks[0], &file.hunks[1]);
    assert_eq!((first.old_start, first.old_lines, first.new_start, first.new_lines), (3, 6, 3, 7));
    assert_eq!(first.lines[3], line(LineKind::Added, None, Some(6), 6, "inserted"));
    assert_eq!((second.old_start, second.old_lines, second.new_start, second.new_lines), (27, 7, 28, 7));
    // The removal happened where head line 31 (its replacement) now is.
    assert_eq!(second.lines[3], line(LineKind::Removed, Some(30), None, 31, "line 30"));
    assert_eq!(second.lines[4], line(LineKind::Added, None, Some(31), 31, "line thirty"));
    assert!(file.in_hunk(28) && file.in_hunk(34) && !file.in_hunk(20));
}

#[test]
fn removed_line_anchors_on_the_head_line_that_follows_it() {
    let (_repo, files) = diff_of(
        |r| r.write("f.txt", numbered(20)),
        |r| r.write("f.txt", numbered(20).replace("line 10\n", "")),
        &["-M"],
    );
    let hunk = &only(&files).hunks[0];
    assert_eq!(hunk.lines[3], line(LineKind::Removed, Some(10), None, 10, "line 10"));
    assert_eq!(hunk.lines[4], line(LineKind::Context, Some(11), Some(10), 10, "line 11"));
}

#[test]
fn removal_at_end_of_file_anchors_on_the_last_head_line() {
    let (_repo, files) = diff_of(|r| r.write("f.txt", numbered(5)), |r| r.write("f.txt", numbered(4)), &["-M"]);
    let hunk = &only(&files).hunks[0];
    assert_eq!((hunk.new_start, hunk.new_lines), (2, 3));
    assert_eq!(hunk.lines[3], line(LineKind::Removed, Some(5), None, 4, "line 5"));
}

#[test]
fn deletion_only_hunk_without_context_anchors_inside_its_new_side() {
    let (_repo, files) = diff_of(
        |r| r.write("f.txt", numbered(10)),
        |r| r.write("f.txt", numbered(10).replace("line 3\nline 4\n", "")),
        &["-U0"],
    );
    let hunk = &only(&files).hunks[0];
    assert_eq!((hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines), (3, 2, 2, 0));
    assert_eq!(hunk.new_side(), 2..=2);
    assert!(hunk.lines.iter().all(|l| l.anchor == 2 && l.kind == LineKind::Removed));
}

#[test]
fn function_context_lands_in_the_hunk_header() {
    // Indented body lines, so git's default funcname rule only matches `fn main`.
    let body: String = (1..=20).map(|n| format!("    let x{n} = {n};\n")).collect();
    let before = format!("fn main() {{\n{body}}}\n");
    let after = before.replace("x15 = 15", "x15 = 0");
    let (_repo, files) = diff_of(|r| r.write("m.rs", &before), |r| r.write("m.rs", &after), &["-M"]);
    assert_eq!(only(&files).hunks[0].header, "fn main() {");
}

#[test]
fn several_files_come_back_in_diff_order() {
    let (_repo, files) = diff_of(
        |r| {
            r.write("a.txt", "a\n");
            r.write("b.txt", "b\n");
        },
        |r| {
            r.write("a.txt", "A\n");
            r.write("b.txt", "B\n");
        },
        &["-M"],
    );
    let paths: Vec<&str> = files.iter().map(FileDiff::path).collect();
    assert_eq!(paths, ["a.txt", "b.txt"]);
}

#[test]
fn a_submodule_pointer_is_told_from_a_text_file() {
    let bump = "diff --git a/vendor/lib b/vendor/lib\nindex b70e80c..1111111 160000\n--- a/vendor/lib\n+++ b/vendor/lib\n\
                @@ -1 +1 @@\n-Subproject commit b70e80c18730403bf84e86514014c5ddf89fbed8\n\
                +Subproject commit 1111111111111111111111111111111111111111\n";
    let files = parse_patch(bump).unwrap();
    assert!(only(&files).is_submodule(), "a bump names its mode only on the index line");
    let added = "diff --git a/lib b/lib\nnew file mode 160000\nindex 0000000..b70e80c\n--- /dev/null\n+++ b/lib\n\
                 @@ -0,0 +1 @@\n+Subproject commit b70e80c18730403bf84e86514014c5ddf89fbed8\n";
    assert!(only(&parse_patch(added).unwrap()).is_submodule());
    let text = "diff --git a/notes.md b/notes.md\nindex 1..2 100644\n--- a/notes.md\n+++ b/notes.md\n\
                @@ -1 +1,2 @@\n-Subproject commit b70e80c18730403bf84e86514014c5ddf89fbed8\n\
                +Subproject commit 1111111111111111111111111111111111111111\n+and a note\n";
    assert!(!only(&parse_patch(text).unwrap()).is_submodule(), "a text file that quotes a pointer is text");
}
