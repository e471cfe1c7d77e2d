use super::*;

/// The pull request's diff of `src/app.py`: one hunk whose new side is head lines
/// 10 to 16 (12 to 14 added, the rest context).
const PR: &str = "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -10,5 +10,7 @@ def run():\n a = 1\n b = 2\n-c = old()\n+c = compute()\n+d = c + 1\n+e = d * 2\n f = e\n g = f\n";

fn pr() -> FileDiff {
    gauntlet_change::parse_patch(PR).unwrap().remove(0)
}

fn at(start: u32, line: u32) -> Anchor {
    Anchor { path: "src/app.py".into(), old_path: "src/app.py".into(), start, line, old_line: None }
}

/// A fix patch of `src/app.py` with one hunk.
fn fix(hunk: &str) -> String {
    format!(
        "diff --git a/src/app.py b/src/app.py\nindex 1111111..2222222 100644\n--- a/src/app.py\n+++ b/src/app.py\n{hunk}"
    )
}

fn ok(patch: &str, anchor: Anchor) -> Suggestion {
    propose(patch, &pr(), &anchor).unwrap_or_else(|e| panic!("not suggested: {e}"))
}

#[test]
fn a_one_line_replacement_on_the_commented_line_replaces_that_line() {
    let s = ok(&fix("@@ -12,1 +12,1 @@\n-c = compute()\n+c = compute() or 0\n"), at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line, s.anchor.old_line), (12, 12, None));
    assert_eq!(s.lines, ["c = compute() or 0"]);
    assert_eq!(s.changed, 1);
    assert_eq!(s.anchor.path, "src/app.py");
}

#[test]
fn a_fix_with_context_lines_suggests_only_what_it_changes_plus_the_anchor() {
    let patch = fix("@@ -11,3 +11,3 @@\n b = 2\n-c = compute()\n+c = compute() or 0\n d = c + 1\n");
    let s = ok(&patch, at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 12));
    assert_eq!(s.lines, ["c = compute() or 0"]);
}

#[test]
fn a_change_beside_the_anchor_widens_the_block_to_cover_both() {
    let s = ok(&fix("@@ -14,1 +14,1 @@\n-e = d * 2\n+e = d * 3\n"), at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 14));
    assert_eq!(s.lines, ["c = compute()", "d = c + 1", "e = d * 3"]);
    let before = ok(&fix("@@ -10,1 +10,1 @@\n-a = 1\n+a = 0\n"), at(12, 13));
    assert_eq!((before.anchor.start, before.anchor.line), (10, 13));
    assert_eq!(before.lines, ["a = 0", "b = 2", "c = compute()", "d = c + 1"]);
}

#[test]
fn an_insertion_after_the_anchor_keeps_the_anchor_line_and_appends() {
    let s = ok(&fix("@@ -12,0 +13,1 @@\n+assert c is not None\n"), at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 12));
    assert_eq!(s.lines, ["c = compute()", "assert c is not None"]);
    assert_eq!(s.changed, 1);
}

#[test]
fn an_insertion_before_the_anchor_goes_first() {
    let patch = fix("@@ -11,2 +11,3 @@\n b = 2\n+check()\n c = compute()\n");
    let s = ok(&patch, at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 12));
    assert_eq!(s.lines, ["check()", "c = compute()"]);
}

#[test]
fn an_insertion_far_from_the_anchor_reaches_the_nearest_side() {
    let s = ok(&fix("@@ -15,0 +16,1 @@\n+log(f)\n"), at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 15));
    assert_eq!(s.lines, ["c = compute()", "d = c + 1", "e = d * 2", "f = e", "log(f)"]);
}

#[test]
fn a_deletion_drops_the_line_from_the_block() {
    let s = ok(&fix("@@ -13,1 +12,0 @@\n-d = c + 1\n"), at(12, 12));
    assert_eq!((s.anchor.start, s.anchor.line), (12, 13));
    assert_eq!(s.lines, ["c = compute()"]);
    assert_eq!(s.changed, 1);
}

#[test]
fn a_block_ending_on_unchanged_context_carries_its_old_line_number() {
    let s = ok(&fix("@@ -15,1 +15,1 @@\n-f = e\n+f = e + 0\n"), at(15, 15));
    assert_eq!((s.anchor.start, s.anchor.line, s.anchor.old_line), (15, 15, Some(13)));
}

#[test]
fn five_changed_lines_are_suggested_and_six_are_not() {
    let five = fix("@@ -12,1 +12,5 @@\n-c = compute()\n+c1\n+c2\n+c3\n+c4\n+c5\n");
    assert_eq!(ok(&five, at(12, 12)).changed, 5);
    let six = fix("@@ -12,1 +12,6 @@\n-c = compute()\n+c1\n+c2\n+c3\n+c4\n+c5\n+c6\n");
    assert_eq!(propose(&six, &pr(), &at(12, 12)), Err(Unsuitable::TooLarge(6)));
    let removed = fix("@@ -10,6 +10,0 @@\n-a = 1\n-b = 2\n-c = compute()\n-d = c + 1\n-e = d * 2\n-f = e\n");
    assert_eq!(propose(&removed, &pr(), &at(12, 12)), Err(Unsuitable::TooLarge(6)));
}

#[test]
fn a_patch_in_two_hunks_is_not_suggested() {
    let patch = fix("@@ -10,1 +10,1 @@\n-a = 1\n+a = 0\n@@ -16,1 +16,1 @@\n-g = f\n+g = 0\n");
    assert_eq!(propose(&patch, &pr(), &at(12, 12)), Err(Unsuitable::Hunks(2)));
}

#[test]
fn a_patch_of_another_file_or_of_two_files_is_not_suggested() {
    let other = "--- a/src/other.py\n+++ b/src/other.py\n@@ -12,1 +12,1 @@\n-c = compute()\n+c = 0\n";
    assert_eq!(propose(other, &pr(), &at(12, 12)), Err(Unsuitable::OtherFiles));
    let second = format!("diff --git a/src/other.py b/src/other.py\n{other}");
    let two = format!("{}{second}", fix("@@ -12,1 +12,1 @@\n-c = compute()\n+c = 0\n"));
    assert_eq!(propose(&two, &pr(), &at(12, 12)), Err(Unsuitable::OtherFiles));
    let renamed = "diff --git a/src/app.py b/src/new.py\nsimilarity index 90%\nrename from src/app.py\nrename to src/new.py\n--- a/src/app.py\n+++ b/src/new.py\n@@ -12,1 +12,1 @@\n-c = compute()\n+c = 0\n";
    assert_eq!(propose(renamed, &pr(), &at(12, 12)), Err(Unsuitable::OtherFiles));
}

#[test]
fn changes_outside_the_commented_hunk_are_not_suggested() {
    let below = fix("@@ -20,1 +20,1 @@\n-x = 1\n+x = 2\n");
    assert_eq!(propose(&below, &pr(), &at(12, 12)), Err(Unsuitable::OutsideHunk));
    let just_above = fix("@@ -9,1 +9,1 @@\n-w = 0\n+w = 1\n");
    assert_eq!(propose(&just_above, &pr(), &at(12, 12)), Err(Unsuitable::OutsideHunk));
    let insert_after_last = fix("@@ -16,0 +17,1 @@\n+h = g\n");
    assert_eq!(
        ok(&insert_after_last, at(16, 16)).lines,
        ["g = f", "h = g"],
        "inserting after the hunk's last line keeps to that line"
    );
    let on_line = fix("@@ -12,1 +12,1 @@\n-c = compute()\n+c = 0\n");
    assert_eq!(propose(&on_line, &pr(), &at(30, 30)), Err(Unsuitable::OutsideHunk), "the anchor is in no hunk");
}

#[test]
fn a_patch_whose_context_differs_from_the_head_is_stale() {
    let patch = fix("@@ -11,2 +11,2 @@\n b = 3\n-c = compute()\n+c = 0\n");
    assert_eq!(propose(&patch, &pr(), &at(12, 12)), Err(Unsuitable::Stale));
}

#[test]
fn unreadable_and_empty_patches_are_not_suggested() {
    assert!(matches!(propose("@@ nonsense", &pr(), &at(12, 12)), Err(Unsuitable::Unreadable(_) | Unsuitable::Empty)));
    assert_eq!(propose("", &pr(), &at(12, 12)), Err(Unsuitable::Empty));
}

#[test]
fn hostile_text_in_the_patch_is_carried_verbatim_for_the_body_to_fence() {
    let patch = fix("@@ -12,1 +12,1 @@\n-c = compute()\n+```\n");
    assert_eq!(ok(&patch, at(12, 12)).lines, ["```"]);
}

#[test]
fn a_fix_that_only_changes_line_endings_is_not_suggested() {
    // CRLF to LF on the commented line: the parsed lines are identical.
    let crlf = fix("@@ -12,1 +12,1 @@\n-c = compute()\r\n+c = compute()\n");
    assert_eq!(propose(&crlf, &pr(), &at(12, 12)), Err(Unsuitable::Empty));
}
