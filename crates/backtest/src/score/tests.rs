//! Scoring on a small example checked by hand (the expected numbers are worked out
//! in the comments, not computed).

use super::*;

fn loc(text: &str) -> Location {
    Location::parse(text).unwrap()
}

fn defect(at: &str, also: &[&str], description: &str) -> Defect {
    Defect { at: loc(at), also: also.iter().map(|a| loc(a)).collect(), description: description.into() }
}

fn found(reviewer: &str, location: &str) -> Reported {
    Reported { reviewer: reviewer.into(), location: location.into(), claim: format!("claim at {location}") }
}

#[test]
fn a_finding_matches_when_every_line_is_within_tolerance_of_the_range() {
    let known = loc("a.py:41-43");
    assert!(matches(&loc("a.py:41-43"), &known, 0));
    assert!(matches(&loc("a.py:42"), &known, 0));
    assert!(!matches(&loc("a.py:44"), &known, 0), "one line past the range with no tolerance");
    assert!(matches(&loc("a.py:38"), &known, 3), "three lines before");
    assert!(matches(&loc("a.py:46"), &known, 3), "three lines after");
    assert!(!matches(&loc("a.py:37"), &known, 3), "four lines before");
    assert!(!matches(&loc("a.py:47"), &known, 3), "four lines after");
    assert!(matches(&loc("a.py:40-44"), &known, 3));
    assert!(!matches(&loc("a.py:1-200"), &known, 3), "a range covering the file has located nothing");
    assert!(!matches(&loc("b.py:42"), &known, 3), "same lines, other file");
}

/// Escape A: D1 at a.py:10-12 (also b.ts:5), D2 at a.py:30, a confirmed extra bug at a.py:50.
fn escape_a() -> (Vec<Defect>, Vec<AlsoReal>, Vec<Reported>) {
    let defects = vec![defect("a.py:10-12", &["b.ts:5"], "D1"), defect("a.py:30", &[], "D2")];
    let also_real = vec![AlsoReal { at: loc("a.py:50"), description: "extra".into() }];
    let published = vec![
        found("r1", "a.py:11"),     // TP: D1
        found("r2", "b.ts:6"),      // TP: D1 through its `also` location (1 line off)
        found("r1", "a.py:50"),     // TP: also_real
        found("r2", "a.py:20"),     // FP: 8 lines after D1, 10 before D2
        found("r3", "a.py line 9"), // FP: unscoreable location
    ];
    (defects, also_real, published)
}

#[test]
fn escape_case_counts_true_positives_also_locations_and_unscoreable_findings() {
    let (defects, also_real, published) = escape_a();
    let s = score_case(&defects, &also_real, &published, 3);
    assert_eq!((s.published, s.true_positives, s.false_positives, s.unscoreable), (5, 3, 2, 1));
    assert_eq!((s.defects, s.caught), (2, 1), "also_real is not a defect: recall is D1 of D1, D2");
    assert_eq!(s.missed, vec!["D2"]);
    let unmatched: Vec<&str> = s.unmatched.iter().map(|u| u.location.as_str()).collect();
    assert_eq!(unmatched, vec!["a.py:20", "a.py line 9"]);
    assert_eq!(s.true_positives_by_reviewer, BTreeMap::from([("r1".into(), 2), ("r2".into(), 1)]));
}

#[test]
fn two_findings_on_one_defect_are_two_true_positives_and_one_catch() {
    let defects = vec![defect("c.go:40-42", &[], "D")];
    let s = score_case(&defects, &[], &[found("r", "c.go:40"), found("s", "c.go:42")], 3);
    assert_eq!((s.true_positives, s.caught), (2, 1));
}

#[test]
fn totals_over_a_small_corpus_match_the_hand_count() {
    let (defects, also_real, published) = escape_a();
    let a = score_case(&defects, &also_real, &published, 3);
    // Escape B: c.go:44-45 is within 3 of 40-42 (TP); c.go:46 is 4 past it (FP).
    let b = score_case(&[defect("c.go:40-42", &[], "B")], &[], &[found("r", "c.go:44-45"), found("r", "c.go:46")], 3);
    let c = score_case(&[], &[], &[], 3); // clean, silent
    let d = score_case(&[], &[], &[found("r", "d.rs:3")], 3); // clean, one FP
    let t = totals([(Kind::Escape, &a), (Kind::Escape, &b), (Kind::Clean, &c), (Kind::Clean, &d)]);
    // published 5+2+0+1 = 8; TP 3+1 = 4; FP 2+1+0+1 = 4; defects 2+1 = 3; caught 1+1 = 2.
    assert_eq!((t.cases, t.published, t.true_positives, t.false_positives), (4, 8, 4, 4));
    assert_eq!(t.precision, Some(0.5));
    assert_eq!((t.defects, t.caught), (3, 2));
    assert_eq!(t.recall, Some(2.0 / 3.0));
    assert_eq!(t.fp_per_case, Some(1.0));
    assert_eq!((t.clean_cases, t.silent_clean), (2, 1));
}

#[test]
fn nothing_published_has_no_precision_rather_than_a_perfect_one() {
    let t = totals([(Kind::Clean, &score_case(&[], &[], &[], 3))]);
    assert_eq!(t.precision, None);
    assert_eq!(t.recall, None, "no known defect: recall is undefined");
    assert_eq!(t.silent_clean, 1);
}

#[test]
fn comparison_reports_fp_reduction_and_recall_change() {
    let gauntlet = Totals { false_positives: 4, recall: Some(2.0 / 3.0), precision: Some(0.5), ..Totals::default() };
    let baseline = Totals { false_positives: 16, recall: Some(1.0), precision: Some(0.2), ..Totals::default() };
    let c = compare(&gauntlet, &baseline);
    assert_eq!(c.fp_reduction, Some(0.75), "4 false positives instead of 16");
    assert!((c.recall_change.unwrap() + 1.0 / 3.0).abs() < 1e-9, "one third fewer defects caught");
    assert!((c.precision_change.unwrap() - 0.3).abs() < 1e-9);
    let silent_baseline = Totals { false_positives: 0, ..Totals::default() };
    assert_eq!(compare(&gauntlet, &silent_baseline).fp_reduction, None);
}

#[test]
fn spend_cost_is_unknown_once_any_part_is_unknown() {
    let mut s = Spend { tokens: 10, cost: Some(0.5), wall_ms: 3 };
    s.add(&Spend { tokens: 5, cost: Some(0.25), wall_ms: 4 });
    assert_eq!(s, Spend { tokens: 15, cost: Some(0.75), wall_ms: 7 });
    s.add(&Spend { tokens: 1, cost: None, wall_ms: 0 });
    assert_eq!(s.cost, None);
}
