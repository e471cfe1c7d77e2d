//! `gauntlet review --pr URL`: the pull request's commits come from the host's
//! API and the remote; the review only prints.

mod support;

use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet_env, git, verdict};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
const REAL: &str = "Any user can delete any document because the ownership check was removed.";

/// An origin whose pull-request head exists only under `refs/pull/1/head`, and a
/// clone of it that has never seen that commit.
fn origin_and_clone() -> (tempfile::TempDir, tempfile::TempDir, String, String) {
    let origin = support::repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let o = origin.path();
    let head = git(o, &["rev-parse", "feature"]).trim().to_string();
    let base = git(o, &["rev-parse", "main"]).trim().to_string();
    git(o, &["update-ref", "refs/pull/1/head", &head]);
    git(o, &["checkout", "-q", "main"]);
    git(o, &["branch", "-q", "-D", "feature"]);
    let clone = tempfile::tempdir().unwrap();
    git(clone.path(), &["clone", "-q", &format!("file://{}", o.display()), "."]);
    (origin, clone, base, head)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_request_url_is_fetched_and_reviewed_without_posting() {
    let (_origin, clone, base, head) = origin_and_clone();
    let api = MockServer::start().await;
    let pr = json!({"number": 1, "draft": false, "title": "Simplify delete", "user": {"login": "alice"},
                    "body": "Owners keep the right to delete their documents.",
                    "base": {"sha": base}, "head": {"sha": head}});
    Mock::given(method("GET"))
        .and(path("/api/v3/repos/o/r/pulls/1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(pr))
        .expect(1)
        .mount(&api)
        .await;
    let finding = json!({"lens": "failure_scenario", "location": "src/auth.py:4", "claim": REAL, "evidence": "    return True", "severity": "high"});
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"});
    let (model, fake) = Fake::start(
        Wire::Anthropic,
        vec![finder("correctness", json!([finding])), verdict("validate", REAL, &[survives])],
    )
    .await;
    let url = format!("{}/o/r/pull/1", api.uri());
    let (code, stdout, stderr) =
        gauntlet_env(clone.path(), Wire::Anthropic, &model, &["review", "--pr", &url, "--format", "json"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((report["base"].as_str(), report["head"].as_str()), (Some(base.as_str()), Some(head.as_str())));
    assert_eq!(report["published"][0]["claim"], REAL);
    assert!(stderr.contains("print-only"), "{stderr}");
    let writes = api.received_requests().await.unwrap().iter().filter(|r| r.method.as_str() != "GET").count();
    assert_eq!(writes, 0, "--pr never writes to the host");
    // The host's title and description are the stated intent: every finder, no validator.
    let seen = fake.seen();
    assert!(seen.iter().any(|s| s.step == "validate"));
    for s in &seen {
        let text = s.body.to_string();
        let told = text.contains("Simplify delete") && text.contains("Owners keep the right to delete");
        assert_eq!(told, s.step == "find", "{} {:?}", s.step, s.reviewer);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_that_is_not_a_pull_request_is_an_error_showing_the_forms() {
    let (_origin, clone, _, _) = origin_and_clone();
    let (model, _) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, _, stderr) = gauntlet_env(
        clone.path(),
        Wire::Anthropic,
        &model,
        &["review", "--pr", "https://github.com/o/r/issues/3"],
        &[],
    )
    .await;
    assert_eq!(code, 2);
    assert!(stderr.contains("not a pull-request URL") && stderr.contains("merge_requests"), "{stderr}");
}
