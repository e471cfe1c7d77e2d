//! `gauntlet backtest mine`, then `gauntlet backtest` on what it mined, and shards
//! merged back into one report: the real binary against the in-process wire fake.

#[path = "../../backtest/tests/support/history.rs"]
mod history;
mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use support::{Fake, Script, Wire, finder, gauntlet, verdict};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mined_corpus_backtests_end_to_end_and_no_model_sees_the_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let h = history::build(&repo);
    let corpus = dir.path().join("mined").display().to_string();
    let (server, fake) = Fake::start(Wire::Anthropic, support::paging::scripts()).await;

    let (code, stdout, stderr) =
        gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "mine", "--out", &corpus]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("5 fix(es) seen"), "{stdout}");
    assert!(stdout.contains("Escape cases kept: 3 (A 1, B 2, C 0); clean cases: 3 of 3 wanted."), "{stdout}");
    assert!(stdout.contains("1  the fix touches only tests"), "skips are counted per reason: {stdout}");
    let json_args = ["backtest", "mine", "--out", &corpus, "--format", "json", "--confidence", "A,B,C"];
    let (code, stdout, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &json_args).await;
    assert_eq!(code, 0, "{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["kept"], json!({"A": 1, "B": 2, "C": 1}));
    assert_eq!(summary["mined_at"], h.id("fix-guard"));
    // Back to the default corpus for the backtest.
    let (code, _, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "mine", "--out", &corpus]).await;
    assert_eq!(code, 0, "{stderr}");

    let args = ["backtest", &corpus, "--format", "json"];
    let (code, stdout, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((report["cases"].as_array().unwrap().len(), report["failed"].as_u64()), (6, Some(0)));
    let g = &report["gauntlet"];
    assert_eq!((g["published"].as_u64(), g["true_positives"].as_u64()), (Some(1), Some(1)));
    assert_eq!((g["caught"].as_u64(), g["defects"].as_u64()), (Some(1), Some(3)));
    assert_eq!((g["silent_clean"].as_u64(), g["clean_cases"].as_u64()), (Some(3), Some(3)));
    let paging = format!("escape-{}", &h.id("paging")[..12]);
    let case = report["cases"].as_array().unwrap().iter().find(|c| c["name"] == paging.as_str()).unwrap();
    assert_eq!(case["confidence"], "B", "reports name the miner's confidence: {case}");
    assert_eq!(case["fix"][0]["subject"], "Fix the last page having one item too many");
    let seen = fake.seen();
    assert!(seen.iter().any(|s| s.step == "find"), "the cases were reviewed");
    for secret in ["Fix the last page having one item too many", "Keep the owner check", "stale entries after a write"]
    {
        assert!(!seen.iter().any(|s| s.body.to_string().contains(secret)), "a model saw the fix: {secret}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mine_reads_its_patterns_and_limits_from_gauntlet_toml_and_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let h = history::build(&repo);
    let corpus = dir.path().join("mined").display().to_string();
    let (server, _fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    // Only one subject counts as a fix now (trailers and reasoned reverts always
    // do), no trailer pattern, a 4-line sweep limit and no clean cases.
    let settings = "[backtest.mine]\nsubject_patterns = [\"(?i)^fix the last page\"]\ntrailer_patterns = []\n\
                    max_changed_lines = 4\nclean_ratio = 0.0\n";
    std::fs::write(repo.join("gauntlet.toml"), settings).unwrap();
    let args = ["backtest", "mine", "--out", &corpus, "--format", "json"];
    let summary = json_run(&repo, &server, &args).await;
    assert_eq!(summary["fixes_seen"], 3, "the trailer, the page fix and the revert: {summary}");
    assert_eq!(summary["kept"], json!({"A": 1, "B": 1}), "{summary}");
    assert_eq!(
        summary["skipped"],
        json!({"the introducing commit is a sweep (more than 4 changed lines)": 1}),
        "the 5-line cache commit is over the limit: {summary}"
    );
    assert_eq!((summary["clean"].as_u64(), summary["clean_wanted"].as_u64()), (Some(0), Some(0)));
    let cases = std::fs::read_dir(&corpus).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count();
    assert_eq!(cases, 2, "the trailer's case and the page fix's case");
    assert!(std::path::Path::new(&corpus).join(format!("escape-{}", &h.id("paging")[..12])).is_dir());

    // A flag wins over the file.
    let flagged = ["backtest", "mine", "--out", &corpus, "--format", "json", "--clean-ratio", "1"];
    let summary = json_run(&repo, &server, &flagged).await;
    assert_eq!((summary["fixes_seen"].as_u64(), summary["clean_wanted"].as_u64()), (Some(3), Some(2)), "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclude_subjects_in_gauntlet_toml_replace_the_defaults_and_the_terminal_shows_eras_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    history::build(&repo);
    let corpus = dir.path().join("mined").display().to_string();
    let (server, _fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let settings = "[backtest.mine]\nexclude_subjects = [\"(?i)last page\"]\nclean_ratio = 0.0\n";
    std::fs::write(repo.join("gauntlet.toml"), settings).unwrap();
    let args = ["backtest", "mine", "--out", &corpus, "--format", "json"];
    let summary = json_run(&repo, &server, &args).await;
    let reason = gauntlet_backtest::mine::EXCLUDED_SUBJECT;
    assert_eq!(summary["skipped"][reason], 1, "the page fix is words now: {summary}");
    assert_eq!(summary["kept"], json!({"A": 1, "B": 1}), "the trailer and the revert stay: {summary}");
    // The terminal shows escapes and clean cases by year and by size, side by side.
    let (code, out, err) = gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "mine", "--out", &corpus]).await;
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().map(str::trim).collect();
    assert!(rows.iter().any(|l| l.starts_with("by year") && l.ends_with("escapes  clean")), "{out}");
    assert!(rows.contains(&"2021                   2      0"), "{out}");
    assert!(rows.iter().any(|l| l.starts_with("by changed lines")), "{out}");

    std::fs::write(repo.join("gauntlet.toml"), "[backtest.mine]\nexclude_subjects = [\"(\"]\n").unwrap();
    let (code, _, err) = gauntlet(&repo, Wire::Anthropic, &server, &args).await;
    assert!(code != 0 && err.contains("exclude_subjects") && err.contains("`(`"), "{err}");
}

fn sample_corpus() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").display().to_string()
}

const RESET: &str = "A rejected batch resets the cursor to zero, so the next pass resends every event.";

fn sample_scripts() -> Vec<Script> {
    let mut found = finder(
        "error-handling",
        json!([{"lens": "failure_scenario", "location": "stocksync/sync.py:29", "claim": RESET,
                "evidence": "save_cursor(db, 0)", "severity": "high"}]),
    );
    found.claim = Some("save_cursor(db, 0)");
    let holds = json!({"verdict": "survives", "confidence": 75, "impact": "consequential",
                       "evidence": "stocksync/sync.py:29 `save_cursor(db, 0)` runs on every rejected batch"});
    vec![found, verdict("validate", RESET, &[holds])]
}

/// A report without what differs from run to run (wall times).
fn scores(report: &Value) -> Value {
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
    let mut v = report.clone();
    strip(&mut v);
    v
}

async fn json_run(dir: &Path, server: &wiremock::MockServer, args: &[&str]) -> Value {
    let (code, stdout, stderr) = gauntlet(dir, Wire::Anthropic, server, args).await;
    assert_eq!(code, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merged_shards_equal_the_single_run_on_the_same_recording() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec").display().to_string();
    let corpus = sample_corpus();
    let (server, _fake) = Fake::start(Wire::Anthropic, sample_scripts()).await;
    json_run(dir.path(), &server, &["backtest", &corpus, "--baseline", "--format", "json", "--record", &rec]).await;
    let whole =
        json_run(dir.path(), &server, &["backtest", &corpus, "--baseline", "--format", "json", "--replay", &rec]).await;

    let mut files = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let args = ["backtest", &corpus, "--baseline", "--format", "json", "--replay", &rec, "--shard", &shard];
        let part = json_run(dir.path(), &server, &args).await;
        assert_eq!(part["shard"], shard.as_str());
        sizes.push(part["cases"].as_array().unwrap().len());
        let file = dir.path().join(format!("shard-{k}.json"));
        std::fs::write(&file, part.to_string()).unwrap();
        files.push(file.display().to_string());
    }
    let all = whole["cases"].as_array().unwrap().len();
    assert!(all >= 12, "the sample corpus: {all} cases");
    assert_eq!(sizes.iter().sum::<usize>(), all, "every case in exactly one shard: {sizes:?}");
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
    let mut args = vec!["backtest", "merge", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let merged = json_run(dir.path(), &server, &args).await;
    assert_eq!(scores(&merged), scores(&whole));
    assert_eq!(merged["gauntlet"]["true_positives"], 1, "the merge is not empty: {merged}");

    let two = ["backtest", "merge", files[0].as_str(), files[2].as_str()];
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &two).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shard 2/3 is missing"), "{stderr}");
    let twice = ["backtest", "merge", files[0].as_str(), files[0].as_str(), files[1].as_str(), files[2].as_str()];
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &twice).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("more than one report"), "{stderr}");
}
