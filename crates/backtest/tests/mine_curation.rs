//! What `backtest mine` writes for a person to sign each case (the fix's diff, the
//! introducing diff with the blamed lines marked, `status = "unreviewed"`), and a
//! person's decisions kept when the same cases are mined again.

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::corpus::{self, Kind};
use gauntlet_backtest::curate::{Decision, Status, record};
use gauntlet_backtest::mine::{self, Options};
use gauntlet_change::git::Git;
use std::path::Path;

fn mine_into(repo: &Path, out: &Path) {
    let m = mine::mine(&Git::at(repo), &Options::default()).expect("mining works");
    mine::write::write(&m, repo, out).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn each_mined_case_carries_its_diffs_with_the_blamed_lines_marked_and_starts_unreviewed() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let out = tempfile::tempdir().unwrap();
    let corpus_dir = out.path().join("corpus");
    mine_into(repo.path(), &corpus_dir);

    let paging = corpus_dir.join(format!("escape-{}", &h.id("paging")[..12]));
    let intro = read(&paging.join("intro.diff"));
    assert!(intro.starts_with("# ") && intro.contains("start with `>>` are the blamed lines"), "{intro}");
    assert!(intro.contains("src/paging.py:3"), "the header names the blamed lines: {intro}");
    let header = format!("commit {}\nAuthor: Dev <dev@example.com>\nDate:   2021-01-21T00:00:00", h.id("paging"));
    assert!(intro.contains(&header), "the introducing commit's id, author and date: {intro}");
    let marked: Vec<&str> = intro.lines().filter(|l| l.starts_with(">>")).collect();
    assert_eq!(marked, vec![">>+    return items[start:start+size+1]"], "{intro}");
    assert!(intro.contains("\n-    return items[start:start+size]\n"), "the rest of the diff is unmarked: {intro}");

    let fix = read(&paging.join("fix.diff"));
    assert!(fix.contains(&format!("commit {}\nAuthor: Dev <dev@example.com>", h.id("fix-blame"))), "{fix}");
    assert!(fix.contains("    Fix the last page having one item too many\n"), "{fix}");
    assert!(
        fix.contains("\n-    return items[start : start + size + 1]\n+    return items[start : start + size]\n"),
        "{fix}"
    );
    assert!(!fix.lines().any(|l| l.starts_with(">>")), "nothing is marked in the fix: {fix}");

    let cases = corpus::load(&corpus_dir).unwrap();
    assert!(cases.iter().all(|c| c.curation.status == Status::Unreviewed), "every mined case starts unreviewed");
    assert!(read(&paging.join("case.toml")).contains("\nstatus = \"unreviewed\"\n"));
    for clean in cases.iter().filter(|c| c.kind == Kind::Clean) {
        let change = read(&clean.dir.join("change.diff"));
        assert!(change.contains(&format!("commit {}\n", clean.head)), "{change}");
        assert!(change.contains("diff --git "), "{change}");
        assert!(!clean.dir.join("fix.diff").exists(), "a clean case has no fix");
    }
}

fn decide(status: Status, reason: &str) -> Decision {
    Decision { status, reason: Some(reason.into()), by: "Ada".into(), at: "2026-12-06".into() }
}

#[test]
fn a_decision_is_kept_when_the_case_is_mined_again_unless_its_claim_changed() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    let out = tempfile::tempdir().unwrap();
    let corpus_dir = out.path().join("corpus");
    mine_into(repo.path(), &corpus_dir);
    let name = |id: &str| format!("escape-{}", &h.id(id)[..12]);
    record(&corpus_dir.join(name("paging")), &decide(Status::Accepted, "the slice takes one item too many")).unwrap();
    record(&corpus_dir.join(name("cache")), &decide(Status::Rejected, "deleted, not broken")).unwrap();
    // A case whose defects differ from what the miner finds now is a new claim.
    let simplify = corpus_dir.join(name("simplify")).join("case.toml");
    record(&corpus_dir.join(name("simplify")), &decide(Status::Accepted, "looked right")).unwrap();
    std::fs::write(&simplify, read(&simplify).replace("lines = [4, 4]", "lines = [5, 5]")).unwrap();

    mine_into(repo.path(), &corpus_dir);
    let cases = corpus::load(&corpus_dir).unwrap();
    let status = |id: &str| cases.iter().find(|c| c.name == name(id)).unwrap().curation.clone();
    let paging = status("paging");
    assert_eq!(paging.status, Status::Accepted);
    assert_eq!(paging.reason.as_deref(), Some("the slice takes one item too many"));
    assert_eq!((paging.curated_by.as_deref(), paging.curated_at.as_deref()), (Some("Ada"), Some("2026-12-06")));
    assert_eq!(status("cache").status, Status::Rejected);
    assert_eq!(status("simplify").status, Status::Unreviewed, "its claim changed: read it again");
}
