//! `gauntlet ci` in a run that has no model key. A pull request from a fork gets
//! none of the repository's secrets, by design of every CI system: that run ends
//! neutral, says it reviewed nothing, and exits 0. The repository's own branch
//! without a key is a misconfiguration: exit 2, and what to set where. Which of
//! the two a run is comes from what the CI system records about the pull
//! request, never from anything the head's files say.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::json;
use support::{Ci, Fake, Pipeline, Wire, ci_vars, git, repo};

const BASE: &str = "def can_delete(user, doc):\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    return True\n";
/// The project chose its model, so the key is what the run lacks.
const CONFIG: &str = "[models]\nstandard = \"anthropic:claude-sonnet-4-5\"\n";

/// GitHub's `pull_request` event for the repository in `dir`, its head in
/// `head_repo` (`o/r` is the base repository).
fn event(ci: &Ci, head_repo: serde_json::Value) {
    let d = ci.dir.path();
    let (base, head) = (git(d, &["rev-parse", "main"]), git(d, &["rev-parse", "HEAD"]));
    let e = json!({"pull_request": {"number": 1, "draft": false, "state": "open", "user": {"login": "mallory"},
        "base": {"sha": base.trim(), "repo": {"id": 1, "full_name": "o/r", "fork": false}},
        "head": {"sha": head.trim(), "repo": head_repo}}});
    std::fs::write(ci.event.path(), e.to_string()).unwrap();
}

fn fork() -> serde_json::Value {
    json!({"id": 2, "full_name": "mallory/r", "fork": true})
}

/// `gauntlet ci ARGS` in `ci`'s GitHub run, with no model key in the environment.
async fn run_without_key(
    ci: &Ci,
    host: &fakes::Fake,
    model: &wiremock::MockServer,
    args: &[&str],
) -> (i32, String, String) {
    let uri = host.server.uri();
    let mut all = vec!["ci"];
    all.extend_from_slice(args);
    let mut cmd = support::command(ci.dir.path(), Wire::Anthropic, model, &all, &ci.env(&uri));
    cmd.env_remove("ANTHROPIC_API_KEY");
    let out = cmd.output().await.unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_pull_request_without_a_key_ends_neutral_and_says_it_was_not_reviewed() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]));
    event(&ci, fork());
    let (model, fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let host = fakes::github::start().await;
    // A fork's token is read-only: the check run is refused.
    host.state().deny_checks = true;
    let (code, stdout, stderr) = run_without_key(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "a fork's run is not red for lack of a secret it can never have\n{stderr}");
    assert!(stderr.contains("not reviewed") && stderr.contains("pull requests from forks"), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "it names the key: {stderr}");
    assert!(stdout.contains("::notice title=gauntlet::not reviewed"), "an annotation on the run's page: {stdout}");
    let summary = std::fs::read_to_string(ci.summary.path()).unwrap();
    assert!(summary.contains("not reviewed") && summary.contains("Nothing was reviewed"), "{summary}");
    assert_eq!(stderr.matches("checks: write").count(), 1, "one note on the refused check run: {stderr}");
    assert!(fake.seen().is_empty(), "no model was called");
    assert_eq!(host.state().writes, 0, "nothing was posted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_run_whose_token_may_write_shows_not_reviewed_and_never_passes_a_blocking_check() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]));
    // The head repository was deleted since the pull request was opened.
    event(&ci, serde_json::Value::Null);
    let (model, _) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_without_key(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let runs = host.state().check_runs.clone();
    assert_eq!(runs.len(), 1, "{stderr}");
    assert_eq!(runs[0].conclusion.as_deref(), Some("neutral"), "advisory: neutral");
    assert!(runs[0].title.contains("not reviewed") || runs[0].summary.contains("not reviewed"), "{:?}", runs[0]);

    let (code, _, stderr) = run_without_key(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("gate on the `gauntlet` status"), "says what to require instead: {stderr}");
    let last = host.state().check_runs.last().cloned().unwrap();
    assert_eq!(last.conclusion.as_deref(), Some("failure"), "a review that never ran cannot pass a blocking check");
    assert!(last.title.contains("not reviewed") || last.summary.contains("not reviewed"), "{last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_repository_without_a_key_fails_with_what_to_set_even_from_a_fork_of_a_fork() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]));
    // A branch of `o/r`, which is itself a fork: `fork: true`, the same repository.
    let d = ci.dir.path();
    let (base, head) = (git(d, &["rev-parse", "main"]), git(d, &["rev-parse", "HEAD"]));
    let same = json!({"id": 1, "full_name": "o/r", "fork": true});
    let e = json!({"pull_request": {"number": 1, "draft": false, "state": "open", "user": {"login": "alice"},
        "base": {"sha": base.trim(), "repo": same}, "head": {"sha": head.trim(), "repo": same}}});
    std::fs::write(ci.event.path(), e.to_string()).unwrap();
    let (model, _) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_without_key(&ci, &host, &model, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("ANTHROPIC_API_KEY is not set") && stderr.contains("secrets.ANTHROPIC_API_KEY"),
        "{stderr}"
    );
    assert!(!stderr.contains("not reviewed"), "{stderr}");
    assert_eq!(host.state().writes, 0);
}

/// `gauntlet ci` in a GitLab merge-request pipeline with neither model key nor
/// GitLab token, from `source` project into project 7.
async fn gitlab_without_secrets(source: &str) -> (i32, String) {
    let dir = repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]);
    let (model, fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let nowhere = std::path::Path::new("/nonexistent");
    let mut vars = ci_vars(Pipeline::GitLab, dir.path(), "http://127.0.0.1:9", nowhere, nowhere);
    vars.retain(|(k, _)| *k != "GAUNTLET_GITLAB_TOKEN");
    vars.push(("CI_MERGE_REQUEST_PROJECT_ID", "7".into()));
    vars.push(("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", source.into()));
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut cmd = support::command(dir.path(), Wire::Anthropic, &model, &["ci"], &vars);
    cmd.env_remove("ANTHROPIC_API_KEY");
    let out = cmd.output().await.unwrap();
    assert!(fake.seen().is_empty(), "no model was called");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stderr).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_tells_a_fork_merge_request_from_a_protected_variable_that_did_not_reach_a_branch() {
    let (code, stderr) = gitlab_without_secrets("12").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("not reviewed") && stderr.contains("GitLab CI withholds"), "{stderr}");

    let (code, stderr) = gitlab_without_secrets("7").await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY is not set") && stderr.contains("protected"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fork_review_workflow_reviews_the_fetched_head_from_a_checkout_of_the_base() {
    const REAL: &str = "Any user can delete any document because the ownership check was removed.";
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]));
    event(&ci, fork());
    let d = ci.dir.path();
    // As ci/github-fork-review.yml leaves it: the base checked out, the head a ref to read.
    let head = git(d, &["rev-parse", "HEAD"]);
    git(d, &["update-ref", "refs/gauntlet/head", head.trim()]);
    git(d, &["checkout", "-q", "main"]);
    git(d, &["branch", "-qD", "feature"]);
    let relayed = tempfile::NamedTempFile::new().unwrap();
    std::fs::copy(ci.event.path(), relayed.path()).unwrap();
    std::fs::write(ci.event.path(), json!({"workflow_run": {"head_sha": head.trim()}}).to_string()).unwrap();
    let finding = json!({"lens": "failure_scenario", "location": "src/auth.py:2", "claim": REAL, "evidence": "    return True", "severity": "high"});
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:2 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"});
    let scripts =
        vec![support::finder("correctness", json!([finding])), support::verdict("validate", REAL, &[survives])];
    let (model, _) = Fake::start(Wire::Anthropic, scripts).await;
    let host = fakes::github::start().await;
    let uri = host.server.uri();
    let mut vars = ci.env(&uri);
    vars.retain(|(k, _)| *k != "GITHUB_EVENT_NAME");
    vars.push(("GITHUB_EVENT_NAME", "workflow_run"));
    vars.push(("GAUNTLET_EVENT_PATH", relayed.path().to_str().unwrap()));
    let (code, stdout, stderr) = support::gauntlet_env(d, Wire::Anthropic, &model, &["ci"], &vars).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(REAL), "the head was reviewed: {stdout}");
    assert_eq!(host.inline().len(), 1, "{stderr}");
    assert_eq!(host.state().check_runs.len(), 1);
    assert_eq!(std::fs::read_to_string(d.join("src/auth.py")).unwrap(), BASE, "the working tree stays the base");

    // The same workflow without its key is misconfigured: it holds the secrets.
    let mut cmd = support::command(d, Wire::Anthropic, &model, &["ci", "--force"], &vars);
    cmd.env_remove("ANTHROPIC_API_KEY");
    let out = cmd.output().await.unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY is not set"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_azure_build_of_a_fork_without_a_key_posts_a_not_reviewed_status_and_succeeds() {
    let dir = repo(&[("src/auth.py", BASE), ("gauntlet.toml", CONFIG)], &[("src/auth.py", HEAD)]);
    git(dir.path(), &["update-ref", "refs/remotes/origin/main", "main"]);
    let head = git(dir.path(), &["rev-parse", "HEAD"]).trim().to_string();
    let host = fakes::azure::start(&head).await;
    let (model, fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let nowhere = std::path::Path::new("/nonexistent");
    let mut vars = ci_vars(Pipeline::Azure, dir.path(), &host.server.uri(), nowhere, nowhere);
    vars.push(("SYSTEM_PULLREQUEST_ISFORK", "True".into()));
    let run = |extra: &'static [&'static str]| {
        let mut args = vec!["ci"];
        args.extend_from_slice(extra);
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut cmd = support::command(dir.path(), Wire::Anthropic, &model, &args, &vars);
        cmd.env_remove("ANTHROPIC_API_KEY");
        cmd
    };
    let out = run(&[]).output().await.unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Azure Pipelines withholds") && stderr.contains("not reviewed"), "{stderr}");
    let out = run(&["--fail-on", "high"]).output().await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let states: Vec<String> = host.state().statuses.iter().map(|s| s["state"].as_str().unwrap().to_string()).collect();
    assert_eq!(states, ["notApplicable", "error"], "never `succeeded` for a review that did not run");
    let description = host.state().statuses[1]["description"].as_str().unwrap_or_default().to_string();
    assert!(description.contains("not reviewed"), "{description}");
    assert!(fake.seen().is_empty(), "no model was called");
}
