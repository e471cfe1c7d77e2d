//! The rubber-stamp re-check and clusters: when the stricter re-check disproves a
//! cluster's representative, the next member is validated (as strictly), as on the
//! first pass, so a defect two reviewers found is not lost to one rejected wording.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::finding::DropReason;
use gauntlet_review::pipeline::{self, Input, Models, Options};
use gauntlet_review::rules::{Origin, Reviewer};
use std::collections::BTreeMap;
use std::sync::Mutex;

const BASE: &str = "def area(w, h):\n    return w * h\n\n\ndef ratio(a, b):\n    return a / b if b else 0\n\n\ndef first(items):\n    return items[0]\n";
const HEAD: &str = "def area(w, h):\n    return w + h\n\n\ndef ratio(a, b):\n    return a / b\n\n\ndef first(items):\n    return items[1]\n";

const AREA: &str = "`area` adds `w` and `h` instead of multiplying them.";
const AREA_AGAIN: &str = "`area` returns the sum of its sides, so every caller of `area` gets a wrong size.";
const RATIO: &str = "`ratio` divides by `b` without the zero check it had.";
const FIRST: &str = "`first` returns `items[1]`, the second element.";

fn finding(location: &str, claim: &str, evidence: &str, severity: &str) -> String {
    serde_json::json!({"lens": "failure_scenario", "location": location, "claim": claim, "evidence": evidence, "severity": severity})
        .to_string()
}

/// Finders: `correctness` reports three defects, `errors` one of them again in
/// its own words. Validators: everything survives at 100 on the first pass; the
/// stricter re-check disproves the representative of the `area` cluster (and, with
/// `disprove_all`, its other member too).
struct Fake {
    disprove_all: bool,
    /// The first pass answers the `area` representative with a disproof that cites
    /// a file never shown, which code cannot check (and the re-ask repeats it).
    unchecked_first: bool,
    asked: Mutex<Vec<(String, String)>>,
}

impl Fake {
    fn new(disprove_all: bool) -> Fake {
        Fake { disprove_all, unchecked_first: false, asked: Mutex::new(Vec::new()) }
    }

    fn unchecked_first() -> Fake {
        Fake { disprove_all: false, unchecked_first: true, asked: Mutex::new(Vec::new()) }
    }

    /// Which claims each step validated, in no particular order.
    fn claims(&self, step: &str) -> Vec<String> {
        let mut out: Vec<String> =
            self.asked.lock().unwrap().iter().filter(|(s, _)| s == step).map(|(_, c)| c.clone()).collect();
        out.sort();
        out
    }
}

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn model(&self) -> &str {
        "fake"
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let json = if request.step == "find" {
            let findings = match request.reviewer.as_deref() {
                Some("correctness") => vec![
                    finding("calc.py:2", AREA, "return w + h", "high"),
                    finding("calc.py:6", RATIO, "return a / b", "high"),
                    finding("calc.py:10", FIRST, "return items[1]", "medium"),
                ],
                _ => vec![finding("calc.py:1-2", AREA_AGAIN, "return w + h", "medium")],
            };
            format!(r#"{{"findings": [{}]}}"#, findings.join(","))
        } else {
            let Some(Turn::User { text }) = request.turns.first() else { panic!("a validator turn") };
            let claim = [AREA, AREA_AGAIN, RATIO, FIRST].into_iter().find(|c| text.contains(c)).expect("a known claim");
            self.asked.lock().unwrap().push((request.step.clone(), claim.to_string()));
            let disproved =
                request.step == "revalidate" && (claim == AREA || (self.disprove_all && claim == AREA_AGAIN));
            if self.unchecked_first && request.step == "validate" && claim == AREA {
                r#"{"verdict": "disproved", "evidence": "spec.py:3 `AREA_IS_A_SUM = True` says so", "confidence": 75, "impact": "consequential"}"#
                    .to_string()
            } else if disproved {
                r#"{"verdict": "disproved", "evidence": "calc.py:2 `return w + h` is what the spec of area asks for", "confidence": 75, "impact": "consequential"}"#.to_string()
            } else {
                r#"{"verdict": "survives", "evidence": "calc.py:2 `return w + h` stands", "confidence": 100, "impact": "consequential"}"#
                    .to_string()
            }
        };
        Ok(Response { json, tool_calls: Vec::new(), usage: Usage::default() })
    }
}

use gauntlet_review::pipeline::Memory as Head;

async fn run(fake: std::sync::Arc<Fake>) -> gauntlet_review::Review {
    let patch = diffy::create_patch(BASE, HEAD).to_string();
    let hunks = patch.split_once("\n@@").map(|(_, rest)| format!("@@{rest}")).unwrap();
    let diff = parse_patch(&format!("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n{hunks}"))
        .unwrap()
        .remove(0);
    let file = ChangedFile { diff, head_text: Some(HEAD.into()), unreadable: None };
    let change = Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files: vec![file] };
    let head = Head(BTreeMap::from([("calc.py".to_string(), HEAD.to_string())]));
    let reviewer = |name: &str| {
        let text = format!("+++\nname = \"{name}\"\ndescription = \"bugs\"\n+++\nLook for defects.\n");
        Reviewer::parse(&format!("{name}.md"), &text, Origin::Builtin).unwrap()
    };
    let input = Input {
        change: &change,
        reviewers: vec![reviewer("correctness"), reviewer("errors")],
        guidance: Vec::new(),
        head: &head,
        rules_version: "v".into(),
        fence: Fence::fixed("DATA-0000"),
        intent: None,
    };
    pipeline::run(&input, &Models::single(fake), &Options::default()).await
}

#[tokio::test]
async fn a_representative_the_recheck_disproves_hands_over_to_the_next_member_validated_as_strictly() {
    let fake = std::sync::Arc::new(Fake::new(false));
    let review = run(fake.clone()).await;
    assert_eq!(review.funnel.clustered, 3, "{:?}", review.dropped);
    assert_eq!(fake.claims("validate"), [AREA, FIRST, RATIO], "one first-pass session per cluster");
    assert!(review.validator_sessions.rechecked);
    assert_eq!(fake.claims("revalidate"), [AREA, AREA_AGAIN, FIRST, RATIO], "the next member, strictly");
    assert_eq!(review.validator_sessions.run, 7);
    assert_eq!(review.published.len(), 3, "{:#?}", review.dropped);
    let area = review.published.iter().find(|p| p.claim == AREA_AGAIN).expect("the next member stands");
    assert_eq!(area.raised_by, ["correctness", "errors"]);
    assert_eq!(area.severity, gauntlet_review::contract::Severity::High, "the cluster's highest");
    let disproved: Vec<&str> =
        review.dropped.iter().filter(|d| d.reason == DropReason::Disproved).map(|d| d.claim.as_str()).collect();
    assert_eq!(disproved, [AREA], "the representative is accounted for as disproved");
    assert!(review.notes.iter().any(|n| n.contains("the next member was validated as strictly")), "{:?}", review.notes);
}

#[tokio::test]
async fn a_cluster_whose_members_the_recheck_all_disproves_is_not_published() {
    let fake = std::sync::Arc::new(Fake::new(true));
    let review = run(fake.clone()).await;
    assert_eq!(fake.claims("revalidate"), [AREA, AREA_AGAIN, FIRST, RATIO]);
    assert_eq!(review.published.len(), 2, "{:#?}", review.published);
    assert!(review.published.iter().all(|p| !p.claim.contains("`area`")));
    let disproved = review.dropped.iter().filter(|d| d.reason == DropReason::Disproved).count();
    assert_eq!(disproved, 2, "both members, each once: {:#?}", review.dropped);
}

#[tokio::test]
async fn a_representative_whose_disproof_cannot_be_checked_hands_over_to_the_next_member() {
    let fake = std::sync::Arc::new(Fake::unchecked_first());
    let review = run(fake.clone()).await;
    // The representative was asked twice (the re-ask), then the next member once.
    assert_eq!(fake.claims("validate"), [AREA, AREA, AREA_AGAIN, FIRST, RATIO], "{:#?}", review.dropped);
    let area = review.published.iter().find(|p| p.claim == AREA_AGAIN).expect("the next member stands");
    assert_eq!(area.severity, gauntlet_review::contract::Severity::High, "the cluster's highest");
    let unchecked = review.dropped.iter().find(|d| d.claim == AREA).expect("the representative is accounted for");
    assert_eq!(unchecked.reason, DropReason::NotValidated);
    assert!(unchecked.detail.contains("spec.py:3") && unchecked.detail.contains("next member"), "{}", unchecked.detail);
}
