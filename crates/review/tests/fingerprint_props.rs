//! A finding's id is what a later push's run matches its comment by (and what
//! SARIF's `partialFingerprints` carry). Its contract: reviewer, path, lens and
//! the flagged code with whitespace collapsed; no line numbers and no claim
//! wording. So lines added or removed above a finding between pushes keep its
//! id, a reworded claim keeps it, and different flagged code makes a new one.
//!
//! The changes here go through the real diff parser, grounding and all, as a run
//! would see them push after push.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_review::contract::{Lens, RawFinding, Severity};
use gauntlet_review::finding::Finding;
use gauntlet_review::ground::{HeadFiles, ground};
use gauntlet_review::shown::Shown;
use proptest::prelude::*;

const PATH: &str = "src/page.rs";
const OLD_CODE: [&str; 3] = ["fn page(n: usize, size: usize) -> usize {", "    n / size", "}"];
const FLAGGED: &str = "    (n / size).max(1) - 1";

/// One push: the base and the head text of `src/page.rs`.
struct Push {
    head: String,
    change: Change,
}

impl HeadFiles for Push {
    fn line_count(&self, path: &str) -> Option<u32> {
        (path == PATH).then(|| self.head.lines().count() as u32)
    }
}

fn text(lines: &[String], code: &[&str]) -> String {
    lines.iter().map(String::as_str).chain(code.iter().copied()).map(|l| format!("{l}\n")).collect()
}

/// The push whose head is `prefix` then the function with `flagged` as its body,
/// against a base of `base_prefix` then the old function.
fn push(base_prefix: &[String], prefix: &[String], flagged: &str) -> Push {
    let base = text(base_prefix, &OLD_CODE);
    let head = text(prefix, &[OLD_CODE[0], flagged, OLD_CODE[2]]);
    let patch = diffy::create_patch(&base, &head).to_string();
    let body = patch.split_once("@@").map(|(_, rest)| format!("@@{rest}")).expect("the function changed");
    let diff = format!("diff --git a/{PATH} b/{PATH}\n--- a/{PATH}\n+++ b/{PATH}\n{body}");
    let file = parse_patch(&diff).expect("diffy's patch parses").remove(0);
    let file = ChangedFile { diff: file, head_text: Some(head.clone()), unreadable: None };
    let change = Change { base: "base".into(), head: "head".into(), snapshot: Snapshot::Worktree, files: vec![file] };
    Push { head, change }
}

/// Ground the finding about the flagged line (one line below the prefix).
fn finding(push: &Push, prefix_len: usize, evidence: &str, claim: &str) -> Finding {
    let mut shown = Shown::default();
    shown.add_hunks(&push.change.files[0]);
    shown.add_file(PATH, &push.head);
    let raw = RawFinding {
        lens: Lens::FailureScenario,
        location: format!("{PATH}:{}", prefix_len + 2),
        claim: claim.into(),
        evidence: evidence.into(),
        severity: Severity::High,
    };
    ground(&raw, "correctness", &shown, push, &push.change).expect("the finding is grounded")
}

/// Unrelated lines: never the function's own text.
fn lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z_ =;/]{0,24}", 0..40)
}

const CLAIM: &str = "a list shorter than one page is served as page 0";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn lines_added_or_removed_above_a_finding_keep_its_id(
        base_prefix in lines(),
        first in lines(),
        second in lines(),
    ) {
        let a = finding(&push(&base_prefix, &first, FLAGGED), first.len(), FLAGGED.trim(), CLAIM);
        let b = finding(&push(&base_prefix, &second, FLAGGED), second.len(), FLAGGED.trim(), CLAIM);
        let shift = second.len() as i64 - first.len() as i64;
        prop_assert_eq!(i64::from(b.location.start) - i64::from(a.location.start), shift);
        prop_assert_eq!(&a.id, &b.id, "moved from line {} to {}", a.location.start, b.location.start);
        prop_assert!(a.inline && b.inline, "the flagged line is changed, so both can be posted inline");
    }

    #[test]
    fn a_reworded_claim_or_reindented_evidence_keeps_the_id(prefix in lines(), claim in "[A-Za-z ,]{1,80}") {
        let p = push(&prefix, &prefix, FLAGGED);
        let a = finding(&p, prefix.len(), FLAGGED.trim(), CLAIM);
        let b = finding(&p, prefix.len(), "  (n   /\tsize).max(1)   -  1 ", &claim);
        prop_assert_eq!(a.id, b.id);
    }

    #[test]
    fn different_flagged_code_gets_a_new_id(prefix in lines(), divisor in "[a-z]{1,8}") {
        prop_assume!(divisor != "size");
        let other = format!("    (n / {divisor}).max(1) - 1");
        let a = finding(&push(&prefix, &prefix, FLAGGED), prefix.len(), FLAGGED.trim(), CLAIM);
        let b = finding(&push(&prefix, &prefix, &other), prefix.len(), other.trim(), CLAIM);
        prop_assert_ne!(a.id, b.id);
    }
}

#[test]
fn reviewer_path_and_lens_each_take_part_in_the_id() {
    let id = |reviewer, path, lens| Finding::fingerprint(reviewer, path, lens, FLAGGED);
    let base = id("correctness", PATH, Lens::FailureScenario);
    assert_ne!(base, id("security-privacy", PATH, Lens::FailureScenario));
    assert_ne!(base, id("correctness", "src/other.rs", Lens::FailureScenario));
    assert_ne!(base, id("correctness", PATH, Lens::HiddenAssumption));
}
