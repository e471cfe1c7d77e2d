//! Reviewers that know the system, end to end: the real binary on a real git
//! repository, with the context each reviewer asks for checked in what reached the
//! model (the in-process fake records every request).

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{Fake, Seen, Wire, finder, gauntlet, gauntlet_env, git, verdict};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, ResponseTemplate};

/// A repository whose `main` is built by `commits`, with `feature` (checked out)
/// changing files to `head`.
fn repo(commits: &[(&str, &[(&str, &str)])], head: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "t"]);
    for (message, files) in commits {
        write(d, files);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", message]);
    }
    git(d, &["checkout", "-q", "-b", "feature"]);
    write(d, head);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

fn write(d: &Path, files: &[(&str, &str)]) {
    for (p, text) in files {
        let p = d.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// The finder request of `reviewer`: (its own turns, the shared blocks).
fn finder_request(seen: &[Seen], reviewer: &str) -> (String, String) {
    let s = seen
        .iter()
        .find(|s| s.step == "find" && s.reviewer.as_deref() == Some(reviewer))
        .unwrap_or_else(|| panic!("{reviewer} did not run"));
    let turns = s.body.get("messages").map(Value::to_string).unwrap_or_default();
    let shared = s.body.get("system").map(Value::to_string).unwrap_or_default();
    (turns, shared)
}

const RUST_DTO: &str = r#"use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    pub id: u64,
    pub display_name: String,
}
"#;

const TS_CLIENT: &str = r#"export interface User {
  id: number;
  displayName: string;
}

export async function loadUser(id: number): Promise<User> {
  const res = await fetch(`/api/users/${id}`);
  return res.json();
}

export function greeting(user: User): string {
  return `Hello, ${user.displayName}`;
}
"#;

const DRIFT: &str = "The client still reads displayName, which the server now sends as fullName.";
const RENAMED: &str = "Renaming display_name changes the JSON field that existing clients read.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_drift_sees_the_renamed_rust_field_and_the_typescript_client_together() {
    let renamed = RUST_DTO.replace("display_name", "full_name");
    let dir = repo(
        &[("api", &[("src/api/users.rs", RUST_DTO), ("web/src/client.ts", TS_CLIENT)])],
        &[("src/api/users.rs", &renamed)],
    );
    let consumer_line = "return `Hello, ${user.displayName}`;";
    let scripts = vec![
        finder(
            "contract-drift",
            json!([{"lens": "blast_radius", "location": "web/src/client.ts:12", "claim": DRIFT,
                    "evidence": consumer_line, "severity": "high"},
                   {"lens": "blast_radius", "location": "src/api/users.rs:7", "claim": RENAMED,
                    "evidence": "pub full_name: String,", "severity": "high"}]),
        ),
        verdict(
            "validate",
            RENAMED,
            &[
                json!({"verdict": "survives", "evidence": "web/src/client.ts:12 `user.displayName` is still read", "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "contract-drift,correctness"];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();

    let seen = fake.seen();
    let (turns, shared) = finder_request(&seen, "contract-drift");
    assert!(shared.contains("src/api/users.rs") && shared.contains("full_name"), "the producer change is shown");
    assert!(turns.contains("consumer web/src/client.ts"), "the consumer is in the reviewer's turn: {turns}");
    assert!(turns.contains("user.displayName"), "{turns}");
    assert!(!shared.contains("consumer web/src/client.ts"), "context stays out of the cacheable shared block");
    let (correctness_turns, _) = finder_request(&seen, "correctness");
    assert!(!correctness_turns.contains("consumer web/src/client.ts"), "only the reviewer that asked gets it");

    let validation = seen.iter().find(|s| s.step == "validate" && s.body.to_string().contains(RENAMED)).unwrap();
    let asked = validation.body["messages"].to_string();
    assert!(
        asked.contains("web/src/client.ts") && asked.contains("user.displayName"),
        "the validator sees the consumer too"
    );

    // Both findings are grounded (the one quoting the consumer rests on the context
    // the reviewer was shown); they name the same renamed field, so they are one
    // defect: validated once and published once, at the changed line, naming the
    // consumer as the other place it shows.
    assert_eq!(report["funnel"]["grounded"], 2, "a finding quoting the consumer is grounded: {report}");
    assert_eq!(report["funnel"]["clustered"], 1, "{report}");
    assert_eq!(fake.count("validate"), 1, "one validator session for the one defect");
    let published = report["published"].as_array().unwrap();
    assert_eq!(published.len(), 1, "{report}");
    assert_eq!(published[0]["location"], "src/api/users.rs:7");
    assert_eq!(published[0]["also_at"], json!(["web/src/client.ts:12"]), "{report}");
}

const PAGER_V1: &str = "def page(items, n, size):\n    start = n * size\n    return items[start:start + size]\n";
const PAGER_FIXED: &str =
    "def page(items, n, size):\n    n = max(n, 1)\n    start = (n - 1) * size\n    return items[start:start + size]\n";
const FIX_SUBJECT: &str = "Fix off-by-one: pages are numbered from 1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_reviewer_is_shown_the_fix_commit_the_change_reverts() {
    let dir = repo(
        &[("Add pagination", &[("src/pager.py", PAGER_V1)]), (FIX_SUBJECT, &[("src/pager.py", PAGER_FIXED)])],
        &[("src/pager.py", PAGER_V1)],
    );
    let fix = git(dir.path(), &["rev-parse", "main"]).trim().to_string();
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "history"];
    let (code, out, err) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["reviewers"], json!(["history"]));
    let body = fake.seen().iter().find(|s| s.step == "find").expect("history ran").body.to_string();
    assert!(body.contains(&fix[..12]) && body.contains(FIX_SUBJECT), "the fix commit reached the prompt");
    assert!(body.contains("[fix]") && body.contains("This change removes lines that"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_an_old_fix_commit_is_masked_before_the_history_reaches_a_model() {
    // Built at run time; AWS's documented example key would be left alone, as
    // gitleaks' rules leave it.
    let key = &format!("{}{}", "AKIA", "Q7WX2ZK4M5PLR3TB");
    let leaky = format!(
        "def page(items, n, size):\n    aws = \"{key}\"\n    start = n * size\n    return items[start:start + size]\n"
    );
    let dir = repo(
        &[("Add pagination", &[("src/pager.py", leaky.as_str())]), (FIX_SUBJECT, &[("src/pager.py", PAGER_FIXED)])],
        &[("src/pager.py", PAGER_V1)],
    );
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "history"];
    let (code, _, err) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let body = fake.seen().iter().find(|s| s.step == "find").expect("history ran").body.to_string();
    assert!(body.contains(FIX_SUBJECT), "the fix is there");
    assert!(!body.contains(key) && body.contains("[masked aws-access-token]"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_reviewer_without_a_fix_to_protect_does_not_run_and_says_why() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_V1)])], &[("src/pager.py", PAGER_FIXED)]);
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "history,correctness"];
    let (code, out, err) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["reviewers"], json!(["correctness"]));
    assert!(report["notes"].to_string().contains("reviewer history did not run: no fix or revert"), "{report}");
    assert_eq!(fake.count("find"), 1);
}

const EARLIER: &str = "Please clamp the page number here; page 0 used to return the last page.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prior_feedback_from_the_export_file_reaches_the_prompt_for_the_changed_file_only() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_FIXED)])], &[("src/pager.py", PAGER_V1)]);
    let export = [
        json!({"pr": 41, "path": "src/pager.py", "line": 2, "author": "maria", "body": EARLIER, "created_at": "2025-01-05T10:00:00Z"}),
        json!({"pr": 40, "path": "docs/guide.md", "body": "Unrelated wording nit."}),
    ];
    let text: String = export.iter().map(|c| format!("{c}\n")).collect();
    write(dir.path(), &[(".gauntlet/feedback.jsonl", &text)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "prior-feedback"];
    let (code, _, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    let (turns, shared) = finder_request(&fake.seen(), "prior-feedback");
    assert!(turns.contains(EARLIER) && turns.contains("PR #41 · maria · 2025-01-05 · src/pager.py:2"), "{turns}");
    assert!(!turns.contains("Unrelated wording nit") && !shared.contains(EARLIER));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_feedback_export_is_an_error_naming_the_line() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_FIXED)])], &[("src/pager.py", PAGER_V1)]);
    write(dir.path(), &[(".gauntlet/feedback.jsonl", "{\"path\": \"src/pager.py\"}\n")]);
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, _, err) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--reviewers", "prior-feedback"]).await;
    assert_eq!(code, 2);
    assert!(err.contains(".gauntlet/feedback.jsonl line 1") && err.contains("body"), "{err}");
}

/// Run a prior-feedback review in a CI whose code host is faked by `server`, and
/// return the reviewer's turns.
async fn review_in_ci(dir: &Path, server: &wiremock::MockServer, fake: &Fake, envs: &[(&str, &str)]) -> String {
    let args = ["review", "--format", "json", "--reviewers", "prior-feedback", "--force"];
    let (code, out, err) = gauntlet_env(dir, Wire::Anthropic, server, &args, envs).await;
    assert_eq!(code, 0, "{err}");
    for secret in ["ghs_citoken", "glpat-citoken", "azure-citoken"] {
        assert!(!out.contains(secret) && !err.contains(secret), "the token never appears");
    }
    finder_request(&fake.seen(), "prior-feedback").0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_github_actions_prior_feedback_comes_from_the_api_with_the_ci_token_and_is_cached() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_FIXED)])], &[("src/pager.py", PAGER_V1)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let comments = json!([
        {"path": "src/pager.py", "body": EARLIER, "line": 2, "user": {"login": "maria"},
         "created_at": "2025-01-05T10:00:00Z", "html_url": "https://github.com/acme/app/pull/41#r1",
         "pull_request_url": "https://api.github.com/repos/acme/app/pulls/41"},
        {"path": "src/pager.py", "body": "<!-- gauntlet:finding abc --> our own comment", "line": 3},
        {"path": "src/pager.py", "body": "A comment on the pull request under review.", "line": 1,
         "pull_request_url": "https://api.github.com/repos/acme/app/pulls/50"}
    ]);
    Mock::given(method("GET"))
        .and(path("/repos/acme/app/pulls/comments"))
        .and(header("authorization", "Bearer ghs_citoken"))
        .respond_with(ResponseTemplate::new(200).set_body_json(comments))
        .expect(1)
        .mount(&server)
        .await;
    let event = dir.path().join(".git/event.json");
    std::fs::write(
        &event,
        json!({"pull_request": {"number": 50, "base": {"sha": "b"}, "head": {"sha": "h"}}}).to_string(),
    )
    .unwrap();
    let uri = server.uri();
    let envs = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
        ("GITHUB_REPOSITORY", "acme/app"),
        ("GITHUB_TOKEN", "ghs_citoken"),
        ("GITHUB_API_URL", uri.as_str()),
    ];
    let turns = review_in_ci(dir.path(), &server, &fake, &envs).await;
    assert!(turns.contains(EARLIER) && turns.contains("PR #41"), "{turns}");
    assert!(!turns.contains("our own comment"), "gauntlet's own comments are not prior feedback");
    assert!(!turns.contains("under review"), "the current pull request's comments are not earlier feedback");
    let cache = dir.path().join(".git/gauntlet/feedback/github-acme_app.jsonl");
    assert!(std::fs::read_to_string(cache).unwrap().contains(EARLIER));
    // A second run within the hour reads the cache (the mock expects one request).
    review_in_ci(dir.path(), &server, &fake, &envs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_gitlab_ci_prior_feedback_comes_from_diff_notes_of_merged_requests() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_FIXED)])], &[("src/pager.py", PAGER_V1)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let token = || header("private-token", "glpat-citoken");
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests"))
        .and(token())
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{"iid": 7}])))
        .mount(&server)
        .await;
    let notes = json!([{"notes": [
        {"body": EARLIER, "author": {"username": "maria"}, "created_at": "2025-01-05T10:00:00Z",
         "position": {"new_path": "src/pager.py", "new_line": 2}},
        {"body": "added 1 commit", "system": true, "position": {"new_path": "src/pager.py"}}
    ]}]);
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7/discussions"))
        .and(token())
        .respond_with(ResponseTemplate::new(200).set_body_json(notes))
        .mount(&server)
        .await;
    let api = format!("{}/api/v4", server.uri());
    let envs = [
        ("GITLAB_CI", "true"),
        ("CI_MERGE_REQUEST_IID", "9"),
        ("CI_MERGE_REQUEST_DIFF_BASE_SHA", "b"),
        ("CI_COMMIT_SHA", "h"),
        ("GAUNTLET_GITLAB_TOKEN", "glpat-citoken"),
        ("CI_API_V4_URL", api.as_str()),
        ("CI_PROJECT_ID", "42"),
    ];
    let turns = review_in_ci(dir.path(), &server, &fake, &envs).await;
    assert!(turns.contains(EARLIER) && turns.contains("PR #7 · maria"), "{turns}");
    assert!(!turns.contains("added 1 commit"), "system notes are not review comments");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_azure_pipelines_prior_feedback_comes_from_threads_of_completed_pull_requests() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_FIXED)])], &[("src/pager.py", PAGER_V1)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let token = || header("authorization", "Bearer azure-citoken");
    Mock::given(method("GET"))
        .and(path("/org/Shop/_apis/git/repositories/repo-1/pullrequests"))
        .and(token())
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{"pullRequestId": 5}]})))
        .mount(&server)
        .await;
    let threads = json!({"value": [
        {"threadContext": {"filePath": "/src/pager.py", "rightFileStart": {"line": 2}},
         "comments": [{"content": EARLIER, "author": {"displayName": "Maria"}, "commentType": "text"},
                      {"content": "Policy status updated", "commentType": "system"}]}
    ]});
    Mock::given(method("GET"))
        .and(path("/org/Shop/_apis/git/repositories/repo-1/pullRequests/5/threads"))
        .and(token())
        .respond_with(ResponseTemplate::new(200).set_body_json(threads))
        .mount(&server)
        .await;
    let collection = format!("{}/org/", server.uri());
    let envs = [
        ("TF_BUILD", "True"),
        ("SYSTEM_PULLREQUEST_PULLREQUESTID", "6"),
        ("SYSTEM_PULLREQUEST_SOURCECOMMITID", "h"),
        ("SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/main"),
        ("SYSTEM_ACCESSTOKEN", "azure-citoken"),
        ("SYSTEM_COLLECTIONURI", collection.as_str()),
        ("SYSTEM_TEAMPROJECT", "Shop"),
        ("BUILD_REPOSITORY_ID", "repo-1"),
    ];
    let turns = review_in_ci(dir.path(), &server, &fake, &envs).await;
    assert!(turns.contains(EARLIER) && turns.contains("PR #5 · Maria · src/pager.py:2"), "{turns}");
    assert!(!turns.contains("Policy status"), "system comments are not review comments");
}
