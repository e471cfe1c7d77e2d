//! `gauntlet backtest corpus/` end to end: the real binary on the sample corpus,
//! against an in-process fake of the Anthropic wire format playing scripted answers.

mod support;

use serde_json::{Value, json};
use std::path::PathBuf;
use support::{Fake, Script, Wire, finder, gauntlet, verdict};

const RESET: &str = "A rejected batch resets the cursor to zero, so the next pass resends every event.";

fn corpus() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").display().to_string()
}

fn scripts() -> Vec<Script> {
    // Only the escape that swallows the storefront error contains `save_cursor(db, 0)`.
    let mut found = finder(
        "error-handling",
        json!([{"lens": "failure_scenario", "location": "stocksync/sync.py:29", "claim": RESET,
                "evidence": "save_cursor(db, 0)", "severity": "high"}]),
    );
    found.claim = Some("save_cursor(db, 0)");
    // The single-pass baseline answers the same for every case: one finding in a file
    // only one case has, so it is a true positive once and a false positive eleven times.
    let naive = Script {
        step: "find",
        reviewer: None,
        claim: Some("list the bugs it introduces"),
        answers: vec![
            json!({"findings": [{"lens": "failure_scenario", "location": "stocksync/sync.py:28",
                                 "claim": "the error is swallowed", "evidence": "log.warning", "severity": "high"}]})
            .to_string(),
        ],
    };
    vec![
        found,
        verdict(
            "validate",
            RESET,
            &[json!({"verdict": "survives", "confidence": 100,
            "evidence": "stocksync/sync.py:29 `save_cursor(db, 0)` runs on every rejected batch"})],
        ),
        naive,
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backtest_of_the_sample_corpus_scores_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let args = ["backtest", &corpus(), "--baseline", "--jobs", "2", "--format", "json"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "stderr: {stderr}\nstdout: {stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(report["cases"].as_array().unwrap().len(), 12);
    assert_eq!(report["failed"], 0);
    let g = &report["gauntlet"];
    assert_eq!((g["published"].as_u64(), g["true_positives"].as_u64()), (Some(1), Some(1)));
    assert_eq!(g["precision"], 1.0);
    assert_eq!((g["caught"].as_u64(), g["defects"].as_u64()), (Some(1), Some(6)));
    assert_eq!((g["silent_clean"].as_u64(), g["clean_cases"].as_u64()), (Some(6), Some(6)));
    let b = &report["baseline"];
    assert_eq!((b["published"].as_u64(), b["true_positives"].as_u64()), (Some(12), Some(1)));
    assert_eq!(b["false_positives"], 11);
    assert_eq!(report["comparison"]["fp_reduction"], 1.0, "no false positive against eleven");
    assert_eq!(report["comparison"]["recall_change"], 0.0);
    assert!(stderr.contains("py-sync-cursor-reset: 1 published, 1/1 known defect(s) caught"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_is_the_default_and_a_missing_corpus_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &["backtest", &corpus()]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("# Backtest of "), "{stdout}");
    assert!(stdout.contains("| precision | 100% (1/1) |"), "{stdout}");
    assert!(stdout.contains("| py-sync-cursor-reset | escape | 1 | 1 | 1 | 1 | 1 | 0 | 1/1 |"), "{stdout}");

    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().display().to_string();
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &["backtest", &path]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("no case in") && stderr.contains("case.toml"), "{stderr}");
}
