//! Snapshots of the loop's rendered prompts: what each session is actually asked.

use gauntlet_loop::contract::{Addressed, Issue, Resolution, Severity, Verdict};
use gauntlet_loop::converge::Stage;
use gauntlet_loop::prompt::{self, AdversaryTurn, FixContext};
use gauntlet_loop::round::{Judge, Round, summarize};
use gauntlet_review::fence::Fence;

fn fence() -> Fence {
    Fence::fixed("DATA-0000")
}

fn round(number: u32, judge: Judge, issues: &[(Severity, &str)], addressed: Vec<Addressed>) -> Round {
    Round {
        number,
        stage: Stage::Substantive,
        addressed,
        steer: None,
        judge,
        verdict: Verdict::NeedsWork,
        issues: issues
            .iter()
            .map(|(s, d)| Issue { category: "correctness".into(), description: d.to_string(), severity: *s })
            .collect(),
        check_passed: None,
        work: None,
    }
}

#[test]
fn fix_shared_block_fences_the_finding_and_the_file() {
    let file = gauntlet_review::prompt::numbered(1, ["def last(items):", "    return items[len(items)]"]);
    let c = FixContext {
        location: "calc.py:2",
        severity: "high",
        claim: "last() indexes one past the end and always raises IndexError.",
        evidence: "return items[len(items)]",
        validator_evidence: "calc.py:2 `items[len(items)]` is out of range for every list",
        path: "calc.py",
        numbered_file: Some(&file),
    };
    insta::assert_snapshot!(prompt::fix_shared(&c, &fence()));
}

#[test]
fn primary_briefs() {
    insta::assert_snapshot!("fix_primary", prompt::fix_primary());
    insta::assert_snapshot!("refine_primary", prompt::refine_primary());
}

#[test]
fn refine_shared_block_states_the_goal_and_fences_the_document() {
    let doc = "# Importer\n\nShip it on Friday.\n";
    insta::assert_snapshot!(prompt::refine_shared("plan.md", "a plan another team can execute", doc, &fence()));
}

#[test]
fn adversary_first_round_of_an_inverted_refine() {
    let prior = summarize(&[], &[]);
    let turn = AdversaryTurn {
        number: 1,
        stage: Stage::Open,
        start: true,
        field: "document",
        prior: &prior,
        work: "# Importer\n\nShip it on Friday.\n",
        evidence: None,
    };
    insta::assert_snapshot!(prompt::adversary(&turn, &fence()));
}

#[test]
fn adversary_late_round_of_a_fix_with_history_and_a_check() {
    let fixed = |n| Addressed { issue: n, resolution: Resolution::Fixed, note: "guarded the empty list".into() };
    let mut rounds: Vec<Round> =
        (1..=5).map(|n| round(n, Judge::Adversary, &[(Severity::Major, "Empty lists still raise")], vec![])).collect();
    rounds[1].addressed = vec![fixed(1)];
    rounds.push(round(6, Judge::Gauntlet, &[(Severity::Critical, "the patch does not apply")], vec![fixed(1)]));
    let disputed = Addressed { issue: 1, resolution: Resolution::Disputed, note: "context fixed".into() };
    let prior = summarize(&rounds, &[disputed]);
    let turn = AdversaryTurn {
        number: 7,
        stage: Stage::OnlyNew,
        start: false,
        field: "patch",
        prior: &prior,
        work: "diff --git a/calc.py b/calc.py\n@@ -2 +2 @@\n-    return items[len(items)]\n+    return items[-1]\n",
        evidence: Some("command: pytest -q\nresult: exit code 1\nlast lines of output:\n1 failed"),
    };
    insta::assert_snapshot!(prompt::adversary(&turn, &fence()));
}

#[test]
fn feedback_to_the_primary() {
    let rejected =
        round(2, Judge::Gauntlet, &[(Severity::Critical, "the patch does not apply: error at calc.py:1")], vec![]);
    insta::assert_snapshot!("feedback_rejected", prompt::feedback(&rejected, "patch", None));
    let reviewed = round(3, Judge::Adversary, &[(Severity::Major, "No owner"), (Severity::Minor, "Title")], vec![]);
    insta::assert_snapshot!("feedback_steered", prompt::feedback(&reviewed, "document", Some("Focus on the rollout")));
}

#[test]
fn the_primary_is_told_the_limits_of_the_answer_it_writes() {
    // What the engine appends to each primary turn: the draft contract's bounds for
    // a patch answering a review that raised two issues.
    let schema = gauntlet_loop::contract::draft_schema("patch", 24_000, 2);
    insta::assert_snapshot!(prompt::limits(&schema));
}
