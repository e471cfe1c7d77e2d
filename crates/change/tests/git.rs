//! `Git`: discovery, reading and listing files at each snapshot, revision helpers.

mod common;

use common::Repo;
use gauntlet_change::{ChangeError, Snapshot, git::Git};

fn text(bytes: Option<Vec<u8>>) -> Option<String> {
    bytes.map(|b| String::from_utf8(b).expect("utf-8"))
}

#[test]
fn discover_from_a_subdirectory_finds_the_repository_root() {
    let repo = Repo::new();
    repo.write("deep/er/file.txt", "x\n");
    let git = Git::discover(&repo.file("deep/er")).unwrap();
    assert_eq!(git.root().canonicalize().unwrap(), repo.path().canonicalize().unwrap());
}

#[test]
fn discover_outside_a_repository_is_not_a_repo() {
    let dir = tempfile::tempdir().unwrap();
    let err = Git::discover(dir.path()).unwrap_err();
    assert!(matches!(err, ChangeError::NotARepo { .. }), "{err:?}");
}

#[test]
fn read_sees_commit_index_and_worktree_versions_separately() {
    let repo = Repo::new();
    repo.write("f.txt", "committed\n");
    let sha = repo.commit("one");
    repo.write("f.txt", "staged\n");
    repo.git(&["add", "f.txt"]);
    repo.write("f.txt", "on disk\n");
    let git = repo.handle();
    assert_eq!(text(git.read(&Snapshot::Commit(sha), "f.txt").unwrap()).unwrap(), "committed\n");
    assert_eq!(text(git.read(&Snapshot::Index, "f.txt").unwrap()).unwrap(), "staged\n");
    assert_eq!(text(git.read(&Snapshot::Worktree, "f.txt").unwrap()).unwrap(), "on disk\n");
}

#[test]
fn read_of_a_missing_path_or_directory_is_none_at_every_snapshot() {
    let repo = Repo::new();
    repo.write("dir/f.txt", "x\n");
    let sha = repo.commit("one");
    let git = repo.handle();
    for snapshot in [Snapshot::Commit(sha), Snapshot::Index, Snapshot::Worktree] {
        assert_eq!(git.read(&snapshot, "nope.txt").unwrap(), None, "{snapshot:?}");
        assert_eq!(git.read(&snapshot, "dir").unwrap(), None, "{snapshot:?}");
    }
}

#[test]
fn read_treats_glob_characters_in_paths_literally() {
    let repo = Repo::new();
    repo.write("a*.txt", "star\n");
    repo.write("ab.txt", "plain\n");
    let sha = repo.commit("one");
    let git = repo.handle();
    for snapshot in [Snapshot::Commit(sha), Snapshot::Index] {
        assert_eq!(text(git.read(&snapshot, "a*.txt").unwrap()).unwrap(), "star\n");
    }
}

#[test]
fn worktree_read_refuses_paths_that_escape_the_root() {
    let repo = Repo::new();
    repo.write("inside.txt", "x\n");
    let git = repo.handle();
    assert_eq!(git.read(&Snapshot::Worktree, "../outside.txt").unwrap(), None);
    assert_eq!(git.read(&Snapshot::Worktree, "/etc/passwd").unwrap(), None);
    assert_eq!(git.read(&Snapshot::Worktree, "dir/../../x").unwrap(), None);
}

#[test]
fn list_files_covers_commit_index_and_worktree() {
    let repo = Repo::new();
    repo.write(".gitignore", "*.log\n");
    repo.write("a.txt", "a\n");
    repo.write("gone.txt", "g\n");
    let sha = repo.commit("one");
    repo.write("staged.txt", "s\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("untracked.txt", "u\n");
    repo.write("ignored.log", "i\n");
    repo.remove("gone.txt");
    let git = repo.handle();
    let commit = git.list_files(&Snapshot::Commit(sha)).unwrap();
    assert_eq!(commit, [".gitignore", "a.txt", "gone.txt"]);
    let index = git.list_files(&Snapshot::Index).unwrap();
    assert_eq!(index, [".gitignore", "a.txt", "gone.txt", "staged.txt"]);
    let worktree = git.list_files(&Snapshot::Worktree).unwrap();
    assert_eq!(worktree, [".gitignore", "a.txt", "staged.txt", "untracked.txt"]);
}

#[test]
fn resolve_gives_full_sha_or_bad_revision() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let sha = repo.commit("one");
    let git = repo.handle();
    assert_eq!(git.resolve("HEAD").unwrap(), sha);
    assert_eq!(git.resolve(&sha[..8]).unwrap(), sha);
    for bad in ["no-such-branch", "--all", ""] {
        let err = git.resolve(bad).unwrap_err();
        assert!(matches!(&err, ChangeError::BadRevision { rev } if rev == bad), "{err:?}");
    }
}

#[test]
fn resolving_many_revisions_at_once_answers_each_in_order() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let one = repo.commit("one");
    repo.write("a.txt", "b\n");
    let two = repo.commit("two");
    repo.git(&["tag", "-a", "-m", "annotated", "v1", &one]);
    let git = repo.handle();
    let answers = git
        .try_resolve_many(&["HEAD", "no-such-branch", "--all", "", "v1", "HEAD~1", "a\nHEAD", "HEAD:a.txt"])
        .unwrap();
    // A tag peels to its commit; options, blanks, newlines and blobs name no commit.
    assert_eq!(answers, vec![Some(two.clone()), None, None, None, Some(one.clone()), Some(one.clone()), None, None]);
    // A missing name is echoed back by git; one with spaces must not read as a sha.
    repo.git(&["branch", "x"]);
    assert_eq!(git.try_resolve_many(&["x commit y", "x"]).unwrap(), vec![None, Some(two.clone())]);
    // `@{u}` without an upstream makes git give up on the whole batch.
    assert_eq!(git.try_resolve_many(&["@{u}", "HEAD"]).unwrap(), vec![None, Some(two.clone())]);
    let err = git.resolve_all(["HEAD", "@{u}"]).unwrap_err();
    assert!(matches!(&err, ChangeError::BadRevision { rev } if rev == "@{u}"), "{err:?}");
    assert_eq!(git.resolve_all(["HEAD", "v1"]).unwrap(), [two, one]);
    let err = git.resolve_all(["HEAD", "nope"]).unwrap_err();
    assert!(matches!(&err, ChangeError::BadRevision { rev } if rev == "nope"), "{err:?}");
}

#[test]
fn default_branch_falls_back_from_main_to_master_to_an_error() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.commit("one");
    let git = repo.handle();
    assert_eq!(git.default_branch().unwrap(), "main");
    repo.git(&["branch", "-m", "main", "master"]);
    assert_eq!(git.default_branch().unwrap(), "master");
    repo.git(&["branch", "-m", "master", "trunk"]);
    assert!(matches!(git.default_branch(), Err(ChangeError::NoDefaultBranch)));
}

#[test]
fn default_branch_prefers_origin_head() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let sha = repo.commit("one");
    repo.git(&["update-ref", "refs/remotes/origin/develop", &sha]);
    repo.git(&["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop"]);
    assert_eq!(repo.handle().default_branch().unwrap(), "origin/HEAD");
}

#[test]
fn merge_base_is_none_for_unrelated_histories() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let first = repo.commit("one");
    repo.git(&["checkout", "-q", "--orphan", "other"]);
    repo.write("b.txt", "b\n");
    let second = repo.commit("two");
    let git = repo.handle();
    assert_eq!(git.merge_base(&first, &second).unwrap(), None);
    assert_eq!(git.merge_base(&first, &first).unwrap(), Some(first));
}

#[test]
fn diff_ignores_user_config_that_would_change_the_format() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let base = repo.commit("one");
    repo.write("a.txt", "b\n");
    let head = repo.commit("two");
    for (key, value) in [("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"), ("color.ui", "always")] {
        repo.git(&["config", key, value]);
    }
    let text = repo.handle().diff(&[&base, &head]).unwrap();
    assert!(text.contains("--- a/a.txt\n+++ b/a.txt\n"), "{text}");
    assert!(!text.contains('\x1b'), "{text}");
}

#[test]
fn read_many_agrees_with_read_for_files_missing_paths_directories_and_odd_names() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n");
    repo.write("dir/b.txt", "beta\nsecond line\n");
    repo.write("with space.txt", "spaced\n");
    repo.write("café.txt", "accent\n");
    repo.write("empty.txt", "");
    let sha = repo.commit("one");
    let git = repo.handle();
    let paths = ["a.txt", "missing.txt", "dir", "dir/b.txt", "with space.txt", "café.txt", "empty.txt"];
    for snapshot in [Snapshot::Commit(sha), Snapshot::Index, Snapshot::Worktree] {
        let many = git.read_many(&snapshot, &paths).unwrap();
        let one: Vec<_> = paths.iter().map(|p| git.read(&snapshot, p).unwrap()).collect();
        assert_eq!(many, one, "{snapshot:?}");
        assert_eq!(text(many[3].clone()).unwrap(), "beta\nsecond line\n");
        assert_eq!(many[6], Some(Vec::new()), "an empty file is empty, not missing");
    }
}
