//! `plan_sync` as a specification: what a re-run does to the comments already
//! on a pull request.

mod common;

use common::*;
use gauntlet_publish::plan::{Action, Options};
use gauntlet_publish::{Dialect, Dismissals, Plan, Thread, plan_sync};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use std::collections::BTreeSet;

fn plan(threads: &[Thread], published: &[Published]) -> Plan {
    plan_with(threads, published, &Dismissals::default())
}

fn plan_with(threads: &[Thread], published: &[Published], dismissals: &Dismissals) -> Plan {
    let opts = Options {
        cap: 15,
        reviewed: &gauntlet_publish::Reviewed::All,
        head: HEAD,
        dialect: Dialect::GitHub,
        dismissals,
    };
    plan_sync(threads, &candidates(published), &opts)
}

fn two() -> Vec<Published> {
    vec![
        finding(
            "src/a.rs",
            10,
            "let x = y.unwrap();",
            "The unwrap panics when the cache entry is missing on a cold start.",
            Severity::High,
        ),
        finding(
            "src/b.rs",
            20,
            "for i in 0..=len {",
            "The loop reads one element past the end of the buffer on every call.",
            Severity::Medium,
        ),
    ]
}

fn posted(published: &[Published]) -> Vec<Thread> {
    apply(&[], &plan(&[], published))
}

#[test]
fn first_run_opens_one_comment_per_placeable_finding() {
    let mut findings = two();
    findings[1].inline = false;
    let p = plan(&[], &findings);
    assert_eq!(counts(&p), (1, 0, 0, 0));
    assert_eq!(p.overview, vec![1], "a finding outside the diff goes to the overview");
}

#[test]
fn rerun_with_reworded_claims_leaves_every_comment_alone() {
    let threads = posted(&two());
    let mut reworded = two();
    reworded[0].claim = "On a cold start the cache entry is missing and the unwrap panics.".into();
    reworded[1].claim = "Every call, the loop reads one element past the end of the buffer.".into();
    assert_eq!(counts(&plan(&threads, &reworded)), (0, 0, 0, 2));
}

#[test]
fn changed_evidence_with_a_similar_claim_on_the_same_path_reuses_the_thread() {
    let threads = posted(&two());
    let mut moved = two();
    moved[0] = finding("src/a.rs", 12, "let x  =  y.unwrap() ;", &moved[0].claim.clone(), Severity::High);
    assert_ne!(moved[0].id, two()[0].id);
    let p = plan(&threads, &moved);
    assert_eq!(counts(&p), (0, 1, 0, 1), "the thread is retargeted to the new fingerprint, not duplicated");
    let again = apply(&threads, &p);
    assert_eq!(counts(&plan(&again, &moved)), (0, 0, 0, 2));
}

#[test]
fn same_claim_on_another_path_is_a_new_finding() {
    let threads = posted(&two());
    let mut other = two();
    other[0] = finding("src/c.rs", 10, "let x = y.unwrap();", &other[0].claim.clone(), Severity::High);
    assert_eq!(counts(&plan(&threads, &other)), (1, 0, 1, 1), "and the old one has gone");
}

#[test]
fn an_edited_finding_updates_its_comment() {
    let threads = posted(&two());
    let mut edited = two();
    edited[0].severity = Severity::Low;
    let p = plan(&threads, &edited);
    assert_eq!(counts(&p), (0, 1, 0, 1));
    let mut rewritten = two();
    rewritten[1].claim = "Concurrent callers race on the shared counter and lose increments.".into();
    assert_eq!(counts(&plan(&threads, &rewritten)), (0, 1, 0, 1));
}

#[test]
fn a_vanished_finding_is_resolved_and_stays_resolved() {
    let threads = posted(&two());
    let p = plan(&threads, &two()[..1]);
    assert_eq!(counts(&p), (0, 0, 1, 1));
    let Action::Resolve { body, .. } = p.actions.iter().find(|a| matches!(a, Action::Resolve { .. })).unwrap() else {
        unreachable!()
    };
    assert!(body.contains("state=resolved") && body.contains("no longer finds this"), "{body}");
    let after = apply(&threads, &p);
    assert_eq!(counts(&plan(&after, &two()[..1])), (0, 0, 0, 1), "resolving is not repeated");
}

#[test]
fn a_finding_that_returns_reopens_its_own_thread() {
    let threads = posted(&two());
    let after = apply(&threads, &plan(&threads, &two()[..1]));
    let p = plan(&after, &two());
    assert!(p.actions.iter().any(|a| matches!(a, Action::Update { thread: 1, reopen: true, .. })), "{p:?}");
    assert_eq!(counts(&p).0, 0, "no second comment");
}

#[test]
fn an_incremental_run_never_resolves_threads_on_files_it_did_not_review() {
    let threads = posted(&two());
    let reviewed: BTreeSet<String> = ["src/a.rs".to_string()].into();
    let p = plan_sync(
        &threads,
        &candidates(&two()[..1]),
        &Options {
            cap: 15,
            reviewed: &gauntlet_publish::Reviewed::Only(reviewed.clone()),
            head: HEAD,
            dialect: Dialect::GitHub,
            dismissals: &Dismissals::default(),
        },
    );
    assert_eq!(counts(&p), (0, 0, 0, 2));
}

#[test]
fn a_dismissed_thread_keeps_its_finding_quiet() {
    let mut threads = posted(&two());
    threads[0].resolved = true;
    let p = plan_with(&threads, &two(), &resolved_by_writer(&[0]));
    assert_eq!(p.dismissed, vec![0]);
    assert_eq!(counts(&p), (0, 0, 0, 1), "no comment, no reopen, no overview entry");
    assert!(p.overview.is_empty());
}

#[test]
fn a_resolution_that_did_not_count_is_reopened_while_its_finding_stands() {
    let mut threads = posted(&two());
    threads[0].resolved = true;
    threads[0].resolved_by = Some(person("paul"));
    let p = plan(&threads, &two());
    assert!(p.dismissed.is_empty());
    assert!(
        p.actions.iter().any(|a| matches!(a, Action::Update { thread: 0, reopen: true, .. })),
        "a hidden finding is shown again: {p:?}"
    );
}

#[test]
fn a_dismissal_holds_when_the_finding_is_reworded_and_free_text_is_no_dismissal() {
    let mut threads = posted(&two());
    threads[0].replies.push(reply("alice", "Won’t fix: the buffer has a sentinel slot."));
    threads[1].replies.push(reply("alice", "/gauntlet dismiss the buffer has a sentinel slot"));
    let mut reworded = two();
    reworded[1].claim = "The loop reads one element past the end of the buffer each time it is called.".into();
    let p = plan_with(&threads, &reworded, &resolved_by_writer(&[1]));
    assert_eq!(p.dismissed, vec![1]);
    assert!(p.actions.iter().any(|a| matches!(a, Action::Leave { thread: 0, .. })), "{p:?}");
}

#[test]
fn the_cap_opens_the_most_important_first_and_lists_the_rest() {
    let many: Vec<Published> = (0..20)
        .map(|i| {
            finding(
                "src/a.rs",
                i + 1,
                &format!("line {i} code"),
                &format!("distinct problem number {i} in this file here"),
                Severity::Medium,
            )
        })
        .collect();
    let p = plan(&[], &many);
    assert_eq!(counts(&p).0, 15);
    assert_eq!(p.over_cap, 5);
    assert_eq!(p.overview, (15..20).collect::<Vec<_>>());
}

#[test]
fn duplicate_threads_left_by_an_old_bug_collapse_to_one() {
    let threads = posted(&two());
    let mut doubled = threads.clone();
    doubled.extend(threads.iter().cloned());
    let p = plan(&doubled, &two());
    assert_eq!(counts(&p), (0, 0, 2, 2));
}

#[test]
fn a_resolution_cut_short_is_finished_next_run_unless_someone_replied() {
    let threads = posted(&two());
    let mut after = apply(&threads, &plan(&threads, &two()[..1]));
    // The body says resolved but the thread is open: the run stopped between the two calls.
    after[1].resolved = false;
    let again = plan(&after, &two()[..1]);
    assert!(again.actions.iter().any(|a| matches!(a, Action::Resolve { thread: 1, .. })), "{again:?}");
    after[1].replies.push(reply("alice", "Reopened: this still happens on cold starts."));
    let replied = plan(&after, &two()[..1]);
    assert!(!replied.actions.iter().any(|a| matches!(a, Action::Resolve { .. })), "a person reopened it: {replied:?}");
}

/// The footer of every inline comment says how to dismiss it, and the commands it
/// shows are ones the dismissal rules accept, so a reader who copies them is heard.
#[test]
fn every_inline_comment_says_how_to_dismiss_it_with_commands_that_work() {
    for p in two() {
        let body = gauntlet_publish::body::inline(&p);
        let footer = body.lines().last().expect("a footer line");
        let shown: Vec<&str> = footer.split('`').skip(1).step_by(2).filter(|s| s.starts_with("/gauntlet")).collect();
        assert_eq!(shown, ["/gauntlet dismiss REASON", "/gauntlet false-positive REASON"], "{footer}");
        for command in shown {
            let parsed = gauntlet_publish::dismissal::command(command).expect("the advertised command is accepted");
            assert_eq!(parsed.reason.as_deref(), Some("REASON"), "{command}");
        }
        for other_way in ["as the first line", "resolve the thread", "thumbs-down", "write access to the repository"] {
            assert!(footer.contains(other_way), "the footer says {other_way:?}: {footer}");
        }
        assert!(footer.contains(&p.id), "the footer names the finding: {footer}");
    }
}

/// A short dismissed claim shares most of its words with many claims: a more
/// severe finding that only resembles it is raised, not silenced.
#[test]
fn a_dismissal_never_silences_a_different_finding_that_only_shares_its_words() {
    let low = finding("src/a.rs", 10, "let t = cache.get(k);", "The cache lookup can miss here.", Severity::Low);
    let mut threads = posted(std::slice::from_ref(&low));
    threads[0].resolved = true;
    let high = finding(
        "src/a.rs",
        12,
        "let user = cache.get(token).unwrap_or(admin);",
        "The cache lookup can miss here and then every caller is treated as the admin.",
        Severity::High,
    );
    assert_ne!(low.id, high.id);
    let p = plan_with(&threads, std::slice::from_ref(&high), &resolved_by_writer(&[0]));
    assert!(p.dismissed.is_empty(), "{p:?}");
    assert_eq!(counts(&p), (1, 0, 0, 0), "the new finding gets its own comment: {p:?}");
    let same = plan_with(&threads, &[low], &resolved_by_writer(&[0]));
    assert_eq!(same.dismissed, vec![0], "the dismissed finding itself stays quiet");
}
