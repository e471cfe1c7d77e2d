//! The adjudicator: unit cases and properties (order independence, threshold
//! monotonicity, dedupe keeps the higher confidence, nothing disproved or with a
//! gap is ever published).

use gauntlet_review::adjudicate::{Adjudication, MINOR_SEVERITY_CAP, adjudicate, claim_overlap};
use gauntlet_review::contract::{Impact, Lens, Location, Severity, VerdictKind};
use gauntlet_review::finding::{DropReason, Finding, Judged};
use proptest::prelude::*;

fn judged(id: &str, loc: (&str, u32, u32), claim: &str, severity: Severity, confidence: u8) -> Judged {
    let (path, start, end) = loc;
    Judged {
        finding: Finding {
            id: id.into(),
            reviewer: "correctness".into(),
            lens: Lens::FailureScenario,
            location: Location { path: path.into(), start, end },
            inline: true,
            claim: claim.into(),
            evidence: format!("evidence of {id}"),
            severity,
        },
        verdict: VerdictKind::Survives,
        confidence,
        impact: Impact::Consequential,
        validator_evidence: format!("src/a.rs:{start} `x`"),
        capped: None,
        gap: None,
        read: Vec::new(),
        raised_by: vec!["correctness".into()],
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

const CLAIM: &str = "the parser panics when the input is empty";
const TWIN: &str = "The parser panics if the input is empty!";
const OTHER: &str = "the cache is never invalidated after a write";

fn ids(list: &[Judged]) -> Vec<&str> {
    list.iter().map(|j| j.finding.id.as_str()).collect()
}

#[test]
fn disproved_finding_is_dropped_with_the_validator_evidence() {
    let mut j = judged("a", ("src/a.rs", 3, 3), CLAIM, Severity::High, 100);
    j.verdict = VerdictKind::Disproved;
    j.validator_evidence = "src/a.rs:1 `if input.is_empty()` guards it".into();
    let out = adjudicate(&[j], 75);
    assert!(out.published.is_empty());
    assert_eq!(out.dropped[0].reason, DropReason::Disproved);
    assert_eq!(out.dropped[0].detail, "src/a.rs:1 `if input.is_empty()` guards it");
}

#[test]
fn survivor_under_the_threshold_is_dropped_and_at_it_published() {
    let low = judged("low", ("src/a.rs", 3, 3), CLAIM, Severity::High, 50);
    let at = judged("at", ("src/b.rs", 3, 3), CLAIM, Severity::Low, 75);
    let out = adjudicate(&[low, at], 75);
    assert_eq!(ids(&out.published), ["at"]);
    assert_eq!(out.dropped[0].reason, DropReason::BelowThreshold);
    assert_eq!(out.dropped[0].confidence, Some(50));
}

#[test]
fn high_severity_gap_is_listed_unverified_never_published() {
    let mut j = judged("gap", ("src/a.rs", 3, 3), CLAIM, Severity::High, 25);
    j.gap = Some("disproof cited src/z.rs:1, never shown".into());
    let out = adjudicate(std::slice::from_ref(&j), 75);
    assert_eq!(out.unverified, vec![j.clone()]);
    assert!(out.published.is_empty() && out.dropped.is_empty());
    // Even at a threshold it clears.
    j.confidence = 100;
    assert!(adjudicate(&[j], 0).published.is_empty());
}

#[test]
fn lower_severity_gap_is_dropped_as_unverified_disproof() {
    let mut j = judged("gap", ("src/a.rs", 3, 3), CLAIM, Severity::Medium, 25);
    j.gap = Some("disproof quoted nothing from src/a.rs:3".into());
    let out = adjudicate(&[j], 0);
    assert!(out.published.is_empty() && out.unverified.is_empty());
    assert_eq!(out.dropped[0].reason, DropReason::UnverifiedDisproof);
    assert_eq!(out.dropped[0].detail, "disproof quoted nothing from src/a.rs:3");
}

#[test]
fn a_minor_survivor_at_the_threshold_is_listed_once_as_minor_with_low_severity_and_never_published() {
    let mut minor = judged("minor", ("src/a.rs", 3, 3), CLAIM, Severity::High, 75);
    minor.impact = Impact::Minor;
    let real = judged("real", ("src/b.rs", 3, 3), OTHER, Severity::Medium, 75);
    let out = adjudicate(&[minor.clone(), real], 75);
    assert_eq!(ids(&out.published), ["real"], "the consequential survivor is published");
    assert_eq!(ids(&out.minor), ["minor"]);
    assert_eq!(out.minor[0].finding.severity, Severity::Low, "the finder said high; the validator said minor");
    assert!(out.dropped.is_empty() && out.unverified.is_empty(), "listed once, nowhere else");
    // Under the threshold it is dropped like any survivor, and the drop says why.
    minor.confidence = 50;
    let out = adjudicate(&[minor], 75);
    assert!(out.minor.is_empty());
    assert_eq!(out.dropped[0].reason, DropReason::BelowThreshold);
}

#[test]
fn a_survivor_held_to_fifty_for_reading_too_little_says_so_when_dropped() {
    let mut j = judged("held", ("src/a.rs", 3, 3), CLAIM, Severity::High, 50);
    j.capped = Some("confidence 75 held to 50: the claim rests on src/z.rs, which was never shown or read".into());
    let out = adjudicate(&[j], 75);
    assert!(out.published.is_empty());
    assert_eq!(
        out.dropped[0].detail,
        "confidence 50 is under the threshold 75 (confidence 75 held to 50: the claim rests on src/z.rs, which was \
         never shown or read)"
    );
}

#[test]
fn twin_on_overlapping_lines_keeps_the_higher_confidence() {
    let weaker = judged("weak", ("src/a.rs", 3, 6), CLAIM, Severity::High, 75);
    let stronger = judged("strong", ("src/a.rs", 5, 5), TWIN, Severity::Low, 100);
    let out = adjudicate(&[weaker, stronger], 75);
    assert_eq!(ids(&out.published), ["strong"]);
    assert_eq!(out.dropped[0].reason, DropReason::Duplicate);
    assert_eq!(out.dropped[0].detail, "twin of strong");
}

#[test]
fn equal_confidence_twins_keep_the_higher_severity() {
    let low = judged("low", ("src/a.rs", 3, 3), CLAIM, Severity::Low, 75);
    let high = judged("high", ("src/a.rs", 3, 3), TWIN, Severity::High, 75);
    assert_eq!(ids(&adjudicate(&[low, high], 75).published), ["high"]);
}

#[test]
fn similar_claims_on_disjoint_lines_or_files_are_not_twins() {
    let a = judged("a", ("src/a.rs", 3, 4), CLAIM, Severity::High, 75);
    let b = judged("b", ("src/a.rs", 5, 6), CLAIM, Severity::High, 75);
    let c = judged("c", ("src/b.rs", 3, 4), CLAIM, Severity::High, 75);
    assert_eq!(adjudicate(&[a, b, c], 75).published.len(), 3);
}

#[test]
fn different_claims_on_the_same_lines_are_not_twins() {
    let a = judged("a", ("src/a.rs", 3, 3), CLAIM, Severity::High, 75);
    let b = judged("b", ("src/a.rs", 3, 3), OTHER, Severity::High, 75);
    assert_eq!(adjudicate(&[a, b], 75).published.len(), 2);
}

#[test]
fn published_are_ranked_by_severity_weight_times_confidence() {
    let a = judged("medium100", ("src/a.rs", 1, 1), "one", Severity::Medium, 100);
    let b = judged("high75", ("src/b.rs", 1, 1), "two", Severity::High, 75);
    let c = judged("low100", ("src/c.rs", 1, 1), "three", Severity::Low, 100);
    let d = judged("high100", ("src/d.rs", 1, 1), "four", Severity::High, 100);
    let out = adjudicate(&[c, a, d, b], 75);
    assert_eq!(ids(&out.published), ["high100", "high75", "medium100", "low100"]);
}

#[test]
fn equal_scores_rank_by_the_tie_break_key() {
    let b = judged("b", ("src/b.rs", 1, 1), "one", Severity::High, 100);
    let a2 = judged("a2", ("src/a.rs", 9, 9), "two", Severity::High, 100);
    let a1 = judged("a1", ("src/a.rs", 2, 2), "three", Severity::High, 100);
    assert_eq!(ids(&adjudicate(&[b, a2, a1], 75).published), ["a1", "a2", "b"]);
}

#[test]
fn claim_overlap_ignores_case_and_punctuation() {
    assert_eq!(claim_overlap(CLAIM, TWIN), 6.0 / 7.0);
    assert_eq!(claim_overlap("Null deref in parse()", "null DEREF in parse"), 1.0);
}

#[test]
fn claim_overlap_divides_by_the_smaller_word_set() {
    let a = "alpha beta gamma delta";
    let b = "alpha beta gamma delta epsilon zeta eta theta";
    assert_eq!(claim_overlap(a, b), 1.0);
    assert_eq!(claim_overlap("alpha beta gamma omega", b), 0.75);
}

#[test]
fn short_claims_are_twins_only_when_identical_word_sets() {
    assert_eq!(claim_overlap("leaks memory", "Leaks memory."), 1.0);
    assert_eq!(claim_overlap("leaks memory", "leaks files"), 0.0);
    assert_eq!(claim_overlap("leaks memory", "leaks memory on every request"), 0.0);
    assert_eq!(claim_overlap("", "!!"), 0.0);
}

#[test]
fn claim_overlap_counts_non_ascii_letters_as_word_characters() {
    assert_eq!(claim_overlap("größe überläuft", "GRÖSSE überläuft"), 0.0);
    assert_eq!(claim_overlap("größe überläuft", "Größe überläuft"), 1.0);
}

// ---- properties -------------------------------------------------------------

const CLAIMS: [&str; 5] = [CLAIM, TWIN, OTHER, "leaks memory", "Leaks memory."];
const LEVELS: [u8; 5] = [0, 25, 50, 75, 100];

fn arb_judged() -> impl Strategy<Value = Judged> {
    (
        (0usize..4, 0usize..2, 0usize..2, 1u32..6, 0u32..3),
        (0usize..5, 0usize..3, 0usize..5, 0usize..4, any::<bool>(), any::<bool>()),
        any::<bool>(),
    )
        .prop_map(|((id, reviewer, path, start, len), (claim, sev, conf, gap, disproved, why), minor)| {
            let severity = [Severity::High, Severity::Medium, Severity::Low][sev];
            let path = ["src/a.rs", "src/b.rs"][path];
            let mut j = judged(&format!("id{id}"), (path, start, start + len), CLAIMS[claim], severity, LEVELS[conf]);
            j.finding.reviewer = ["r1", "r2"][reviewer].into();
            j.gap = (gap == 0).then(|| "disproof cited src/z.rs:1, never shown".into());
            if why {
                j.validator_evidence = "src/a.rs:1 `other`".into();
            }
            if disproved {
                j.verdict = VerdictKind::Disproved;
            }
            if minor {
                j.impact = Impact::Minor;
            }
            j
        })
}

fn arb_input() -> impl Strategy<Value = (Vec<Judged>, Vec<Judged>)> {
    prop::collection::vec(arb_judged(), 0..12).prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
}

fn twins(a: &Judged, b: &Judged) -> bool {
    a.finding.location.overlaps(&b.finding.location) && claim_overlap(&a.finding.claim, &b.finding.claim) >= 0.8
}

fn total(out: &Adjudication) -> usize {
    out.published.len() + out.minor.len() + out.unverified.len() + out.dropped.len()
}

proptest! {
    #[test]
    fn any_arrival_order_gives_the_same_adjudication((v, shuffled) in arb_input(), t in 0usize..5) {
        let (a, b) = (adjudicate(&v, LEVELS[t]), adjudicate(&shuffled, LEVELS[t]));
        prop_assert_eq!(format!("{:?}", a), format!("{:?}", b));
        prop_assert_eq!(
            serde_json::to_string(&a.dropped).unwrap(),
            serde_json::to_string(&b.dropped).unwrap()
        );
    }

    #[test]
    fn raising_the_threshold_never_adds_a_published_finding(v in prop::collection::vec(arb_judged(), 0..12), t1 in 0usize..5, t2 in 0usize..5) {
        let (lo, hi) = (LEVELS[t1.min(t2)], LEVELS[t1.max(t2)]);
        let (at_lo, at_hi) = (adjudicate(&v, lo), adjudicate(&v, hi));
        for j in &at_hi.published {
            prop_assert!(at_lo.published.contains(j), "{:?} published at {} but not at {}", j.finding.id, hi, lo);
        }
    }

    #[test]
    fn every_finding_is_accounted_for_once((v, _) in arb_input(), t in 0usize..5) {
        prop_assert_eq!(total(&adjudicate(&v, LEVELS[t])), v.len());
    }

    #[test]
    fn dedupe_never_keeps_the_lower_confidence_twin((v, _) in arb_input(), t in 0usize..5) {
        let out = adjudicate(&v, LEVELS[t]);
        for (i, a) in out.published.iter().enumerate() {
            for b in &out.published[i + 1..] {
                prop_assert!(!twins(a, b), "published twins {:?} and {:?}", a, b);
            }
        }
        for d in out.dropped.iter().filter(|d| d.reason == DropReason::Duplicate) {
            let kept_id = d.detail.strip_prefix("twin of ").unwrap();
            let path = Location::parse(&d.location).unwrap().path;
            let kept = out.published.iter().chain(&out.minor).any(|k| {
                k.finding.id == kept_id && k.finding.location.path == path && k.confidence >= d.confidence.unwrap()
            });
            prop_assert!(kept, "{:?} dropped as a twin of no higher-confidence kept finding", d);
        }
    }

    #[test]
    fn disproved_and_gap_findings_are_never_published((v, _) in arb_input(), t in 0usize..5) {
        let out = adjudicate(&v, LEVELS[t]);
        for j in &out.published {
            prop_assert_eq!(j.verdict, VerdictKind::Survives);
            prop_assert!(j.gap.is_none());
            prop_assert!(j.confidence >= LEVELS[t]);
        }
        for j in &out.unverified {
            prop_assert!(j.gap.is_some() && j.finding.severity == Severity::High && j.verdict == VerdictKind::Survives);
        }
    }

    #[test]
    fn only_consequential_survivors_are_published_and_every_verified_minor_one_is_listed(
        (v, _) in arb_input(), t in 0usize..5
    ) {
        let out = adjudicate(&v, LEVELS[t]);
        prop_assert!(out.published.iter().all(|j| j.impact == Impact::Consequential));
        for j in &out.minor {
            prop_assert_eq!(j.impact, Impact::Minor);
            prop_assert!(j.verdict == VerdictKind::Survives && j.gap.is_none() && j.confidence >= LEVELS[t]);
            prop_assert!(j.finding.severity <= MINOR_SEVERITY_CAP, "{:?} listed above the cap", j.finding.severity);
        }
        // A minor survivor at or above the threshold is listed or a twin of a kept one: never just gone.
        for j in v.iter().filter(|j| j.impact == Impact::Minor && j.verdict == VerdictKind::Survives && j.gap.is_none() && j.confidence >= LEVELS[t]) {
            let listed = out.minor.iter().any(|m| m.finding.id == j.finding.id && m.finding.claim == j.finding.claim);
            let twin = out.dropped.iter().any(|d| d.reason == DropReason::Duplicate && d.claim == j.finding.claim);
            prop_assert!(listed || twin, "{:?} neither listed nor a twin", j.finding.id);
        }
    }
}
