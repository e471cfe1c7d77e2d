//! `--record DIR` then `--replay DIR`: the replayed run calls no model and gives
//! the same JSON report; a request missing from the recording fails the run by name.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{Fake, Wire, bin, finder, gauntlet, repo, tool, verdict};

const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
const REAL: &str = "Any user can delete any document because the ownership check was removed.";

fn scripts() -> Vec<support::Script> {
    vec![
        finder(
            "correctness",
            json!([{"lens": "failure_scenario", "location": "src/auth.py:4", "claim": REAL,
                    "evidence": "return True", "severity": "high"}]),
        ),
        verdict(
            "validate",
            REAL,
            &[
                tool("search", json!({"pattern": "return True"})),
                json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True`", "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ]
}

/// Run the binary with no key and a base URL nothing listens on: only a replay works.
async fn offline(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = tokio::process::Command::new(bin())
        .current_dir(dir)
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .output()
        .await
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The report with its timing fields zeroed.
fn untimed(report: &str) -> String {
    let mut v: Value = serde_json::from_str(report).unwrap();
    v["wall_ms"] = json!(0);
    for u in v["usage"].as_array_mut().unwrap() {
        u["wall_ms"] = json!(0);
    }
    serde_json::to_string_pretty(&v).unwrap()
}

fn recordings(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_then_replay_gives_the_same_report_without_a_model() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let rec = tempfile::tempdir().unwrap();
    let rec_dir = rec.path().to_str().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness", "--record", rec_dir];
    let (code, recorded, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let calls = fake.seen().len();
    assert_eq!(calls, 3, "find, a tool turn, the verdict");
    assert_eq!(recordings(rec.path()).len(), calls, "one file per request");

    let args = ["review", "--format", "json", "--reviewers", "correctness", "--provider", "anthropic", "--replay"];
    let (code, replayed, err) = offline(dir.path(), &[&args[..], &[rec_dir]].concat()).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(untimed(&replayed), untimed(&recorded), "byte-identical apart from timing");
    assert_eq!(fake.seen().len(), calls, "the replay called no model");
    let report: Value = serde_json::from_str(&replayed).unwrap();
    assert_eq!(report["published"][0]["read"], json!(["src/auth.py"]), "tool reads replay too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recordings_hold_no_key_and_no_fence_boundary() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let rec = tempfile::tempdir().unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let args = ["review", "--reviewers", "correctness", "--record", rec.path().to_str().unwrap()];
    let (code, _, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let boundary = regex::Regex::new("DATA-[0-9a-f]{16}").unwrap();
    for text in recordings(rec.path()) {
        assert!(!text.contains("test-key-anthropic"), "a recording holds the key");
        assert!(!boundary.is_match(&text), "the run's random boundary is replaced");
        assert!(text.contains(gauntlet_model::record::PLACEHOLDER));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_miss_fails_naming_the_request() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let empty = tempfile::tempdir().unwrap();
    let args = ["review", "--reviewers", "correctness", "--provider", "anthropic", "--replay"];
    let (code, out, err) = offline(dir.path(), &[&args[..], &[empty.path().to_str().unwrap()]].concat()).await;
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("not in the recording"), "{err}");
    assert!(err.contains("step find, reviewer correctness, key "), "the request is named: {err}");
}
