//! `backtest mine` on a repository built here with a real history (see
//! support/history.rs for what each commit does and why it is there).

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::corpus::{self, Kind};
use gauntlet_backtest::mine::{self, Confidence, Options};
use gauntlet_change::git::Git;
use std::collections::BTreeMap;
use std::path::Path;

fn mined(dir: &Path, options: &Options) -> mine::Mined {
    mine::mine(&Git::at(dir), options).expect("mining works")
}

#[test]
fn mine_finds_the_expected_escapes_with_their_confidence_and_head_lines() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let m = mined(repo.path(), &Options::default());
    type Row<'a> = (&'a str, Confidence, Vec<(String, u32, u32)>);
    let got: Vec<Row> = m.escapes.iter().map(|e| (e.head.as_str(), e.confidence, e.defects.clone())).collect();
    let mut want = vec![
        (h.id("simplify"), Confidence::A, vec![("src/auth.py".to_string(), 4, 4)]),
        // Blame looked through the whitespace sweep to the commit that wrote `+ 1`.
        (h.id("paging"), Confidence::B, vec![("src/paging.py".to_string(), 3, 3)]),
        (h.id("cache"), Confidence::B, vec![("src/cache.py".to_string(), 1, 5)]),
    ];
    want.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(got, want);
    let simplify = m.escapes.iter().find(|e| e.head == h.id("simplify")).unwrap();
    assert_eq!(simplify.base, h.id("count"), "base is the introducing commit's first parent");
    assert_eq!(simplify.fixes[0].sha, h.id("fix-trailer"));
    assert_eq!(simplify.fixes[0].subject, "Keep the owner check when deleting");
    assert!(simplify.fixes[0].body.contains("Fixes: "), "{:?}", simplify.fixes[0].body);
    assert!(m.escapes.iter().all(|e| e.head != h.id("sweep")), "the sweep is never the introducer");

    let s = &m.summary;
    assert_eq!(s.mined_at, h.id("fix-guard"));
    assert_eq!(s.fixes_seen, 5, "trailer, blame, revert, tests-only, guard");
    assert_eq!(s.kept, BTreeMap::from([("A".to_string(), 1), ("B".to_string(), 2)]));
    assert_eq!(
        s.skipped,
        BTreeMap::from([
            ("confidence C, not kept (see --confidence)".to_string(), 1),
            ("the fix touches only tests".to_string(), 1),
        ])
    );
}

#[test]
fn clean_cases_are_old_untouched_commits_of_the_escapes_sizes() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let m = mined(repo.path(), &Options::default());
    let mut want = vec![h.id("page-default"), h.id("count"), h.id("users")];
    want.sort();
    let got: Vec<&str> = m.cleans.iter().map(|c| c.head.as_str()).collect();
    // Two escapes of 2 changed lines and one of 5: the 2- and 3-line commits and the
    // 6-line one, never the 40-line export job; `rename` is excluded because a fix
    // blamed it, `readme` because it changed no code, the sweep because it is young.
    assert_eq!(got, want);
    assert_eq!((m.summary.clean, m.summary.clean_wanted), (3, 3));
    let half = Options { clean_ratio: 0.5, ..Options::default() };
    assert_eq!(mined(repo.path(), &half).cleans.len(), 1, "floor(3 * 0.5) clean cases");
}

#[test]
fn confidence_c_is_kept_on_request_with_the_lines_around_the_insertion() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let all = Options { keep: vec![Confidence::A, Confidence::B, Confidence::C], ..Options::default() };
    let m = mined(repo.path(), &all);
    let rename = m.escapes.iter().find(|e| e.head == h.id("rename")).expect("the guard's case");
    assert_eq!(rename.confidence, Confidence::C);
    assert_eq!(rename.defects, vec![("src/auth.py".to_string(), 7, 9)], "the function around the new guard");
    assert_eq!(m.cleans.len(), 4);
}

#[test]
fn the_written_corpus_loads_points_at_the_repository_and_is_identical_on_a_second_run() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let out = tempfile::tempdir().unwrap();
    let corpus_dir = out.path().join("corpus");
    let m = mined(repo.path(), &Options::default());
    mine::write::write(&m, repo.path(), &corpus_dir).unwrap();
    let first = history::read_tree(&corpus_dir);
    assert_eq!(first.len(), 16, "six cases, their diffs and the summary: {:?}", first.keys());

    let cases = corpus::load(&corpus_dir).unwrap();
    let escape = cases.iter().find(|c| c.head == h.id("paging")).unwrap();
    assert_eq!(
        (escape.kind, escape.confidence, escape.base.as_str()),
        (Kind::Escape, Some(Confidence::B), h.id("readme"))
    );
    assert_eq!(escape.defects[0].at.to_string(), "src/paging.py:3");
    assert_eq!(escape.fix[0].sha, h.id("fix-blame"));
    assert_eq!(escape.mined_at.as_deref(), Some(h.id("fix-guard")));
    assert_eq!(escape.repo.canonicalize().unwrap(), repo.path().canonicalize().unwrap(), "in place, not a copy");
    let text = String::from_utf8(first[&format!("escape-{}/case.toml", &h.id("paging")[..12])].clone()).unwrap();
    assert!(text.contains("repo = \"../../"), "a relative path: {text}");
    assert_eq!(cases.iter().filter(|c| c.kind == Kind::Clean).count(), 3);

    // Mined again (into the same folder, replacing its own cases): the same bytes.
    let again = mined(repo.path(), &Options::default());
    mine::write::write(&again, repo.path(), &corpus_dir).unwrap();
    assert_eq!(history::read_tree(&corpus_dir), first);
    let elsewhere = out.path().join("corpus2");
    mine::write::write(&mined(repo.path(), &Options::default()), repo.path(), &elsewhere).unwrap();
    assert_eq!(history::read_tree(&elsewhere), first);
}

#[test]
fn a_hand_written_case_in_the_output_folder_is_never_replaced() {
    let repo = tempfile::tempdir().unwrap();
    history::build(repo.path());
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(out.path().join("mine-by-hand")).unwrap();
    let own = "repo = \"r\"\nbase = \"a\"\nhead = \"b\"\nkind = \"clean\"\n";
    std::fs::write(out.path().join("mine-by-hand/case.toml"), own).unwrap();
    let err = mine::write::write(&mined(repo.path(), &Options::default()), repo.path(), out.path()).unwrap_err();
    assert!(err.to_string().contains("pass another --out"), "{err}");
    assert_eq!(std::fs::read_to_string(out.path().join("mine-by-hand/case.toml")).unwrap(), own);
}

#[test]
fn a_detached_checkout_mines_and_each_case_borrows_the_objects_instead_of_copying_them() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    // What a CI job has: a detached HEAD and no branch at all.
    let git = |args: &[&str]| {
        assert!(std::process::Command::new("git").arg("-C").arg(repo.path()).args(args).status().unwrap().success())
    };
    git(&["checkout", "-q", "--detach"]);
    git(&["branch", "-q", "-D", "main"]);
    let m = mined(repo.path(), &Options::default());
    assert_eq!(m.escapes.len(), 3);
    let paging = m.escapes.iter().find(|e| e.head == h.id("paging")).unwrap();
    let case = gauntlet_backtest::checkout::checkout(repo.path(), &paging.base, &paging.head).unwrap();
    assert_eq!((case.base.as_str(), case.head.as_str()), (h.id("readme"), h.id("paging")));
    let objects = case.git.root().join(".git/objects");
    let alternates = std::fs::read_to_string(objects.join("info/alternates")).unwrap();
    assert!(alternates.trim_end().ends_with("objects"), "{alternates}");
    let copied: Vec<_> = std::fs::read_dir(&objects)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "info" && n != "pack")
        .collect();
    assert!(copied.is_empty(), "no object was copied: {copied:?}");
    let text = std::fs::read_to_string(case.git.root().join("src/paging.py")).unwrap();
    assert!(text.contains("start+size+1]"), "checked out at head: {text}");
}

#[test]
fn merges_are_followed_to_their_changes_unless_their_own_commits_are_the_fixes() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    history::git(d, &["init", "-q", "-b", "main"], 0);
    let base = "def f(x):\n    return x + 1\n";
    history::commit(d, 0, "Start", &[("a.py", Some(base))]);
    let with_h = format!("{base}\n\ndef h(x):\n    return round(x, 1)\n");
    let add_h = history::commit(d, 2, "Add h", &[("a.py", Some(&with_h))]);
    history::git(d, &["checkout", "-q", "-b", "feature"], 3);
    let with_g = format!("{with_h}\n\ndef g(x):\n    return x - 1\n");
    let add_g = history::commit(d, 3, "Add g", &[("a.py", Some(&with_g))]);
    history::git(d, &["checkout", "-q", "main"], 4);
    history::git(d, &["merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature"], 4);
    history::git(d, &["checkout", "-q", "-b", "repair"], 200);
    let g_fixed = with_g.replace("x - 1", "x * 2");
    let fix_g = history::commit(d, 200, "Fix g returning the wrong value", &[("a.py", Some(&g_fixed))]);
    history::git(d, &["checkout", "-q", "main"], 201);
    history::git(d, &["merge", "-q", "--no-ff", "-m", "Merge pull request #2: fix g", "repair"], 201);
    history::git(d, &["checkout", "-q", "-b", "rounding"], 210);
    let h_changed = g_fixed.replace("round(x, 1)", "round(x, 2)");
    history::commit(d, 210, "Round h to two places", &[("a.py", Some(&h_changed))]);
    history::git(d, &["checkout", "-q", "main"], 211);
    history::git(d, &["merge", "-q", "--no-ff", "-m", "Merge pull request #3: fix the rounding of h", "rounding"], 211);
    let merge_h = history::git(d, &["rev-parse", "HEAD"], 211);

    let m = mined(d, &Options { clean_ratio: 0.0, ..Options::default() });
    let got: Vec<(&str, Confidence, &str)> =
        m.escapes.iter().map(|e| (e.head.as_str(), e.confidence, e.fixes[0].sha.as_str())).collect();
    let mut want =
        vec![(add_g.as_str(), Confidence::B, fix_g.as_str()), (add_h.as_str(), Confidence::B, merge_h.as_str())];
    want.sort();
    assert_eq!(got, want, "g from its own fix commit, h from the merge that changed it");
    assert_eq!(m.summary.fixes_seen, 3);
    assert_eq!(m.summary.skipped.get("a merge whose own commits are mined one by one"), Some(&1));

    // The window: the last two commits hold only the rounding merge and its commit.
    let last = mined(d, &Options { window: mine::history::Window::Last(2), clean_ratio: 0.0, ..Options::default() });
    assert_eq!((last.summary.commits, last.summary.fixes_seen, last.escapes.len()), (2, 1, 1));
}

#[test]
fn a_named_commit_wins_over_blame_and_a_name_outside_the_history_is_skipped() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    history::git(d, &["init", "-q", "-b", "main"], 0);
    let v1 = "def f(x):\n    return x + 1\n\n\ndef g(x, n=2):\n    return x * n\n";
    history::commit(d, 0, "Start", &[("a.py", Some(v1))]);
    let v2 = v1.replace("n=2", "n=3");
    let named = history::commit(d, 1, "Change g's default", &[("a.py", Some(&v2))]);
    let v3 = v2.replace("x + 1", "x + 2");
    history::commit(d, 2, "Tune f", &[("a.py", Some(&v3))]);
    let v4 = v3.replace("x + 2", "x + 1");
    let trailer = format!("Restore f\n\nThe default change broke f's callers.\n\nFixes: {}\n", &named[..10]);
    history::commit(d, 200, &trailer, &[("a.py", Some(&v4))]);
    let v5 = v4.replace("x * n", "x * n * 1");
    let nowhere = "Keep g exact\n\nSee the report.\n\nFixes: 0123456789abcdef0123\n";
    history::commit(d, 201, nowhere, &[("a.py", Some(&v5))]);

    let m = mined(d, &Options { clean_ratio: 0.0, ..Options::default() });
    assert_eq!(m.escapes.len(), 1);
    let e = &m.escapes[0];
    // Blame of `x + 2` lands on "Tune f", but the developer named the default change:
    // its own changed line in a.py is the defect.
    assert_eq!((e.head.as_str(), e.confidence), (named.as_str(), Confidence::A));
    assert_eq!(e.defects, vec![("a.py".to_string(), 5, 5)]);
    assert_eq!(m.summary.skipped.get("the commit the message names does not resolve"), Some(&1));
}
