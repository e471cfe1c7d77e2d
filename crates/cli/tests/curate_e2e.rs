//! `gauntlet backtest mine`, then `backtest curate` driven through piped stdin,
//! then `backtest` on the signed corpus: only the accepted cases are reviewed, and
//! every report says what was left out and why. The real binary against the
//! in-process wire fake.

#[path = "../../backtest/tests/support/history.rs"]
mod history;
mod support;

use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use support::{Fake, Wire, command, gauntlet};
use tokio::io::AsyncWriteExt;

/// `gauntlet ARGS` in `dir` with `answers` on its stdin.
async fn answered(dir: &Path, server: &wiremock::MockServer, args: &[&str], answers: &str) -> (i32, String, String) {
    let mut cmd = command(dir, Wire::Anthropic, server, args, &[]);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("gauntlet starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answers.as_bytes()).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_corpus_backtests_only_its_accepted_cases_and_every_report_says_what_was_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let h = history::build(&repo);
    history::git(&repo, &["config", "user.name", "Ada Lovelace"], 0);
    let corpus = dir.path().join("mined");
    let corpus_arg = corpus.display().to_string();
    let (server, fake) = Fake::start(Wire::Anthropic, support::paging::scripts()).await;
    let (code, _, stderr) =
        gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "mine", "--out", &corpus_arg]).await;
    assert_eq!(code, 0, "{stderr}");

    // One case by name: accepted, with a reason.
    let paging = format!("escape-{}", &h.id("paging")[..12]);
    let args = ["backtest", "curate", &corpus_arg, "--case", &paging];
    let (code, stdout, stderr) = answered(&repo, &server, &args, "a\nthe slice takes one item too many\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("Case 1 of 1: {paging} (escape, confidence B, unreviewed)")), "{stdout}");
    assert!(stdout.contains(">>+    return items[start:start+size+1]"), "the blamed line in its diff: {stdout}");
    assert!(stdout.contains("1 accepted, 0 rejected, 0 skipped"), "{stdout}");
    let text = std::fs::read_to_string(corpus.join(&paging).join("case.toml")).unwrap();
    assert!(text.starts_with("# Mined by `gauntlet backtest mine`."), "comments kept: {text}");
    assert!(text.contains("status = \"accepted\"\nreason = \"the slice takes one item too many\"\n"), "{text}");
    assert!(text.contains("curated_by = \"Ada Lovelace\"") && text.contains("curated_at = \"20"), "{text}");

    // The unreviewed rest: a rejection asked again for its reason, a skip, then quit.
    let args = ["backtest", "curate", &corpus_arg];
    let (code, stdout, stderr) = answered(&repo, &server, &args, "r\n\nonly a CI change\ns\nq\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Case 1 of 5:") && stdout.contains("A rejection needs a reason"), "{stdout}");
    assert!(stdout.contains("The corpus: 1 accepted, 1 rejected, 4 unreviewed."), "{stdout}");

    let (code, stdout, stderr) =
        gauntlet(&repo, Wire::Anthropic, &server, &["backtest", &corpus_arg, "--format", "json"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Scored only the 1 accepted case(s) of 6: left out 1 rejected and 4 unreviewed."),
        "{stderr}"
    );
    assert!(stderr.contains("backtest of 1 case(s)"), "only the accepted case is reviewed: {stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["curation"], json!({"accepted": 1, "rejected": 1, "unreviewed": 4, "only_accepted": true}));
    assert_eq!(report["cases"].as_array().unwrap().len(), 6, "the left-out cases are listed, not run");
    let g = &report["gauntlet"];
    assert_eq!((g["cases"].as_u64(), g["defects"].as_u64(), g["caught"].as_u64()), (Some(1), Some(1), Some(1)));
    let rejected = report["cases"].as_array().unwrap().iter().find(|c| c["curation"]["status"] == "rejected").unwrap();
    assert_eq!(rejected["left_out"], true, "listed as left out: {rejected}");
    assert_eq!(
        (rejected["curation"]["reason"].as_str(), &rejected["gauntlet"]),
        (Some("only a CI change"), &Value::Null)
    );
    let finds = fake.seen().iter().filter(|s| s.step == "find").count();
    assert!(finds > 0, "the accepted case was reviewed");

    // The Markdown and HTML of the same report (through merge, which runs nothing).
    let file = dir.path().join("report.json");
    std::fs::write(&file, &stdout).unwrap();
    let file = file.display().to_string();
    let (code, md, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "merge", &file]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(md.contains("Curation: Scored only the 1 accepted case(s) of 6"), "{md}");
    assert!(md.contains(&format!("| {paging} | escape | accepted: the slice takes one item too many |")), "{md}");
    assert!(md.contains("| rejected: only a CI change |") && md.contains("left out: unreviewed"), "{md}");
    let html_args = ["backtest", "merge", &file, "--format", "html"];
    let (code, html, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &html_args).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        html.contains("[accepted: the slice takes one item too many]") && html.contains("left out 1 rejected"),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curate_says_what_to_do_about_a_missing_corpus_or_a_bad_status() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let (code, _, stderr) = answered(dir.path(), &server, &["backtest", "curate", "nowhere"], "").await;
    assert_ne!(code, 0);
    assert!(stderr.contains("no corpus at") && stderr.contains("gauntlet backtest mine --out"), "{stderr}");
    let (code, _, stderr) =
        answered(dir.path(), &server, &["backtest", "curate", "nowhere", "--status", "signed"], "").await;
    assert_ne!(code, 0);
    assert!(stderr.contains("--status signed: use unreviewed, rejected, accepted or all"), "{stderr}");
}
