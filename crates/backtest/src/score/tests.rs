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
    Reported {
        reviewer: reviewer.into(),
        location: location.into(),
        claim: format!("claim at {location}"),
        ..Reported::default()
    }
}

#[test]
fn a_finding_matches_when_its_range_meets_the_widened_defect_range() {
    let known = loc("a.py:41-43");
    assert!(matches(&loc("a.py:41-43"), &known, 0));
    assert!(matches(&loc("a.py:42"), &known, 0));
    assert!(!matches(&loc("a.py:44"), &known, 0), "one line past the range with no tolerance");
    assert!(matches(&loc("a.py:38"), &known, 3), "three lines before");
    assert!(matches(&loc("a.py:46"), &known, 3), "three lines after");
    assert!(!matches(&loc("a.py:37"), &known, 3), "four lines before");
    assert!(!matches(&loc("a.py:47"), &known, 3), "four lines after");
    assert!(matches(&loc("a.py:40-44"), &known, 3));
    assert!(matches(&loc("a.py:30-41"), &known, 0), "a range that reaches into the defect");
    assert!(!matches(&loc("b.py:42"), &known, 3), "same lines, other file");
}

#[test]
fn a_finding_that_overlaps_the_defect_but_ends_past_it_is_a_hit() {
    // Scored as a false positive and a miss by the first rule, which wanted every
    // line of the finding inside the widened range.
    let defects = vec![defect("cache.py:42-50", &[], "stale read")];
    let s = score_case(&defects, &[], &[found("r", "cache.py:46-55")], 3);
    assert_eq!((s.true_positives, s.false_positives, s.caught), (1, 0, 1));
}

#[test]
fn a_finding_wider_than_the_span_cap_has_located_nothing() {
    let known = loc("a.py:100-104");
    let rule = |max_span| MatchRule { tolerance: 3, max_span };
    assert!(hits(&loc("a.py:90-114"), &known, rule(25)), "25 lines is within the cap");
    assert!(!hits(&loc("a.py:90-115"), &known, rule(25)), "26 lines is not");
    assert!(hits(&loc("a.py:90-115"), &known, rule(26)));
    assert!(!matches(&loc("a.py:1-200"), &known, 3), "a range covering the file has located nothing");
    let s = score_with(&[defect("a.py:100-104", &[], "D")], &[], &[found("r", "a.py:60-160")], rule(25));
    assert_eq!((s.false_positives, s.too_wide, s.caught), (1, 1, 0), "counted as too wide, so the cap is visible");
}

#[test]
fn a_finding_spanning_two_defects_hits_both() {
    let defects = vec![defect("a.go:10-11", &[], "D1"), defect("a.go:18", &[], "D2"), defect("a.go:60", &[], "D3")];
    let s = score_case(&defects, &[], &[found("r", "a.go:9-19")], 3);
    assert_eq!((s.true_positives, s.caught, s.defect_comments, s.duplicates), (1, 2, 1, 0));
    assert_eq!(s.missed, vec![Missed { at: "a.go:60".into(), description: "D3".into() }], "located");
}

#[test]
fn repeated_comments_on_one_defect_are_duplicates_and_raise_comments_per_caught_defect() {
    let defects = vec![defect("w.go:20-24", &[], "leak"), defect("w.go:80", &[], "bound")];
    let published = [
        found("correctness", "w.go:21"),
        found("error-handling", "w.go:24-26"), // the leak again
        found("security", "w.go:18-22"),       // and again
        found("correctness", "w.go:80"),       // the bound
        found("tests", "w.go:140"),            // nothing
    ];
    let s = score_case(&defects, &[], &published, 3);
    assert_eq!((s.published, s.true_positives, s.false_positives), (5, 4, 1));
    assert_eq!((s.caught, s.defect_comments, s.duplicates, s.distinct_hits), (2, 4, 2, 2));
    let t = totals([(Kind::Escape, &s)]);
    assert_eq!(t.precision, Some(0.8), "4 of 5 comments hit something");
    assert_eq!(t.comments_per_caught_defect, Some(2.0), "4 comments for 2 defects");
    assert_eq!(t.precision_per_defect, Some(2.0 / 3.0), "2 defects hit, 1 comment on nothing");
    assert_eq!(t.duplicates, 2);
}

#[test]
fn a_cross_file_comment_hits_through_its_other_location_and_credits_every_reviewer() {
    let defects = vec![defect("web/client.ts:4", &[], "reads a renamed key")];
    let twin = Reported {
        also_at: vec!["web/client.ts:4".into()],
        raised_by: vec!["contract-drift".into(), "correctness".into()],
        ..found("correctness", "api/users.py:4")
    };
    let s = score_case(&defects, &[], &[twin], 3);
    assert_eq!((s.true_positives, s.caught), (1, 1));
    assert_eq!(s.true_positives_by_reviewer, BTreeMap::from([("contract-drift".into(), 1), ("correctness".into(), 1)]));
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
    assert_eq!(s.missed, vec![Missed { at: "a.py:30".into(), description: "D2".into() }]);
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
    let mut s = Spend { tokens: 10, cost: Some(0.5), wall_ms: 3, ..Spend::default() };
    s.add(&Spend { tokens: 5, cost: Some(0.25), wall_ms: 4, ..Spend::default() });
    assert_eq!(s, Spend { tokens: 15, cost: Some(0.75), wall_ms: 7, ..Spend::default() });
    s.add(&Spend { tokens: 1, cost: None, wall_ms: 0, ..Spend::default() });
    assert_eq!(s.cost, None);
}

#[test]
fn spend_keeps_each_steps_raw_tokens_next_to_its_billed_cost_across_cases() {
    use gauntlet_review::cost::Prices;
    use gauntlet_review::review::StepUsage;
    let price = Prices::with_overrides(&Default::default()).get("anthropic", "claude-sonnet-4-5").unwrap();
    // One finder call: 2k uncached in, 30k read from the cache, 1k out.
    let finder = gauntlet_model::Usage { input: 2_000, output: 1_000, cache_read: 30_000, cache_write: 0 };
    // The first call of a run writes the shared block to the cache.
    let first = gauntlet_model::Usage { input: 2_000, output: 1_000, cache_read: 0, cache_write: 30_000 };
    let step = |u: &gauntlet_model::Usage| StepUsage {
        step: "find".into(),
        tier: "standard".into(),
        model: "claude-sonnet-4-5".into(),
        calls: 1,
        input: u.input + u.cache_read + u.cache_write,
        output: u.output,
        cached: u.cache_read,
        cache_write: u.cache_write,
        cost: Some(price.cost(u)),
        wall_ms: 1,
    };
    let review = |u| gauntlet_review::Review { usage: vec![step(u)], ..gauntlet_review::Review::default() };
    let mut total = Spend::of(&review(&first));
    total.add(&Spend::of(&review(&finder)));
    let find = &total.steps[0];
    assert_eq!((find.step.as_str(), find.calls, find.input, find.output), ("find", 2, 64_000, 2_000));
    assert_eq!((find.cache_read, find.cache_write), (30_000, 30_000));
    // Sonnet: $3 in, $15 out, $0.30 cache read, $3.75 cache write, per million.
    let billed = (4_000.0 * 3.0 + 2_000.0 * 15.0 + 30_000.0 * 0.30 + 30_000.0 * 3.75) / 1e6;
    assert!((find.billed.unwrap() - billed).abs() < 1e-12, "{:?} vs {billed}", find.billed);
    let raw = 64_000.0 * 3.0 / 1e6 + 2_000.0 * 15.0 / 1e6;
    assert!(find.billed.unwrap() < raw, "the cache makes the billed cost lower than the raw tokens at the input price");
    let base = Spend::of_call("baseline", &finder, Some(price.cost(&finder)), 1);
    assert_eq!((base.steps[0].step.as_str(), base.steps[0].input, base.tokens), ("baseline", 32_000, 33_000));
}

#[test]
fn misses_with_one_description_are_read_once_with_each_location_once() {
    let miss = |at: &str, d: &str| Missed { at: at.into(), description: d.into() };
    let missed =
        [miss("a.py:3-5", "fix X"), miss("a.py:9", "fix X"), miss("a.py:3-5", "fix X"), miss("b.py:1", "other")];
    assert_eq!(missed_by_description(&missed), vec![("fix X", vec!["a.py:3-5", "a.py:9"]), ("other", vec!["b.py:1"])]);
}

#[test]
fn a_report_from_before_located_misses_still_reads() {
    let old: CaseScore = serde_json::from_str(
        r#"{"published":0,"true_positives":0,"false_positives":0,
        "unscoreable":0,"too_wide":0,"defects":1,"caught":0,"defect_comments":0,"duplicates":0,
        "distinct_hits":0,"missed":["stale read"],"unmatched":[]}"#,
    )
    .unwrap();
    assert_eq!(old.missed, vec![Missed { at: String::new(), description: "stale read".into() }]);
    let new = serde_json::to_value(&CaseScore {
        missed: vec![Missed { at: "a.py:3".into(), description: "d".into() }],
        ..CaseScore::default()
    })
    .unwrap();
    assert_eq!(new["missed"][0]["at"], "a.py:3");
}
