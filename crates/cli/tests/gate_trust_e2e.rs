//! What the gate may skip in `gauntlet ci`, attacked as the pull request's author
//! would: commit subjects and file banners are the author's words and never set
//! code aside; a skip with no trusted record of what stands, or after a review
//! that left a candidate undecided, is not a skip; and a push the gate does skip
//! is never shown as a pass.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::json;
use support::auth::{BASE, HEAD, REAL, finding, scripts};
use support::{Ci, Fake, Wire, finder, git, repo, verdict};

/// The last check run: (head, conclusion, title).
fn last_check(host: &fakes::Fake) -> (String, Option<String>, String) {
    let run = host.state().check_runs.last().cloned().expect("a check run");
    (run.head_sha, run.conclusion, run.title)
}

/// Commit and point the pull request's event at the new head, as a draft when asked.
fn push(ci: &Ci, path: &str, text: &str, subject: &str, draft: bool) {
    std::fs::write(ci.dir.path().join(path), text).unwrap();
    git(ci.dir.path(), &["add", path]);
    git(ci.dir.path(), &["commit", "-qm", subject]);
    ci.write_event();
    if draft {
        let event = std::fs::read_to_string(ci.event.path()).unwrap().replace("\"draft\":false", "\"draft\":true");
        std::fs::write(ci.event.path(), event).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_subject_shaped_like_a_dependency_bump_does_not_skip_the_review() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    git(dir.path(), &["commit", "-q", "--amend", "-m", "Bump requests from 2.31.0 to 2.32.0"]);
    let ci = Ci::new(dir);
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_push_with_a_bump_subject_is_reviewed_not_passed() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("README.md", "hello\n")]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await.0, 0);
    push(&ci, "src/auth.py", HEAD, "Bump requests from 2.31.0 to 2.32.0", false);
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await;
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(last_check(&host).1.as_deref(), Some("failure"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_banner_the_author_writes_does_not_set_code_aside() {
    let head = format!("# @generated\n{HEAD}");
    let scripts = {
        let at5 = json!({"lens": "failure_scenario", "location": "src/auth.py:5", "claim": REAL, "evidence": "    return True", "severity": "high"});
        let survives = json!({"verdict": "survives", "evidence": "src/auth.py:5 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"});
        vec![finder("correctness", json!([at5])), verdict("validate", REAL, &[survives])]
    };
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", head.as_str())]));
    let (model, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let host = fakes::github::start().await;
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await;
    assert!(fake.count("find") > 0, "the file was shown to the finders: {stderr}");
    assert_eq!(code, 3, "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_record_of_the_overview_a_draft_push_is_reviewed_and_still_fails() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await.0, 3);
    // A fresh runner: the record the first run kept is not on this machine.
    std::fs::remove_dir_all(ci.dir.path().join(".git/gauntlet/overviews")).unwrap();
    push(&ci, "Cargo.lock", "# lock\n", "lock", true);
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await;
    assert!(stderr.contains("the gate does not skip"), "{stderr}");
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(last_check(&host).1.as_deref(), Some("failure"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_incomplete_run_a_draft_push_is_not_passed() {
    let off = json!({"verdict": "valid", "evidence": "src/auth.py:4 `return True`", "confidence": 75});
    let scripts = vec![finder("correctness", json!([finding()])), verdict("validate", REAL, &[off])];
    let ci = Ci::new(repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts).await;
    let host = fakes::github::start().await;
    let args = ["--fail-on", "high", "--reviewers", "correctness"];
    assert_eq!(ci.run(&host.server.uri(), &model, &args).await.0, 4);
    push(&ci, "notes.txt", "x\n", "wip", true);
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &args).await;
    assert_eq!(code, 4, "the undecided high finding was never judged: {stderr}");
    assert_ne!(last_check(&host).1.as_deref(), Some("success"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_gate_skips_with_nothing_standing_is_shown_as_not_reviewed_never_as_passed() {
    let ci = Ci::new(repo(&[("src/auth.py", BASE), ("Cargo.lock", "# v1\n")], &[("README.md", "hello\n")]));
    let (model, _) = Fake::start(Wire::Anthropic, scripts()).await;
    let host = fakes::github::start().await;
    assert_eq!(ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await.0, 0);
    push(&ci, "Cargo.lock", "# v2\n", "Refresh the lockfile", false);
    let (code, _, stderr) = ci.run(&host.server.uri(), &model, &["--fail-on", "high"]).await;
    assert!(stderr.contains("skipped"), "{stderr}");
    assert_eq!(code, 0, "nothing stands: {stderr}");
    let head = git(ci.dir.path(), &["rev-parse", "HEAD"]);
    let (at, conclusion, title) = last_check(&host);
    assert_eq!((at.as_str(), conclusion.as_deref()), (head.trim(), Some("neutral")), "{title}");
    assert!(title.contains("not reviewed"), "{title}");
}
