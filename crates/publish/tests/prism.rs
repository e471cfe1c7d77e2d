//! Request shapes checked against the hosts' official API descriptions:
//! Prism serves GitHub's (from `@octokit/openapi`) and Azure DevOps' (Git 7.1)
//! descriptions on 127.0.0.1 and answers 422 to any request they do not allow.
//!
//! `scripts/test` starts Prism and exports `GAUNTLET_PRISM_GITHUB_URL` and
//! `GAUNTLET_PRISM_AZURE_URL`, then runs these ignored tests. Run by hand
//! without those variables, they fail saying so rather than pass unchecked.

mod common;

use gauntlet_publish::{Anchor, CodeHost, Handle, NewComment, Person, Status, Verdict, azure, github};
use gauntlet_review::contract::Severity;

const HEAD: &str = common::HEAD;

fn prism(var: &str) -> String {
    std::env::var(var)
        .unwrap_or_else(|_| panic!("{var} is not set: run ./scripts/test, which starts Prism and sets it"))
}

fn comments() -> Vec<NewComment> {
    let one = Anchor { path: "src/a.rs".into(), old_path: "src/a.rs".into(), start: 4, line: 4, old_line: None };
    let range = Anchor { path: "src/b.rs".into(), old_path: "src/b.rs".into(), start: 10, line: 12, old_line: Some(9) };
    vec![
        NewComment { anchor: one, body: "<!-- gauntlet:finding v1 id=abc -->\n\nfirst".into() },
        NewComment { anchor: range, body: "<!-- gauntlet:finding v1 id=def -->\n\nsecond".into() },
    ]
}

/// Prism must reject a bad request, or the checks below prove nothing.
async fn assert_prism_rejects(url: &str, body: serde_json::Value, auth: &str) {
    let response = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json")
        .header("Authorization", auth)
        .json(&body)
        .send()
        .await
        .expect("Prism answers");
    assert_eq!(response.status().as_u16(), 422, "Prism accepted an invalid request to {url}");
}

#[tokio::test]
#[ignore = "needs Prism: run ./scripts/test"]
async fn prism_github_requests_match_the_official_description() {
    let base = prism("GAUNTLET_PRISM_GITHUB_URL");
    let bad = serde_json::json!({"commit_id": HEAD, "event": "COMMENTED", "comments": [{"path": "a", "line": "4"}]});
    assert_prism_rejects(&format!("{base}/repos/o/r/pulls/1/reviews"), bad, "Bearer t").await;
    let host = github_at(base);
    let handle = Handle { thread: "PRRT_kwDO".into(), comment: "17".into() };
    host.create(HEAD, &comments()).await.expect("one review with inline comments");
    host.upsert_overview(None, "<!-- gauntlet:overview v1 head=x -->\n\nbody").await.expect("overview created");
    host.upsert_overview(Some(&handle), "updated").await.expect("overview edited");
    host.update(&handle, "edited", false).await.expect("review comment edited");
    let person = Person { id: "octocat".into(), name: "octocat".into() };
    host.may_write(&person).await.expect("a collaborator's permission read");
    // The edit goes through REST and must pass; the resolution itself is a GraphQL
    // mutation, which the REST description (and so Prism) does not serve.
    match host.resolve(&handle, "resolved").await {
        Ok(()) => {}
        Err(e) => assert!(e.to_string().contains("resolve a review thread"), "the REST edit failed: {e}"),
    }
}

#[tokio::test]
#[ignore = "needs Prism: run ./scripts/test"]
async fn prism_azure_requests_match_the_official_description() {
    let base = prism("GAUNTLET_PRISM_AZURE_URL");
    let threads = format!("{base}/org/proj/_apis/git/repositories/repo/pullRequests/5/threads?api-version=7.1");
    let bad = serde_json::json!({"comments": [{"content": "x", "commentType": "markdown"}], "status": "open"});
    assert_prism_rejects(&threads, bad, "Bearer t").await;
    let host = azure::Azure::new(azure::Config {
        collection_uri: format!("{base}/org/"),
        project: "proj".into(),
        repository: "repo".into(),
        pull_request: 5,
        token: "azure-prism".into(),
    })
    .unwrap();
    let handle = Handle { thread: "12".into(), comment: "1".into() };
    host.create(HEAD, &comments()).await.expect("inline threads created");
    host.upsert_overview(None, "<!-- gauntlet:overview v1 head=x -->\n\nbody").await.expect("overview thread created");
    host.upsert_overview(Some(&handle), "updated").await.expect("overview comment edited");
    host.update(&handle, "reopened", true).await.expect("thread reopened and edited");
    host.resolve(&handle, "resolved").await.expect("thread edited and marked fixed");
}

/// 51 findings, so the check run takes two annotation requests.
fn status(published: &[gauntlet_review::review::Published]) -> Status<'_> {
    Status {
        verdict: Verdict::Failed,
        fail_on: Some(Severity::High),
        findings: published.iter().collect(),
        dismissed: 1,
        held_back: 0,
        standing: 0,
        undecided: vec![],
        incomplete: 0,
        unfinished: vec![],
        notes: vec!["Incremental review.".into()],
        details_url: Some("https://github.com/o/r/actions/runs/1".into()),
    }
}

fn findings() -> Vec<gauntlet_review::review::Published> {
    (0..51)
        .map(|i| {
            common::finding("src/a.rs", i + 1, &format!("let x{i} = 1;"), "The value is never checked.", Severity::High)
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs Prism: run ./scripts/test"]
async fn prism_github_check_run_requests_match_the_official_description() {
    let base = prism("GAUNTLET_PRISM_GITHUB_URL");
    let bad = serde_json::json!({"name": "gauntlet", "head_sha": HEAD, "status": "done"});
    assert_prism_rejects(&format!("{base}/repos/o/r/check-runs"), bad, "Bearer t").await;
    let host = github_at(base);
    let published = findings();
    // Prism answers the list with an example check run that has annotations, so this
    // creates one, adds the first 50 annotations, and completes it with the 51st.
    let line = host.report_status(HEAD, &status(&published)).await.expect("check run created, annotated, completed");
    assert!(line.is_some_and(|l| l.contains("51 annotation(s) in 2 request(s)")));
}

#[tokio::test]
#[ignore = "needs Prism: run ./scripts/test"]
async fn prism_azure_status_request_matches_the_official_description() {
    let base = prism("GAUNTLET_PRISM_AZURE_URL");
    let statuses = format!("{base}/org/proj/_apis/git/repositories/repo/pullRequests/5/statuses?api-version=7.1");
    let bad = serde_json::json!({"state": "advisory", "context": {"name": "gauntlet"}});
    assert_prism_rejects(&statuses, bad, "Bearer t").await;
    let host = azure::Azure::new(azure::Config {
        collection_uri: format!("{base}/org/"),
        project: "proj".into(),
        repository: "repo".into(),
        pull_request: 5,
        token: "azure-prism".into(),
    })
    .unwrap();
    let published = findings();
    host.report_status(HEAD, &status(&published)).await.expect("pull request status posted");
}

/// The GitHub client for pull request 1 of `o/r` at Prism's `base`.
fn github_at(base: String) -> github::GitHub {
    github::GitHub::new(github::Config {
        api_url: base,
        graphql_url: None,
        repository: "o/r".into(),
        number: 1,
        token: "ghs_prism".into(),
        login: "github-actions[bot]".into(),
    })
    .unwrap()
}
