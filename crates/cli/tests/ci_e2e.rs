//! `gauntlet ci` end to end: the real binary in a temporary repository, a fake
//! model, and the publisher's stateful fake of GitHub standing in for the
//! pull request.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::{Value, json};
use support::auth::{BASE, HEAD, REAL, scripts};
use support::{Ci, Fake, Wire, finder, gauntlet_env, git, repo, verdict};

async fn run_ci(ci: &Ci, host: &fakes::Fake, model: &wiremock::MockServer, args: &[&str]) -> (i32, String, String) {
    ci.run(&host.server.uri(), model, args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_ci_it_refuses_and_points_to_review() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let (code, _, stderr) = gauntlet_env(dir.path(), Wire::Anthropic, &model, &["ci"], &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("pull-request pipeline") && stderr.contains("gauntlet review"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posts_once_and_a_rerun_of_the_same_head_changes_nothing() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let (code, stdout, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "advisory: a high finding still exits 0\n{stderr}");
    assert!(stdout.contains(REAL), "the review is printed in the log: {stdout}");
    assert!(stderr.contains("posted to GitHub: 1 created"), "{stderr}");
    assert_eq!(host.overviews().len(), 1);
    let inline = host.inline();
    assert_eq!(inline.len(), 1);
    assert_eq!((inline[0].path.as_deref(), inline[0].line), (Some("src/auth.py"), Some(4)));
    assert!(host.errors().is_empty(), "{:?}", host.errors());

    let (requests, writes) = {
        let s = host.state();
        (s.log.len(), s.writes)
    };
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0);
    assert!(stderr.contains("already reviewed with the same rules and config"), "{stderr}");
    // Only the check run is written again, from what stands now.
    let (log, written) = {
        let s = host.state();
        (s.log[requests..].to_vec(), s.writes - writes)
    };
    let checks = log.iter().filter(|l| !l.starts_with("GET ") && l.contains("/check-runs")).count();
    assert_eq!(written, checks, "the same head is not posted again: {log:?}");

    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--force"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("0 created") && stderr.contains("1 unchanged"), "{stderr}");
    assert_eq!((host.overviews().len(), host.inline().len()), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_that_drifted_from_the_lock_stop_ci_before_any_model_call_or_post() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    // The base branch's lock no longer matches the rules (a built-in changed with
    // a new gauntlet): CI stops until someone reviews the rules and locks again.
    let lock = "version = 1\n\n[[rule]]\nname = \"correctness\"\nsource = \"built-in\"\nsha256 = \"00\"\n";
    support::commit_on_main(ci.dir.path(), &[("gauntlet.lock", lock)]);
    ci.write_event();
    let (model, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("differ from gauntlet.lock") && stderr.contains("built-in (reviewer correctness)"),
        "{stderr}"
    );
    assert!(fake.seen().is_empty(), "no model was called");
    assert_eq!(host.state().writes, 0, "nothing was posted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_push_is_reviewed_incrementally_and_earlier_comments_stay() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("src/util.py", "X = 1\n")], &[("src/auth.py", HEAD)]));
    let (model, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &[]).await.0, 0);
    std::fs::write(ci.dir.path().join("src/util.py"), "X = 2\n").unwrap();
    git(ci.dir.path(), &["commit", "-qam", "second push"]);
    ci.write_event();
    let finds_before = fake.count("find");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let second: Vec<Value> =
        fake.seen()[..].iter().skip(finds_before).filter(|s| s.step == "find").map(|s| s.body.clone()).collect();
    assert!(second.iter().all(|b| !b.to_string().contains("return doc.owner_id")), "only the new commit is reviewed");
    assert!(host.overviews()[0].contains("Incremental review"), "{}", host.overviews()[0]);
    let inline = host.inline();
    assert_eq!(inline.len(), 1);
    assert!(!inline[0].resolved, "a comment on a file not re-reviewed is carried over, not resolved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_reviewer_failed_marks_nothing_resolved() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &[]).await.0, 0);
    assert_eq!(host.inline().len(), 1);
    // The same head again, and the reviewer that raised the finding answers nonsense.
    let broken = support::Script { answers: vec!["not an answer".into()], ..finder("correctness", json!([])) };
    let (model, _) = Fake::start(Wire::Anthropic, vec![broken]).await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--force"]).await;
    assert_eq!(code, 0, "{stderr}");
    let inline = host.inline();
    assert!(!inline[0].resolved, "a finding its reviewer could not raise again is not resolved: {inline:#?}");
    let overview = host.overviews().join("\n");
    let note = "1 reviewer session(s) failed or lacked their context (see the coverage gaps), so this run marks no earlier finding resolved";
    assert!(overview.contains(note), "{overview}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_whose_validation_failed_this_time_is_not_resolved() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &[]).await.0, 0);
    // The same finding again, but the validator's answers are nonsense.
    let mut again = scripts();
    again[1] = support::Script { answers: vec!["no verdict".into()], ..again[1].clone() };
    let (model, _) = Fake::start(Wire::Anthropic, again).await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--force"]).await;
    assert_eq!(code, 0, "{stderr}");
    let overview = host.overviews().join("\n");
    assert!(overview.contains("coverage gap in **validate**"), "{overview}");
    assert!(!overview.contains("marks no earlier finding resolved"), "only its file is held back: {overview}");
    let inline = host.inline();
    assert!(!inline[0].resolved, "a finding the validator could not judge still stands: {inline:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_run_that_leaves_the_flagged_file_out_does_not_resolve_its_finding() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("src/util.py", "X = 1\n")], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &[]).await.0, 0);
    // The next push turns the flagged file into bytes the review cannot read.
    std::fs::write(ci.dir.path().join("src/auth.py"), b"\0\x01binary\0").unwrap();
    std::fs::write(ci.dir.path().join("src/util.py"), "X = 2\n").unwrap();
    git(ci.dir.path(), &["commit", "-qam", "second push"]);
    ci.write_event();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--full"]).await;
    assert_eq!(code, 0, "{stderr}");
    let inline = host.inline();
    assert!(!inline[0].resolved, "the file was not reviewed, so its finding still stands: {inline:#?}");
    let overview = host.overviews().join("\n");
    assert!(!overview.contains("marks no earlier finding resolved"), "held back by its file alone: {overview}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_token_prints_the_review_writes_the_summary_and_says_why() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    host.state().deny_writes = true;
    let (code, stdout, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(REAL));
    assert!(stderr.contains("NOTHING WAS POSTED") && stderr.contains("403") && stderr.contains("fork"), "{stderr}");
    assert!(!stderr.contains("ghs_faketoken123"), "the token is never printed");
    let summary = std::fs::read_to_string(ci.summary.path()).unwrap();
    assert!(summary.contains("Nothing was posted") && summary.contains("ownership check was removed"), "{summary}");
    assert!(host.inline().is_empty() && host.overviews().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_on_high_makes_a_high_finding_fail_the_job() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("--fail-on"), "{stderr}");
    assert_eq!(host.inline().len(), 1, "findings are posted before the job fails");
    let runs = host.state().check_runs.clone();
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0].conclusion.as_deref(), Some("failure"));
    assert!(runs[0].title.contains("1 of 1 finding at or above high"), "{}", runs[0].title);
    assert!(stderr.contains("check run `gauntlet` failure with 1 annotation(s)"), "{stderr}");
    assert!(host.errors().is_empty(), "{:?}", host.errors());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advisory_run_shows_a_neutral_check_run_and_writes_the_code_quality_report() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let report = ci.dir.path().join("reports/gl-code-quality-report.json");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    let path = report.to_str().unwrap();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--codequality", path]).await;
    assert_eq!(code, 0, "advisory: a high finding still exits 0\n{stderr}");
    let runs = host.state().check_runs.clone();
    assert_eq!(runs.len(), 1, "{runs:#?}");
    let run = &runs[0];
    let head = git(ci.dir.path(), &["rev-parse", "HEAD"]);
    assert_eq!((run.name.as_str(), run.head_sha.as_str()), ("gauntlet", head.trim()));
    assert_eq!((run.status.as_str(), run.conclusion.as_deref()), ("completed", Some("neutral")));
    assert_eq!(run.annotations.len(), 1);
    let a = &run.annotations[0];
    assert_eq!((a["path"].as_str(), a["start_line"].as_u64()), (Some("src/auth.py"), Some(4)));
    assert!(a["message"].as_str().unwrap().contains(REAL), "{a}");
    assert!(run.title.contains("advisory"), "{}", run.title);
    let entries: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(entries.as_array().unwrap().len(), 1, "{entries}");
    assert_eq!(entries[0]["severity"], "critical");
    assert_eq!(
        (entries[0]["location"]["path"].as_str(), entries[0]["location"]["lines"]["begin"].as_u64()),
        (Some("src/auth.py"), Some(4))
    );
    assert_eq!(entries[0]["description"], REAL);
    let left: Vec<_> = std::fs::read_dir(report.parent().unwrap()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file is left beside the report");
    assert!(host.errors().is_empty(), "{:?}", host.errors());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_checks_write_the_run_says_so_once_and_carries_on() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    host.state().deny_checks = true;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "the exit code does not depend on the check run\n{stderr}");
    assert_eq!(stderr.matches("checks: write").count(), 1, "{stderr}");
    assert!(stderr.contains("posted to GitHub: 1 created"), "the review and comments still land: {stderr}");
    assert_eq!((host.inline().len(), host.overviews().len()), (1, 1));
    assert!(host.state().check_runs.is_empty());
    assert!(!stderr.contains("ghs_faketoken123"), "the token is never printed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dismissed_high_finding_never_fails_the_job_and_an_unauthorised_dismissal_does_not_count() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    let thread = host.inline()[0].id;
    host.reply_as(thread, fakes::READER, "/gauntlet dismiss not my problem");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 3, "a dismissal by someone without write access does not count\n{stderr}");
    host.reply_as(thread, fakes::PERSON, "/gauntlet false-positive only admins reach this handler");
    let report = ci.dir.path().join("gl-code-quality-report.json");
    let args = ["--fail-on", "high", "--force", "--codequality", report.to_str().unwrap()];
    let (code, _, stderr) = run_ci(&ci, &host, &model, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let runs = host.state().check_runs.clone();
    let last = runs.last().unwrap();
    assert_eq!(last.conclusion.as_deref(), Some("success"), "a dismissed finding does not fail the check run");
    assert!(last.annotations.is_empty(), "nor is it annotated: {:?}", last.annotations);
    assert!(last.summary.contains("1 finding(s) dismissed"), "{}", last.summary);
    let entries: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(entries, json!([]), "nor is it in the Code Quality report");
    assert!(stderr.contains("1 finding(s) at or above `high` were dismissed"), "{stderr}");
    assert!(stderr.contains("1 dismissed earlier"), "{stderr}");
    let overview = &host.overviews()[0];
    assert!(overview.contains("**alice** replied `/gauntlet false-positive`"), "{overview}");
    assert!(overview.contains("mallory replied `/gauntlet dismiss`, not counted"), "{overview}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authors_dismissal_counts_only_with_author_may_dismiss() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    host.reply_as(host.inline()[0].id, fakes::AUTHOR, "/gauntlet dismiss intended");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(host.overviews()[0].contains("author_may_dismiss"), "{}", host.overviews()[0]);
    // The pull request's own gauntlet.toml does not apply to the run that reviews it.
    std::fs::write(ci.dir.path().join("gauntlet.toml"), "[ci]\nauthor_may_dismiss = true\n").unwrap();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("gauntlet.toml as the base branch has it applies"), "{stderr}");
    std::fs::remove_file(ci.dir.path().join("gauntlet.toml")).unwrap();
    // Once the base branch has it, it does.
    support::commit_on_main(ci.dir.path(), &[("gauntlet.toml", "[ci]\nauthor_may_dismiss = true\n")]);
    ci.write_event();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high", "--force"]).await;
    assert_eq!(code, 0, "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_after_the_host_stored_the_review_says_what_is_known_and_the_rerun_reconciles() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    host.state().store_then_fail = Some(500);
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "advisory\n{stderr}");
    assert!(!stderr.contains("NOTHING WAS POSTED"), "the review is on the pull request: {stderr}");
    assert!(
        stderr.contains("HTTP 500")
            && stderr.contains("may or may not have been stored")
            && stderr.contains("next run"),
        "{stderr}"
    );
    assert_eq!(host.inline().len(), 1, "the fake stored the review");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!((host.inline().len(), host.overviews().len()), (1, 1), "no duplicate after the rerun");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_on_the_review_post_is_waited_out_and_the_review_lands_once() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    host.state().rate_limited.push_back((429, vec![("retry-after", "1".into())]));
    let (code, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("NOTHING WAS POSTED") && !stderr.contains("429"), "{stderr}");
    assert!(host.state().rate_limited.is_empty(), "the refusal was served");
    assert_eq!((host.inline().len(), host.overviews().len()), (1, 1), "the review landed, once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_past_max_retry_after_secs_posts_nothing_and_names_the_key() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    support::commit_on_main(ci.dir.path(), &[("gauntlet.toml", "[network]\nmax_retry_after_secs = 2\n")]);
    ci.write_event();
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    host.state().rate_limited.push_back((429, vec![("retry-after", "30".into())]));
    let started = std::time::Instant::now();
    let (_, _, stderr) = run_ci(&ci, &host, &model, &[]).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "no waiting: {stderr}");
    assert!(stderr.contains("NOTHING WAS POSTED") && stderr.contains("HTTP 429"), "{stderr}");
    assert!(stderr.contains("[network] max_retry_after_secs") && stderr.contains("30s"), "{stderr}");
    assert!(host.inline().is_empty() && host.overviews().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shallow_clone_without_the_merge_base_names_fetch_depth() {
    let origin = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    let target = clone.path().join("c");
    git(clone.path(), &["clone", "-q", "--depth", "1", "--branch", "feature", &url, target.to_str().unwrap()]);
    let event = tempfile::NamedTempFile::new().unwrap();
    let base = git(origin.path(), &["rev-parse", "main"]);
    let head = git(origin.path(), &["rev-parse", "feature"]);
    let body = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}}});
    std::fs::write(event.path(), body.to_string()).unwrap();
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let env =
        [("GITHUB_ACTIONS", "true"), ("GITHUB_EVENT_PATH", event.path().to_str().unwrap()), ("GITHUB_TOKEN", "t")];
    let (code, _, stderr) = gauntlet_env(&target, Wire::Anthropic, &model, &["ci"], &env).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("fetch-depth: 0"), "{stderr}");
}

#[test]
fn the_review_command_has_no_path_to_the_publisher() {
    let source = include_str!("../src/commands/review.rs");
    assert!(!source.contains("gauntlet_publish") && !source.contains("commands::ci"), "review.rs must stay print-only");
}

#[test]
fn the_ci_templates_check_out_full_history_and_grant_what_posting_needs() {
    let action = include_str!("../../../action.yml");
    let gitlab = include_str!("../../../ci/gitlab-ci.yml");
    let azure = include_str!("../../../ci/azure-pipelines.yml");
    assert!(action.contains("fetch-depth: 0") && action.contains("pull-requests: write") && action.contains(" ci "));
    assert!(action.contains("checks: write"), "the check run's permission is named in the example");
    assert!(
        gitlab.contains("GIT_DEPTH: \"0\"")
            && gitlab.contains("merge_request_event")
            && gitlab.contains("GAUNTLET_GITLAB_TOKEN")
    );
    assert!(
        gitlab.contains("--codequality gl-code-quality-report.json")
            && gitlab.contains("codequality: gl-code-quality-report.json"),
        "the template writes the Code Quality report and publishes it as the job's artifact"
    );
    assert!(azure.contains("fetchDepth: \"0\"") && azure.contains("SYSTEM_ACCESSTOKEN: $(System.AccessToken)"));
    let help = std::process::Command::new(support::bin()).args(["ci", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in
        ["--fail-on", "--full", "--max-comments", "--force", "--reviewers", "--suggest", "--rounds", "--codequality"]
    {
        assert!(help.contains(flag), "`gauntlet ci` lacks {flag}, which the templates and README use");
    }
}

#[test]
fn the_ci_templates_keep_the_record_of_precision_where_the_next_run_finds_it() {
    let action = include_str!("../../../action.yml");
    let gitlab = include_str!("../../../ci/gitlab-ci.yml");
    let azure = include_str!("../../../ci/azure-pipelines.yml");
    // Each template caches one folder, points `ci` at it, and (GitHub, Azure
    // DevOps) keeps it whole from a run outside pull requests.
    let github_dir = "${{ runner.temp }}/gauntlet-record";
    assert!(action.contains(&format!("path: {github_dir}")) && action.contains("restore-keys: gauntlet-record-"));
    assert!(
        action.contains("actions/cache/save@v4") && action.contains("if: always()"),
        "saved when the job fails too"
    );
    assert!(action.contains(&format!("GAUNTLET_CACHE_DIR: {github_dir}")));
    assert!(action.contains("stats --last 200 --keep-record \"$RUNNER_TEMP/gauntlet-record\""));
    // GitLab caches only inside the checkout: the record travels there and is
    // read and written outside it (see ci_templates.rs).
    assert!(
        gitlab.contains("export GAUNTLET_CACHE_DIR=\"$home/record\"")
            && gitlab.contains("- .gauntlet-cache/record/")
            && gitlab.contains("cp -R \"$home/record\" .gauntlet-cache/record")
    );
    let azure_dir = "$(Pipeline.Workspace)/gauntlet-record";
    assert!(azure.contains("task: Cache@2") && azure.contains(&format!("path: {azure_dir}")));
    assert!(azure.contains(&format!("GAUNTLET_CACHE_DIR: {azure_dir}")));
    assert!(azure.contains(&format!("--keep-record \"{azure_dir}\"")));
    let help = std::process::Command::new(support::bin()).args(["stats", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--keep-record") && help.contains("--last"), "{help}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cut_short_by_timeout_posts_nothing_and_fails() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let model = wiremock::MockServer::start().await;
    let hang = wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(40));
    wiremock::Mock::given(wiremock::matchers::method("POST")).respond_with(hang).mount(&model).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--timeout", "2", "--reviewers", "correctness"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--timeout") && stderr.contains("nothing was posted"), "{stderr}");
    assert_eq!(host.state().writes, 0, "a partial review would resolve threads it never got to");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_of_the_same_head_keeps_failing_on_a_standing_finding_until_it_is_dismissed() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    let finds = fake.count("find");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "\"Re-run failed jobs\" must not turn the job green\n{stderr}");
    assert!(stderr.contains("already reviewed") && stderr.contains("still stand"), "{stderr}");
    assert_eq!(fake.count("find"), finds, "the same head is not reviewed again");

    // An overview whose text is not what the pipeline wrote (here: without the
    // record of the findings it holds) decides nothing: review again.
    for t in host.state().threads.iter_mut().filter(|t| t.path.is_none()) {
        let body = &mut t.notes[0].body;
        let (marker, rest) = body.split_once(" -->").unwrap();
        *body = format!("{} -->{rest}", marker.split(" held=").next().unwrap());
    }
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("decides nothing") && fake.count("find") > finds, "{stderr}");

    host.reply_as(host.inline()[0].id, fakes::PERSON, "/gauntlet dismiss only admins reach this");
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 0, "a dismissed finding no longer blocks the skipped re-run\n{stderr}");
    assert!(stderr.contains("already reviewed"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incremental_run_still_fails_on_an_earlier_finding_it_did_not_review() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("src/util.py", "X = 1\n")], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    std::fs::write(ci.dir.path().join("src/util.py"), "X = 2\n").unwrap();
    git(ci.dir.path(), &["commit", "-qam", "second push"]);
    ci.write_event();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "the ownership check is still missing\n{stderr}");
    assert!(stderr.contains("1 finding(s) at or above `high` from earlier runs still stand"), "{stderr}");
    assert!(host.overviews()[0].contains("Incremental review"), "{}", host.overviews()[0]);
    let last = host.state().check_runs.last().cloned().expect("a check run for the second push");
    assert_eq!(last.conclusion.as_deref(), Some("failure"), "the check run agrees with the exit code: {last:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_gate_skips_still_fails_on_what_stands() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("Cargo.lock", "# v1\n")], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    // A lockfile bump alone is skipped by the gate; the missing check still stands.
    std::fs::write(ci.dir.path().join("Cargo.lock"), "# v2\n").unwrap();
    git(ci.dir.path(), &["commit", "-qam", "Bump the lockfile"]);
    ci.write_event();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert!(stderr.contains("skipped"), "the gate skipped the push: {stderr}");
    assert_eq!(code, 3, "{stderr}");
    // The new head gets a check run too, from what stands: a required check is
    // neither left pending nor green.
    let head = git(ci.dir.path(), &["rev-parse", "HEAD"]);
    let last = host.state().check_runs.last().cloned().expect("a check run");
    assert_eq!((last.head_sha.as_str(), last.conclusion.as_deref()), (head.trim(), Some("failure")), "{last:#?}");
}

/// A finding only the overview shows (over `--max-comments 0`) that a later run
/// no longer finds is kept in the overview's marker for `gauntlet stats`: fixed
/// when the push changed its line, withdrawn when the run just stopped finding it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_finding_a_later_run_no_longer_finds_is_recorded_fixed_or_withdrawn() {
    use fakes::repo::OverviewMarker;
    for fix in [true, false] {
        let ci = Ci::new(repo(&[("src/auth.py", BASE), ("src/util.py", "X = 1\n")], &[("src/auth.py", HEAD)]));
        let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
        let host = fakes::github::start().await;
        assert_eq!(run_ci(&ci, &host, &model, &["--max-comments", "0"]).await.0, 0);
        let held = OverviewMarker::parse(&host.overviews()[0]).unwrap().held.unwrap();
        assert_eq!((held[0].line, held[0].reviewers.clone()), (Some(4), vec!["correctness".to_string()]));
        // The push either restores the ownership check on line 4 or touches another file.
        let fixed = BASE.replace("user.id\n", "user.id and not doc.locked\n");
        let (path, text) = if fix { ("src/auth.py", fixed.as_str()) } else { ("src/util.py", "X = 2\n") };
        std::fs::write(ci.dir.path().join(path), text).unwrap();
        git(ci.dir.path(), &["commit", "-qam", "second push"]);
        ci.write_event();
        let (quiet, _) = Fake::start(Wire::Anthropic, vec![finder("correctness", json!([]))]).await;
        let (code, _, stderr) = run_ci(&ci, &host, &quiet, &["--max-comments", "0", "--full"]).await;
        assert_eq!(code, 0, "{stderr}");
        let marker = OverviewMarker::parse(&host.overviews()[0]).unwrap();
        assert_eq!(marker.held, Some(vec![]), "fix {fix}");
        let gone: Vec<(String, bool)> = marker.gone.iter().map(|g| (g.id.clone(), g.fixed)).collect();
        assert_eq!(gone, vec![(held[0].id.clone(), fix)], "{}", host.overviews()[0]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_minor_finding_is_listed_once_in_the_overview_never_inline_and_never_fails_the_job() {
    // The head renames nothing and breaks the owner check (consequential, medium);
    // the validator judges the second finding true but minor (the finder said high).
    const NIT: &str = "The function name no longer describes a check that always allows.";
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let real = json!({"lens": "failure_scenario", "location": "src/auth.py:4", "claim": REAL, "evidence": "    return True", "severity": "medium"});
    let nit = json!({"lens": "blast_radius", "location": "src/auth.py:1", "claim": NIT, "evidence": "def can_delete(user, doc):", "severity": "high"});
    let holds = |line: u32, code: &str, impact: &str| json!({"verdict": "survives", "evidence": format!("src/auth.py:{line} `{code}` is what the claim says"), "confidence": 75, "impact": impact});
    let scripts = vec![
        finder("correctness", json!([real, nit])),
        verdict("validate", REAL, &[holds(4, "return True", "consequential")]),
        verdict("validate", NIT, &[holds(1, "def can_delete(user, doc):", "minor")]),
    ];
    let (model, _) = Fake::start(Wire::Anthropic, scripts).await;
    let host = fakes::github::start().await;
    let (code, stdout, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high", "--format", "json"]).await;
    assert_eq!(code, 0, "a minor finding never counts toward --fail-on, whatever the finder's severity: {stderr}");
    let inline = host.inline();
    assert_eq!(inline.len(), 1, "only the consequential finding is a comment: {inline:#?}");
    let body = &inline[0].notes[0].body;
    assert!(body.contains(REAL) && !body.contains(NIT), "{body}");
    let overview = host.overviews().join("\n");
    assert_eq!(overview.matches(NIT).count(), 1, "listed once: {overview}");
    assert!(overview.contains("### Minor (verified, not published as comments)"), "{overview}");
    assert!(overview.contains("`src/auth.py:1` · low · `correctness`"), "severity capped at low: {overview}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["minor"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(
        (report["minor"][0]["claim"].as_str(), report["minor"][0]["severity"].as_str()),
        (Some(NIT), Some("low"))
    );
    assert_eq!(report["published"].as_array().unwrap().len(), 1);
    assert_eq!(report["funnel"]["minor"], 1);
}

/// A change with no file a model can be shown (an image) is treated as the gate
/// treats a lockfile bump: no model call, a plain exit when nothing stands, and
/// what stands still fails the job and the check run after such a push.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_of_only_an_image_calls_no_model_and_fails_only_on_what_stands() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("logo.png", "\0PNG one")], &[("logo.png", "\0PNG two")]));
    let (model, fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!((code, fake.seen().len()), (0, 0), "nothing reviewable, nothing standing: {stderr}");
    assert!(stderr.contains("nothing reviewable") && stderr.contains("logo.png"), "{stderr}");
    // Now a real defect, then a push of only the image again.
    std::fs::write(ci.dir.path().join("src/auth.py"), HEAD).unwrap();
    git(ci.dir.path(), &["commit", "-qam", "Simplify the check"]);
    ci.write_event();
    assert_eq!(run_ci(&ci, &host, &model, &["--fail-on", "high"]).await.0, 3);
    let calls = fake.seen().len();
    std::fs::write(ci.dir.path().join("logo.png"), "\0PNG three").unwrap();
    git(ci.dir.path(), &["commit", "-qam", "New logo"]);
    ci.write_event();
    let (code, _, stderr) = run_ci(&ci, &host, &model, &["--fail-on", "high"]).await;
    assert_eq!((code, fake.seen().len()), (3, calls), "the image push calls no model and the finding stands: {stderr}");
    let head = git(ci.dir.path(), &["rev-parse", "HEAD"]);
    let last = host.state().check_runs.last().cloned().expect("a check run");
    assert_eq!((last.head_sha.as_str(), last.conclusion.as_deref()), (head.trim(), Some("failure")), "{last:#?}");
}
