//! The gate, budgets, tier routing and cost, through the real binary.

mod support;

use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet, repo};

const BASE: &str = "def can_delete(user, doc):\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    return True\n";

fn findings() -> Vec<support::Script> {
    let f = |claim: &str| json!({"lens": "failure_scenario", "location": "src/auth.py:2", "claim": claim, "evidence": "return True", "severity": "high"});
    vec![finder(
        "correctness",
        json!([f("Anyone can delete any document now."), f("The owner check is gone entirely.")]),
    )]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_is_skipped_before_any_model_call() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, findings()).await;
    let (code, out, err) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--pr-draft", "--format", "json"]).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert!(report["skipped"]["reason"].as_str().unwrap().contains("draft"));
    assert!(fake.seen().is_empty(), "zero model calls on skip");
    let (_, out, _) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--pr-draft", "--force", "--format", "json"]).await;
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["skipped"], Value::Null, "--force reviews anyway");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_head_is_not_reviewed_twice() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, _, err) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let calls = fake.seen().len();
    let (_, out, _) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    let report: Value = serde_json::from_str(&out).unwrap();
    assert!(report["skipped"]["reason"].as_str().unwrap().contains("already reviewed"), "{out}");
    assert_eq!(fake.seen().len(), calls);
    // Other rules or config are a different review.
    let (_, out, _) = gauntlet(
        dir.path(),
        Wire::OpenAi,
        &server,
        &["review", "--format", "json", "--reviewers", "correctness", "--threshold", "50"],
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["skipped"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exhausted_budget_lists_what_was_not_validated_and_publishes_nothing_unvalidated() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, findings()).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness", "--max-calls", "1"];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(fake.seen().len(), 1, "only the admitted call was made");
    assert_eq!(report["published"], json!([]));
    let gaps = report["gaps"].as_array().unwrap();
    // Both findings quote one line: one cluster, so one validation that could not run.
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert!(gaps.iter().all(|g| g["step"] == "validate" && g["message"].as_str().unwrap().contains("budget")));
    let dropped = report["dropped"].as_array().unwrap();
    assert!(dropped.iter().all(|d| d["reason"] == "not_validated"), "{dropped:?}");
    assert_eq!(dropped.len(), 2, "each candidate is listed: {dropped:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_touching_deep_paths_runs_on_the_deep_model() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    std::fs::write(
        dir.path().join("gauntlet.toml"),
        "[models]\nstandard = \"anthropic:claude-sonnet-4-5\"\ndeep = \"anthropic:claude-opus-4-1\"\n\n[gate]\ndeep_paths = [\"src/auth*\"]\n",
    )
    .unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(fake.seen().iter().all(|s| s.body["model"] == "claude-opus-4-1"));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["usage"][0]["tier"], "deep");
    assert!(report["notes"].to_string().contains("deep_paths"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_per_step_follows_the_price_table() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json", "--reviewers", "correctness"])
            .await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let find = &report["usage"][0];
    // The fake bills 100 uncached in, 50 out, 1000 cache reads per call on claude-sonnet-4-5:
    // 100 x $3 + 50 x $15 + 1000 x $0.30 per million = $0.00135.
    assert_eq!(find["calls"], 1);
    assert!((find["cost"].as_f64().unwrap() - 0.00135).abs() < 1e-9, "{find}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_larger_than_the_context_is_split_into_parts_and_none_is_lost() {
    let body: String = (0..60).map(|i| format!("value_{i} = compute_something_long({i}, other_argument)\n")).collect();
    let files: Vec<(String, String)> =
        ["a.py", "b.py", "c.py"].iter().map(|p| (format!("src/{p}"), body.clone())).collect();
    let head: Vec<(&str, &str)> = files.iter().map(|(p, b)| (p.as_str(), b.as_str())).collect();
    let dir = repo(&[("README.md", "x\n")], &head);
    std::fs::write(dir.path().join("gauntlet.toml"), "[review]\ncontext_tokens = 2600\n").unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json", "--reviewers", "correctness"])
            .await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert!(report["notes"].to_string().contains("split into 3 parts"), "{}", report["notes"]);
    let finds: Vec<String> = fake.seen().iter().filter(|s| s.step == "find").map(|s| s.body.to_string()).collect();
    assert_eq!(finds.len(), 3, "one session per part");
    for path in ["src/a.py", "src/b.py", "src/c.py"] {
        assert_eq!(
            finds.iter().filter(|b| b.contains(&format!("### {path}"))).count(),
            1,
            "{path} is in exactly one part"
        );
    }
    assert_eq!(report["not_reviewed"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_admitted_together_cannot_pass_the_token_budget_between_them() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    // Either finder's worst case (prompt + full answer allowance) fits 9,000 tokens;
    // both together do not, so the second is refused even though real answers are short.
    let args = ["review", "--format", "json", "--reviewers", "correctness,security-privacy", "--max-tokens", "9000"];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(fake.count("find"), 1);
    let gaps = report["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert!(gaps[0]["message"].as_str().unwrap().contains("budget of 9000"), "{gaps:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cost_limit_on_a_model_without_a_price_is_refused_up_front() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--provider", "openai", "--model", "my-finetune", "--max-cost", "1"];
    let (code, _, err) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 2);
    assert!(err.contains("[prices.\"my-finetune\"]"), "{err}");
    assert!(fake.seen().is_empty());
}
