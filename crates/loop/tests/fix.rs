//! `fix` items end to end in a real git repository, with a scripted provider:
//! patches are checked in a temporary worktree, failures go to the right session,
//! and partial progress across items is kept.

mod support;

use gauntlet_loop::converge::ExitReason;
use gauntlet_loop::engine::{Flow, Settings};
use gauntlet_loop::fix::sandbox::Check;
use gauntlet_loop::fix::{FixRun, WorkItem, fix_all};
use gauntlet_loop::meter::Meter;
use gauntlet_loop::round::Judge;
use gauntlet_model::Tier;
use gauntlet_review::cost::Prices;
use gauntlet_review::pipeline::{Budget, Models};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use support::{Scripted, approved, critique, last_user, text_of, work};

const CALC: &str = "def last(items):\n    return items[len(items)]\n\n\ndef total(items):\n    return sum(items)\n";

const GOOD_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def last(items):\n-    return items[len(items)]\n+    return items[len(items) - 1]\n";
/// Right content, wrong hunk counts: applies with --recount.
const SLOPPY_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -1,9 +1,7 @@\n def last(items):\n-    return items[len(items)]\n+    return items[-1] if items else None  # fixed\n";
/// Context that is not in the file.
const BAD_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def first(items):\n-    return items[0]\n+    return items[0] if items else None\n";
const TOTAL_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n def total(items):\n-    return sum(items)\n+    return sum(items or [])\n";

const LAST: &str = "last() indexes one past the end of the list and always raises IndexError";
const TOTAL: &str = "total() raises TypeError when items is None";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn repo() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "t"]);
    std::fs::write(d.join("calc.py"), CALC).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "calc"]);
    let head = git(d, &["rev-parse", "HEAD"]).trim().to_string();
    (dir, head)
}

fn item(location: &str, claim: &str) -> WorkItem {
    WorkItem {
        id: format!("id-{location}"),
        reviewer: "correctness".into(),
        location: location.into(),
        claim: claim.into(),
        evidence: "return".into(),
        severity: "high".into(),
        validator_evidence: format!("{location} confirmed"),
    }
}

fn fix_run(dir: &Path, head: &str, rounds: u32, check: Option<&str>) -> FixRun {
    FixRun {
        masker: Some(std::sync::Arc::new(gauntlet_review::secrets::Masker::new(&[]).unwrap())),
        repo: dir.to_path_buf(),
        head: head.into(),
        check: check.map(|c| Check { command: c.into(), timeout: Duration::from_secs(30) }),
        settings: Settings { rounds, flow: Flow::Standard, tier: Tier::Standard },
        jobs: 2,
    }
}

fn meter(p: &Arc<Scripted>) -> Meter {
    Meter::new(Models::single(p.clone()), Prices::default(), Budget::default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_progress_is_kept_when_one_item_converges_and_one_hits_the_cap() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", Some(LAST), vec![work("patch", GOOD_FIX, &[])]);
    p.script("adversary", Some(LAST), vec![approved()]);
    p.script("primary", Some(TOTAL), vec![work("patch", TOTAL_FIX, &[]), work("patch", TOTAL_FIX, &[1])]);
    p.script(
        "adversary",
        Some(TOTAL),
        vec![
            critique("needs_work", &[("major", "Callers that pass a generator now get a different error")]),
            critique("needs_work", &[("critical", "None is silently summed to zero and hides the caller's bug")]),
        ],
    );
    let items = [item("calc.py:2", LAST), item("calc.py:6", TOTAL)];
    let results = fix_all(&items, &fix_run(dir.path(), &head, 2, None), &meter(&p)).await;

    assert_eq!(results[0].outcome.exit, ExitReason::Approved);
    assert!(results[0].patch().unwrap().contains("+    return items[len(items) - 1]"));
    assert_eq!(results[1].outcome.exit, ExitReason::RoundCap);
    assert!(!results[1].outcome.exit.converged());
    assert_eq!(results[1].outcome.kept, Some(1), "the major-only round beats the critical one");
    assert!(results[1].patch().unwrap().contains("sum(items or [])"), "the unconverged item keeps its best patch");

    assert_eq!(std::fs::read_to_string(dir.path().join("calc.py")).unwrap(), CALC, "the working tree is untouched");
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
    assert_eq!(git(dir.path(), &["worktree", "list"]).lines().count(), 1, "temporary worktrees are removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_that_does_not_apply_goes_back_to_the_primary_as_an_issue() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", None, vec![work("patch", BAD_FIX, &[]), work("patch", GOOD_FIX, &[1])]);
    p.script("adversary", None, vec![approved()]);
    let results = fix_all(&[item("calc.py:2", LAST)], &fix_run(dir.path(), &head, 10, None), &meter(&p)).await;
    let out = &results[0].outcome;
    assert_eq!(out.exit, ExitReason::Approved);
    assert_eq!(out.rounds[0].judge, Judge::Gauntlet);
    assert!(out.rounds[0].issues[0].description.contains("does not apply"));
    assert_eq!(p.seen_step("adversary").len(), 1, "the adversary never saw the patch that did not apply");
    let second = last_user(&p.seen_step("primary")[1]);
    assert!(second.contains("could not be reviewed") && second.contains("does not apply"), "{second}");
    assert!(!second.contains("gauntlet-fix-"), "no temporary paths leak into prompts: {second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_check_command_reaches_the_adversary() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", None, vec![work("patch", GOOD_FIX, &[]), work("patch", SLOPPY_FIX, &[1])]);
    p.script(
        "adversary",
        None,
        vec![
            critique("needs_work", &[("critical", "The check fails: the marker test still reports broken")]),
            approved(),
        ],
    );
    let check = "grep -q fixed calc.py || { echo 'FAIL: calc.py still broken'; exit 3; }";
    let results = fix_all(&[item("calc.py:2", LAST)], &fix_run(dir.path(), &head, 10, Some(check)), &meter(&p)).await;
    let adversary = p.seen_step("adversary");
    let first = text_of(&adversary[0]);
    assert!(first.contains("exit code 3") && first.contains("FAIL: calc.py still broken"), "{first}");
    assert!(text_of(&adversary[1]).contains("exit code 0"));
    let out = &results[0].outcome;
    assert_eq!(out.exit, ExitReason::Approved);
    assert_eq!(out.rounds[0].check_passed, Some(false));
    assert_eq!(out.rounds[1].check_passed, Some(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kept_patch_is_canonical_and_applies_with_plain_git_apply() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", None, vec![work("patch", SLOPPY_FIX, &[])]);
    p.script("adversary", None, vec![approved()]);
    let results = fix_all(&[item("calc.py:2", LAST)], &fix_run(dir.path(), &head, 10, None), &meter(&p)).await;
    let patch = results[0].patch().unwrap();
    assert!(patch.starts_with("diff --git a/calc.py b/calc.py"), "{patch}");
    assert!(!patch.contains("@@ -1,9 +1,7 @@"), "hunk counts recomputed: {patch}");
    gauntlet_loop::fix::apply_to(dir.path(), patch).unwrap();
    assert!(std::fs::read_to_string(dir.path().join("calc.py")).unwrap().contains("# fixed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_hangs_is_stopped_and_reported_as_failed() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", None, vec![work("patch", GOOD_FIX, &[])]);
    p.script("adversary", None, vec![approved()]);
    let mut run = fix_run(dir.path(), &head, 10, Some("echo started; sleep 30"));
    run.check.as_mut().unwrap().timeout = Duration::from_millis(500);
    let started = std::time::Instant::now();
    let results = fix_all(&[item("calc.py:2", LAST)], &run, &meter(&p)).await;
    assert!(started.elapsed() < Duration::from_secs(10), "the check was stopped, not waited for");
    let seen = text_of(&p.seen_step("adversary")[0]);
    assert!(seen.contains("did not finish within 0.5s and was stopped") && seen.contains("started"), "{seen}");
    assert_eq!(results[0].outcome.rounds[0].check_passed, Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_the_file_are_masked_and_a_patch_that_writes_the_placeholder_back_is_refused() {
    let (dir, _) = repo();
    let key = format!("AKIA{}", "Q7WX2ZK4M5PLR3TB");
    let d = dir.path();
    std::fs::write(d.join("calc.py"), format!("{CALC}\nKEY = \"{key}\"\n")).unwrap();
    git(d, &["commit", "-q", "-am", "key"]);
    let head = git(d, &["rev-parse", "HEAD"]).trim().to_string();
    // The model only ever saw the placeholder; writing it back would break the code.
    let clobber = "--- a/calc.py\n+++ b/calc.py\n@@ -8,1 +8,1 @@\n-KEY = \"[masked aws-access-token]\"\n+KEY = \"[masked aws-access-token]\"  # keep\n";
    let p = Scripted::new();
    p.script("primary", None, vec![work("patch", clobber, &[]), work("patch", GOOD_FIX, &[1])]);
    p.script("adversary", None, vec![approved()]);
    let results = fix_all(&[item("calc.py:2", LAST)], &fix_run(d, &head, 10, None), &meter(&p)).await;
    let out = &results[0].outcome;
    let first = text_of(&p.seen_step("primary")[0]);
    assert!(!first.contains(&key) && first.contains("[masked aws-access-token]"), "the model reads the mask: {first}");
    assert_eq!(out.exit, ExitReason::Approved);
    assert!(out.rounds[0].issues[0].description.contains("masking placeholder"), "{:?}", out.rounds[0].issues);
    assert!(p.seen().iter().all(|r| !text_of(r).contains(&key)), "no request carries the secret");
}

/// Keeps the events a meter's progress hears, written out.
#[derive(Default)]
struct Heard(std::sync::Mutex<Vec<String>>);

impl gauntlet_review::progress::Progress for Heard {
    fn event(&self, event: &gauntlet_review::progress::Event<'_>) {
        self.0.lock().unwrap().push(format!("{event:?}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fixed_item_and_each_paid_call_reach_the_meters_progress() {
    let (dir, head) = repo();
    let p = Scripted::new();
    p.script("primary", Some(LAST), vec![work("patch", GOOD_FIX, &[])]);
    p.script("adversary", Some(LAST), vec![approved()]);
    let heard = Arc::new(Heard::default());
    let meter = meter(&p).with_progress(gauntlet_review::progress::Observer::new(heard.clone()));
    let items = [item("calc.py:2", LAST), item("nowhere.py:1", TOTAL)];
    let mut run = fix_run(dir.path(), &head, 2, None);
    run.head = "0".repeat(40); // no such commit: each item fails to get its worktree
    let failed = fix_all(&items, &run, &meter).await;
    assert!(failed.iter().all(|r| r.outcome.exit == ExitReason::Failed));
    let results = fix_all(&items[..1], &fix_run(dir.path(), &head, 2, None), &meter).await;
    assert_eq!(results[0].outcome.exit, ExitReason::Approved);

    let heard = heard.0.lock().unwrap().clone();
    let steps: Vec<&String> = heard.iter().filter(|e| !e.starts_with("Usage")).collect();
    assert_eq!(
        steps,
        [
            r#"StepStarted { step: "fix", total: 2 }"#,
            r#"UnitDone { step: "fix", done: 1, total: 2, ok: false }"#,
            r#"UnitDone { step: "fix", done: 2, total: 2, ok: false }"#,
            r#"StepFinished { step: "fix" }"#,
            r#"StepStarted { step: "fix", total: 1 }"#,
            r#"UnitDone { step: "fix", done: 1, total: 1, ok: true }"#,
            r#"StepFinished { step: "fix" }"#,
        ]
    );
    let usage_events = heard.iter().filter(|e| e.starts_with("Usage")).count();
    let calls: u32 = meter.usage().iter().map(|u| u.calls).sum();
    assert_eq!(usage_events, calls as usize, "one usage event per paid call");
    assert!(calls >= 2, "the primary and the adversary were each called: {calls}");
}
