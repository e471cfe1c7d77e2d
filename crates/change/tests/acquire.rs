//! `acquire` for every kind of target, against real repositories.

mod common;

use common::{Repo, numbered};
use gauntlet_change::{
    Change, ChangeError, FileStatus, Snapshot, Target, UNREADABLE_NAME, acquire, acquire::PatchSource,
};

fn paths(change: &Change) -> Vec<&str> {
    change.files.iter().map(|f| f.diff.path()).collect()
}

/// main: base commit; feature: edits `shared.txt`, adds `feature.txt`; then main moves
/// on with `later.txt`, which the feature review must not include.
fn diverged() -> (Repo, String, String, String) {
    let repo = Repo::new();
    repo.write("shared.txt", numbered(10));
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("shared.txt", numbered(10).replace("line 4\n", "line four\n"));
    repo.write("feature.txt", "new\n");
    let feature = repo.commit("feature");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("later.txt", "later\n");
    let main = repo.commit("later on main");
    repo.git(&["checkout", "-q", "feature"]);
    (repo, base, feature, main)
}

#[test]
fn default_target_reviews_the_branch_since_its_merge_base_with_main() {
    let (repo, base, feature, _) = diverged();
    let change = acquire(&repo.handle(), &Target::Default).unwrap();
    assert_eq!((change.base.as_str(), change.head.as_str()), (base.as_str(), feature.as_str()));
    assert_eq!(change.snapshot, Snapshot::Commit(feature));
    assert_eq!(paths(&change), ["feature.txt", "shared.txt"]);
    let shared = change.file("shared.txt").unwrap();
    assert!(shared.head_text.as_deref().unwrap().contains("line four\n"));
    assert_eq!(shared.unreadable, None);
}

#[test]
fn default_target_on_the_default_branch_is_an_empty_change() {
    let (repo, _, _, main) = diverged();
    repo.git(&["checkout", "-q", "main"]);
    let change = acquire(&repo.handle(), &Target::Default).unwrap();
    assert!(change.is_empty());
    assert_eq!((change.base.as_str(), change.head.as_str()), (main.as_str(), main.as_str()));
}

#[test]
fn range_reviews_merge_base_of_base_and_head_up_to_head() {
    let (repo, base, feature, _) = diverged();
    repo.git(&["checkout", "-q", "main"]);
    let target = Target::Range { base: "main".into(), head: Some("feature".into()) };
    let change = acquire(&repo.handle(), &target).unwrap();
    assert_eq!((&change.base, &change.head), (&base, &feature));
    assert_eq!(paths(&change), ["feature.txt", "shared.txt"]);
}

#[test]
fn range_head_defaults_to_head() {
    let (repo, base, _, main) = diverged();
    repo.git(&["checkout", "-q", "main"]);
    let change = acquire(&repo.handle(), &Target::Range { base: base.clone(), head: None }).unwrap();
    assert_eq!((&change.base, &change.head), (&base, &main));
    assert_eq!(paths(&change), ["later.txt"]);
}

#[test]
fn range_with_an_unknown_revision_names_it() {
    let (repo, ..) = diverged();
    let target = Target::Range { base: "main".into(), head: Some("nope".into()) };
    let err = acquire(&repo.handle(), &target).unwrap_err();
    assert!(matches!(&err, ChangeError::BadRevision { rev } if rev == "nope"), "{err:?}");
    assert!(err.to_string().contains("`nope`"));
}

#[test]
fn staged_reviews_the_index_not_the_disk() {
    let repo = Repo::new();
    repo.write("a.txt", numbered(5));
    repo.write("b.txt", numbered(5));
    let head = repo.commit("one");
    repo.write("a.txt", numbered(6));
    repo.git(&["add", "a.txt"]);
    repo.write("a.txt", "unstaged rewrite\n");
    repo.write("b.txt", "unstaged only\n");
    let change = acquire(&repo.handle(), &Target::Staged).unwrap();
    assert_eq!((change.base.as_str(), change.head.as_str()), (head.as_str(), "INDEX"));
    assert_eq!(change.snapshot, Snapshot::Index);
    assert_eq!(paths(&change), ["a.txt"]);
    assert_eq!(change.files[0].head_text.as_deref(), Some(numbered(6).as_str()));
}

#[test]
fn staged_in_a_repository_without_commits_diffs_against_the_empty_tree() {
    let repo = Repo::new();
    repo.write("first.txt", "hello\n");
    repo.git(&["add", "first.txt"]);
    let change = acquire(&repo.handle(), &Target::Staged).unwrap();
    assert_eq!(paths(&change), ["first.txt"]);
    assert_eq!(change.files[0].diff.status, FileStatus::Added);
    assert_eq!(change.files[0].head_text.as_deref(), Some("hello\n"));
}

#[test]
fn worktree_reviews_tracked_changes_on_disk_and_explains_unreadable_files() {
    let repo = Repo::new();
    repo.write("edit.txt", "old\n");
    repo.write("gone.txt", "bye\n");
    repo.write("image.bin", b"\0\x01");
    repo.write("latin1.txt", "plain\n");
    let head = repo.commit("one");
    repo.write("edit.txt", "new\n");
    repo.remove("gone.txt");
    repo.write("image.bin", b"\0\x02");
    repo.write("latin1.txt", b"caf\xe9\n");
    repo.write("untracked.txt", "not reviewed\n");
    let change = acquire(&repo.handle(), &Target::Worktree).unwrap();
    assert_eq!((change.base.as_str(), change.head.as_str()), (head.as_str(), "WORKTREE"));
    assert_eq!(change.snapshot, Snapshot::Worktree);
    assert_eq!(paths(&change), ["edit.txt", "gone.txt", "image.bin", "latin1.txt"]);
    let reasons: Vec<_> = change.files.iter().map(|f| f.unreadable.as_deref()).collect();
    assert_eq!(reasons, [None, Some("deleted"), Some("binary"), Some("not valid UTF-8")]);
    assert_eq!(change.files[0].head_text.as_deref(), Some("new\n"));
}

#[test]
fn a_file_whose_name_is_not_utf8_is_listed_as_unreadable_and_the_rest_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let repo = Repo::new();
    repo.write("kept.txt", "old\n");
    let base = repo.commit("base");
    repo.write("kept.txt", "new\n");
    std::fs::write(repo.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")), "a Latin-1 name\n").unwrap();
    repo.write("zed.txt", "after it\n");
    let head = repo.commit("names");
    let range = acquire(&repo.handle(), &Target::Range { base: base.clone(), head: Some(head.clone()) }).unwrap();
    let patch = PatchSource::Text(repo.diff(&[], &base, &head));
    repo.git(&["checkout", "-q", &base]);
    let patched = acquire(&repo.handle(), &Target::Patch(patch)).unwrap();
    for change in [range, patched] {
        assert_eq!(paths(&change), ["caf\\xe9.txt", "kept.txt", "zed.txt"], "the bad bytes shown escaped");
        let named = &change.files[0];
        assert_eq!((named.head_text.as_deref(), named.unreadable.as_deref()), (None, Some(UNREADABLE_NAME)));
        assert_eq!(named.diff.status, FileStatus::Added);
        assert!(named.diff.hunks.is_empty(), "none of its lines can be placed");
        assert_eq!(change.file("kept.txt").unwrap().head_text.as_deref(), Some("new\n"));
        assert_eq!(change.file("zed.txt").unwrap().head_text.as_deref(), Some("after it\n"));
    }
}

#[test]
fn renamed_file_head_text_comes_from_the_new_path() {
    let repo = Repo::new();
    repo.write("old.txt", numbered(10));
    repo.commit("one");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["mv", "old.txt", "new.txt"]);
    repo.commit("rename");
    let change = acquire(&repo.handle(), &Target::Default).unwrap();
    let file = change.file("new.txt").unwrap();
    assert_eq!(file.diff.status, FileStatus::Renamed);
    assert_eq!(file.head_text.as_deref(), Some(numbered(10).as_str()));
}

/// A repo at the patch's old side, and the patch text (`old.txt` edit plus `added.txt`).
fn unapplied_patch() -> (Repo, String) {
    let repo = Repo::new();
    repo.write("old.txt", numbered(10));
    let base = repo.commit("one");
    repo.write("old.txt", numbered(10).replace("line 5\n", "line five\n"));
    repo.write("added.txt", "brand new\n");
    let head = repo.commit("two");
    let patch = repo.diff(&[], &base, &head);
    repo.git(&["reset", "-q", "--hard", &base]);
    (repo, patch)
}

#[test]
fn patch_file_is_applied_to_the_worktree_for_head_text() {
    let (repo, patch) = unapplied_patch();
    let dir = tempfile::tempdir().unwrap();
    let patch_file = dir.path().join("change.patch");
    std::fs::write(&patch_file, &patch).unwrap();
    let change = acquire(&repo.handle(), &Target::Patch(PatchSource::File(patch_file))).unwrap();
    assert_eq!((change.base.as_str(), change.head.as_str()), ("patch", "patch"));
    assert_eq!(change.snapshot, Snapshot::Worktree);
    assert_eq!(paths(&change), ["added.txt", "old.txt"]);
    assert_eq!(change.files[0].head_text.as_deref(), Some("brand new\n"));
    let edited = numbered(10).replace("line 5\n", "line five\n");
    assert_eq!(change.files[1].head_text.as_deref(), Some(edited.as_str()));
}

#[test]
fn already_applied_patch_reads_head_text_from_disk() {
    let (repo, patch) = unapplied_patch();
    // The post-image plus a line the patch never mentioned: only the disk has it.
    let on_disk = numbered(11).replace("line 5\n", "line five\n");
    repo.write("old.txt", &on_disk);
    repo.write("added.txt", "brand new\n");
    let change = acquire(&repo.handle(), &Target::Patch(PatchSource::Text(patch))).unwrap();
    assert_eq!(change.file("old.txt").unwrap().head_text.as_deref(), Some(on_disk.as_str()));
    assert_eq!(change.file("added.txt").unwrap().head_text.as_deref(), Some("brand new\n"));
}

#[test]
fn patch_that_does_not_apply_says_so() {
    let (repo, patch) = unapplied_patch();
    repo.write("old.txt", "completely different\n");
    let change = acquire(&repo.handle(), &Target::Patch(PatchSource::Text(patch))).unwrap();
    let file = change.file("old.txt").unwrap();
    assert_eq!(file.head_text, None);
    assert_eq!(file.unreadable.as_deref(), Some("patch does not apply to the working tree"));
}

#[test]
fn missing_patch_file_is_a_patch_read_error() {
    let (repo, _) = unapplied_patch();
    let target = Target::Patch(PatchSource::File("/no/such/change.patch".into()));
    let err = acquire(&repo.handle(), &target).unwrap_err();
    assert!(matches!(err, ChangeError::PatchRead { .. }), "{err:?}");
}

#[test]
fn garbage_patch_text_is_a_parse_error() {
    let (repo, _) = unapplied_patch();
    let target = Target::Patch(PatchSource::Text("not a diff at all\n".into()));
    let err = acquire(&repo.handle(), &target).unwrap_err();
    assert!(matches!(err, ChangeError::Parse(_)), "{err:?}");
}

#[test]
fn default_target_outside_a_repository_is_not_a_repo() {
    let dir = tempfile::tempdir().unwrap();
    let err = gauntlet_change::git::Git::discover(dir.path()).unwrap_err();
    assert!(matches!(err, ChangeError::NotARepo { .. }), "{err:?}");
    assert!(err.to_string().contains("-C DIR"));
}

#[test]
fn patch_target_works_outside_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").unwrap();
    let patch = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    let git = gauntlet_change::git::Git::at(dir.path());
    let change = acquire(&git, &Target::Patch(PatchSource::Text(patch.into()))).unwrap();
    assert_eq!(change.files[0].head_text.as_deref(), Some("one\nthree\n"));
}

#[test]
fn head_contents_come_from_the_commit_even_when_the_checkout_differs() {
    let (repo, _, feature, _) = diverged();
    let committed = numbered(10).replace("line 4\n", "line four\n");
    let target = Target::Range { base: "main".into(), head: Some("feature".into()) };
    // A clean checkout of the head: its files are the head's blobs.
    let change = acquire(&repo.handle(), &target).unwrap();
    assert_eq!(change.file("shared.txt").unwrap().head_text.as_deref(), Some(committed.as_str()));
    // Uncommitted edits and a file replaced by a directory must not leak into a
    // review of the commit.
    repo.write("shared.txt", "edited but not committed\n");
    std::fs::remove_file(repo.path().join("feature.txt")).unwrap();
    std::fs::create_dir(repo.path().join("feature.txt")).unwrap();
    let change = acquire(&repo.handle(), &target).unwrap();
    assert_eq!(change.head, feature);
    assert_eq!(change.file("shared.txt").unwrap().head_text.as_deref(), Some(committed.as_str()));
    assert_eq!(change.file("feature.txt").unwrap().head_text.as_deref(), Some("new\n"));
}

#[test]
fn hunks_do_not_follow_the_users_diff_configuration() {
    let repo = Repo::new();
    repo.write("a.txt", numbered(40));
    repo.commit("base");
    repo.write("a.txt", numbered(40).replace("line 5\n", "line five\n").replace("line 20\n", "line twenty\n"));
    repo.commit("two edits fifteen lines apart");
    // Either setting would merge the two edits into one hunk.
    repo.git(&["config", "diff.interHunkContext", "50"]);
    repo.git(&["config", "diff.algorithm", "patience"]);
    let target = Target::Range { base: "HEAD~1".into(), head: None };
    let change = acquire(&repo.handle(), &target).unwrap();
    let starts: Vec<u32> = change.files[0].diff.hunks.iter().map(|h| h.new_start).collect();
    assert_eq!(starts, vec![2, 17], "git's default hunks, three lines of context each");
}

#[test]
fn a_submodule_bump_is_named_as_a_pointer_not_as_missing_at_head() {
    let repo = Repo::new();
    repo.write("a.txt", "one\n");
    let first = repo.commit("first");
    repo.write("a.txt", "two\n");
    let second = repo.commit("second");
    // A gitlink entry, as `git submodule add` records it, pointing at `first`.
    repo.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{first},vendor/lib")]);
    repo.git(&["commit", "-q", "-m", "add the submodule"]);
    let base = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.git(&["update-index", "--cacheinfo", &format!("160000,{second},vendor/lib")]);
    repo.git(&["commit", "-q", "-m", "bump the submodule"]);
    let change = acquire(&repo.handle(), &Target::Range { base, head: None }).unwrap();
    assert_eq!(paths(&change), ["vendor/lib"]);
    let file = &change.files[0];
    assert!(file.diff.is_submodule(), "{:?}", file.diff);
    assert_eq!(file.head_text, None);
    let reason = file.unreadable.as_deref().unwrap();
    assert!(reason.starts_with("submodule pointer"), "{reason}");
    assert!(!reason.contains("missing"), "{reason}");
}
