//! The loop engine with a scripted provider, on the refine task (no I/O): every
//! exit reason, session isolation, escalation, the prior-rounds summary, the
//! inverted flow, budgets and steering.

mod support;

use gauntlet_loop::converge::ExitReason;
use gauntlet_loop::engine::{Flow, Outcome, Settings, Steer, Steering, run};
use gauntlet_loop::meter::Meter;
use gauntlet_loop::refine::Refine;
use gauntlet_loop::round::Round;
use gauntlet_model::{Tier, Turn};
use gauntlet_review::cost::Prices;
use gauntlet_review::fence::Fence;
use gauntlet_review::pipeline::{Budget, Models};
use std::sync::{Arc, Mutex};
use support::{Scripted, approved, critique, last_user, text_of, work};

const ORIGINAL: &str = "# Plan\n\nShip the importer on Friday.\n";

fn task() -> Refine {
    Refine::new("plan.md", "a plan another team can execute", ORIGINAL, Fence::fixed("DATA-0000")).unwrap()
}

fn settings(rounds: u32, flow: Flow) -> Settings {
    Settings { rounds, flow, tier: Tier::Standard }
}

async fn run_with(
    provider: &Arc<Scripted>,
    rounds: u32,
    flow: Flow,
    budget: Budget,
    steer: Option<&dyn Steer>,
) -> Outcome {
    let meter = Meter::new(Models::single(provider.clone()), Prices::default(), budget);
    run(&task(), &settings(rounds, flow), &meter, steer).await
}

fn drafts(n: usize) -> Vec<String> {
    (1..=n).map(|i| work("document", &format!("# Plan v{i}"), if i > 1 { &[1] } else { &[] })).collect()
}

fn adversary_turns(p: &Scripted) -> Vec<String> {
    p.seen_step("adversary").iter().map(last_user).collect()
}

#[tokio::test]
async fn approval_ends_the_loop_and_keeps_the_approved_draft() {
    let p = Scripted::new();
    p.script("primary", None, drafts(2));
    p.script(
        "adversary",
        None,
        vec![critique("needs_work", &[("major", "No owner is named for the rollout")]), approved()],
    );
    let out = run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::Approved);
    assert_eq!(out.rounds.len(), 2);
    assert_eq!(out.work(), Some("# Plan v2"));
    assert!(out.open_issues().is_empty());
    assert_eq!(out.spent.calls, 4);
}

#[tokio::test]
async fn only_minor_issues_end_the_loop() {
    let p = Scripted::new();
    p.script("primary", None, drafts(1));
    p.script("adversary", None, vec![critique("needs_work", &[("minor", "The heading could be more specific")])]);
    let out = run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::OnlyMinor);
    assert_eq!(out.work(), Some("# Plan v1"));
    assert_eq!(out.open_issues().len(), 1, "the minor remark is reported as open");
}

const A: &str = "The plan never says who approves the release before Friday";
const A_AGAIN: &str = "Nobody is named who approves the release before Friday, the plan never says";
const B: &str = "There is no rollback step if the importer corrupts customer records";
const C: &str = "The data volume is not estimated so the Friday date cannot be checked";

#[tokio::test]
async fn a_loop_that_only_repeats_itself_after_half_the_rounds_is_stale() {
    let p = Scripted::new();
    p.script("primary", None, drafts(6));
    p.script(
        "adversary",
        None,
        vec![
            critique("needs_work", &[("major", A)]),
            critique("needs_work", &[("major", B)]),
            critique("needs_work", &[("major", A_AGAIN)]), // round 3 = N/2: too early to call stale
            critique("needs_work", &[("critical", C), ("major", A_AGAIN)]), // a new issue keeps it going
            critique("needs_work", &[("major", A_AGAIN), ("critical", B)]),
        ],
    );
    let out = run_with(&p, 6, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::Stale);
    assert_eq!(out.rounds.len(), 5);
    assert!(!out.exit.converged());
}

#[tokio::test]
async fn the_round_cap_keeps_the_best_draft() {
    let p = Scripted::new();
    p.script("primary", None, drafts(3));
    p.script(
        "adversary",
        None,
        vec![
            critique("needs_work", &[("major", A), ("major", B)]),
            critique("needs_work", &[("major", C)]),
            critique("needs_work", &[("critical", "The importer deletes rows it cannot parse without telling anyone")]),
        ],
    );
    let out = run_with(&p, 3, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::RoundCap);
    assert_eq!(out.rounds.len(), 3);
    assert_eq!(out.kept, Some(2), "round 2 had the fewest serious issues");
    assert_eq!(out.work(), Some("# Plan v2"));
    assert_eq!(out.open_issues().len(), 1);
}

#[tokio::test]
async fn the_primary_keeps_its_conversation_and_each_adversary_starts_fresh() {
    let p = Scripted::new();
    p.script("primary", None, drafts(3));
    p.script(
        "adversary",
        None,
        vec![critique("needs_work", &[("major", A)]), critique("needs_work", &[("major", B)]), approved()],
    );
    run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    let primary = p.seen_step("primary");
    assert_eq!(primary.iter().map(|r| r.turns.len()).collect::<Vec<_>>(), vec![1, 3, 5]);
    assert!(last_user(&primary[1]).contains(A), "round 1's issues reach the primary");
    assert!(matches!(&primary[2].turns[1], Turn::Assistant { text, .. } if text.contains("# Plan v1")));
    let adversary = p.seen_step("adversary");
    assert!(adversary.iter().all(|r| r.turns.len() == 1), "a fresh session every round");
    assert!(text_of(&adversary[2]).contains("# Plan v3"));
    assert!(!text_of(&adversary[2]).contains("# Plan v2"), "it judges the current draft only");
    assert_eq!(primary[0].shared, adversary[0].shared, "both share the cacheable task block");
}

#[tokio::test]
async fn the_adversary_brief_escalates_at_round_two_and_at_half_the_cap() {
    let p = Scripted::new();
    p.script("primary", None, drafts(6));
    let issues = [A, B, C, "Step four has no owner", "The schedule ignores the freeze", "No metric says it worked"];
    p.script("adversary", None, issues.iter().map(|i| critique("needs_work", &[("major", i)])).collect());
    let out = run_with(&p, 6, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::RoundCap);
    let turns = adversary_turns(&p);
    let open = |t: &String| t.contains("This is the first review: raise every issue");
    let substantive = |t: &String| t.contains("Raise substantive issues only");
    let only_new = |t: &String| t.contains("Raise only issues that were not raised before");
    assert!(open(&turns[0]) && !substantive(&turns[0]));
    assert!(substantive(&turns[1]) && !open(&turns[1]) && !only_new(&turns[1]));
    assert!(turns[2..].iter().all(only_new), "from round N/2 = 3 on, only new issues");
}

#[tokio::test]
async fn the_adversary_sees_five_rounds_in_detail_and_older_ones_in_short() {
    let p = Scripted::new();
    p.script("primary", None, drafts(7));
    let issues = [
        A,
        B,
        C,
        "Step four has no owner",
        "The schedule ignores the freeze",
        "No metric says it worked",
        "Support was never told",
    ];
    p.script("adversary", None, issues.iter().map(|i| critique("needs_work", &[("major", i)])).collect());
    let out = run_with(&p, 7, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::RoundCap, "{:?}", out.message);
    let seventh = &adversary_turns(&p)[6];
    assert!(seventh.contains("Rounds 1 to 1, in short: 0 critical, 1 major and 0 minor issues; 1 fixed"), "{seventh}");
    for n in 2..=6 {
        assert!(seventh.contains(&format!("Round {n}: needs_work")), "round {n} in detail");
    }
    assert!(!seventh.contains("Round 1: needs_work"));
    assert!(seventh.contains("The primary's answer: fixed: dealt with"));
}

#[tokio::test]
async fn the_inverted_flow_lets_the_adversary_judge_the_original_first() {
    let p = Scripted::new();
    p.script("primary", None, drafts(1));
    p.script("adversary", None, vec![critique("needs_work", &[("major", A)]), approved()]);
    let out = run_with(&p, 10, Flow::Inverted, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::Approved);
    let seen = p.seen();
    assert_eq!(seen.iter().map(|r| r.step.as_str()).collect::<Vec<_>>(), vec!["adversary", "primary", "adversary"]);
    let first = last_user(&seen[0]);
    assert!(first.contains("as it stands before any revision") && first.contains("Ship the importer on Friday"));
    let primary = last_user(&seen[1]);
    assert!(primary.contains("You are the primary") && primary.contains(A), "the brief and the findings together");
    assert_eq!(out.work(), Some("# Plan v1"));
}

#[tokio::test]
async fn a_second_contract_violation_fails_the_loop_loudly() {
    let p = Scripted::new();
    p.script("primary", None, drafts(1));
    p.script("adversary", None, vec![r#"{"verdict":"lgtm","issues":[]}"#.into(), "Looks good to me!".into()]);
    let out = run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.exit, ExitReason::Failed);
    assert!(out.message.as_deref().unwrap().contains("twice"), "{:?}", out.message);
    assert_eq!(p.seen_step("adversary").len(), 2, "re-asked exactly once");
    assert_eq!(out.kept, None, "no draft was ever judged");
}

#[tokio::test]
async fn an_exhausted_budget_stops_the_loop_and_keeps_the_best_work() {
    let p = Scripted::new();
    p.script("primary", None, drafts(3));
    p.script("adversary", None, vec![critique("needs_work", &[("major", A)])]);
    let budget = Budget { max_calls: Some(3), ..Budget::default() };
    let out = run_with(&p, 10, Flow::Standard, budget, None).await;
    assert_eq!(out.exit, ExitReason::Budget);
    assert!(out.message.as_deref().unwrap().contains("3 model calls"));
    assert_eq!(out.work(), Some("# Plan v1"));
    assert_eq!(out.spent.calls, 3);
}

/// A user at the keyboard, answering from a list.
struct User(Mutex<Vec<Steering>>);

impl Steer for User {
    fn between(&self, _round: &Round) -> Steering {
        let mut answers = self.0.lock().unwrap();
        if answers.is_empty() { Steering::Continue } else { answers.remove(0) }
    }
}

#[tokio::test]
async fn a_steer_reaches_the_primary_and_accepting_keeps_the_current_draft() {
    let p = Scripted::new();
    p.script("primary", None, drafts(3));
    p.script("adversary", None, vec![critique("needs_work", &[("major", A)]), critique("needs_work", &[("major", B)])]);
    let user = User(Mutex::new(vec![Steering::Steer("Focus on the data migration".into()), Steering::Accept]));
    let out = run_with(&p, 10, Flow::Standard, Budget::default(), Some(&user)).await;
    assert_eq!(out.exit, ExitReason::Accepted);
    assert!(out.exit.converged());
    assert_eq!(out.rounds.len(), 2);
    assert_eq!(out.work(), Some("# Plan v2"));
    let second = last_user(&p.seen_step("primary")[1]);
    assert!(second.contains("Focus on the data migration") && second.contains(A));
    assert_eq!(out.rounds[1].steer.as_deref(), Some("Focus on the data migration"));
}

#[tokio::test]
async fn a_revision_may_grow_but_not_without_bound() {
    let p = Scripted::new();
    p.script("primary", None, drafts(1));
    p.script("adversary", None, vec![approved()]);
    run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    let req = &p.seen_step("primary")[0];
    let max = req.schema.as_ref().unwrap().json["properties"]["document"]["maxLength"].as_u64().unwrap();
    assert_eq!(max as usize, 2 * ORIGINAL.len() + 4_000);
    assert!(req.max_tokens < 4_000, "the answer allowance follows the document: {}", req.max_tokens);
}

#[tokio::test]
async fn every_limit_of_both_contracts_is_stated_in_the_prompt_that_answers_it() {
    use gauntlet_loop::contract::{CATEGORY_MAX, DESCRIPTION_MAX, MAX_ISSUES, NOTE_MAX, critique_schema, draft_schema};
    use gauntlet_loop::engine::Task;
    use gauntlet_review::limits::in_words;
    let p = Scripted::new();
    p.script("primary", None, drafts(2));
    p.script(
        "adversary",
        None,
        vec![critique("needs_work", &[("major", "No owner is named"), ("major", "No rollback step")]), approved()],
    );
    let out = run_with(&p, 10, Flow::Standard, Budget::default(), None).await;
    assert_eq!(out.rounds.len(), 2);
    let chars = task().limit().chars;

    // The adversary answers the critique contract: each of its turns states it all.
    let stated = in_words(&critique_schema());
    assert!(stated.len() >= 5, "verdict, issues, category, description, severity: {stated:?}");
    for turn in adversary_turns(&p) {
        for line in &stated {
            assert!(turn.contains(line.as_str()), "the adversary prompt lacks {line:?}");
        }
    }
    let words = stated.join("\n");
    for (field, n) in [("category", CATEGORY_MAX), ("description", DESCRIPTION_MAX)] {
        assert!(words.contains(&format!("`issues[].{field}`: at most {n} characters")), "{words}");
    }
    assert!(words.contains(&format!("`issues`: at most {MAX_ISSUES} entries")), "{words}");

    // The primary answers the draft contract, whose bounds follow the round: each
    // turn states the bounds of the schema that very answer is checked against.
    let primary: Vec<String> = p.seen_step("primary").iter().map(last_user).collect();
    assert_eq!(primary.len(), 2);
    for (turn, raised) in primary.iter().zip([0, 2]) {
        let stated = in_words(&draft_schema("document", chars, raised));
        for line in &stated {
            assert!(turn.contains(line.as_str()), "turn answering {raised} issues lacks {line:?}:\n{turn}");
        }
    }
    assert!(primary[0].contains(&format!("`document`: at most {chars} characters")));
    assert!(primary[1].contains(&format!("`addressed[].note`: at most {NOTE_MAX} characters")));
    assert!(primary[1].contains("`addressed[].issue`: exactly one of `1`, `2`"), "{}", primary[1]);
}
