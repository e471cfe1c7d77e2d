//! `gauntlet backtest corpus/` end to end: the real binary on the sample corpus,
//! against an in-process fake of the Anthropic wire format playing scripted answers.

mod support;

use serde_json::{Value, json};
use std::path::PathBuf;
use support::{Fake, Script, Wire, finder, gauntlet, tool, verdict};

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
    // only one case has, so it is a true positive once and a false positive on every other case.
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
            &[json!({"verdict": "survives", "confidence": 100, "impact": "consequential",
            "evidence": "stocksync/sync.py:29 `save_cursor(db, 0)` runs on every rejected batch"})],
        ),
        naive,
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backtest_of_the_sample_corpus_scores_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let args = ["backtest", &corpus(), "--baseline", "--jobs", "2", "--format", "json"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "stderr: {stderr}\nstdout: {stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(report["cases"].as_array().unwrap().len(), 24);
    assert_eq!(report["failed"], 0);
    let g = &report["gauntlet"];
    assert_eq!((g["published"].as_u64(), g["true_positives"].as_u64()), (Some(1), Some(1)));
    assert_eq!(g["precision"], 1.0);
    assert_eq!((g["comments_per_caught_defect"].as_f64(), g["duplicates"].as_u64()), (Some(1.0), Some(0)));
    assert_eq!(report["max_span"], 25, "the match rule is stated in the report");
    assert_eq!(report["validation"]["sessions"], 1, "{}", report["validation"]);
    assert_eq!((g["caught"].as_u64(), g["defects"].as_u64()), (Some(1), Some(12)));
    assert_eq!((g["silent_clean"].as_u64(), g["clean_cases"].as_u64()), (Some(12), Some(12)));
    let b = &report["baseline"];
    assert_eq!((b["published"].as_u64(), b["true_positives"].as_u64()), (Some(24), Some(1)));
    assert_eq!(b["false_positives"], 23);
    assert_eq!(report["comparison"]["fp_reduction"], 1.0, "no false positive against twenty-three");
    assert_eq!(report["comparison"]["recall_change"], 0.0);
    // Candidate recall counts what finders proposed before validation; the
    // baseline validates nothing, so its candidates are what it published.
    assert_eq!((g["candidates_caught"].as_u64(), g["candidate_recall"].as_f64()), (Some(1), Some(1.0 / 12.0)));
    assert_eq!(b["candidate_recall"], b["recall"]);
    let case = report["cases"].as_array().unwrap().iter().find(|c| c["name"] == "py-sync-cursor-reset").unwrap();
    assert_eq!(case["gauntlet"]["candidates_caught"], 1);
    assert!(stderr.contains("py-sync-cursor-reset: 1 published, 1/1 known defect(s) caught"), "{stderr}");
    // Reviewers get the context they ask for, as in `gauntlet review`: the contract
    // reviewer runs with the consumers of the shapes a change touches.
    let drift = fake.seen().into_iter().filter(|s| s.step == "find" && s.reviewer.as_deref() == Some("contract-drift"));
    assert!(drift.map(|s| s.body.to_string()).any(|b| b.contains("consumer ")), "no consumers were gathered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_is_the_default_and_a_missing_corpus_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &["backtest", &corpus()]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("# Backtest of "), "{stdout}");
    assert!(stdout.contains("| precision per comment | 100% (1/1) |"), "{stdout}");
    assert!(stdout.contains("| comments per caught defect | 1.00 (1/1) |"), "{stdout}");
    assert!(
        stdout.contains("| py-sync-cursor-reset | escape | unreviewed | 1 | 1 | 1 | 1 | 1 | 0 | 1/1 |"),
        "{stdout}"
    );

    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().display().to_string();
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &["backtest", &path]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("no case in") && stderr.contains("case.toml"), "{stderr}");
}

/// The numbers of a report, without the wall times that differ from run to run.
fn scores(report: &Value) -> Value {
    let mut v = report.clone();
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("wall_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_backtest_replays_to_the_same_scores_without_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("rec").display().to_string();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let record = ["backtest", &corpus(), "--baseline", "--format", "json", "--record", &recording];
    let (code, recorded, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &record).await;
    assert_eq!(code, 0, "{stderr}");
    let calls = fake.seen().len();
    assert!(std::path::Path::new(&recording).join("py-sync-cursor-reset").is_dir(), "one folder per case");

    let replay = ["backtest", &corpus(), "--baseline", "--format", "json", "--replay", &recording];
    let (code, replayed, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &replay).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fake.seen().len(), calls, "a replay calls no model");
    let (recorded, replayed): (Value, Value) =
        (serde_json::from_str(&recorded).unwrap(), serde_json::from_str(&replayed).unwrap());
    assert_eq!(scores(&replayed), scores(&recorded));
    assert_eq!(replayed["gauntlet"]["true_positives"], 1);

    // A recording of another corpus does not hold this one's requests: the run fails.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let replay = ["backtest", &corpus(), "--format", "json", "--replay", empty.to_str().unwrap()];
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &replay).await;
    assert_ne!(code, 0);
    assert!(stderr.contains("--record DIR"), "{stderr}");
}

/// Every string of a request body, joined: what the model reads.
fn strings(body: &Value) -> String {
    match body {
        Value::String(s) => format!("{s}\n"),
        Value::Array(a) => a.iter().map(strings).collect(),
        Value::Object(o) => o.values().map(strings).collect(),
        _ => String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_request_of_a_backtest_holds_the_answer_key() {
    let dir = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts_with_judge()).await;
    let args = ["backtest", &corpus(), "--baseline", "--judge", "--jobs", "2", "--format", "json"];
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let cases = gauntlet_backtest::corpus::load(std::path::Path::new(&corpus())).unwrap();
    let key: Vec<&str> = cases
        .iter()
        .flat_map(|c| std::iter::once(c.description.as_str()).chain(c.defects.iter().map(|d| d.description.as_str())))
        .filter(|t| !t.trim().is_empty())
        .collect();
    assert!(key.len() >= cases.len(), "every case has a description");
    let seen = fake.seen();
    assert!(seen.iter().any(|s| strings(&s.body).contains("What the author says this change does")));
    assert!(seen.iter().any(|s| s.step == "report_judgement"), "the judge's requests are checked too");
    for s in &seen {
        let text = strings(&s.body);
        for answer in &key {
            assert!(!text.contains(answer), "a {} request holds the answer key: {answer}", s.step);
        }
    }
}

/// The scripts, and a judge that calls the baseline's one claim true and consequential.
fn scripts_with_judge() -> Vec<Script> {
    let mut scripts = scripts();
    // The first session looks around the repository with the validator's tools
    // before it answers; the others answer at once.
    scripts.push(verdict(
        "report_judgement",
        "the error is swallowed",
        &[
            tool("list_dir", json!({"path": ""})),
            json!({"verdict": "true", "impact": "consequential",
                   "evidence": "stocksync/sync.py:28 `log.warning` hides the failure"}),
        ],
    ));
    scripts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judged_backtest_records_and_replays_to_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("rec").display().to_string();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts_with_judge()).await;
    let run = ["backtest", &corpus(), "--baseline", "--judge", "--format", "json", "--jobs", "2"];
    let record = [&run[..], &["--record", &recording]].concat();
    let (code, recorded, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &record).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("judged blind on the deep tier"), "{stderr}");
    let judged = fake.seen().into_iter().filter(|s| s.step == "report_judgement").count();
    // The baseline's one claim missed the known defect on 23 of 24 cases; gauntlet's
    // one comment hit its defect, so it has nothing to judge.
    // One session per unmatched finding, and one more call for the session that read.
    assert_eq!(judged, 24, "one judge session per unmatched finding");
    let read = fake
        .seen()
        .into_iter()
        .filter(|s| s.step == "report_judgement")
        .any(|s| s.body.to_string().contains("tool_result"));
    assert!(read, "the judge's tool call was answered");
    // What goes over the wire to the judge names no system: not in the system
    // blocks, not in the turns, not in the tools.
    for s in fake.seen().into_iter().filter(|s| s.step == "report_judgement") {
        let text = strings(&s.body).to_lowercase();
        for name in ["gauntlet", "baseline", "single-pass", "validator", "you are the `"] {
            assert!(!text.contains(name), "a judge request names `{name}`:\n{text}");
        }
    }
    let report: Value = serde_json::from_str(&recorded).unwrap();
    let judge = &report["baseline"]["judge"];
    assert_eq!(
        (judge["judged"].as_u64(), judge["true"].as_u64(), judge["consequential"].as_u64()),
        (Some(23), Some(23), Some(23))
    );
    assert_eq!(report["gauntlet"]["judge"]["judged"], 0);
    assert_eq!(report["baseline"]["false_positives"], 23, "the known-defect figures are unchanged");

    let calls = fake.seen().len();
    let replay = [&run[..], &["--replay", &recording]].concat();
    let (code, replayed, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &replay).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fake.seen().len(), calls, "a replay calls no model, the judge included");
    let replayed: Value = serde_json::from_str(&replayed).unwrap();
    assert_eq!(scores(&replayed), scores(&report));
}
