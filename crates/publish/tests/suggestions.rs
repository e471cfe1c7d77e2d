//! Reviewed fixes in planned comments (`gauntlet ci --suggest`): where the
//! comment goes, what block it carries on each host, and what a re-run does.

mod common;

use common::*;
use gauntlet_publish::plan::{Action, Options};
use gauntlet_publish::{
    Anchor, Candidate, Dialect, Dismissals, Plan, ReviewedFix, Suggestion, Thread, Unsuitable, plan_sync,
};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;

const CLAIM: &str = "The parser returns None on an empty line and the caller dereferences it.";

fn one() -> Published {
    finding("src/a.rs", 12, "let v = parse(line);", CLAIM, Severity::High)
}

/// A converged fix that replaces head lines 12..=14 of `src/a.rs`.
fn fix(converged: bool, fit: Result<(), Unsuitable>) -> ReviewedFix {
    let anchor = Anchor { path: "src/a.rs".into(), old_path: "src/a.rs".into(), start: 12, line: 14, old_line: None };
    let lines = vec!["let v = parse(line)?;".to_string(), "let w = v + 1;".into(), "use_it(w);".into()];
    ReviewedFix {
        patch: "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -12,1 +12,1 @@\n-let v = parse(line);\n+let v = parse(line)?;\n"
            .into(),
        converged,
        rounds: 2,
        exit: if converged { "approved" } else { "round cap" }.into(),
        fit: fit.map(|()| Suggestion { anchor, lines, changed: 1 }),
    }
}

fn plan(threads: &[Thread], p: &Published, fix: Option<ReviewedFix>, dialect: Dialect) -> Plan {
    let candidates = vec![Candidate { finding: p, anchor: Some(anchor(p)), fix }];
    plan_sync(
        threads,
        &candidates,
        &Options {
            cap: 15,
            reviewed: &gauntlet_publish::Reviewed::All,
            head: HEAD,
            dialect,
            dismissals: &Dismissals::default(),
        },
    )
}

fn created(plan: &Plan) -> (Anchor, String) {
    match &plan.actions[..] {
        [Action::Create { anchor, body, .. }] => (anchor.clone(), body.clone()),
        other => panic!("expected one new comment, got {other:?}"),
    }
}

#[test]
fn on_github_a_fitting_fix_moves_the_comment_onto_the_lines_its_suggestion_replaces() {
    let p = one();
    let (anchor, body) = created(&plan(&[], &p, Some(fix(true, Ok(()))), Dialect::GitHub));
    assert_eq!((anchor.start, anchor.line), (12, 14), "start_line..line cover the replaced block");
    assert!(
        body.contains("```suggestion\nlet v = parse(line)?;\nlet w = v + 1;\nuse_it(w);\n```\n"),
        "the block holds the replacement lines exactly:\n{body}"
    );
    assert!(body.contains("approved after 2 rounds"), "{body}");
    assert!(body.contains(&p.id), "the finding's marker and footer stay");
}

#[test]
fn on_gitlab_the_suggestion_counts_its_lines_from_the_commented_line() {
    let p = one();
    let (anchor, body) = created(&plan(&[], &p, Some(fix(true, Ok(()))), Dialect::GitLab));
    assert_eq!(anchor.line, 14);
    assert!(body.contains("```suggestion:-2+0\nlet v = parse(line)?;\n"), "{body}");
}

#[test]
fn azure_devops_gets_the_reviewed_patch_as_a_labelled_diff_on_the_findings_line() {
    let p = one();
    let (anchor, body) = created(&plan(&[], &p, Some(fix(true, Ok(()))), Dialect::Plain));
    assert_eq!((anchor.start, anchor.line), (12, 12));
    assert!(body.contains("Proposed fix, reviewed") && body.contains("```diff\n--- a/src/a.rs"), "{body}");
    assert!(!body.contains("```suggestion"), "{body}");
}

#[test]
fn an_unconverged_fix_is_mentioned_without_its_patch() {
    let p = one();
    let (anchor, body) = created(&plan(&[], &p, Some(fix(false, Ok(()))), Dialect::GitHub));
    assert_eq!((anchor.start, anchor.line), (12, 12));
    assert!(body.contains("did not survive adversarial review (round cap after 2 rounds)"), "{body}");
    assert!(!body.contains("```suggestion") && !body.contains("parse(line)?"), "{body}");
}

#[test]
fn a_converged_fix_that_does_not_fit_is_described_with_its_reason_and_patch() {
    let p = one();
    let (anchor, body) = created(&plan(&[], &p, Some(fix(true, Err(Unsuitable::TooLarge(8)))), Dialect::GitHub));
    assert_eq!((anchor.start, anchor.line), (12, 12));
    assert!(body.contains("A reviewed fix is available") && body.contains("changes 8 lines"), "{body}");
    assert!(body.contains("```diff\n") && !body.contains("```suggestion"), "{body}");
}

#[test]
fn a_rerun_leaves_the_first_comment_alone_whatever_the_fix_now_is() {
    let p = one();
    let first = plan(&[], &p, Some(fix(true, Ok(()))), Dialect::GitHub);
    let threads = apply(&[], &first);
    for again in [Some(fix(true, Ok(()))), Some(fix(false, Ok(()))), None] {
        let rerun = plan(&threads, &p, again, Dialect::GitHub);
        assert_eq!(counts(&rerun), (0, 0, 0, 1), "no duplicate, no edit: {rerun:?}");
    }
    let plain = apply(&[], &plan(&[], &p, None, Dialect::GitHub));
    let later = plan(&plain, &p, Some(fix(true, Ok(()))), Dialect::GitHub);
    assert_eq!(counts(&later), (0, 0, 0, 1), "a comment without a fix keeps its first body too");
}

#[test]
fn an_edited_comment_describes_its_fix_but_never_suggests_on_lines_it_cannot_move() {
    let p = one();
    let threads = apply(&[], &plan(&[], &p, None, Dialect::GitHub));
    let changed = Published { severity: Severity::Medium, ..one() };
    let rerun = plan(&threads, &changed, Some(fix(true, Ok(()))), Dialect::GitHub);
    match &rerun.actions[..] {
        [Action::Update { body, .. }] => {
            assert!(!body.contains("```suggestion"), "{body}");
            assert!(body.contains("A reviewed fix is available") && body.contains("opened before the fix"), "{body}");
        }
        other => panic!("expected an update, got {other:?}"),
    }
}
