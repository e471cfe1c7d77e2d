//! `gauntlet ci` with `[ci] blocking = "earned"`, end to end: the real binary,
//! a fake model, the publisher's stateful GitHub fake standing in for the pull
//! request under review, and the history fake `gauntlet stats` is tested on
//! standing in for the repository's closed pull requests.
//!
//! The history holds the hostile data of `stats`' tests: a comment the
//! author opened with a forged "fixed" marker, the pipeline's comment edited by
//! the author into a resolved one, the author's own dismissal and resolution,
//! a reader's thumbs-down, an overview the author edited and one the author
//! forged. Counted, they would move the figure; the hand figure is 3 fixed and
//! 3 dismissed (precision 0.50 over 6: one of each is a finding only the
//! overview showed), for the reviewer `correctness` (renamed from `logic` in
//! the comments here; the overview's findings keep `logic`) 1 fixed and 1
//! dismissed, and for `security` 3 fixed and 1 dismissed.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use fakes::repo::{Kind, Repo, scenario, serve_github_history};
use serde_json::json;
use std::sync::{Arc, Mutex};
use support::{Fake, Wire, finder, gauntlet_env, git, repo, verdict};

const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
const REAL: &str = "Any user can delete any document because the ownership check was removed.";

fn scripts() -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/auth.py:4", "claim": REAL, "evidence": "    return True", "severity": "high"});
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100});
    vec![finder("correctness", json!([finding])), verdict("validate", REAL, &[survives])]
}

/// A GitHub Actions pull request from `feature` into `main`, with `toml` as its
/// gauntlet.toml, and the fakes it talks to.
struct Run {
    dir: tempfile::TempDir,
    event: tempfile::NamedTempFile,
    summary: tempfile::NamedTempFile,
    host: fakes::Fake,
    history: Arc<Mutex<Repo>>,
}

impl Run {
    async fn new(toml: &str) -> Run {
        let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
        support::commit_on_main(dir.path(), &[("gauntlet.toml", toml)]);
        let event = tempfile::NamedTempFile::new().unwrap();
        let summary = tempfile::NamedTempFile::new().unwrap();
        let base = git(dir.path(), &["rev-parse", "main"]);
        let head = git(dir.path(), &["rev-parse", "HEAD"]);
        let e = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
        std::fs::write(event.path(), e.to_string()).unwrap();
        let mut closed = scenario(Kind::GitHub);
        for pull in &mut closed.pulls {
            for thread in &mut pull.threads {
                thread.body = thread.body.replace("`logic`", "`correctness`");
            }
        }
        let host = fakes::github::start().await;
        let history = Arc::new(Mutex::new(closed));
        serve_github_history(&history, &host.server).await;
        Run { dir, event, summary, host, history }
    }

    async fn ci(&self, args: &[&str]) -> (i32, String, String) {
        let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
        let uri = self.host.server.uri();
        let env = vec![
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", self.event.path().to_str().unwrap()),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_API_URL", uri.as_str()),
            ("GITHUB_TOKEN", "ghs_faketoken123"),
            ("GITHUB_STEP_SUMMARY", self.summary.path().to_str().unwrap()),
        ];
        let mut all = vec!["ci"];
        all.extend_from_slice(args);
        gauntlet_env(self.dir.path(), Wire::Anthropic, &model, &all, &env).await
    }

    fn overview(&self) -> String {
        self.host.overviews().join("\n")
    }

    /// A new push to the branch: `path` gets `text`, and the event names the new head.
    fn push(&self, path: &str, text: &str) {
        std::fs::write(self.dir.path().join(path), text).unwrap();
        git(self.dir.path(), &["add", "-A"]);
        git(self.dir.path(), &["commit", "-qm", "another push"]);
        let base = git(self.dir.path(), &["rev-parse", "main"]);
        let head = git(self.dir.path(), &["rev-parse", "HEAD"]);
        let e = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
        std::fs::write(self.event.path(), e.to_string()).unwrap();
    }

    fn history_requests(&self) -> usize {
        self.history.lock().unwrap().requests
    }

    /// Listings and thread reads of closed pull requests: the record itself (the
    /// permission endpoint also answers this run's own dismissal check).
    fn record_reads(&self) -> usize {
        self.history.lock().unwrap().log.iter().filter(|l| !l.contains("/collaborators/")).count()
    }
}

fn earned(extra: &str) -> String {
    format!("[ci]\nblocking = \"earned\"\nkeep_record_across_rules = true\n{extra}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn below_the_bar_it_posts_exits_0_and_says_why_and_the_authors_doings_do_not_count() {
    let run = Run::new(&earned("min_findings = 2\nmin_precision = 0.9\n")).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "advisory below the bar\n{stderr}");
    assert_eq!(run.host.inline().len(), 1, "the finding is still posted");
    let overview = run.overview();
    assert!(
        overview.contains("advisory: precision 0.50 over the last 6 decided findings; blocking needs 0.90"),
        "{overview}"
    );
    assert!(run.history_requests() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn above_the_bar_a_high_finding_fails_and_the_next_run_reuses_the_cached_figure() {
    let run = Run::new(&earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{stderr}");
    let overview = run.overview();
    assert!(
        overview.contains(
            "blocking: precision 0.50 over the last 6 decided findings (bar 0.50, at least 2); reviewers that met the bar on their own findings: correctness, security"
        ),
        "{overview}"
    );
    let cache = run.dir.path().join(".git/gauntlet/earned.json");
    let cached: serde_json::Value = serde_json::from_slice(&std::fs::read(&cache).unwrap()).unwrap();
    assert!(cached["at"].as_u64().unwrap() > 0 && cached["commit"].as_str().unwrap().len() == 40, "{cached}");

    let read = run.record_reads();
    let (code, _, stderr) = run.ci(&["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("precision cached 0 min ago"), "{stderr}");
    assert_eq!(run.record_reads(), read, "the cached figure is reused without reading the record again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_whose_reviewer_is_below_its_own_bar_does_not_fail() {
    // Overall 0.50 over 6 clears (0.50, 3); `correctness` has 2 decided of its own.
    let run = Run::new(&earned("min_findings = 3\nmin_precision = 0.5\n")).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("raised only by reviewers below the bar"), "{stderr}");
    assert!(run.overview().contains("on their own findings: security"), "{}", run.overview());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_is_read_within_the_call_budget() {
    // Prior feedback reads closed pull requests too, on its own bound: left out here
    // so every request counted is the record's.
    let config = format!(
        "{}\n[reviewers]\ndisable = [\"prior-feedback\"]\n",
        earned("min_findings = 2\nmin_precision = 0.5\nstats_calls = 3\n")
    );
    let run = Run::new(&config).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert!(run.history_requests() <= 3, "{} requests", run.history_requests());
    assert!(stderr.contains("partial: "), "the read says it was cut: {stderr}");
    assert_eq!(code, 0, "too little read to clear the bar\n{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_rules_version_or_model_starts_a_new_record() {
    // The history's comments record no era: none was raised with this run's rules and model.
    let run = Run::new("[ci]\nblocking = \"earned\"\nmin_findings = 2\nmin_precision = 0.5\n").await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(run.overview().contains("advisory: no decided findings yet"), "{}", run.overview());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_blocking_setting_is_refused_before_any_call() {
    let run = Run::new("[ci]\nblocking = \"earned\"\nmin_precision = 90\n").await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("min_precision 90 is not a share"), "{stderr}");
    assert_eq!(run.history_requests(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_that_leaves_the_flagged_file_alone_does_not_turn_earned_blocking_green() {
    let run = Run::new(&earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, 3);
    run.push("notes.md", "unrelated\n");
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 3, "the finding on the untouched file still stands\n{stderr}");
    let last = run.host.state().check_runs.last().cloned().expect("a check run");
    assert_eq!(last.conclusion.as_deref(), Some("failure"), "{last:#?}");
}
