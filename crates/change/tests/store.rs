//! The in-process object reads give the answers the git CLI gives: same names, same
//! merge bases, same listings and file contents, in the awkward cases too.

mod common;

use common::Repo;
use gauntlet_change::{ChangeError, Snapshot, git::Git};

/// Run git in `dir` (not a [`Repo`]: a repository made some other way), panicking
/// with its stderr on failure; returns stdout, trimmed.
fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A clone of `origin`, `depth` commits deep on every branch.
fn shallow_clone(origin: &Repo, depth: u32) -> tempfile::TempDir {
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    git_in(clone.path(), &["clone", "-q", "--depth", &depth.to_string(), "--no-single-branch", &url, "."]);
    clone
}

/// Both routes over one repository.
fn routes(repo: &Repo) -> (Git, Git) {
    let (fast, cli) = (repo.handle(), repo.handle().cli_only());
    assert!(fast.reads_in_process() && !cli.reads_in_process(), "the two routes differ");
    (fast, cli)
}

/// A history with a symlink, an executable, a submodule entry, nested folders, and
/// paths with spaces, unicode, a newline and glob characters.
fn awkward_repo() -> (Repo, String) {
    let repo = Repo::new();
    repo.write("src/lib.rs", "fn a() {}\n");
    repo.write("src/deep/er/mod.rs", "mod x;\n");
    repo.write("with space.txt", "space\n");
    repo.write("ünï/cödé.rs", "unicode\n");
    repo.write("a*[b].txt", "glob\n");
    repo.write("line\nbreak.txt", "newline\n");
    repo.write("run.sh", "#!/bin/sh\n");
    repo.git(&["update-index", "--add", "--chmod=+x", "run.sh"]);
    std::os::unix::fs::symlink("src/lib.rs", repo.file("link.rs")).unwrap();
    std::os::unix::fs::symlink("../../outside", repo.file("src/escape")).unwrap();
    // A nested repository is committed as a submodule entry (a gitlink).
    repo.write("vendor/sub/inner.txt", "inner\n");
    let id = ["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"];
    repo.git(&["-C", "vendor/sub", "init", "-q"]);
    repo.git(&[&["-C", "vendor/sub"][..], &id, &["commit", "-q", "--allow-empty", "-m", "inner"]].concat());
    let sha = repo.commit("awkward");
    (repo, sha)
}

#[test]
fn listing_and_links_match_ls_tree() {
    let (repo, sha) = awkward_repo();
    let (fast, cli) = routes(&repo);
    let snapshot = Snapshot::Commit(sha);
    let got = fast.list_files_and_links(&snapshot).unwrap();
    assert_eq!(got, cli.list_files_and_links(&snapshot).unwrap());
    assert!(got.0.contains(&"vendor/sub".to_string()) && got.0.contains(&"line\nbreak.txt".to_string()), "{got:?}");
    assert_eq!(got.1, vec![("link.rs".into(), "src/lib.rs".into()), ("src/escape".into(), "../../outside".into())]);
}

#[test]
fn file_reads_match_cat_file_for_files_links_and_things_that_are_not_files() {
    let (repo, sha) = awkward_repo();
    let (fast, cli) = routes(&repo);
    let snapshot = Snapshot::Commit(sha);
    let paths = [
        "src/lib.rs",
        "src/deep/er/mod.rs",
        "with space.txt",
        "ünï/cödé.rs",
        "a*[b].txt",
        "line\nbreak.txt",
        "run.sh",
        "link.rs",
        "src/escape",
        // Not files at this commit: a folder, a submodule, missing paths.
        "src",
        "vendor/sub",
        "nope.rs",
        "src/nope/deeper.rs",
        "src/lib.rs/x",
        // Spellings git itself decides about (it reads `./x` from the root).
        "./src/lib.rs",
        "src//lib.rs",
        "src/../src/lib.rs",
        "/src/lib.rs",
        "",
    ];
    let got = fast.read_many(&snapshot, &paths).unwrap();
    assert_eq!(got, cli.read_many(&snapshot, &paths).unwrap());
    assert_eq!(got[0].as_deref(), Some(&b"fn a() {}\n"[..]));
    assert_eq!(got[7].as_deref(), Some(&b"src/lib.rs"[..]), "a link reads as the target it stores");
    assert!(got[9..14].iter().all(Option::is_none), "{got:?}");
    // One at a time too, errors included (git refuses `/src/lib.rs` outright).
    let one = |git: &Git, path| git.read(&snapshot, path).map_err(|e| e.to_string());
    for path in paths {
        assert_eq!(one(&fast, path), one(&cli, path), "{path:?}");
    }
}

#[test]
fn revision_names_resolve_as_git_resolves_them() {
    let repo = Repo::new();
    repo.write("f.txt", "1\n");
    let first = repo.commit("one");
    repo.write("f.txt", "2\n");
    let second = repo.commit("two");
    repo.git(&["tag", "-a", "-m", "annotated", "v1", &first]);
    repo.git(&["tag", "light", &second]);
    repo.git(&["branch", "feature", &first]);
    let (fast, cli) = routes(&repo);
    let short = &second[..10];
    let names = [
        "HEAD",
        "HEAD~1",
        "HEAD^",
        "v1",
        "light",
        "feature",
        "main",
        "master",
        "origin/HEAD",
        short,
        &first,
        "HEAD:f.txt",
        "nope",
        "main foo",
        "@{u}",
        "feature..main",
        "-p",
        "",
        "HEAD\nmain",
    ];
    let want = cli.try_resolve_many(&names).unwrap();
    assert_eq!(fast.try_resolve_many(&names).unwrap(), want);
    for (name, sha) in names.iter().zip(&want) {
        assert_eq!(&fast.try_resolve(name).unwrap(), sha, "{name:?}");
    }
    assert_eq!(want[3].as_deref(), Some(first.as_str()), "an annotated tag names its commit");
    assert_eq!(want[11], None, "a blob is not a commit");
    assert!(matches!(fast.resolve("main foo"), Err(ChangeError::BadRevision { .. })));
}

#[test]
fn merge_bases_match_including_criss_cross_and_unrelated_histories() {
    let repo = Repo::new();
    repo.write("f.txt", "base\n");
    let root = repo.commit("root");
    // Criss-cross: two branches each merge the other's first commit, leaving two
    // equally good merge bases.
    repo.git(&["checkout", "-q", "-b", "left"]);
    repo.write("l.txt", "l1\n");
    let l1 = repo.commit("l1");
    repo.git(&["checkout", "-q", "-b", "right", &root]);
    repo.write("r.txt", "r1\n");
    let r1 = repo.commit("r1");
    repo.git(&["merge", "-q", "--no-edit", &l1]);
    repo.write("r.txt", "r2\n");
    let r2 = repo.commit("r2");
    repo.git(&["checkout", "-q", "left"]);
    repo.git(&["merge", "-q", "--no-edit", &r1]);
    repo.write("l.txt", "l2\n");
    let l2 = repo.commit("l2");
    repo.git(&["checkout", "-q", "--orphan", "alone"]);
    repo.write("other.txt", "unrelated\n");
    let alone = repo.commit("unrelated");
    let (fast, cli) = routes(&repo);
    assert_eq!(repo.git(&["merge-base", "--all", &l2, &r2]).lines().count(), 2, "the history is criss-cross");
    for (a, b) in [(&l2, &r2), (&r2, &l2), (&l1, &r2), (&root, &l2), (&l2, &l2), (&alone, &l2)] {
        assert_eq!(fast.merge_base(a, b).unwrap(), cli.merge_base(a, b).unwrap(), "{a} {b}");
    }
    assert_eq!(fast.merge_base(&alone, &l2).unwrap(), None);
}

#[test]
fn a_repository_gitoxide_cannot_open_is_read_through_git() {
    // This build of gitoxide knows SHA-1 object ids only.
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| git_in(dir.path(), args);
    git(&["init", "-q", "-b", "main", "--object-format=sha256"]);
    std::fs::write(dir.path().join("f.txt"), "one\n").unwrap();
    git(&["add", "f.txt"]);
    git(&["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "one"]);
    let handle = Git::discover(dir.path()).unwrap();
    assert!(!handle.reads_in_process());
    let head = handle.resolve("HEAD").unwrap();
    assert_eq!(head.len(), 64);
    assert_eq!(handle.read(&Snapshot::Commit(head.clone()), "f.txt").unwrap().as_deref(), Some(&b"one\n"[..]));
    assert_eq!(handle.list_files(&Snapshot::Commit(head)).unwrap(), vec!["f.txt".to_string()]);
}

#[test]
fn a_shallow_clone_gets_git_s_answer_about_merge_bases() {
    // CI checkouts are often one commit deep: the merge base lies past the cut.
    let origin = Repo::new();
    for i in 0..3 {
        origin.write("f.txt", format!("{i}\n"));
        origin.commit("main");
    }
    origin.git(&["checkout", "-q", "-b", "feature"]);
    origin.write("g.txt", "feature\n");
    origin.commit("feature");
    origin.git(&["checkout", "-q", "main"]);
    origin.write("f.txt", "later\n");
    origin.commit("main moves on");
    let clone = shallow_clone(&origin, 1);
    let fast = Git::discover(clone.path()).unwrap();
    let cli = fast.clone().cli_only();
    let [a, b] = fast.resolve_all(["origin/main", "origin/feature"]).unwrap();
    assert_eq!(fast.merge_base(&a, &b).unwrap(), cli.merge_base(&a, &b).unwrap());
    assert_eq!(fast.merge_base(&b, &a).unwrap(), cli.merge_base(&b, &a).unwrap());
}

#[test]
fn the_quick_look_finds_wanted_commits_that_touched_a_path_and_only_those() {
    let repo = Repo::new();
    let fix = |m: &str| m.contains("fix");
    let at = |name: &str, when: i64| {
        let date = format!("@{when} +0000");
        repo.git(&["add", "-A"]);
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(repo.path())
            .args(["commit", "-q", "--allow-empty", "-m", name])
            .env("GIT_COMMITTER_DATE", &date)
            .env("GIT_AUTHOR_DATE", &date)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        repo.git(&["rev-parse", "HEAD"]).trim().to_string()
    };
    repo.write("a.rs", "a\n");
    repo.write("b.rs", "b\n");
    at("start", 1_000);
    repo.write("a.rs", "a2\n");
    at("fix the a file", 2_000);
    repo.write("b.rs", "b2\n");
    let tip = at("tidy b", 3_000);
    let git = repo.handle();
    let look = |paths: &[&str], since| git.wanted_commit_touches(&tip, paths, since, &fix, 100);
    assert_eq!(look(&["a.rs"], 0), Some(true), "the fix changed a.rs");
    assert_eq!(look(&["b.rs"], 0), Some(false), "no fix commit changed b.rs");
    assert_eq!(look(&["a.rs"], 2_500), Some(false), "the fix is older than the window");
    assert_eq!(git.wanted_commit_touches(&tip, &["a.rs"], 0, &fix, 1), None, "too many commits to look at");
    // A file that had another name when a fix touched it counts as touched.
    repo.git(&["mv", "a.rs", "renamed.rs"]);
    let tip = at("move", 4_000);
    assert_eq!(git.wanted_commit_touches(&tip, &["renamed.rs"], 0, &fix, 100), Some(true));
    assert_eq!(git.wanted_commit_touches(&tip, &["b.rs"], 0, &fix, 100), Some(false));
    assert_eq!(git.commit_time(&tip).unwrap(), 4_000);
    assert_eq!(git.clone().cli_only().commit_time(&tip).unwrap(), 4_000);
    assert_eq!(git.cli_only().wanted_commit_touches(&tip, &["b.rs"], 0, &fix, 100), None, "only in-process");
}

#[test]
fn commit_subjects_and_the_common_folder_match_git() {
    let repo = Repo::new();
    repo.write("f.txt", "0\n");
    let base = repo.commit("start");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("s.txt", "s\n");
    repo.commit("chore(deps): bump\nacross two lines\n\nwith a body");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("f.txt", "1\n");
    repo.commit("  fix: spaced   subject  ");
    repo.git(&["merge", "-q", "--no-edit", "side"]);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    let (fast, cli) = routes(&repo);
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let got = sorted(fast.commit_subjects(&base, &head));
    assert_eq!(got, sorted(cli.commit_subjects(&base, &head)));
    assert_eq!(got.len(), 2, "the merge is left out: {got:?}");
    assert!(got.contains(&"chore(deps): bump across two lines".to_string()), "{got:?}");
    assert!(fast.commit_subjects(&head, &head).is_empty());
    assert_eq!(fast.commit_subjects(&base, "WORKTREE"), cli.commit_subjects(&base, "WORKTREE"));

    // A linked worktree shares the main checkout's git folder.
    let linked = tempfile::tempdir().unwrap();
    let path = linked.path().join("wt");
    repo.git(&["worktree", "add", "-q", path.to_str().unwrap(), &base]);
    let wt = Git::discover(&path).unwrap();
    let want = repo.path().join(".git").canonicalize().unwrap();
    assert_eq!(wt.common_dir().unwrap().canonicalize().unwrap(), want);
    assert_eq!(wt.clone().cli_only().common_dir().unwrap().canonicalize().unwrap(), want);
    assert!(wt.reads_in_process());
}

#[test]
fn environment_that_redirects_git_leaves_every_read_to_git() {
    // The child half: runs in a copy of this test binary with GIT_DIR set.
    if let Some(dir) = std::env::var_os("GAUNTLET_STORE_TEST_REPO") {
        let git = Git::discover(std::path::Path::new(&dir)).unwrap();
        assert!(!git.reads_in_process(), "GIT_DIR is set: git answers");
        let head = git.resolve("HEAD").unwrap();
        assert_eq!(git.read(&Snapshot::Commit(head), "f.txt").unwrap().as_deref(), Some(&b"x\n"[..]));
        return;
    }
    let repo = Repo::new();
    repo.write("f.txt", "x\n");
    repo.commit("one");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "environment_that_redirects_git_leaves_every_read_to_git", "--nocapture"])
        .env("GAUNTLET_STORE_TEST_REPO", repo.path())
        .env("GIT_DIR", repo.path().join(".git"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("1 passed"), "{text}{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn replaced_objects_read_as_git_reads_them() {
    let repo = Repo::new();
    repo.write("f.txt", "original\n");
    let head = repo.commit("one");
    let old = repo.git(&["rev-parse", "HEAD:f.txt"]).trim().to_string();
    std::fs::write(repo.file("other.txt"), "replacement\n").unwrap();
    let new = repo.git(&["hash-object", "-w", "other.txt"]).trim().to_string();
    std::fs::remove_file(repo.file("other.txt")).unwrap();
    repo.git(&["replace", &old, &new]);
    let (fast, cli) = routes(&repo);
    let snapshot = Snapshot::Commit(head);
    let want = cli.read(&snapshot, "f.txt").unwrap();
    assert_eq!(want.as_deref(), Some(&b"replacement\n"[..]), "git reads the replacement");
    assert_eq!(fast.read(&snapshot, "f.txt").unwrap(), want);
    assert_eq!(fast.read_many(&snapshot, &["f.txt"]).unwrap(), cli.read_many(&snapshot, &["f.txt"]).unwrap());
}

/// `git commit-tree` of the index, with a message given byte for byte, on top of
/// `parent`.
fn commit_verbatim(repo: &Repo, parent: &str, message: &[u8], encoding: Option<&str>) -> String {
    use std::io::Write;
    repo.git(&["add", "-A"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    let mut cmd = std::process::Command::new("git");
    cmd.arg("-C").arg(repo.path());
    if let Some(e) = encoding {
        cmd.args(["-c", &format!("i18n.commitEncoding={e}")]);
    }
    let mut child = cmd
        .args(["commit-tree", &tree, "-p", parent, "-F", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(message).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn subjects_keep_git_s_whitespace_rules_and_encodings() {
    let repo = Repo::new();
    repo.write("f.txt", "0\n");
    let base = repo.commit("start");
    let mut tip = base.clone();
    let messages: [(&[u8], Option<&str>); 6] = [
        ("trailing nbsp\u{a0}\n".as_bytes(), None),
        (b"form feed\x0c\n", None),
        (b"vt\x0bmid\x0b\n", None),
        ("first\n\u{a0}\nsecond\n\nbody\n".as_bytes(), None),
        (b"\n\n  indented\r\nwrapped \t\n\nbody", None),
        (b"caf\xe9 fix\n", Some("ISO-8859-1")),
    ];
    for (i, (message, encoding)) in messages.into_iter().enumerate() {
        repo.write("f.txt", format!("{i}\n"));
        tip = commit_verbatim(&repo, &tip, message, encoding);
    }
    let (fast, cli) = routes(&repo);
    let want = cli.commit_subjects(&base, &tip);
    assert_eq!(fast.commit_subjects(&base, &tip), want);
    assert_eq!(want[0], "café fix", "git converts the declared encoding");
    // The quick look does not read a message in another encoding: it counts as wanted.
    let no = |_: &str| false;
    assert_eq!(fast.wanted_commit_touches(&tip, &["f.txt"], 0, &no, 100), Some(true));
}

#[test]
fn a_merge_at_a_shallow_clone_s_cut_is_listed_as_git_lists_it() {
    let origin = Repo::new();
    origin.write("f.txt", "0\n");
    origin.commit("root");
    origin.git(&["branch", "other"]);
    origin.git(&["checkout", "-q", "-b", "side"]);
    origin.write("s.txt", "s\n");
    origin.commit("side work");
    origin.git(&["checkout", "-q", "main"]);
    origin.write("f.txt", "1\n");
    origin.commit("main work");
    origin.git(&["merge", "-q", "--no-edit", "-m", "Merge pull request #6 from acme/side", "side"]);
    origin.write("f.txt", "2\n");
    origin.commit("Bump serde from 1.0.1 to 1.0.2");
    let clone = shallow_clone(&origin, 2);
    let fast = Git::discover(clone.path()).unwrap();
    let cli = fast.clone().cli_only();
    let [head, other] = fast.resolve_all(["HEAD", "origin/other"]).unwrap();
    let want = cli.commit_subjects(&other, &head);
    assert!(want.iter().any(|s| s.starts_with("Merge pull request")), "{want:?}");
    assert_eq!(fast.commit_subjects(&other, &head), want);
    assert_eq!(fast.try_resolve("HEAD~2").unwrap(), cli.try_resolve("HEAD~2").unwrap());
}

#[test]
fn reftable_and_grafted_repositories_are_read_through_git() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| git_in(dir.path(), args);
    git(&["init", "-q", "-b", "main", "--ref-format=reftable"]);
    std::fs::write(dir.path().join("f.txt"), "one\n").unwrap();
    git(&["add", "f.txt"]);
    git(&["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "one"]);
    let sha = git(&["rev-parse", "HEAD"]);
    let handle = Git::discover(dir.path()).unwrap();
    assert!(!handle.reads_in_process());
    assert_eq!(handle.resolve_all([sha.as_str(), "main"]).unwrap(), [sha.clone(), sha.clone()]);

    // A grafts file gives `b` the parent `lone`, for git.
    let repo = Repo::new();
    repo.write("f.txt", "root\n");
    let root = repo.commit("root");
    repo.write("f.txt", "a\n");
    repo.commit("a");
    repo.write("f.txt", "b\n");
    let b = repo.commit("b");
    repo.git(&["checkout", "-q", "--orphan", "alone"]);
    repo.write("f.txt", "lone\n");
    let lone = repo.commit("lone");
    std::fs::write(repo.path().join(".git/info/grafts"), format!("{b} {lone}\n")).unwrap();
    let handle = repo.handle();
    assert!(!handle.reads_in_process());
    assert_eq!(handle.merge_base(&lone, &b).unwrap(), Some(lone.clone()));
    assert_eq!(handle.commit_subjects(&root, &b), vec!["b".to_string(), "lone".to_string()]);
}
