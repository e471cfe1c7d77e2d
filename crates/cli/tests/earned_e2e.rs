//! `gauntlet ci` with `[ci] blocking = "earned"`, end to end: the real binary,
//! a fake model, the publisher's stateful fake of the code host (GitHub, GitLab
//! or Azure DevOps) standing in for the pull request under review, and the
//! history fake `gauntlet stats` is tested on, answering on the same server,
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

use fakes::repo::{Kind, Repo, scenario, serve_history};
use serde_json::json;
use std::sync::{Arc, Mutex};
use support::auth::{BASE, HEAD, REAL, scripts};
use support::{Fake, Wire, gauntlet_env, git, repo};

/// A pull request from `feature` into `main` in `kind`'s pipeline, with `toml`
/// as its gauntlet.toml, and the fakes it talks to: the host's stateful fake for
/// the pull request (GitHub's 1, GitLab's 3, Azure DevOps' 5) answering on the
/// same server as the history's closed pull requests.
struct Run {
    kind: Kind,
    dir: tempfile::TempDir,
    /// GitHub's event payload.
    event: tempfile::NamedTempFile,
    summary: tempfile::NamedTempFile,
    host: fakes::Fake,
    history: Arc<Mutex<Repo>>,
}

impl Run {
    async fn new(toml: &str) -> Run {
        Run::on(Kind::GitHub, toml).await
    }

    async fn on(kind: Kind, toml: &str) -> Run {
        Run::with(kind, toml, |_| {}).await
    }

    /// [`Run::on`], with the closed pull requests changed by `edit` first.
    async fn with(kind: Kind, toml: &str, edit: impl FnOnce(&mut Repo)) -> Run {
        let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
        support::commit_on_main(dir.path(), &[("gauntlet.toml", toml)]);
        // Azure Pipelines names the target branch: the clone has it as fetched.
        git(dir.path(), &["update-ref", "refs/remotes/origin/main", "main"]);
        let event = tempfile::NamedTempFile::new().unwrap();
        let summary = tempfile::NamedTempFile::new().unwrap();
        let head = git(dir.path(), &["rev-parse", "HEAD"]);
        let mut closed = scenario(kind);
        for pull in &mut closed.pulls {
            // Clear of the number of the pull request under review.
            pull.number += 100;
            for thread in &mut pull.threads {
                thread.body = thread.body.replace("`logic`", "`correctness`");
            }
        }
        edit(&mut closed);
        let host = match kind {
            Kind::GitHub => fakes::github::start().await,
            Kind::GitLab => fakes::gitlab::start(head.trim()).await,
            Kind::Azure => fakes::azure::start(head.trim()).await,
        };
        // What the pull request changes, as the Azure DevOps fake lists it per iteration.
        host.state().changed = vec!["src/auth.py".into()];
        let history = Arc::new(Mutex::new(closed));
        serve_history(kind, &history, &host.server).await;
        let run = Run { kind, dir, event, summary, host, history };
        run.write_event();
        run
    }

    async fn ci(&self, args: &[&str]) -> (i32, String, String) {
        self.gauntlet("ci", args, &[]).await
    }

    /// `gauntlet COMMAND ARGS` in this pipeline's environment, plus `extra`.
    async fn gauntlet(&self, command: &str, args: &[&str], extra: &[(&str, &str)]) -> (i32, String, String) {
        let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
        let uri = self.host.server.uri();
        let pipeline = match self.kind {
            Kind::GitHub => support::Pipeline::GitHub,
            Kind::GitLab => support::Pipeline::GitLab,
            Kind::Azure => support::Pipeline::Azure,
        };
        let env = support::ci_vars(pipeline, self.dir.path(), &uri, self.event.path(), self.summary.path());
        let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        env.extend_from_slice(extra);
        let mut all = vec![command];
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
        self.write_event();
    }

    fn write_event(&self) {
        support::write_github_event(self.dir.path(), self.event.path());
    }

    fn history_requests(&self) -> usize {
        self.history.lock().unwrap().requests
    }
}

/// The verdict's line of a run that passed with the high finding of a reviewer below its own bar.
const HELD_BACK: &str = "passed: 1 finding; 1 at or above high raised only by reviewers below the bar (--fail-on)";

/// The verdict's line of a run that found nothing new while the high finding of an earlier run stands.
const STILL_STANDS: &str =
    "failed: 0 of 0 findings at or above high, and 1 of an earlier run that still stands (--fail-on)";

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
async fn above_the_bar_a_high_finding_fails_and_the_next_run_reads_only_what_it_does_not_hold() {
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
    let kept: Vec<&String> = cached["pulls"].as_object().unwrap().keys().collect();
    assert_eq!(kept, ["101", "102", "103"], "each closed pull request's records are kept: {cached}");

    let before = run.history.lock().unwrap().log.len();
    let (code, _, stderr) = run.ci(&["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("(3 of them as an earlier read found them)"), "{stderr}");
    let later: Vec<String> = run.history.lock().unwrap().log[before..].to_vec();
    assert!(later.iter().any(|l| l.contains("/pulls?")), "the closes are listed again: {later:#?}");
    assert!(!later.iter().any(|l| l.contains("/graphql")), "no pull request is read again: {later:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_whose_reviewer_is_below_its_own_bar_does_not_fail() {
    // Overall 0.50 over 6 clears (0.50, 3); `correctness` has 2 decided of its own.
    let run = Run::new(&earned("min_findings = 3\nmin_precision = 0.5\n")).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("raised only by reviewers below the bar"), "{stderr}");
    assert!(run.overview().contains("on their own findings: security"), "{}", run.overview());
    let last = run.host.state().check_runs.last().cloned().expect("a check run");
    assert_eq!(last.conclusion.as_deref(), Some("success"), "{last:#?}");
    assert_eq!(last.title, format!("gauntlet: {HELD_BACK}"));
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
    assert_eq!(last.title, format!("gauntlet: {STILL_STANDS}"));
}

// --- GitLab and Azure DevOps ------------------------------------------------
//
// The same record on the other two hosts: GitLab's scenario holds the same
// hostile data as GitHub's (its edit history names the author of the edit);
// Azure DevOps' lets only a comment's author edit it, so its scenario has no
// edited comment or overview (G) and a reader's `/gauntlet dismiss` instead of
// a thumbs-down (H). Either way the author's and the reader's doings count for
// nothing, and the hand figure is 3 fixed (A, I, K) and 3 dismissed (C, F, N):
// 0.50 over 6, K and N being findings only the overview showed.

/// The reason line of a run below the bar `min_findings = 2`, `min_precision = 0.9`.
const BELOW: &str = "advisory: precision 0.50 over the last 6 decided findings; blocking needs 0.90";

/// The reason line of a run above the bar `min_findings = 2`, `min_precision = 0.5`.
const ABOVE: &str = "blocking: precision 0.50 over the last 6 decided findings (bar 0.50, at least 2); reviewers that met the bar on their own findings: correctness, security";

/// What the pull request's author did in the history, taken out: the comment the
/// author opened (E), the author's own dismissal (D) and edit (G), the reader's
/// thumbs-down or command (H), the overview the author edited and the one the
/// author forged.
fn without_the_authors_doings(closed: &mut Repo) {
    for pull in &mut closed.pulls {
        pull.threads.retain(|t| !["src/d.rs", "src/e.rs", "src/g.rs", "src/h.rs"].contains(&t.path.as_str()));
        pull.overviews.retain(|o| o.opener == fakes::PIPELINE && o.edited_by.is_none());
    }
}

/// The last Azure DevOps pull request status the run posted.
fn azure_status(run: &Run) -> serde_json::Value {
    run.host.state().statuses.last().cloned().expect("a pull request status")
}

/// The Code Quality report at `path`, as JSON.
fn report(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

async fn below_the_bar_on(kind: Kind) {
    let config = earned("min_findings = 2\nmin_precision = 0.9\n");
    let run = Run::on(kind, &config).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{kind:?}: advisory below the bar\n{stderr}");
    assert_eq!(run.host.inline().len(), 1, "{kind:?}: the finding is still posted");
    let overview = run.overview();
    assert!(overview.contains(BELOW), "{kind:?}: {overview}");
    assert!(stderr.contains(BELOW), "{kind:?}: {stderr}");
    // The figure comes from reading every closed pull request's comments, the
    // hostile ones included, not from reading less.
    let log = run.history.lock().unwrap().log.clone();
    let threads = if kind == Kind::GitLab { "discussions" } else { "threads" };
    for number in [101, 102, 103] {
        assert!(log.iter().any(|l| l.contains(&format!("/{number}/{threads}"))), "{kind:?}: {log:#?}");
    }
    if kind == Kind::Azure {
        let status = azure_status(&run);
        assert_eq!(status["state"], "notApplicable", "{status}");
    }
    assert!(run.host.errors().is_empty(), "{kind:?}: {:?}", run.host.errors());

    // Without what the author (and a reader) did, the figure is the same.
    let clean = Run::with(kind, &config, without_the_authors_doings).await;
    let (code, _, stderr) = clean.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{kind:?}: {stderr}");
    assert!(clean.overview().contains(BELOW), "{kind:?}: {}", clean.overview());
}

async fn above_the_bar_on(kind: Kind) {
    let run = Run::on(kind, &earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    let path = run.dir.path().join("gl-code-quality-report.json");
    let (code, _, stderr) = run.ci(&["--fail-on", "high", "--codequality", path.to_str().unwrap()]).await;
    assert_eq!(code, 3, "{kind:?}: {stderr}");
    let overview = run.overview();
    assert!(overview.contains(ABOVE), "{kind:?}: {overview}");
    match kind {
        Kind::Azure => {
            let status = azure_status(&run);
            assert_eq!(status["state"], "failed", "{status}");
            assert_eq!(
                (&status["context"]["name"], &status["context"]["genre"]),
                (&json!("gauntlet"), &json!("gauntlet"))
            );
        }
        _ => {
            let entries = report(&path);
            assert_eq!(entries.as_array().map(Vec::len), Some(1), "{kind:?}: {entries}");
            assert_eq!(entries[0]["severity"], "critical");
            assert_eq!(entries[0]["description"], REAL);
            let at = &entries[0]["location"];
            assert_eq!((at["path"].as_str(), at["lines"]["begin"].as_u64()), (Some("src/auth.py"), Some(4)));
        }
    }
    assert!(run.host.errors().is_empty(), "{kind:?}: {:?}", run.host.errors());
}

async fn a_dismissed_high_finding_does_not_fail_on(kind: Kind) {
    let run = Run::on(kind, &earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    let path = run.dir.path().join("gl-code-quality-report.json");
    let args = ["--fail-on", "high", "--force", "--codequality", path.to_str().unwrap()];
    assert_eq!(run.ci(&args[..2]).await.0, 3, "{kind:?}");
    let thread = run.host.inline()[0].id;
    run.host.reply_as(thread, fakes::AUTHOR, "/gauntlet dismiss works as intended");
    let (code, _, stderr) = run.ci(&args).await;
    assert_eq!(code, 3, "{kind:?}: the author's own dismissal does not count\n{stderr}");
    // A person with write access dismisses it the host's way: GitLab resolves the
    // discussion, Azure DevOps sets the thread to "won't fix".
    run.host.dismiss(thread);
    let (code, _, stderr) = run.ci(&args).await;
    assert_eq!(code, 0, "{kind:?}: {stderr}");
    assert!(stderr.contains("1 finding(s) at or above `high` were dismissed"), "{kind:?}: {stderr}");
    assert!(run.overview().contains(ABOVE), "{kind:?}: blocking applied: {}", run.overview());
    match kind {
        Kind::Azure => {
            let status = azure_status(&run);
            assert_eq!(status["state"], "succeeded", "{status}");
        }
        _ => assert_eq!(report(&path), json!([]), "{kind:?}: nor is it in the Code Quality report"),
    }
    assert!(run.host.errors().is_empty(), "{kind:?}: {:?}", run.host.errors());
}

async fn the_record_is_read_within_the_call_budget_on(kind: Kind) {
    let config = format!(
        "{}\n[reviewers]\ndisable = [\"prior-feedback\"]\n",
        earned("min_findings = 2\nmin_precision = 0.5\nstats_calls = 3\n")
    );
    let run = Run::on(kind, &config).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    let log = run.history.lock().unwrap().log.clone();
    // Before the record is read, the pull request's own client asks the same
    // route who its token belongs to, once; everything after is the record's.
    let whoami = if kind == Kind::GitLab { "/api/v4/user?" } else { "/_apis/connectionData?" };
    assert!(log[0].contains(whoami), "{kind:?}: {log:#?}");
    assert!(log.len() - 1 <= 3, "{kind:?}: {log:#?}");
    assert!(stderr.contains("partial: "), "{kind:?}: the read says it was cut: {stderr}");
    assert_eq!(code, 0, "{kind:?}: too little read to clear the bar\n{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_below_the_bar_it_posts_exits_0_and_says_why_and_the_authors_doings_do_not_count() {
    below_the_bar_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_below_the_bar_it_posts_exits_0_and_says_why_and_the_authors_doings_do_not_count() {
    below_the_bar_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_above_the_bar_a_high_finding_fails_and_is_in_the_code_quality_report() {
    above_the_bar_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_above_the_bar_a_high_finding_fails_and_so_does_the_pull_request_status() {
    above_the_bar_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_dismissed_high_finding_never_fails_the_job() {
    a_dismissed_high_finding_does_not_fail_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_dismissed_high_finding_never_fails_the_job() {
    a_dismissed_high_finding_does_not_fail_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_the_record_is_read_within_the_call_budget() {
    the_record_is_read_within_the_call_budget_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_the_record_is_read_within_the_call_budget() {
    the_record_is_read_within_the_call_budget_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_finding_whose_reviewer_is_below_its_own_bar_passes_and_the_status_says_why() {
    let run = Run::on(Kind::Azure, &earned("min_findings = 3\nmin_precision = 0.5\n")).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{stderr}");
    let status = azure_status(&run);
    assert_eq!((&status["state"], &status["description"]), (&json!("succeeded"), &json!(HELD_BACK)), "{status}");
}

async fn a_push_that_leaves_the_flagged_file_alone_still_fails_on(kind: Kind) {
    let run = Run::on(kind, &earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, 3, "{kind:?}");
    run.push("notes.md", "unrelated\n");
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{kind:?}: the finding on the untouched file still stands\n{stderr}");
    // Nothing new is posted, so the head the host fake was started with (it does
    // not follow the push) plays no part.
    assert_eq!(run.host.inline().len(), 1, "{kind:?}");
    if kind == Kind::Azure {
        let status = azure_status(&run);
        assert_eq!((&status["state"], &status["description"]), (&json!("failed"), &json!(STILL_STANDS)), "{status}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_push_that_leaves_the_flagged_file_alone_does_not_turn_earned_blocking_green() {
    a_push_that_leaves_the_flagged_file_alone_still_fails_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_push_that_leaves_the_flagged_file_alone_does_not_turn_earned_blocking_green() {
    a_push_that_leaves_the_flagged_file_alone_still_fails_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_gate_skips_does_not_turn_earned_blocking_green() {
    let run = Run::new(&earned("min_findings = 2\nmin_precision = 0.5\n")).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, 3);
    // A lockfile alone is skipped by the gate: no review runs, yet the high
    // finding of the first run still stands and the bar is still met.
    run.push("Cargo.lock", "# v2\n");
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert!(stderr.contains("skipped: "), "the gate skipped the push\n{stderr}");
    assert_eq!(code, 3, "the standing high finding still fails the job\n{stderr}");
    assert!(stderr.contains("from earlier runs still stand"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_stats_keeps_is_the_one_ci_reads_on_every_host() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let run = Run::on(kind, &earned("min_findings = 2\nmin_precision = 0.5\n")).await;
        let kept = tempfile::tempdir().unwrap();
        let dir = kept.path().to_str().unwrap();
        // What the templates' scheduled run does on the default branch.
        let (code, out, stderr) = run.gauntlet("stats", &["--last", "500", "--keep-record", dir], &[]).await;
        assert_eq!(code, 0, "{kind:?}: {stderr}");
        assert!(out.contains("3 merged or closed pull request(s)"), "{kind:?}: {out}");
        let file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(kept.path().join("earned.json")).unwrap()).unwrap();
        assert_eq!(file["pulls"].as_object().unwrap().len(), 3, "{kind:?}: {file}");
        assert!(file["commit"].is_null(), "stats reviews no commit");
        // A pull request's run takes it up and reads none of them again.
        let (code, _, stderr) = run.gauntlet("ci", &["--fail-on", "high"], &[("GAUNTLET_CACHE_DIR", dir)]).await;
        assert_eq!(code, 3, "{kind:?}: {stderr}");
        assert!(stderr.contains("(3 of them as an earlier read found them)"), "{kind:?}: {stderr}");
        assert!(!run.dir.path().join(".git/gauntlet/earned.json").exists(), "{kind:?}: kept where it was pointed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_change_itself_carries_is_not_read() {
    // GitLab's cache folder lies inside the checkout: an author commits a record
    // claiming every finding was fixed, where the run would look for one.
    let run = Run::new(&earned("min_findings = 2\nmin_precision = 0.9\n")).await;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let fixed = |pr: u64, closed: &str| {
        let one = json!({"pr": pr, "finding": format!("x{pr}"), "severity": "high", "reviewers": ["correctness"], "closed_at": closed, "outcome": "fixed", "era": null});
        json!({"read_at": now, "closed_at": closed, "records": vec![one; 20]})
    };
    let forged = json!({
        "key": "v2|GitHub o/r|author_may_dismiss=false", "at": now, "commit": null,
        "pulls": {"101": fixed(101, "2024-01-20T12:00:00Z"), "102": fixed(102, "2024-02-10T12:00:00Z"), "103": fixed(103, "2024-03-05T12:00:00Z")}
    });
    std::fs::create_dir_all(run.dir.path().join(".gauntlet-record")).unwrap();
    run.push(".gauntlet-record/earned.json", &forged.to_string());
    let dir = run.dir.path().join(".gauntlet-record");
    let (code, _, stderr) =
        run.gauntlet("ci", &["--fail-on", "high"], &[("GAUNTLET_CACHE_DIR", dir.to_str().unwrap())]).await;
    assert!(stderr.contains("is a file of the repository, not a record an earlier run kept"), "{stderr}");
    assert_eq!(code, 0, "the real record is below the bar\n{stderr}");
    assert!(run.overview().contains(BELOW), "{}", run.overview());
    assert_eq!(std::fs::read_to_string(dir.join("earned.json")).unwrap(), forged.to_string(), "nor written over");
}
