//! The run's verdict on each host, against the stateful fakes: a GitHub check
//! run with every finding as an annotation, 50 to a request; an Azure DevOps
//! pull request status; nothing on GitLab, whose Code Quality report is a job
//! artifact instead.

mod common;
mod fakes;

use common::*;
use gauntlet_publish::github::{EXTERNAL_ID, annotation};
use gauntlet_publish::{Status, Verdict};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::{Published, Undecided};

fn findings(n: usize) -> Vec<Published> {
    (0..n)
        .map(|i| {
            let severity = [Severity::High, Severity::Medium, Severity::Low][i % 3];
            let claim = format!("Defect number {i}: the value read on this line is never checked.");
            finding(&format!("src/f{}.rs", i % 7), (i + 1) as u32, &format!("let v{i} = read();"), &claim, severity)
        })
        .collect()
}

fn status(published: &[Published], verdict: Verdict) -> Status<'_> {
    Status {
        verdict,
        fail_on: (verdict != Verdict::Advisory).then_some(Severity::High),
        findings: published.iter().collect(),
        dismissed: 0,
        held_back: 0,
        standing: 0,
        undecided: vec![],
        incomplete: 0,
        unfinished: vec![],
        notes: vec![],
        details_url: Some("https://github.example/o/r/actions/runs/7".into()),
    }
}

#[tokio::test]
async fn github_annotates_every_finding_fifty_to_a_request_and_completes_the_check_run() {
    let fake = fakes::github::start().await;
    let published = findings(120);
    let line = fake.host().report_status(HEAD, &status(&published, Verdict::Failed)).await.unwrap().unwrap();
    assert!(line.contains("failure") && line.contains("120 annotation(s)"), "{line}");
    let runs = fake.state().check_runs.clone();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!((run.name.as_str(), run.head_sha.as_str(), run.external_id.as_str()), ("gauntlet", HEAD, EXTERNAL_ID));
    assert_eq!((run.status.as_str(), run.conclusion.as_deref()), ("completed", Some("failure")));
    assert_eq!(run.batches, vec![50, 50, 20], "the Checks API takes 50 annotations a request");
    assert_eq!(run.annotations.len(), 120);
    assert_eq!(run.annotations[0]["path"], "src/f0.rs");
    assert_eq!(run.annotations[0]["annotation_level"], "failure");
    assert_eq!(run.annotations[1]["annotation_level"], "warning");
    assert_eq!(run.annotations[2]["annotation_level"], "notice");
    assert!(run.title.contains("failed"), "{}", run.title);
    assert_eq!(run.details_url.as_deref(), Some("https://github.example/o/r/actions/runs/7"));
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

#[tokio::test]
async fn github_conclusions_follow_the_verdict() {
    for (verdict, conclusion) in [
        (Verdict::Advisory, "neutral"),
        (Verdict::Passed, "success"),
        (Verdict::Failed, "failure"),
        (Verdict::Incomplete, "failure"),
    ] {
        let fake = fakes::github::start().await;
        let published = findings(2);
        fake.host().report_status(HEAD, &status(&published, verdict)).await.unwrap();
        assert_eq!(fake.state().check_runs[0].conclusion.as_deref(), Some(conclusion));
        assert!(fake.errors().is_empty(), "{:?}", fake.errors());
    }
}

#[tokio::test]
async fn a_rerun_completes_a_check_run_without_annotations_and_adds_one_where_annotations_are() {
    let fake = fakes::github::start().await;
    let none: Vec<Published> = Vec::new();
    let host = fake.host();
    host.report_status(HEAD, &status(&none, Verdict::Advisory)).await.unwrap();
    host.report_status(HEAD, &status(&none, Verdict::Passed)).await.unwrap();
    assert_eq!(fake.state().check_runs.len(), 1, "an annotation-free check run is taken up again");
    assert_eq!(fake.state().check_runs[0].conclusion.as_deref(), Some("success"));
    let published = findings(3);
    host.report_status(HEAD, &status(&published, Verdict::Advisory)).await.unwrap();
    host.report_status(HEAD, &status(&published, Verdict::Advisory)).await.unwrap();
    let runs = fake.state().check_runs.clone();
    assert_eq!(runs.len(), 2, "annotations can only be added, so a run that has some is not reused: {runs:#?}");
    assert!(runs.iter().all(|r| r.annotations.len() <= 3), "no check run holds an annotation twice");
}

#[tokio::test]
async fn a_workflow_job_named_gauntlet_is_never_taken_for_the_check_run() {
    let fake = fakes::github::start().await;
    let job = fakes::CheckRun {
        id: 999,
        name: "gauntlet".into(),
        head_sha: HEAD.into(),
        external_id: "job-uuid".into(),
        status: "in_progress".into(),
        ..Default::default()
    };
    fake.state().check_runs.push(job);
    let none: Vec<Published> = Vec::new();
    fake.host().report_status(HEAD, &status(&none, Verdict::Advisory)).await.unwrap();
    let runs = fake.state().check_runs.clone();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].status.as_str(), runs[0].conclusion.as_deref()), ("in_progress", None), "job untouched");
}

#[tokio::test]
async fn without_checks_write_the_check_run_is_refused_as_a_denial() {
    let fake = fakes::github::start().await;
    fake.state().deny_checks = true;
    let published = findings(1);
    let err = fake.host().report_status(HEAD, &status(&published, Verdict::Advisory)).await.unwrap_err();
    assert!(err.is_denied(), "{err}");
    assert!(fake.state().check_runs.is_empty());
}

#[test]
fn the_headline_agrees_with_the_verdict_when_earlier_or_held_back_findings_decide_it() {
    // Failed by a finding of an earlier run alone: this run found nothing.
    let none: Vec<Published> = Vec::new();
    let earlier = Status { standing: 1, ..status(&none, Verdict::Failed) };
    assert_eq!(
        earlier.headline(),
        "failed: 0 of 0 findings at or above high, and 1 of an earlier run that still stands (--fail-on)"
    );
    // Findings of [High, Medium, Low, High]: one high raised only by a reviewer below the bar.
    let published = findings(4);
    let held = Status { held_back: 1, ..status(&published, Verdict::Failed) };
    assert_eq!(held.blocking(), 1);
    assert_eq!(held.headline(), "failed: 1 of 4 findings at or above high (--fail-on)");
    let passed = Status { held_back: 2, ..status(&published, Verdict::Passed) };
    assert_eq!(passed.blocking(), 0);
    assert_eq!(
        passed.headline(),
        "passed: 4 findings; 2 at or above high raised only by reviewers below the bar (--fail-on)"
    );
    let low = findings(3).into_iter().skip(1).collect::<Vec<_>>();
    assert_eq!(status(&low, Verdict::Passed).headline(), "passed: 2 findings, none at or above high (--fail-on)");
}

#[test]
fn annotations_are_plain_capped_text_within_githubs_limits() {
    let mut p = findings(1).remove(0);
    p.claim = format!("Bad \x1b[2J <b>x</b> {}", "y".repeat(10_000));
    p.reviewer = "r".repeat(400);
    let a = annotation(&p);
    let message = a["message"].as_str().unwrap();
    assert!(!message.contains('\x1b') && message.contains("\\u{1b}[2J <b>x</b>"), "{message}");
    assert_eq!(message.chars().count(), gauntlet_publish::github::MESSAGE_LIMIT);
    assert_eq!(a["title"].as_str().unwrap().chars().count(), gauntlet_publish::github::TITLE_LIMIT);
    assert_eq!((a["start_line"].as_u64(), a["end_line"].as_u64()), (Some(1), Some(1)));
}

#[tokio::test]
async fn azure_posts_a_pull_request_status_with_the_verdicts_state() {
    for (verdict, state) in [
        (Verdict::Advisory, "notApplicable"),
        (Verdict::Passed, "succeeded"),
        (Verdict::Failed, "failed"),
        (Verdict::Incomplete, "error"),
    ] {
        let fake = fakes::azure::start(HEAD).await;
        let published = findings(4);
        let line = fake.host().report_status(HEAD, &status(&published, verdict)).await.unwrap().unwrap();
        assert!(line.contains(state), "{line}");
        let statuses = fake.state().statuses.clone();
        assert_eq!(statuses.len(), 1);
        assert_eq!(statuses[0]["state"], state);
        assert_eq!(statuses[0]["context"], serde_json::json!({"name": "gauntlet", "genre": "gauntlet"}));
        assert!(statuses[0]["description"].as_str().unwrap().contains("4 findings"), "{}", statuses[0]);
        assert_eq!(statuses[0]["targetUrl"], "https://github.example/o/r/actions/runs/7");
        assert!(fake.errors().is_empty(), "{:?}", fake.errors());
    }
}

#[tokio::test]
async fn gitlab_shows_no_status_and_sends_nothing() {
    let fake = fakes::gitlab::start(HEAD).await;
    let published = findings(2);
    let answer = fake.host().report_status(HEAD, &status(&published, Verdict::Failed)).await.unwrap();
    assert_eq!(answer, None);
    assert_eq!(fake.state().requests, 0);
}

/// One high candidate whose validation failed, at a path that is Markdown.
fn undecided() -> Vec<Undecided<'static>> {
    vec![Undecided {
        severity: Severity::High,
        location: "src/[x](https://evil.example).py:2",
        claim: "The refund is paid twice.",
        reviewer: "correctness",
        raised_by: &[],
    }]
}

#[tokio::test]
async fn a_run_that_could_not_validate_a_blocking_candidate_says_so_and_never_passes() {
    let none: Vec<Published> = Vec::new();
    let incomplete = Status { undecided: undecided(), incomplete: 1, ..status(&none, Verdict::Incomplete) };
    assert_eq!(
        incomplete.headline(),
        "incomplete: 0 findings; 1 at or above high could not be validated, so the run cannot pass (--fail-on)"
    );
    let fake = fakes::github::start().await;
    fake.host().report_status(HEAD, &incomplete).await.unwrap();
    let run = fake.state().check_runs[0].clone();
    assert_eq!(run.conclusion.as_deref(), Some("failure"));
    assert!(run.title.contains("incomplete"), "{}", run.title);
    assert!(
        run.summary.contains("- high finding at src/\\[x\\](https:\u{200B}//evil.example).py:2 (reviewer correctness)"),
        "{}",
        run.summary
    );
    assert!(!run.summary.contains("paid twice"), "no model text in gauntlet's own words: {}", run.summary);

    // Advisory: nothing blocks, but the check run does not read as a clean review.
    let advisory = Status { undecided: undecided(), incomplete: 1, ..status(&none, Verdict::Advisory) };
    assert_eq!(
        advisory.headline(),
        "advisory, incomplete: 0 findings; 1 could not be validated either way; nothing blocks without --fail-on"
    );
    let fake = fakes::github::start().await;
    fake.host().report_status(HEAD, &advisory).await.unwrap();
    let run = fake.state().check_runs[0].clone();
    assert_eq!(run.conclusion.as_deref(), Some("neutral"));
    assert!(run.title.contains("incomplete"), "{}", run.title);

    let azure = fakes::azure::start(HEAD).await;
    azure.host().report_status(HEAD, &advisory).await.unwrap();
    azure.host().report_status(HEAD, &incomplete).await.unwrap();
    let states: Vec<serde_json::Value> = azure.state().statuses.iter().map(|s| s["state"].clone()).collect();
    assert_eq!(states, ["notApplicable", "error"]);
    assert!(azure.state().statuses.iter().all(|s| s["description"].as_str().unwrap().contains("incomplete")));

    // A run that failed says what else it could not validate.
    let published = findings(1);
    let failed = Status { undecided: undecided(), incomplete: 1, ..status(&published, Verdict::Failed) };
    assert_eq!(
        failed.headline(),
        "failed: 1 of 1 finding at or above high; 1 more at or above high could not be validated (--fail-on)"
    );
}

#[test]
fn a_run_where_a_reviewer_could_not_finish_names_it_in_every_headline() {
    let gap = gauntlet_review::review::Gap {
        step: "find".into(),
        reviewer: Some("correctness".into()),
        finding: None,
        message: "the answer broke the findings contract twice".into(),
        failed: true,
    };
    let none: Vec<Published> = Vec::new();
    let both =
        Status { undecided: undecided(), incomplete: 1, unfinished: vec![&gap], ..status(&none, Verdict::Incomplete) };
    assert_eq!(
        both.headline(),
        "incomplete: 0 findings; 1 at or above high could not be validated and reviewer correctness could not finish, \
         so the run cannot pass (--fail-on)"
    );
    assert!(
        both.lines().iter().any(|l| l.contains("- reviewer correctness (find): the answer broke")),
        "{:?}",
        both.lines()
    );
    let published = findings(1);
    let failed = Status { unfinished: vec![&gap, &gap], ..status(&published, Verdict::Failed) };
    assert_eq!(
        failed.headline(),
        "failed: 1 of 1 finding at or above high; reviewer correctness could not finish (--fail-on)"
    );
    let advisory = Status { unfinished: vec![&gap], ..status(&none, Verdict::Advisory) };
    assert!(advisory.headline().starts_with("advisory, incomplete: 0 findings; reviewer correctness could not finish"));
}
