//! Ctrl-C in the middle of `review`, `fix` and `ci`: the real binary, a model
//! that takes its time, and SIGINT sent while calls are in flight. Each run ends
//! with exit code 130 and says so, posts nothing, writes nothing, and leaves no
//! fix worktree behind (neither in `git worktree list` nor on disk).

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{Fake, Script, Wire, command, finder, git, repo, verdict};

const BASE: &str = "def last(items):\n    return items[-1]\n";
const HEAD: &str = "def last(items):\n    return items[len(items)]\n";
const LAST: &str = "last() indexes one past the end of the list and always raises IndexError.";
const FIX: &str =
    "--- a/calc.py\n+++ b/calc.py\n@@ -2,1 +2,1 @@\n-    return items[len(items)]\n+    return items[-1]\n";
const SLOW: Duration = Duration::from_secs(60);

fn answer(step: &'static str, value: Value) -> Script {
    Script { step, reviewer: None, claim: Some(LAST), answers: vec![value.to_string()] }
}

fn scripts() -> Vec<Script> {
    let finding = json!({"lens": "failure_scenario", "location": "calc.py:2", "claim": LAST,
                         "evidence": "return items[len(items)]", "severity": "high"});
    let survives = json!({"verdict": "survives", "evidence": "calc.py:2 `items[len(items)]` is past the end", "confidence": 100, "impact": "consequential"});
    vec![
        finder("correctness", json!([finding])),
        verdict("validate", LAST, &[survives]),
        answer("report_work", json!({"patch": FIX, "addressed": []})),
        answer("report_critique", json!({"verdict": "approved", "issues": []})),
    ]
}

/// Wait until `ready` holds (or fail after 60 s).
async fn until(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn worktrees(dir: &Path) -> usize {
    git(dir, &["worktree", "list"]).lines().count()
}

/// Start `cmd`, wait for `ready`, send SIGINT, and collect (exit code, stdout, stderr).
async fn interrupt(mut cmd: tokio::process::Command, ready: impl Fn() -> bool) -> (Option<i32>, String, String) {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    until("the run to reach the slow model", ready).await;
    // Let the calls get well under way before the signal.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("gauntlet stops soon after the signal")
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Entries gauntlet left in its temporary folder.
fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_review_exits_130_without_a_report() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    fake.slow_down("find", SLOW);
    let cmd = command(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"], &[]);
    let (code, stdout, stderr) = interrupt(cmd, || fake.count("find") > 0).await;
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted") && stderr.contains("no report was printed"), "{stderr}");
    assert!(stdout.is_empty(), "no partial report: {stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_fix_removes_its_worktrees_and_writes_no_patch() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    let head = git(dir.path(), &["rev-parse", "HEAD"]).trim().to_string();
    let published = json!({"id": "f1", "reviewer": "correctness", "lens": "failure_scenario", "location": "calc.py:2",
        "inline": true, "claim": LAST, "evidence": "return items[len(items)]", "severity": "high", "confidence": 100});
    let report = json!({"schema_version": 1, "base": "b", "head": head, "published": [published]});
    std::fs::write(dir.path().join("report.json"), report.to_string()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    fake.slow_down("report_work", SLOW);
    let env = [("TMPDIR", tmp.path().to_str().unwrap())];
    let args = ["fix", "--from", "report.json", "--out", "patches"];
    let cmd = command(dir.path(), Wire::Anthropic, &server, &args, &env);
    let (code, stdout, stderr) = interrupt(cmd, || fake.count("report_work") > 0 && worktrees(dir.path()) > 1).await;
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted") && stderr.contains("no patch was written"), "{stderr}");
    assert!(!stdout.contains("gauntlet fix:"), "no summary of a run that did not finish: {stdout}");
    assert_eq!(worktrees(dir.path()), 1, "{}", git(dir.path(), &["worktree", "list"]));
    assert!(leftovers(tmp.path()).is_empty(), "temporary files left: {:?}", leftovers(tmp.path()));
    assert!(!dir.path().join("patches").exists(), "no patch folder");
    assert_eq!(git(dir.path(), &["status", "--porcelain", "--untracked-files=no"]), "", "the work tree is untouched");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_while_ci_suggest_is_fixing_posts_nothing_and_leaves_no_worktree() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    let tmp = tempfile::tempdir().unwrap();
    let event = tempfile::NamedTempFile::new().unwrap();
    let (base, head) = (git(dir.path(), &["rev-parse", "main"]), git(dir.path(), &["rev-parse", "HEAD"]));
    let body = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(event.path(), body.to_string()).unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    fake.slow_down("report_work", SLOW);
    let host = fakes::github::start().await;
    let uri = host.server.uri();
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", event.path().to_str().unwrap()),
        ("GITHUB_REPOSITORY", "o/r"),
        ("GITHUB_API_URL", uri.as_str()),
        ("GITHUB_TOKEN", "ghs_faketoken123"),
        ("TMPDIR", tmp.path().to_str().unwrap()),
    ];
    let cmd = command(dir.path(), Wire::Anthropic, &server, &["ci", "--suggest"], &env);
    let (code, _, stderr) = interrupt(cmd, || fake.count("report_work") > 0 && worktrees(dir.path()) > 1).await;
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted") && stderr.contains("nothing was posted"), "{stderr}");
    assert_eq!(host.state().writes, 0, "no comment, review or overview was posted");
    assert!(host.inline().is_empty() && host.overviews().is_empty());
    assert_eq!(worktrees(dir.path()), 1, "{}", git(dir.path(), &["worktree", "list"]));
    assert!(leftovers(tmp.path()).is_empty(), "temporary files left: {:?}", leftovers(tmp.path()));
}
