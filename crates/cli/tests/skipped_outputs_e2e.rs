//! `gauntlet ci --output FORMAT=PATH` on a run that reviews nothing (a re-run of
//! a head reviewed already, a push the gate skips): the Code Quality report is
//! what `--codequality` writes, what stands on the pull request; no other report
//! is written, and an earlier one at the path is removed, so no file of such a
//! run reads as a clean review (an empty SARIF upload would close the
//! code-scanning alerts that still stand). GitHub fake host, scripted model.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::auth::{BASE, HEAD, scripts};
use support::{Ci, Fake, Wire, git, repo};

fn output(format: &str, path: &Path) -> String {
    format!("{format}={}", path.display())
}

fn entries(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

/// The first review: the high finding is posted and fails the job; its SARIF
/// and JSON reports are written where the next run is asked to write them.
async fn reviewed(ci: &Ci, host: &fakes::Fake, model: &wiremock::MockServer, sarif: &Path, json: &Path) {
    let args = ["--fail-on", "high", "--output", &output("sarif", sarif), "--output", &output("json", json)];
    let (code, _, stderr) = ci.run(&host.server.uri(), model, &args).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(sarif.exists() && json.exists(), "a run that reviewed writes its reports");
}

/// A run that reviewed nothing, asked for every report: the Code Quality one,
/// once by `--output codequality=` and once (the same run again) by
/// `--codequality`, must agree and list the finding that stands; the others are
/// gone, each said on stderr.
async fn assert_reports_of_a_run_that_reviewed_nothing(
    ci: &Ci,
    host: &fakes::Fake,
    model: &wiremock::MockServer,
    (sarif, json): (&Path, &Path),
    expect: &str,
) {
    let out = tempfile::tempdir().unwrap();
    let (by_output, by_flag): (PathBuf, PathBuf) = (out.path().join("cq-output.json"), out.path().join("cq-flag.json"));
    let args = [
        "--fail-on",
        "high",
        "--output",
        &output("codequality", &by_output),
        "--output",
        &output("sarif", sarif),
        "--output",
        &output("json", json),
    ];
    let (code, _, said) = ci.run(&host.server.uri(), model, &args).await;
    assert!(said.contains(expect), "{said}");
    assert_eq!(code, 3, "the high finding still stands\n{said}");
    let (code, _, stderr) =
        ci.run(&host.server.uri(), model, &["--fail-on", "high", "--codequality", by_flag.to_str().unwrap()]).await;
    assert_eq!(code, 3, "{stderr}");

    let listed = entries(&by_output);
    assert_eq!(listed.len(), 1, "the finding that stands: {listed:?}");
    assert_eq!(listed[0]["severity"], "critical");
    assert_eq!(
        std::fs::read_to_string(&by_output).unwrap(),
        std::fs::read_to_string(&by_flag).unwrap(),
        "--output codequality= and --codequality write the same report"
    );
    for (format, path) in [("sarif", sarif), ("json", json)] {
        assert!(!path.exists(), "{format}: no report of a run that reviewed nothing, not even an earlier one");
        let line = format!("--output {format}={} was not written", path.display());
        assert!(said.contains(&line), "{format}: stderr says so: {said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_of_a_reviewed_head_writes_code_quality_from_what_stands_and_no_other_report() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let out = tempfile::tempdir().unwrap();
    let (sarif, json) = (out.path().join("gauntlet.sarif"), out.path().join("review.json"));
    reviewed(&ci, &host, &model, &sarif, &json).await;
    assert_reports_of_a_run_that_reviewed_nothing(&ci, &host, &model, (&sarif, &json), "already reviewed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_gate_skips_writes_code_quality_from_what_stands_and_no_other_report() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let out = tempfile::tempdir().unwrap();
    let (sarif, json) = (out.path().join("gauntlet.sarif"), out.path().join("review.json"));
    reviewed(&ci, &host, &model, &sarif, &json).await;
    // Only a lockfile changes: the gate sets the push aside.
    std::fs::write(ci.dir.path().join("Cargo.lock"), "# lock\n").unwrap();
    git(ci.dir.path(), &["add", "Cargo.lock"]);
    git(ci.dir.path(), &["commit", "-qm", "lock"]);
    ci.write_event();
    assert_reports_of_a_run_that_reviewed_nothing(&ci, &host, &model, (&sarif, &json), "skipped").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_code_quality_destinations_on_ci_are_refused_before_any_model_call() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let out = tempfile::tempdir().unwrap();
    let (a, b) = (out.path().join("a.json"), out.path().join("b.json"));
    let args = ["--codequality", a.to_str().unwrap(), "--output", &output("codequality", &b)];
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &args).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("name one PATH"), "{stderr}");
    assert_eq!(fake.count("find"), 0);
}
