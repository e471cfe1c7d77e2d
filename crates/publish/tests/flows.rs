//! The publisher run again and again against stateful fakes of GitHub, GitLab
//! and Azure DevOps: what a person looking at the pull request would see.

mod common;
mod fakes;

use common::*;
use fakes::{Fake, Fault};
use gauntlet_publish::standing::{self, Standing};
use gauntlet_publish::{OverviewMarker, Policy, PublishError, Request, Summary, dismissal, preview, sync};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;

async fn publish(fake: &Fake, published: Vec<Published>) -> Result<Summary, PublishError> {
    publish_with(fake, published, Policy::default()).await
}

async fn publish_with(fake: &Fake, published: Vec<Published>, policy: Policy) -> Result<Summary, PublishError> {
    publish_in(fake, published, policy, None).await
}

async fn publish_in(
    fake: &Fake,
    published: Vec<Published>,
    policy: Policy,
    era: Option<&str>,
) -> Result<Summary, PublishError> {
    publish_as(fake, published, How { policy, era, ..How::default() }).await.map(|(summary, _)| summary)
}

/// How a test run publishes: with which dismissal policy and era, what it
/// reviewed, and how its head follows the last overview's (`git diff -U0`).
#[derive(Default)]
struct How<'a> {
    policy: Policy,
    era: Option<&'a str>,
    reviewed: gauntlet_publish::Reviewed,
    since_last: Option<&'a str>,
}

/// Publish `published` as `how` says: what the sync did, and what stands
/// without being raised by the run (as `--fail-on` counts it).
async fn publish_as(
    fake: &Fake,
    published: Vec<Published>,
    how: How<'_>,
) -> Result<(Summary, Vec<Standing>), PublishError> {
    let review = review(published);
    let host = fake.host();
    let existing = host.existing(HEAD).await?;
    let dismissals = dismissal::check(host.as_ref(), &existing, how.policy).await;
    let marker = OverviewMarker {
        head: HEAD.into(),
        rules: review.rules_version.clone(),
        config: "cfg1".into(),
        held: None,
        era: how.era.map(str::to_string),
        gone: Vec::new(),
        incomplete: false,
        open: None,
    };
    let request = Request {
        review: &review,
        candidates: candidates(&review.published),
        marker,
        cap: 15,
        reviewed: how.reviewed,
        notes: vec![],
        dismissals,
        since_last: how.since_last.map(|diff| gauntlet_change::parse_patch(diff).unwrap()),
        unapplied_rules: vec![],
    };
    let plan = preview(&existing, &request, host.dialect());
    let summary = sync(host.as_ref(), &existing, request).await?;
    Ok((summary, standing::standing(&existing, &plan)))
}

/// A full run whose head follows the last overview's by `diff` (`git diff -U0`).
async fn publish_after(fake: &Fake, published: Vec<Published>, diff: &str) {
    publish_as(fake, published, How { since_last: Some(diff), ..How::default() }).await.unwrap();
}

/// An incremental run that reviewed only `paths`: what stands without being
/// raised by it, as `--fail-on` counts it.
async fn publish_incremental(fake: &Fake, published: Vec<Published>, paths: &[&str]) -> Vec<Standing> {
    let reviewed = gauntlet_publish::Reviewed::Only(paths.iter().map(|p| p.to_string()).collect());
    publish_as(fake, published, How { reviewed, ..How::default() }).await.unwrap().1
}

/// A run in `era` that reviewed only `reviewed` (all paths when `None`), whose
/// head follows the last overview's by `since_last` (`git diff -U0`): what
/// stands without being raised by it.
async fn publish_run(
    fake: &Fake,
    published: Vec<Published>,
    reviewed: Option<&[&str]>,
    since_last: &str,
    era: &str,
) -> Vec<Standing> {
    let reviewed = reviewed.map_or(gauntlet_publish::Reviewed::All, |paths| {
        gauntlet_publish::Reviewed::Only(paths.iter().map(|p| p.to_string()).collect())
    });
    publish_scoped(fake, published, reviewed, since_last, era).await
}

/// [`publish_run`] with any [`gauntlet_publish::Reviewed`].
async fn publish_scoped(
    fake: &Fake,
    published: Vec<Published>,
    reviewed: gauntlet_publish::Reviewed,
    since_last: &str,
    era: &str,
) -> Vec<Standing> {
    let how = How { era: Some(era), reviewed, since_last: Some(since_last), ..How::default() };
    publish_as(fake, published, how).await.unwrap().1
}

/// What stands when a run reviews nothing (a re-run of the same head).
async fn standing_now(fake: &Fake) -> Option<Vec<Standing>> {
    let host = fake.host();
    let existing = host.existing(HEAD).await.unwrap();
    let dismissals = dismissal::check(host.as_ref(), &existing, Policy::default()).await;
    standing::without_review(&existing, &dismissals)
}

fn ids(standing: &[Standing]) -> Vec<(String, Severity, Option<String>)> {
    let mut out: Vec<_> = standing.iter().map(|s| (s.id.clone(), s.severity, s.thread_path.clone())).collect();
    out.sort();
    out
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

/// The era a run records goes on the comments it writes and on its overview; a
/// comment the pipeline resolves later keeps the era it was raised in.
async fn comments_carry_the_era_they_were_raised_in(fake: Fake) {
    publish_in(&fake, run(0), Policy::default(), Some("e1")).await.unwrap();
    let era = |body: &str| gauntlet_publish::FindingMarker::parse(body).and_then(|m| m.era);
    assert!(fake.inline().iter().all(|t| era(&t.notes[0].body).as_deref() == Some("e1")), "{:#?}", fake.inline());
    assert_eq!(OverviewMarker::parse(&fake.overviews()[0]).and_then(|m| m.era).as_deref(), Some("e1"));
    publish_in(&fake, run(0)[..2].to_vec(), Policy::default(), Some("e2")).await.unwrap();
    let inline = fake.inline();
    assert!(inline[2].resolved);
    assert_eq!(era(&inline[2].notes[0].body).as_deref(), Some("e1"), "resolved in a later era, raised in e1");
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
    fake.reply(ids[1], "/gauntlet false-positive len excludes the sentinel");
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

async fn a_cross_file_finding_is_one_comment_naming_its_other_place_and_its_test_gaps(fake: Fake) {
    // Paths the fakes know as changed (Azure needs each file's change tracking id).
    let claim = "The response key `name` replaces `display_name`, so every client reading the old key breaks.";
    let mut p = finding("lib/c.py", 3, "\"name\": user.display_name,", claim, Severity::High);
    p.raised_by = vec!["correctness".into(), "tests".into()];
    p.also_at = vec!["src/b.rs:20".into()];
    p.unvalidated = vec!["`tests` at tests/test_users.py:12: No test reads `display_name` from `to_json`.".into()];
    for _ in 0..2 {
        publish(&fake, vec![p.clone()]).await.unwrap();
    }
    let inline = fake.inline();
    assert_eq!(inline.len(), 1, "one comment for the defect in two files: {inline:#?}");
    assert_eq!((inline[0].path.as_deref(), inline[0].line), (Some("lib/c.py"), Some(3)), "at the primary");
    assert_eq!(inline[0].notes.len(), 1, "the re-run left it alone");
    let body = &inline[0].notes[0].body;
    assert!(body.contains("**Also at** `src/b.rs:20` (the same defect; this is its only comment).\n"), "{body}");
    // Model text is escaped like any other: its backticks and underscores stay literal.
    assert!(
        body.contains(
            "**Also raised, not validated:** \\`tests\\` at tests/test\\_users.py:12: No test reads \\`display\\_name\\` \
             from \\`to\\_json\\`.\n"
        ),
        "{body}"
    );
    assert!(body.contains("raised by `correctness`, `tests`"), "{body}");
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
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
                // lets a token that may not resolve threads leave them open; GitLab
                // refusing the question of who last edited the overview only stops
                // carrying over what the overview remembers (the overview says so).
                Ok(_) => assert!(
                    status == 500
                        || (matches!(status, 401 | 403) && call == "POST /graphql")
                        || (matches!(status, 401 | 403 | 404) && call == "POST /api/graphql"),
                    "HTTP {status} at call {at} ({call}) went unnoticed"
                ),
                Err(e) => {
                    failures += 1;
                    let text = e.to_string();
                    // GitHub's GraphQL calls read and write alike; the others show it in the method.
                    if status == 500 && !call.starts_with("GET ") && call != "POST /graphql" {
                        assert!(e.outcome_unknown(), "a 5xx to a write leaves its outcome unknown: {text}");
                    }
                    assert!(status == 500 || !e.outcome_unknown(), "a refusal is no unknown: {text}");
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

/// Thread ids of the three inline comments `run(0)` opens.
async fn posted_three(fake: &Fake) -> Vec<u64> {
    publish(fake, run(0)).await.unwrap();
    fake.inline().iter().map(|t| t.id).collect()
}

fn overview(fake: &Fake) -> String {
    fake.overviews().pop().expect("an overview")
}

async fn free_text_never_dismisses_not_even_a_negation_or_a_question(fake: Fake) {
    let ids = posted_three(&fake).await;
    fake.reply(ids[0], "This is NOT a false positive, please fix it before merging.");
    fake.reply(ids[1], "Is this a false positive? I think it might be a wont fix.");
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!((summary.dismissed, summary.unchanged), (0, 3), "{summary:?}");
    assert!(fake.state().permission_checks.is_empty(), "nothing to check: no command, resolution or reaction");
    assert!(!overview(&fake).contains("Dismiss"), "{}", overview(&fake));
}

async fn a_writers_command_dismisses_and_a_non_writers_is_listed_as_ignored(fake: Fake) {
    let ids = posted_three(&fake).await;
    fake.reply(ids[0], "/gauntlet false-positive len excludes the sentinel");
    fake.reply_as(ids[1], fakes::READER, "/gauntlet dismiss");
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!((summary.dismissed, summary.created), (1, 0), "{summary:?}");
    let text = overview(&fake);
    let (counted, ignored) = text.split_once("did not count").expect("both lists");
    assert!(counted.contains("**alice** replied `/gauntlet false-positive`: len excludes the sentinel"), "{text}");
    assert!(ignored.contains("mallory replied `/gauntlet dismiss`") && ignored.contains("able to write"), "{text}");
    assert_eq!(publish(&fake, run(2)).await.unwrap().dismissed, 1, "the dismissal holds on later runs");
}

async fn the_authors_dismissals_count_only_when_allowed(fake: Fake) {
    let ids = posted_three(&fake).await;
    fake.reply_as(ids[0], fakes::AUTHOR, "/gauntlet dismiss I wrote it this way on purpose");
    fake.resolve_as(ids[1], fakes::AUTHOR);
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!((summary.dismissed, summary.reopened), (0, 1), "the author's resolution is undone: {summary:?}");
    assert!(!fake.inline()[1].resolved, "the finding is visible again");
    assert!(overview(&fake).contains("author_may_dismiss"), "{}", overview(&fake));
    assert!(fake.state().permission_checks.is_empty(), "the author is not asked about");
    fake.resolve_as(ids[1], fakes::AUTHOR);
    let allowed = publish_with(&fake, run(2), Policy { author_may_dismiss: true }).await.unwrap();
    assert_eq!(allowed.dismissed, 2, "{allowed:?}");
}

async fn a_resolution_counts_from_a_writer_and_never_from_the_pipeline(fake: Fake) {
    let ids = posted_three(&fake).await;
    assert_eq!(publish(&fake, run(1)[..2].to_vec()).await.unwrap().resolved, 1, "the pipeline resolves the third");
    let back = publish(&fake, run(2)).await.unwrap();
    assert_eq!((back.reopened, back.dismissed), (1, 0), "the pipeline's own resolution is no dismissal: {back:?}");
    fake.resolve_as(ids[0], "erin");
    fake.resolve_as(ids[1], fakes::READER);
    let after = publish(&fake, run(0)).await.unwrap();
    assert_eq!((after.dismissed, after.reopened), (1, 1), "{after:?}");
    let inline = fake.inline();
    assert!(inline[0].resolved && !inline[1].resolved, "{inline:#?}");
    let text = overview(&fake);
    assert!(text.contains("**erin** resolved the thread") && text.contains("mallory resolved the thread"), "{text}");
}

async fn each_person_is_asked_about_once_per_run(fake: Fake) {
    let ids = posted_three(&fake).await;
    for &id in &ids {
        fake.reply(id, "/gauntlet dismiss");
        fake.reply_as(id, fakes::READER, "/gauntlet false-positive");
    }
    fake.resolve_as(ids[2], fakes::READER);
    assert_eq!(publish(&fake, run(1)).await.unwrap().dismissed, 3);
    let mut asked = fake.state().permission_checks.clone();
    asked.sort();
    assert_eq!(asked, ["alice", "mallory"]);
}

async fn a_write_stored_before_a_500_is_reported_as_unknown_and_reconciled(fake: Fake) {
    fake.state().store_then_fail = Some(500);
    let err = publish(&fake, run(0)).await.unwrap_err();
    let text = err.to_string();
    assert!(err.outcome_unknown() && !err.posted_something(), "{text}");
    assert!(text.contains("HTTP 500") && text.contains("may or may not have been stored"), "{text}");
    assert!(!fake.inline().is_empty(), "the fake did store it");
    publish(&fake, run(1)).await.unwrap();
    assert_eq!((fake.inline().len(), fake.overviews().len()), (3, 1), "the next run posts nothing twice");
}

/// GitHub's thumbs-down and GitLab's `thumbsdown` award; Azure DevOps has no
/// negative reaction.
async fn a_writers_thumbs_down_dismisses_and_a_readers_does_not(fake: Fake) {
    let ids = posted_three(&fake).await;
    fake.react(ids[0], fakes::READER);
    fake.react(ids[1], fakes::PERSON);
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!(summary.dismissed, 1, "{summary:?}");
    let text = overview(&fake);
    assert!(text.contains("**alice** reacted with a thumbs-down") && text.contains("mallory reacted"), "{text}");
}

/// The pipeline's account may be able to write; its own reaction is still no
/// person's dismissal.
async fn the_pipelines_own_thumbs_down_never_dismisses(fake: Fake) {
    let ids = posted_three(&fake).await;
    // The pipeline's names as each host reports them, made writers.
    fake.state().writers.extend([fakes::PIPELINE.to_string(), "github-actions".to_string()]);
    fake.react(ids[0], fakes::PIPELINE);
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!(summary.dismissed, 0, "{summary:?}");
    assert!(!overview(&fake).contains("thumbs-down"), "{}", overview(&fake));
}

#[tokio::test]
async fn github_the_pipelines_own_thumbs_down_never_dismisses() {
    the_pipelines_own_thumbs_down_never_dismisses(fakes::github::start().await).await
}

#[tokio::test]
async fn gitlab_the_pipelines_own_thumbs_down_never_dismisses() {
    the_pipelines_own_thumbs_down_never_dismisses(fakes::gitlab::start(HEAD).await).await
}

/// GitHub says who last edited a comment: a command someone else wrote into a
/// writer's reply is not the writer's dismissal.
#[tokio::test]
async fn github_a_reply_edited_by_someone_else_does_not_count() {
    let fake = fakes::github::start().await;
    let ids = posted_three(&fake).await;
    fake.reply(ids[0], "Real bug, please fix it.");
    fake.edit_last(ids[0], fakes::READER, "/gauntlet dismiss fine as is");
    fake.reply(ids[1], "/gauntlet dismis typo");
    fake.edit_last(ids[1], fakes::PERSON, "/gauntlet dismiss the sentinel slot makes it safe");
    let summary = publish(&fake, run(1)).await.unwrap();
    assert_eq!(summary.dismissed, 1, "only the reply its author edited counts: {summary:?}");
    let text = overview(&fake);
    assert!(text.contains("alice replied `/gauntlet dismiss`, not counted: the reply was edited by mallory"), "{text}");
    assert!(text.contains("**alice** replied `/gauntlet dismiss`: the sentinel slot makes it safe"), "{text}");
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

/// More replies and reactions than one page holds: a writer's command or
/// thumbs-down after them still counts.
async fn a_flood_of_replies_and_reactions_does_not_hide_a_dismissal(fake: Fake) {
    let ids = posted_three(&fake).await;
    for i in 0..150 {
        fake.reply_as(ids[0], fakes::READER, &format!("noise {i}"));
    }
    fake.reply(ids[0], "/gauntlet dismiss checked by hand");
    for i in 0..120 {
        fake.react(ids[1], &format!("reader{i}"));
    }
    fake.react(ids[1], fakes::PERSON);
    let summary = publish(&fake, run(1)).await.unwrap();
    let azure = fake.host().name() == "Azure DevOps";
    assert_eq!(summary.dismissed, if azure { 1 } else { 2 }, "{summary:?}");
    let text = overview(&fake);
    assert!(text.contains("**alice** replied `/gauntlet dismiss`: checked by hand"), "{text}");
    assert!(!text.contains("Not everything on the pull request"), "nothing was cut: {text}");
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

/// The same person's attempts in the same form, ignored for the same reason,
/// are one line with a count.
async fn repeated_ignored_attempts_are_one_line(fake: Fake) {
    let ids = posted_three(&fake).await;
    for &id in &ids {
        fake.reply_as(id, fakes::READER, "/gauntlet dismiss");
    }
    publish(&fake, run(1)).await.unwrap();
    let text = overview(&fake);
    assert_eq!(text.matches("mallory replied `/gauntlet dismiss`").count(), 1, "{text}");
    assert!(text.contains("- 3 findings: mallory replied `/gauntlet dismiss`, not counted"), "{text}");
}

/// An incremental run and a skipped re-run both know what earlier runs left
/// standing: open threads on files they did not review, and findings only the
/// overview shows; a dismissal takes a thread out.
async fn earlier_findings_stand_until_reviewed_or_dismissed(fake: Fake) {
    let mut first = run(0);
    first[1].severity = Severity::Medium;
    first[2].inline = false;
    assert!(standing_now(&fake).await.is_none(), "no overview yet: nothing is known");
    publish(&fake, first.clone()).await.unwrap();
    let (a, b, c) = (&first[0], &first[1], &first[2]);
    let thread = |p: &Published, path: &str| (p.id.clone(), p.severity, Some(path.to_string()));
    let held = |p: &Published| (p.id.clone(), p.severity, None);
    let all = vec![thread(a, "src/a.rs"), thread(b, "src/b.rs"), held(c)];
    let mut want = all.clone();
    want.sort();
    assert_eq!(ids(&standing_now(&fake).await.unwrap()), want, "a skipped re-run counts them all");

    // A push that touched only src/a.rs and still has its finding.
    let left = publish_incremental(&fake, vec![a.clone()], &["src/a.rs"]).await;
    let mut want = vec![thread(b, "src/b.rs"), held(c)];
    want.sort();
    assert_eq!(ids(&left), want, "the run did not raise them, and they stand");
    let text = overview(&fake);
    assert!(text.contains("Still standing from an earlier run") && text.contains(&c.id), "{text}");
    let mut want = all.clone();
    want.sort();
    assert_eq!(ids(&standing_now(&fake).await.unwrap()), want, "the held finding was carried over");

    // A push to lib/c.py that fixed it; then a writer dismisses src/b.rs.
    let mut want = vec![thread(a, "src/a.rs"), thread(b, "src/b.rs")];
    want.sort();
    assert_eq!(ids(&publish_incremental(&fake, vec![], &["lib/c.py"]).await), want, "c was fixed");
    let b_thread = fake.inline().iter().find(|t| t.path.as_deref() == Some("src/b.rs")).unwrap().id;
    fake.reply(b_thread, "/gauntlet dismiss fine");
    assert_eq!(ids(&standing_now(&fake).await.unwrap()), vec![thread(a, "src/a.rs")]);
}

/// A finding outside the diff has no thread: a writer dismisses it by id in a
/// comment on the pull request; anyone else's attempt is listed as ignored.
async fn a_finding_only_the_overview_holds_is_dismissed_by_id(fake: Fake) {
    let mut findings = run(0);
    findings[2].inline = false;
    publish(&fake, findings.clone()).await.unwrap();
    let id = findings[2].id.clone();
    let text = overview(&fake);
    assert!(text.contains(&format!("`/gauntlet dismiss {id} REASON`")), "the overview says how: {text}");
    assert_eq!(ids(&standing_now(&fake).await.unwrap()).len(), 3, "it stands until dismissed");
    fake.state().add(None, None, fakes::READER, &format!("/gauntlet dismiss {id} not mine"));
    assert_eq!(publish(&fake, findings.clone()).await.unwrap().dismissed, 0);
    fake.state().add(None, None, fakes::PERSON, &format!("/gauntlet false-positive {id} the handler is internal"));
    let summary = publish(&fake, findings.clone()).await.unwrap();
    assert_eq!((summary.dismissed, summary.in_overview), (1, 0), "{summary:?}");
    let text = overview(&fake);
    assert!(!text.contains("except: pass"), "no longer listed: {text}");
    let gone = OverviewMarker::parse(&text).unwrap().gone;
    assert!(gone.iter().any(|g| g.id == id), "still in the record, where the dismissal counts: {text}");
    assert!(text.contains(&format!("finding `{id}` (a pull request comment): **alice** replied `/gauntlet false-positive`: the handler is internal")), "{text}");
    assert!(text.contains("mallory replied `/gauntlet dismiss`, not counted"), "{text}");
    let left = ids(&standing_now(&fake).await.unwrap());
    assert!(left.len() == 2 && left.iter().all(|(i, ..)| *i != id), "{left:?}");
}

/// The overview is edited in place, so what it held and a later run no longer
/// found is remembered in its marker: fixed when the push touched the flagged
/// line, withdrawn when it did not, and forgotten again when the finding is back.
async fn a_held_finding_a_later_run_drops_is_remembered_as_fixed_or_withdrawn(fake: Fake) {
    let mut first = run(0);
    first[1].inline = false;
    first[2].inline = false;
    first[2].raised_by = vec!["correctness".into(), "error handling".into()];
    publish(&fake, first.clone()).await.unwrap();
    let marker = OverviewMarker::parse(&overview(&fake)).unwrap();
    let held = marker.held.unwrap();
    assert_eq!(held.iter().map(|h| (h.line, h.reviewers.len())).collect::<Vec<_>>(), [(Some(20), 1), (Some(3), 2)]);
    // The push changed line 3 of lib/c.py and a line of src/b.rs far from 20.
    let push = "diff --git a/lib/c.py b/lib/c.py\n--- a/lib/c.py\n+++ b/lib/c.py\n@@ -3 +3 @@\n-except: pass\n+except ValueError: raise\n\
                diff --git a/src/b.rs b/src/b.rs\n--- a/src/b.rs\n+++ b/src/b.rs\n@@ -40,0 +41 @@\n+// note\n";
    publish_after(&fake, vec![first[0].clone()], push).await;
    let marker = OverviewMarker::parse(&overview(&fake)).unwrap();
    assert_eq!(marker.held, Some(vec![]));
    let gone: Vec<(&str, bool, Vec<String>)> =
        marker.gone.iter().map(|g| (g.id.as_str(), g.fixed, g.reviewers.clone())).collect();
    let (b, c) = (first[1].id.as_str(), first[2].id.as_str());
    assert_eq!(gone, vec![(b, false, vec!["correctness".to_string()]), (c, true, first[2].raised_by.clone())]);
    // b comes back: it is held again and no longer gone; c stays gone.
    publish_after(&fake, vec![first[0].clone(), first[1].clone()], "").await;
    let marker = OverviewMarker::parse(&overview(&fake)).unwrap();
    assert_eq!(marker.held.unwrap().iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), [b]);
    assert_eq!(marker.gone.iter().map(|g| (g.id.as_str(), g.fixed)).collect::<Vec<_>>(), [(c, true)]);
}

/// An incremental run in a later era: a held finding on a file it did not
/// review is carried, still standing, in the era that raised it; one on a file
/// it reviewed and did not raise goes, fixed since the push changed its line,
/// in its own era too; a new overview finding takes the run's era.
async fn an_incremental_run_carries_what_it_did_not_review_in_its_own_era(fake: Fake) {
    let mut first = run(0);
    first[1].inline = false;
    first[2].inline = false;
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let (a, b, c) = (&first[0], &first[1], &first[2]);
    let mut d = finding("src/a.rs", 40, "retry()", "The retry never gives up on a closed socket.", Severity::Medium);
    d.inline = false;
    let push = "diff --git a/lib/c.py b/lib/c.py\n--- a/lib/c.py\n+++ b/lib/c.py\n@@ -3 +3 @@\n-except: pass\n+except ValueError: raise\n\
                diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -39,0 +40 @@\n+retry()\n";
    let left = publish_run(&fake, vec![a.clone(), d.clone()], Some(&["src/a.rs", "lib/c.py"]), push, "e2").await;
    assert_eq!(ids(&left), vec![(b.id.clone(), b.severity, None)], "b stands, carried");
    let marker = OverviewMarker::parse(&overview(&fake)).unwrap();
    let held: Vec<(&str, Option<&str>)> =
        marker.held.as_ref().unwrap().iter().map(|h| (h.id.as_str(), h.era.as_deref())).collect();
    assert_eq!(held, vec![(d.id.as_str(), Some("e2")), (b.id.as_str(), Some("e1"))]);
    let gone: Vec<(&str, bool, Option<&str>)> =
        marker.gone.iter().map(|g| (g.id.as_str(), g.fixed, g.era.as_deref())).collect();
    assert_eq!(gone, vec![(c.id.as_str(), true, Some("e1"))]);
    assert_eq!(marker.era.as_deref(), Some("e2"));
}

/// A file renamed since the last run: `ci` counts its old path as reviewed, so
/// a finding held there goes, fixed when the rename's diff changed its line
/// and withdrawn when it did not.
async fn a_held_finding_in_a_renamed_file_goes_by_its_old_path(fake: Fake) {
    let mut first = vec![
        finding("src/old.rs", 5, "let n = v[i];", "Indexing panics past the end of the vector.", Severity::High),
        finding("src/old.rs", 30, "lock.lock();", "The lock is taken twice on the retry path.", Severity::Low),
    ];
    first.iter_mut().for_each(|f| f.inline = false);
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let rename = "diff --git a/src/old.rs b/src/new.rs\nsimilarity index 95%\nrename from src/old.rs\nrename to src/new.rs\n\
                  --- a/src/old.rs\n+++ b/src/new.rs\n@@ -5 +5 @@\n-let n = v[i];\n+let n = v.get(i)?;\n";
    let left = publish_run(&fake, vec![], Some(&["src/new.rs", "src/old.rs"]), rename, "e2").await;
    assert!(left.is_empty(), "{left:?}");
    let marker = OverviewMarker::parse(&overview(&fake)).unwrap();
    let gone: Vec<(&str, bool)> = marker.gone.iter().map(|g| (g.id.as_str(), g.fixed)).collect();
    assert_eq!(gone, vec![(first[0].id.as_str(), true), (first[1].id.as_str(), false)]);
}

/// GitLab keeps only a note's last editor, and the next run's rewrite of the
/// overview would make that the pipeline again: what a maintainer's edit of
/// the marker says is not carried over, save the held findings themselves
/// (they only make `--fail-on` stricter), and the overview says why.
#[tokio::test]
async fn gitlab_a_maintainers_edit_of_the_overview_is_not_carried_over() {
    use gauntlet_publish::marker::{Gone, strip};
    let fake = fakes::gitlab::start(HEAD).await;
    let mut first = run(0);
    first[1].inline = false;
    first[2].inline = false;
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let (b, c) = (&first[1], &first[2]);
    {
        let mut s = fake.state();
        let thread = s.threads.iter_mut().find(|t| t.path.is_none() && t.notes[0].author == fakes::PIPELINE);
        let note = &mut thread.unwrap().notes[0];
        let mut m = OverviewMarker::parse(&note.body).unwrap();
        let reviewers = vec!["security".to_string()];
        let era = Some("e1".to_string());
        m.gone.push(Gone {
            id: "forged".into(),
            severity: Severity::High,
            fixed: true,
            reviewers: reviewers.clone(),
            era,
        });
        for h in m.held.iter_mut().flatten() {
            (h.line, h.reviewers) = (Some(99), reviewers.clone());
        }
        note.body = format!("{}{}", m.render(), strip(&note.body));
        note.edited_by = Some(fakes::PERSON.into());
    }
    // A run that reviewed lib/c.py, did not raise c, and changed line 99 there.
    let push = "diff --git a/lib/c.py b/lib/c.py\n--- a/lib/c.py\n+++ b/lib/c.py\n@@ -99 +99 @@\n-x\n+y\n";
    let left = publish_run(&fake, vec![first[0].clone()], Some(&["src/a.rs", "lib/c.py"]), push, "e2").await;
    assert_eq!(ids(&left), vec![(b.id.clone(), b.severity, None)], "b still stands");
    let text = overview(&fake);
    assert!(text.contains("cannot be taken as gauntlet's own (edited by user"), "{text}");
    let marker = OverviewMarker::parse(&text).unwrap();
    assert_eq!(marker.gone, vec![], "neither the forged entry nor c, on the maintainer's line");
    let held: Vec<_> = marker.held.unwrap().into_iter().map(|h| (h.id, h.line, h.reviewers, h.era)).collect();
    assert_eq!(held, vec![(b.id.clone(), None, vec![], None)]);
    assert!(!text.contains(&c.id), "{text}");
    // The run after: the pipeline wrote the note last, and nothing forged is back.
    publish_run(&fake, vec![first[0].clone()], Some(&["src/a.rs"]), "", "e2").await;
    let text = overview(&fake);
    assert!(!text.contains("cannot be taken as gauntlet's own"), "{text}");
    let marker = OverviewMarker::parse(&text).unwrap();
    assert_eq!((marker.gone.len(), marker.held.unwrap().len()), (0, 1), "{text}");
    // One question a run, asked only once there is an overview to ask about.
    let log = fake.state().log.clone();
    assert_eq!(log.iter().filter(|l| *l == "POST /api/graphql").count(), 2, "{log:#?}");
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

/// When GitLab will not say who last edited the overview, its marker is
/// treated as if someone else had: what a held finding's entry says about its
/// line is not trusted to call it fixed.
#[tokio::test]
async fn gitlab_an_overview_whose_last_editor_is_unknown_is_not_carried_over() {
    let fake = fakes::gitlab::start(HEAD).await;
    let mut first = run(0);
    first[2].inline = false;
    publish_run(&fake, first.clone(), None, "", "e1").await;
    fake.state().editors_withheld = true;
    let push = "diff --git a/lib/c.py b/lib/c.py\n--- a/lib/c.py\n+++ b/lib/c.py\n@@ -3 +3 @@\n-except: pass\n+raise\n";
    publish_run(&fake, first[..2].to_vec(), Some(&["lib/c.py"]), push, "e1").await;
    let text = overview(&fake);
    assert!(text.contains("cannot be taken as gauntlet's own (GitLab did not say who last edited it"), "{text}");
    assert_eq!(OverviewMarker::parse(&text).unwrap().gone, vec![], "{text}");
    // Told again, the next run records what it drops.
    fake.state().editors_withheld = false;
    publish_run(&fake, first[..2].to_vec(), Some(&["lib/c.py"]), push, "e1").await;
    assert!(!overview(&fake).contains("cannot be taken as gauntlet's own"));
}

/// GitLab refusing the question outright (a proxy, an instance without GraphQL
/// for this token) still lets the review post: only what the overview remembers
/// is not carried over, and the overview says why.
#[tokio::test]
async fn gitlab_a_refused_question_of_who_edited_the_overview_still_posts() {
    let fake = fakes::gitlab::start(HEAD).await;
    let mut first = run(0);
    first[2].inline = false;
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let push = "diff --git a/lib/c.py b/lib/c.py\n--- a/lib/c.py\n+++ b/lib/c.py\n@@ -3 +3 @@\n-except: pass\n+raise\n";
    // The next run's GraphQL call is refused with a 403.
    let before = fake.state().requests;
    publish_run(&fake, first[..2].to_vec(), Some(&["lib/c.py"]), push, "e1").await;
    let graphql =
        fake.state().log[before..].iter().position(|l| l == "POST /api/graphql").expect("the question is asked");
    *fake.state() = fakes::State::default();
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let start = fake.state().requests;
    fake.state().fault = Some(Fault { at: start + graphql, status: 403, storm: false });
    publish_run(&fake, first[..2].to_vec(), Some(&["lib/c.py"]), push, "e1").await;
    let text = overview(&fake);
    assert!(text.contains("cannot be taken as gauntlet's own (GitLab did not say who last edited it"), "{text}");
    assert!(text.contains("HTTP 403"), "{text}");
    assert_eq!(OverviewMarker::parse(&text).unwrap().gone, vec![], "{text}");
}

/// The gone list is bounded: a run that adds one to a full list drops the
/// oldest entry, and the overview says the record lost it.
#[tokio::test]
async fn github_the_gone_list_keeps_the_newest_200_and_says_so() {
    use gauntlet_publish::marker::{Gone, Held, path_tag};
    let fake = fakes::github::start().await;
    let gone = |i: usize| Gone {
        id: format!("g{i}"),
        severity: Severity::Low,
        fixed: false,
        reviewers: vec!["x".into()],
        era: None,
    };
    let held = Held {
        id: "h1".into(),
        severity: Severity::High,
        path: path_tag("src/a.rs"),
        line: Some(10),
        reviewers: vec!["correctness".into()],
        era: None,
    };
    let marker = OverviewMarker {
        head: HEAD.into(),
        rules: "r".into(),
        config: "c".into(),
        held: Some(vec![held]),
        era: None,
        gone: (0..200).map(gone).collect(),
        incomplete: false,
        open: None,
    };
    fake.state().add(None, None, fakes::PIPELINE, &format!("{}overview", marker.render()));
    publish_after(&fake, vec![], "").await;
    let text = overview(&fake);
    let after = OverviewMarker::parse(&text).unwrap();
    assert_eq!(after.gone.len(), 200);
    assert_eq!((after.gone[0].id.as_str(), after.gone[199].id.as_str()), ("g1", "h1"), "the oldest went");
    assert!(text.contains("the 1 oldest were dropped, so gauntlet stats no longer counts them"), "{text}");
}

/// Reviewer names are rule names of any length: the gone list is bounded in
/// characters too, keeping the newest entries, so the marker never crowds the
/// overview out of a comment.
#[tokio::test]
async fn github_the_gone_list_stays_short_whatever_the_reviewer_names() {
    use gauntlet_publish::marker::Gone;
    use gauntlet_publish::sync::MAX_GONE_CHARS;
    let fake = fakes::github::start().await;
    let long = "r".repeat(500);
    let gone = |i: usize| Gone {
        id: format!("g{i}"),
        severity: Severity::Low,
        fixed: false,
        reviewers: vec![long.clone()],
        era: None,
    };
    let marker = OverviewMarker {
        head: HEAD.into(),
        rules: "r".into(),
        config: "c".into(),
        held: Some(vec![]),
        era: None,
        gone: (0..100).map(gone).collect(),
        incomplete: false,
        open: None,
    };
    fake.state().add(None, None, fakes::PIPELINE, &format!("{}overview", marker.render()));
    publish_after(&fake, vec![], "").await;
    let text = overview(&fake);
    let line = text.lines().next().unwrap();
    assert!(line.len() < MAX_GONE_CHARS + 500, "{} characters", line.len());
    let after = OverviewMarker::parse(&text).unwrap();
    let kept = after.gone.len();
    assert!(kept > 10 && kept < 100, "{kept}");
    assert_eq!(after.gone.last().unwrap().id, "g99", "the newest stay");
    assert!(text.contains(&format!("the {} oldest were dropped", 100 - kept)), "{text}");
}

#[tokio::test]
async fn github_a_writers_thumbs_down_dismisses_and_a_readers_does_not() {
    a_writers_thumbs_down_dismisses_and_a_readers_does_not(fakes::github::start().await).await
}

#[tokio::test]
async fn gitlab_a_writers_thumbs_down_dismisses_and_a_readers_does_not() {
    a_writers_thumbs_down_dismisses_and_a_readers_does_not(fakes::gitlab::start(HEAD).await).await
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
    free_text_never_dismisses_not_even_a_negation_or_a_question,
    a_writers_command_dismisses_and_a_non_writers_is_listed_as_ignored,
    the_authors_dismissals_count_only_when_allowed,
    a_resolution_counts_from_a_writer_and_never_from_the_pipeline,
    each_person_is_asked_about_once_per_run,
    a_write_stored_before_a_500_is_reported_as_unknown_and_reconciled,
    a_cross_file_finding_is_one_comment_naming_its_other_place_and_its_test_gaps,
    a_flood_of_replies_and_reactions_does_not_hide_a_dismissal,
    repeated_ignored_attempts_are_one_line,
    earlier_findings_stand_until_reviewed_or_dismissed,
    a_finding_only_the_overview_holds_is_dismissed_by_id,
    comments_carry_the_era_they_were_raised_in,
    a_held_finding_a_later_run_drops_is_remembered_as_fixed_or_withdrawn,
    an_incremental_run_carries_what_it_did_not_review_in_its_own_era,
    a_held_finding_in_a_renamed_file_goes_by_its_old_path,
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

/// A full run that left one file out (binary, too large, ignored) carries what
/// the overview held there, and lets go of what it held anywhere else: a
/// finding outside the diff is not carried for ever because some other file
/// was left out.
#[tokio::test]
async fn github_a_full_run_that_left_a_file_out_carries_only_what_is_held_on_it() {
    let fake = fakes::github::start().await;
    let mut first = run(0);
    first[0].inline = false;
    first[2].inline = false;
    publish_run(&fake, first.clone(), None, "", "e1").await;
    let held = |fake: &Fake| OverviewMarker::parse(&overview(fake)).unwrap().held.unwrap_or_default();
    assert_eq!(held(&fake).len(), 2);
    let left_out = gauntlet_publish::Reviewed::AllBut(["lib/c.py".to_string()].into());
    let standing = publish_scoped(&fake, vec![first[1].clone()], left_out, "", "e1").await;
    let now = held(&fake);
    assert_eq!(now.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), vec![first[2].id.as_str()], "{now:?}");
    let gone = OverviewMarker::parse(&overview(&fake)).unwrap().gone;
    assert_eq!(gone.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), vec![first[0].id.as_str()], "{gone:?}");
    assert!(standing.iter().any(|s| s.id == first[2].id), "the left-out file's finding still stands: {standing:?}");
}
