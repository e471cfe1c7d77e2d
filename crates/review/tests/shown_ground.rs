//! Grounding and the disproof check against a hand-built change and shown record.

use gauntlet_change::{Change, ChangedFile, DiffLine, FileDiff, FileStatus, Hunk, LineKind, Snapshot};
use gauntlet_review::contract::{Lens, RawFinding, Severity};
use gauntlet_review::finding::Finding;
use gauntlet_review::ground::{HeadFiles, check_disproof, ground};
use gauntlet_review::shown::Shown;
use std::collections::BTreeMap;

const A: &str = "src/a.rs";
const B: &str = "src/b.rs";

/// `src/a.rs` at head: 30 lines `let vN = compute(N);`.
fn a_text() -> String {
    (1..=30).map(|n| format!("let v{n} = compute({n});\n")).collect()
}

/// `src/b.rs` at head: 8 lines, `fn helper()` at line 5.
fn b_text() -> String {
    (1..=8).map(|n| if n == 5 { "fn helper() {}\n".to_string() } else { format!("// b{n}\n") }).collect()
}

fn dl(kind: LineKind, old: Option<u32>, new: Option<u32>, anchor: u32, text: String) -> DiffLine {
    DiffLine { kind, old, new, anchor, text }
}

/// One hunk of `src/a.rs`: old lines 10-11 (`let oldN = legacy(N);`) replaced by
/// head lines 10-12, with two context lines either side (head 8-9 and 13-14).
fn a_diff() -> FileDiff {
    let ctx =
        |old: u32, new: u32| dl(LineKind::Context, Some(old), Some(new), new, format!("let v{new} = compute({new});"));
    let mut lines = vec![ctx(8, 8), ctx(9, 9)];
    for old in 10..=11 {
        lines.push(dl(LineKind::Removed, Some(old), None, 10, format!("let old{old} = legacy({old});")));
    }
    for new in 10..=12 {
        lines.push(dl(LineKind::Added, None, Some(new), new, format!("let v{new} = compute({new});")));
    }
    lines.extend([ctx(12, 13), ctx(13, 14)]);
    let hunk = Hunk { old_start: 8, old_lines: 6, new_start: 8, new_lines: 7, header: String::new(), lines };
    FileDiff {
        old_path: Some(A.into()),
        new_path: Some(A.into()),
        status: FileStatus::Modified,
        binary: false,
        old_mode: None,
        new_mode: None,
        hunks: vec![hunk],
    }
}

fn change() -> Change {
    let file = ChangedFile { diff: a_diff(), head_text: Some(a_text()), unreadable: None };
    Change { base: "base".into(), head: "head".into(), snapshot: Snapshot::Worktree, files: vec![file] }
}

struct Head(BTreeMap<&'static str, u32>);

impl HeadFiles for Head {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.0.get(path).copied()
    }
}

fn head() -> Head {
    Head(BTreeMap::from([(A, 30), (B, 8), ("src/c.rs", 50)]))
}

/// What a finder saw: the hunks of `src/a.rs`, all of it, and all of `src/b.rs`.
fn finder_shown() -> Shown {
    let mut shown = Shown::default();
    shown.add_hunks(&change().files[0]);
    shown.add_file(A, &a_text());
    shown.add_file(B, &b_text());
    shown
}

fn raw(location: &str, evidence: &str) -> RawFinding {
    RawFinding {
        lens: Lens::FailureScenario,
        location: location.into(),
        claim: "the value overflows".into(),
        evidence: evidence.into(),
        severity: Severity::High,
    }
}

fn ground_one(location: &str, evidence: &str) -> Result<Finding, String> {
    ground(&raw(location, evidence), "correctness", &finder_shown(), &head(), &change())
}

#[test]
fn evidence_three_lines_below_the_location_is_grounded() {
    assert!(ground_one("src/a.rs:20", "let v23 = compute(23);").is_ok());
    assert!(ground_one("src/a.rs:20", "let v17 = compute(17);").is_ok());
}

#[test]
fn evidence_four_lines_away_is_ungrounded() {
    let err = ground_one("src/a.rs:20", "let v24 = compute(24);").unwrap_err();
    assert!(err.contains("not found near src/a.rs:20"), "{err}");
    assert!(ground_one("src/a.rs:20", "let v16 = compute(16);").is_err());
}

#[test]
fn slack_extends_from_both_ends_of_a_range() {
    assert!(ground_one("src/a.rs:20-22", "let v25 = compute(25);").is_ok());
    assert!(ground_one("src/a.rs:20-22", "let v26 = compute(26);").is_err());
}

#[test]
fn slack_below_line_one_saturates() {
    assert!(ground_one("src/a.rs:1", "let v1 = compute(1);\nlet v2 = compute(2);").is_ok());
}

#[test]
fn whitespace_differences_still_match() {
    assert!(ground_one("src/a.rs:20", "  let   v20 =\n\tcompute(20);   let v21").is_ok());
}

#[test]
fn multi_line_quote_must_be_consecutive_lines() {
    assert!(ground_one("src/a.rs:20", "let v20 = compute(20);\nlet v21 = compute(21);").is_ok());
    assert!(ground_one("src/a.rs:20", "let v20 = compute(20);\nlet v22 = compute(22);").is_err());
}

#[test]
fn quote_running_past_the_window_is_ungrounded() {
    let quote = "let v23 = compute(23);\nlet v24 = compute(24);";
    assert!(ground_one("src/a.rs:20", quote).is_err());
}

#[test]
fn plus_prefixed_quote_matches_the_added_lines() {
    let quote = "+let v10 = compute(10);\n+let v11 = compute(11);";
    assert!(ground_one("src/a.rs:10", quote).is_ok());
}

#[test]
fn removed_line_quote_matches_at_its_anchor() {
    assert!(ground_one("src/a.rs:10", "let old10 = legacy(10);").is_ok());
    assert!(ground_one("src/a.rs:10", "-let old10 = legacy(10);\n-let old11 = legacy(11);").is_ok());
    // Context then removed lines: consecutive on the old side only.
    assert!(ground_one("src/a.rs:10", " let v9 = compute(9);\n-let old10 = legacy(10);").is_ok());
}

#[test]
fn removed_line_quote_far_from_its_anchor_is_ungrounded() {
    assert!(ground_one("src/a.rs:20", "let old10 = legacy(10);").is_err());
}

#[test]
fn removed_line_is_not_matched_without_the_hunks_shown() {
    let mut shown = Shown::default();
    shown.add_file(A, &a_text());
    let r = raw("src/a.rs:10", "let old10 = legacy(10);");
    assert!(ground(&r, "correctness", &shown, &head(), &change()).is_err());
}

#[test]
fn quote_spanning_two_reads_of_adjacent_head_lines_matches() {
    let mut shown = Shown::default();
    shown.add_range(A, 1, &["alpha", "beta"]);
    shown.add_range(A, 3, &["gamma"]);
    shown.add_range(A, 5, &["delta"]);
    assert!(shown.contains_near(A, 2, 2, 3, "alpha beta"));
    assert!(shown.contains_near(A, 2, 2, 3, "beta gamma"), "lines 2 and 3 are adjacent head lines");
    assert!(!shown.contains_near(A, 3, 3, 3, "gamma delta"), "line 4 was never shown between them");
}

#[test]
fn a_hunks_base_side_never_joins_head_lines() {
    // Removed lines sit at their anchor (head line 10), which is not their place in the head.
    let mut shown = Shown::default();
    shown.add_hunks(&change().files[0]);
    assert!(!shown.contains_near(A, 10, 10, 3, "let v9 = compute(9); let old10 = legacy(10); let v11 = compute(11);"));
    assert!(shown.contains_near(A, 10, 10, 3, "let v9 = compute(9); let old10 = legacy(10);"));
}

#[test]
fn empty_quote_never_matches() {
    let shown = finder_shown();
    assert!(!shown.contains_near(A, 1, 30, 3, ""));
    assert!(!shown.contains_near(A, 1, 30, 3, " \n\t"));
    assert!(!shown.contains_near(A, 1, 30, 3, "+\n-"));
    assert!(ground_one("src/a.rs:20", "   ").is_err());
}

#[test]
fn quote_in_another_path_does_not_match() {
    assert!(!finder_shown().contains_near("src/c.rs", 5, 5, 3, "fn helper() {}"));
}

#[test]
fn line_near_the_end_of_a_large_file_matches() {
    let text: String = (1..=10_000).map(|n| format!("line {n}\n")).collect();
    let mut shown = Shown::default();
    shown.add_file("big.txt", &text);
    assert!(shown.contains_near("big.txt", 9_998, 9_998, 3, "line 9999 line 10000"));
    assert!(!shown.contains_near("big.txt", 9_990, 9_990, 3, "line 9999"));
}

#[test]
fn covers_is_true_only_for_shown_lines() {
    let mut shown = Shown::default();
    shown.add_range(A, 10, &["x", "y"]);
    assert!(shown.covers(A, 11, 40));
    assert!(shown.covers(A, 1, 10));
    assert!(!shown.covers(A, 12, 40));
    assert!(!shown.covers(B, 10, 11));
}

#[test]
fn line_beyond_the_end_of_the_file_is_dropped() {
    let err = ground_one("src/a.rs:31", "let v30 = compute(30);").unwrap_err();
    assert!(err.contains("beyond"), "{err}");
    assert!(ground_one("src/a.rs:29-31", "let v30 = compute(30);").is_err());
}

#[test]
fn path_not_at_head_is_dropped() {
    let err = ground_one("src/nope.rs:1", "let v1 = compute(1);").unwrap_err();
    assert_eq!(err, "src/nope.rs is not a file at head");
}

#[test]
fn unparsable_location_is_dropped() {
    let err = ground_one("src/a.rs", "let v1 = compute(1);").unwrap_err();
    assert!(err.contains("not path:LINE"), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn finding_inside_a_hunk_is_inline() {
    let f = ground_one("src/a.rs:11", "let v11 = compute(11);").unwrap();
    assert!(f.inline);
    // A range that only reaches into the hunk is inline too.
    assert!(ground_one("src/a.rs:14-17", "let v17 = compute(17);").unwrap().inline);
}

#[test]
fn finding_outside_every_hunk_is_kept_not_inline() {
    let f = ground_one("src/a.rs:25", "let v25 = compute(25);").unwrap();
    assert!(!f.inline);
    let f = ground_one("src/b.rs:5", "fn helper() {}").unwrap();
    assert!(!f.inline);
}

#[test]
fn grounded_finding_carries_the_raw_fields_and_a_line_free_id() {
    let f = ground_one("src/a.rs:20", "let v21 = compute(21);").unwrap();
    assert_eq!(f.location.to_string(), "src/a.rs:20");
    assert_eq!(f.reviewer, "correctness");
    assert_eq!(f.claim, "the value overflows");
    assert_eq!(f.severity, Severity::High);
    assert_eq!(f.id, Finding::fingerprint("correctness", A, Lens::FailureScenario, "let v21 = compute(21);"));
    let moved = ground_one("src/a.rs:22", "let v21 = compute(21);").unwrap();
    assert_eq!(f.id, moved.id);
}

#[test]
fn evidence_at_an_explicit_location_of_another_shown_file_is_grounded() {
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 `fn helper() {}`").is_ok());
    assert!(ground_one("src/a.rs:10", "src/b.rs:4 fn helper() {}").is_ok());
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 \"fn helper() {}\"").is_ok());
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 ```rust\nfn helper() {}\n```").is_ok());
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 calls `fn helper()` with no guard").is_ok());
}

#[test]
fn explicit_location_evidence_must_match_there() {
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 `fn other() {}`").is_err());
    assert!(ground_one("src/a.rs:10", "src/b.rs:1 `fn helper() {}`").is_err());
    assert!(ground_one("src/a.rs:10", "src/b.rs:5 calls `fn helper()` and `nothing()`").is_err());
}

#[test]
fn explicit_location_of_an_unshown_file_is_ungrounded() {
    assert!(ground_one("src/a.rs:10", "src/c.rs:5 `fn helper() {}`").is_err());
}

/// What a validator read: lines 38-42 of `src/x.rs`.
fn validator_shown() -> Shown {
    let mut shown = Shown::default();
    shown.add_range(
        "src/x.rs",
        38,
        &["fn parse(s: &str) -> u32 {", "    if s.is_empty() {", "        return 0;", "    }", "    s.len() as u32"],
    );
    shown
}

#[test]
fn disproof_with_a_shown_location_and_matching_quotes_is_accepted() {
    let shown = validator_shown();
    assert_eq!(check_disproof("src/x.rs:40 the guard `if s.is_empty() {` returns `0` first", &[&shown]), Ok(()));
    assert_eq!(check_disproof("src/x.rs:39-41 ```rust\nif s.is_empty() {\n    return 0;\n}\n```", &[&shown]), Ok(()));
    assert_eq!(check_disproof("`src/x.rs:40` `return  0;`", &[&shown]), Ok(()));
}

#[test]
fn disproof_without_a_location_is_rejected() {
    let err = check_disproof("the guard `if s.is_empty()` rules it out", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof cited no path:LINE location");
}

#[test]
fn disproof_citing_unshown_file_is_rejected() {
    let err = check_disproof("src/y.rs:40 `if s.is_empty()`", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof cited src/y.rs:40, which was never shown or read");
}

#[test]
fn disproof_citing_unshown_lines_is_rejected() {
    let err = check_disproof("src/x.rs:60-70 `if s.is_empty()`", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof cited src/x.rs:60-70, which was never shown or read");
}

#[test]
fn disproof_with_mismatched_quote_is_rejected() {
    let err =
        check_disproof("src/x.rs:40 `if s.is_empty()` and `caller checks len`", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof quoted `caller checks len` which does not occur near src/x.rs:40");
}

#[test]
fn disproof_quote_beyond_slack_is_rejected() {
    let err = check_disproof("src/x.rs:38 `s.len() as u32`", &[&validator_shown()]).unwrap_err();
    assert!(err.starts_with("disproof quoted `s.len() as u32`"), "{err}");
}

#[test]
fn disproof_quoting_nothing_is_rejected() {
    let err = check_disproof("src/x.rs:40 the caller always checks", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof quoted nothing from src/x.rs:40");
    let err = check_disproof("src/x.rs:40 empty `` and unclosed `if s", &[&validator_shown()]).unwrap_err();
    assert_eq!(err, "disproof quoted nothing from src/x.rs:40");
}

#[test]
fn disproof_rejection_bounds_the_echoed_quote() {
    let long = "word ".repeat(100);
    let err = check_disproof(&format!("src/x.rs:40 `{long}`"), &[&validator_shown()]).unwrap_err();
    assert!(err.len() < 200, "{err}");
    assert!(err.contains('…'));
}
