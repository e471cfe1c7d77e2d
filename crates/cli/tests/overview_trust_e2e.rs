//! Only an overview the pipeline can check it wrote decides what `gauntlet ci`
//! skips and what stands, on GitHub, GitLab and Azure DevOps: the real binary, a
//! fake model, and the publisher's stateful fake of each host.
//!
//! The attacks are those of a pull request's author who can post or edit under
//! the pipeline's identity (on GitHub, any workflow's `GITHUB_TOKEN`), and of a
//! person with write access editing the overview: each tries to pass a change
//! with a blocking finding by making the re-run skip it. Then the same for the
//! pipeline's inline comments: an edit to a thread's header or marker changes
//! neither what stands nor at which severity. The dismissal test is the other
//! side: a re-run after a writer's dismissal turns the status green.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::Value;
use support::auth::{BASE, HEAD, scripts};
use support::{Fake, Pipeline, Wire, gauntlet_env, git, repo};

/// A pull request from `feature` into `main` under `pipeline`, the host's fake,
/// the model's fake, and the folder the pipeline keeps its records in
/// (`GAUNTLET_CACHE_DIR`, as the CI templates set it).
struct Pr {
    pipeline: Pipeline,
    dir: tempfile::TempDir,
    event: tempfile::NamedTempFile,
    summary: tempfile::NamedTempFile,
    cache: tempfile::TempDir,
    host: fakes::Fake,
    model: wiremock::MockServer,
    calls: support::Fake,
}

impl Pr {
    async fn on(pipeline: Pipeline) -> Pr {
        let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
        // Azure Pipelines names the target branch: the clone has it as fetched.
        git(dir.path(), &["update-ref", "refs/remotes/origin/main", "main"]);
        let head = git(dir.path(), &["rev-parse", "HEAD"]);
        let host = match pipeline {
            Pipeline::GitHub => fakes::github::start().await,
            Pipeline::GitLab => fakes::gitlab::start(head.trim()).await,
            Pipeline::Azure => fakes::azure::start(head.trim()).await,
        };
        host.state().changed = vec!["src/auth.py".into()];
        let (model, calls) = Fake::start(Wire::Anthropic, scripts()).await;
        let (event, summary) = (tempfile::NamedTempFile::new().unwrap(), tempfile::NamedTempFile::new().unwrap());
        support::write_github_event(dir.path(), event.path());
        let cache = tempfile::tempdir().unwrap();
        Pr { pipeline, dir, event, summary, cache, host, model, calls }
    }

    /// `gauntlet ci ARGS --fail-on high --codequality REPORT`.
    async fn ci(&self, args: &[&str]) -> (i32, String, String) {
        let report = self.report_path();
        let mut all = vec!["ci", "--fail-on", "high", "--codequality", report.to_str().unwrap()];
        all.extend_from_slice(args);
        let uri = self.host.server.uri();
        let mut vars = support::ci_vars(self.pipeline, self.dir.path(), &uri, self.event.path(), self.summary.path());
        vars.push(("GAUNTLET_CACHE_DIR", self.cache.path().to_str().unwrap().into()));
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        gauntlet_env(self.dir.path(), Wire::Anthropic, &self.model, &all, &vars).await
    }

    fn report_path(&self) -> std::path::PathBuf {
        self.dir.path().join("gl-code-quality-report.json")
    }

    /// The verdict the host shows for the last run: GitHub's newest check run's
    /// conclusion, Azure DevOps' newest status state, GitLab's Code Quality
    /// report read as `failure` with an entry at or above high, else `success`.
    fn verdict(&self) -> String {
        match self.pipeline {
            Pipeline::GitHub => {
                let runs = self.host.state().check_runs.clone();
                runs.last().and_then(|r| r.conclusion.clone()).expect("a check run")
            }
            Pipeline::Azure => {
                let status = self.host.state().statuses.last().cloned().expect("a pull request status");
                match status["state"].as_str() {
                    Some("failed") => "failure".into(),
                    Some("succeeded") => "success".into(),
                    other => format!("{other:?}"),
                }
            }
            Pipeline::GitLab => {
                let report: Value =
                    serde_json::from_str(&std::fs::read_to_string(self.report_path()).unwrap()).unwrap();
                let high = report.as_array().unwrap().iter().any(|e| e["severity"] == "critical");
                if high { "failure" } else { "success" }.into()
            }
        }
    }

    /// The overview's thread on the host.
    fn overview_thread(&self) -> u64 {
        let s = self.host.state();
        let overview =
            s.threads.iter().find(|t| t.path.is_none() && t.notes[0].body.starts_with("<!-- gauntlet:overview"));
        overview.expect("an overview").id
    }

    /// Rewrite the overview's text as `who`, the way the host records an edit.
    fn edit_overview(&self, who: &str, edit: impl Fn(&str) -> String) {
        let thread = self.overview_thread();
        let mut s = self.host.state();
        let note = &mut s.thread_mut(thread).unwrap().notes[0];
        note.body = edit(&note.body);
        note.edited_by = Some(who.to_string());
    }
}

/// The overview's text with the findings it holds taken out of its marker: what
/// a forger who wants the re-run to pass writes.
fn without_held(body: &str) -> String {
    let (marker, rest) = body.split_once(" -->").unwrap();
    let kept: Vec<&str> = marker.split(' ').filter(|f| !f.starts_with("held=") && !f.starts_with("held_at=")).collect();
    format!("{} held=- -->{rest}", kept.join(" "))
}

async fn a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review_on(pipeline: Pipeline) {
    // What a real overview says for this change, learnt from another pull request.
    let model = Pr::on(pipeline).await;
    assert_eq!(model.ci(&["--max-comments", "0"]).await.0, 3, "{pipeline:?}");
    let genuine = model.host.overviews()[0].clone();
    let head_of = |pr: &Pr| git(pr.dir.path(), &["rev-parse", "HEAD"]).trim().to_string();
    // Before gauntlet first runs, a comment under the pipeline's identity names
    // this head with the same rules and config, and holds nothing.
    let pr = Pr::on(pipeline).await;
    let forged = without_held(&genuine).replace(&head_of(&model), &head_of(&pr));
    pr.host.state().add(None, None, fakes::PIPELINE, &forged);
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: a forged overview must not pass the change\n{stderr}");
    assert!(pr.calls.count("find") > 0 && !stderr.contains("already reviewed"), "{pipeline:?}: {stderr}");
    assert!(stderr.contains("decides nothing"), "{pipeline:?}: {stderr}");
    assert_eq!(pr.verdict(), "failure", "{pipeline:?}");
    assert!(pr.host.errors().is_empty(), "{pipeline:?}: {:?}", pr.host.errors());
}

async fn an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review_on(pipeline: Pipeline) {
    // A first run holds the high finding in the overview (no inline comment).
    let pr = Pr::on(pipeline).await;
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: {stderr}");
    assert!(!pr.host.overviews()[0].contains("held=-"), "{pipeline:?}: {}", pr.host.overviews()[0]);
    // Another workflow, posting as the pipeline, rewrites it to hold nothing.
    pr.edit_overview(fakes::PIPELINE, without_held);
    let finds = pr.calls.count("find");
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: a rewritten overview must not pass the change\n{stderr}");
    assert!(!stderr.contains("already reviewed") && pr.calls.count("find") > finds, "{pipeline:?}: {stderr}");
    assert!(stderr.contains("decides nothing"), "{pipeline:?}: {stderr}");
    assert_eq!(pr.verdict(), "failure", "{pipeline:?}");
    let rewritten = pr.host.overviews()[0].clone();
    assert!(!rewritten.contains("held=-"), "{pipeline:?}: the run's own overview replaces it: {rewritten}");
    // The run's own overview is believed again: the next re-run is a skip.
    let finds = pr.calls.count("find");
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: {stderr}");
    assert!(stderr.contains("already reviewed") && pr.calls.count("find") == finds, "{pipeline:?}: {stderr}");
}

async fn an_overview_someone_else_edited_gets_a_fresh_review_on(pipeline: Pipeline) {
    let pr = Pr::on(pipeline).await;
    assert_eq!(pr.ci(&["--max-comments", "0"]).await.0, 3, "{pipeline:?}");
    // Without an edit, the re-run is skipped and still fails: the record is sound.
    let finds = pr.calls.count("find");
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: {stderr}");
    assert!(stderr.contains("already reviewed") && pr.calls.count("find") == finds, "{pipeline:?}: {stderr}");

    pr.edit_overview(fakes::PERSON, without_held);
    let (code, _, stderr) = pr.ci(&["--max-comments", "0"]).await;
    assert_eq!(code, 3, "{pipeline:?}: an edited overview must not pass the change\n{stderr}");
    assert!(!stderr.contains("already reviewed") && pr.calls.count("find") > finds, "{pipeline:?}: {stderr}");
    assert_eq!(pr.verdict(), "failure", "{pipeline:?}");
    assert!(pr.host.errors().is_empty(), "{pipeline:?}: {:?}", pr.host.errors());
}

async fn a_dismissal_then_a_rerun_of_the_same_head_turns_the_status_green_on(pipeline: Pipeline) {
    let pr = Pr::on(pipeline).await;
    assert_eq!(pr.ci(&[]).await.0, 3, "{pipeline:?}");
    assert_eq!(pr.verdict(), "failure", "{pipeline:?}");
    let finds = pr.calls.count("find");
    // A writer dismisses the finding the host's way; nothing is pushed.
    pr.host.dismiss(pr.host.inline()[0].id);
    let (code, _, stderr) = pr.ci(&[]).await;
    assert_eq!(code, 0, "{pipeline:?}: {stderr}");
    assert!(stderr.contains("already reviewed"), "{pipeline:?}: the re-run is a skip: {stderr}");
    assert_eq!(pr.calls.count("find"), finds, "{pipeline:?}: no model call");
    assert_eq!(pr.verdict(), "success", "{pipeline:?}: the required status follows the dismissal");
    if pipeline == Pipeline::GitLab {
        let report = std::fs::read_to_string(pr.report_path()).unwrap();
        assert_eq!(report, "[]\n", "nothing stands");
    }
    assert!(pr.host.errors().is_empty(), "{pipeline:?}: {:?}", pr.host.errors());
}

/// The inline comment's text with its header naming `low` instead of `high`.
fn lowered(body: &str) -> String {
    assert!(body.contains("**high**"), "{body}");
    body.replacen("**high**", "**low**", 1)
}

/// The inline comment's text with its marker saying the pipeline resolved it.
fn marked_resolved(body: &str) -> String {
    let (first, rest) = body.split_once(" -->").unwrap();
    format!("{first} state=resolved -->{rest}")
}

/// A first run opens an inline thread on the high finding; then the pull
/// request's author (not allowed to dismiss) edits that comment with `edit`.
/// Neither a re-run of the same head nor a push that leaves the file alone may
/// let the finding stand any lower.
async fn an_edited_inline_comment_changes_nothing_that_stands_on(pipeline: Pipeline, edit: fn(&str) -> String) {
    let pr = Pr::on(pipeline).await;
    let (code, _, stderr) = pr.ci(&[]).await;
    assert_eq!(code, 3, "{pipeline:?}: {stderr}");
    let thread = pr.host.inline().first().map(|t| t.id).expect("an inline thread");
    // Azure DevOps lets only a comment's author edit it: there the edit comes from
    // something else posting as the pipeline.
    let who = if pipeline == Pipeline::Azure { fakes::PIPELINE } else { fakes::AUTHOR };
    {
        let mut s = pr.host.state();
        let note = &mut s.thread_mut(thread).unwrap().notes[0];
        note.body = edit(&note.body);
        note.edited_by = Some(who.to_string());
    }
    let (code, _, stderr) = pr.ci(&[]).await;
    assert!(stderr.contains("already reviewed"), "{pipeline:?}: the re-run is a skip: {stderr}");
    assert_eq!(code, 3, "{pipeline:?}: the edited comment must not pass the change\n{stderr}");
    assert_eq!(pr.verdict(), "failure", "{pipeline:?}");

    // A push that leaves src/auth.py alone: an incremental review of the new file.
    std::fs::write(pr.dir.path().join("src/util.py"), "X = 1\n").unwrap();
    git(pr.dir.path(), &["add", "src/util.py"]);
    git(pr.dir.path(), &["commit", "-qm", "second push"]);
    support::write_github_event(pr.dir.path(), pr.event.path());
    pr.host.state().changed.push("src/util.py".into());
    let (code, _, stderr) = pr.ci(&[]).await;
    assert!(!stderr.contains("already reviewed"), "{pipeline:?}: {stderr}");
    assert_eq!(code, 3, "{pipeline:?}: the edited comment must not pass the push\n{stderr}");
    assert!(stderr.contains("still stand"), "{pipeline:?}: {stderr}");
    // GitLab's verdict is the job's exit code; the Code Quality report of a run
    // that reviewed something lists only what that run raised.
    if pipeline != Pipeline::GitLab {
        assert_eq!(pr.verdict(), "failure", "{pipeline:?}");
    }
    assert!(pr.host.errors().is_empty(), "{pipeline:?}: {:?}", pr.host.errors());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review() {
    a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review() {
    a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review() {
    a_forged_overview_by_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review() {
    an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review() {
    an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review() {
    an_overview_rewritten_under_the_pipelines_identity_gets_a_fresh_review_on(Pipeline::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_an_overview_someone_else_edited_gets_a_fresh_review() {
    an_overview_someone_else_edited_gets_a_fresh_review_on(Pipeline::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_an_overview_someone_else_edited_gets_a_fresh_review() {
    an_overview_someone_else_edited_gets_a_fresh_review_on(Pipeline::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_an_overview_someone_else_edited_gets_a_fresh_review() {
    an_overview_someone_else_edited_gets_a_fresh_review_on(Pipeline::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_a_dismissal_then_a_rerun_of_the_same_head_turns_the_check_run_green() {
    a_dismissal_then_a_rerun_of_the_same_head_turns_the_status_green_on(Pipeline::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_dismissal_then_a_rerun_of_the_same_head_empties_the_code_quality_report() {
    a_dismissal_then_a_rerun_of_the_same_head_turns_the_status_green_on(Pipeline::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_dismissal_then_a_rerun_of_the_same_head_turns_the_status_green() {
    a_dismissal_then_a_rerun_of_the_same_head_turns_the_status_green_on(Pipeline::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_an_inline_comment_edited_to_a_lower_severity_still_stands_at_high() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::GitHub, lowered).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_an_inline_comment_whose_marker_is_edited_to_resolved_still_stands() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::GitHub, marked_resolved).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_an_inline_comment_edited_to_a_lower_severity_still_stands_at_high() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::GitLab, lowered).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_an_inline_comment_whose_marker_is_edited_to_resolved_still_stands() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::GitLab, marked_resolved).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_an_inline_comment_edited_to_a_lower_severity_still_stands_at_high() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::Azure, lowered).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_an_inline_comment_whose_marker_is_edited_to_resolved_still_stands() {
    an_edited_inline_comment_changes_nothing_that_stands_on(Pipeline::Azure, marked_resolved).await;
}
