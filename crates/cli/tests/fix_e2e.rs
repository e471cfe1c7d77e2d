//! `gauntlet fix` and `gauntlet refine` through the real binary, against the
//! in-process wire fakes.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{Fake, Script, Wire, bin, finder, gauntlet, git, repo, verdict};

const BASE: &str = "def last(items):\n    return items[-1]\n\n\ndef total(items):\n    return sum(items)\n";
const HEAD: &str =
    "def last(items):\n    return items[len(items)]\n\n\ndef total(items):\n    return sum(items or 0)\n";

const LAST: &str = "last() indexes one past the end of the list and always raises IndexError.";
const TOTAL: &str = "total() passes 0 to sum when items is None, so it raises TypeError.";

const LAST_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def last(items):\n-    return items[len(items)]\n+    return items[len(items) - 1]\n";
const TOTAL_FIX: &str = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n def total(items):\n-    return sum(items or 0)\n+    return sum(items or [])\n";

fn script(step: &'static str, claim: &'static str, answers: Vec<Value>) -> Script {
    Script { step, reviewer: None, claim: Some(claim), answers: answers.iter().map(Value::to_string).collect() }
}

fn patch(text: &str) -> Value {
    json!({"patch": text, "addressed": []})
}

fn critique(severity: &str, description: &str) -> Value {
    json!({"verdict": "needs_work", "issues": [{"category": "correctness", "description": description, "severity": severity}]})
}

fn approved() -> Value {
    json!({"verdict": "approved", "issues": []})
}

fn published(location: &str, claim: &str) -> Value {
    json!({"id": format!("id-{location}"), "reviewer": "correctness", "lens": "failure_scenario", "location": location,
           "inline": true, "claim": claim, "evidence": "return", "severity": "high", "confidence": 100,
           "validator_evidence": format!("{location} confirmed")})
}

fn write_report(dir: &Path) {
    let head = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    let report = json!({"schema_version": 1, "base": "b", "head": head, "published": [
        published("calc.py:2", LAST), published("calc.py:6", TOTAL)]});
    std::fs::write(dir.join("report.json"), report.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fix_from_a_report_keeps_partial_progress_and_marks_the_unconverged_patch() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    write_report(dir.path());
    let scripts = vec![
        script("report_work", LAST, vec![patch(LAST_FIX)]),
        script("report_critique", LAST, vec![approved()]),
        script("report_work", TOTAL, vec![patch(TOTAL_FIX)]),
        script(
            "report_critique",
            TOTAL,
            vec![
                critique("major", "A generator argument is consumed before sum sees it"),
                critique("critical", "Passing None now silently returns zero and hides the caller bug"),
            ],
        ),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let check = "echo \"key=${ANTHROPIC_API_KEY:-withheld}\"";
    let args =
        ["fix", "--from", "report.json", "--rounds", "2", "--out", "patches", "--format", "json", "--check", check];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let items = report["items"].as_array().unwrap();
    assert_eq!((items[0]["exit"].as_str(), items[0]["converged"].as_bool()), (Some("approved"), Some(true)));
    assert_eq!((items[1]["exit"].as_str(), items[1]["converged"].as_bool()), (Some("round_cap"), Some(false)));
    assert_eq!(items[1]["rounds"], 2);
    assert_eq!(items[1]["open_issues"][0]["severity"], "major", "the best round's issues are reported");

    let done = std::fs::read_to_string(dir.path().join("patches/01-calc.py-2.patch")).unwrap();
    assert!(done.contains("converged (approved)") && done.contains("+    return items[len(items) - 1]"));
    let stuck = std::fs::read_to_string(dir.path().join("patches/02-calc.py-6.unconverged.patch")).unwrap();
    assert!(stuck.contains("NOT CONVERGED") && stuck.contains("sum(items or [])"), "{stuck}");

    assert_eq!(git(dir.path(), &["diff"]), "", "the working tree is untouched without --apply");
    assert_eq!(git(dir.path(), &["worktree", "list"]).lines().count(), 1, "no temporary worktree is left");
    let usage = report["usage"].as_array().unwrap();
    assert!(usage.iter().any(|u| u["step"] == "adversary" && u["calls"] == 3), "{usage:?}");
    assert_eq!(fake.count("report_find"), 0, "no review ran: the findings came from the report");
    let critiques: Vec<String> =
        fake.seen().iter().filter(|s| s.step == "report_critique").map(|s| s.body.to_string()).collect();
    assert!(critiques.iter().all(|c| c.contains("key=withheld")), "the check ran without the API key");
    assert!(!stdout.contains("test-key-anthropic") && critiques.iter().all(|c| !c.contains("test-key-anthropic")));

    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 2, "existing patch files are never overwritten");
    assert!(stderr.contains("already exists"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fix_reviews_inline_and_applies_converged_patches_only_with_apply() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    let finding = json!({"lens": "failure_scenario", "location": "calc.py:2", "claim": LAST,
                         "evidence": "return items[len(items)]", "severity": "high"});
    let scripts = vec![
        finder("correctness", json!([finding])),
        verdict(
            "validate",
            LAST,
            &[
                json!({"verdict": "survives", "evidence": "calc.py:2 `items[len(items)]` is past the end", "confidence": 100, "impact": "consequential"}),
            ],
        ),
        script("report_work", LAST, vec![patch(LAST_FIX)]),
        script("report_critique", LAST, vec![approved()]),
    ];
    let (server, _fake) = Fake::start(Wire::OpenAi, scripts).await;
    let (code, stdout, stderr) =
        gauntlet(dir.path(), Wire::OpenAi, &server, &["fix", "--reviewers", "correctness"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("approved") && stdout.contains("1 of 1 converged"), "{stdout}");
    let steps: Vec<&str> = stderr.lines().filter(|l| l.contains(" done in ")).collect();
    assert_eq!(steps.len(), 3, "the review's two steps, then the fix loops: {stderr}");
    assert!(steps[2].starts_with("gauntlet: fix: 1 of 1 findings done in "), "{stderr}");
    assert!(stdout.contains("+    return items[len(items) - 1]"), "without --out the patch is printed: {stdout}");
    assert_eq!(git(dir.path(), &["diff"]), "");

    let (code, stdout, stderr) =
        gauntlet(dir.path(), Wire::OpenAi, &server, &["fix", "--reviewers", "correctness", "--apply"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("applied to the working tree"), "{stdout}");
    assert!(std::fs::read_to_string(dir.path().join("calc.py")).unwrap().contains("items[len(items) - 1]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fix_stops_at_the_budget_and_says_so() {
    let dir = repo(&[("calc.py", BASE)], &[("calc.py", HEAD)]);
    write_report(dir.path());
    let scripts = vec![
        script("report_work", LAST, vec![patch(LAST_FIX)]),
        script("report_critique", LAST, vec![critique("major", "The empty list still raises")]),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["fix", "--from", "report.json", "--max-calls", "2", "--concurrency", "1", "--format", "json"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["items"][0]["exit"], "budget");
    assert!(report["items"][0]["patch"].as_str().unwrap().contains("len(items) - 1"), "the judged patch is kept");
    assert_eq!(report["items"][1]["exit"], "budget");
    assert_eq!(fake.seen().len(), 2);
}

const PLAN: &str = "# Importer rollout\n\nShip the importer on Friday.\n";

fn refine_scripts() -> Vec<Script> {
    vec![
        Script {
            step: "report_work",
            reviewer: None,
            claim: None,
            answers: vec![
                json!({"document": "# Importer rollout\n\nShip on Friday; Ana owns it.\n", "addressed": []}).to_string(),
                json!({"document": "# Importer rollout\n\nShip on Friday; Ana owns it; rollback: restore the snapshot.\n",
                       "addressed": [{"issue": 1, "resolution": "fixed", "note": "added a rollback"}]})
                .to_string(),
            ],
        },
        Script {
            step: "report_critique",
            reviewer: None,
            claim: None,
            answers: vec![
                critique("major", "There is no rollback if the import corrupts records").to_string(),
                approved().to_string(),
            ],
        },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refine_writes_the_revision_beside_the_document_and_never_over_it_unasked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.md"), PLAN).unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, refine_scripts()).await;
    let args = ["refine", "plan.md", "--goal", "a plan the support team can execute"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("approved after 2 round(s) (converged)"), "{stdout}");
    let revised = std::fs::read_to_string(dir.path().join("plan.refined.md")).unwrap();
    assert!(revised.contains("rollback: restore the snapshot"));
    assert_eq!(std::fs::read_to_string(dir.path().join("plan.md")).unwrap(), PLAN, "the original is untouched");
    assert!(stdout.contains("model calls") && stdout.contains('$'), "cost is reported: {stdout}");
    let progress: Vec<&str> = stderr.lines().filter(|l| l.starts_with("gauntlet: refine:")).collect();
    assert_eq!(progress.len(), 1, "one line when the loop ends: {stderr}");
    assert!(progress[0].starts_with("gauntlet: refine: 2 of at most 10 rounds done in "), "{stderr}");

    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refine_interactive_passes_the_users_direction_and_accepts_on_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.md"), PLAN).unwrap();
    let scripts = vec![
        Script {
            step: "report_work",
            reviewer: None,
            claim: None,
            answers: vec![json!({"document": "# v1\n", "addressed": []}).to_string()],
        },
        Script {
            step: "report_critique",
            reviewer: None,
            claim: None,
            answers: vec![critique("major", "No owner is named").to_string()],
        },
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let mut cmd = tokio::process::Command::new(bin());
    cmd.current_dir(dir.path())
        .args(["refine", "plan.md", "--goal", "an executable plan", "--interactive", "--in-place"])
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("ANTHROPIC_API_KEY", "test-key-anthropic")
        .env("ANTHROPIC_BASE_URL", server.uri())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use tokio::io::AsyncWriteExt;
    child.stdin.take().unwrap().write_all(b"s\nFocus on who owns the rollout\na\n").await.unwrap();
    let out = child.wait_with_output().await.unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("accept (a), steer (s) or continue (c)?"), "{stderr}");
    assert!(stdout.contains("accepted after 2 round(s) (converged)"), "{stdout}");
    let primary: Vec<String> =
        fake.seen().iter().filter(|s| s.step == "report_work").map(|s| s.body.to_string()).collect();
    assert!(primary[1].contains("Focus on who owns the rollout"), "the direction reaches the primary");
    assert_eq!(std::fs::read_to_string(dir.path().join("plan.md")).unwrap(), "# v1\n", "--in-place writes over it");
}
