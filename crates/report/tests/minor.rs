//! Findings the validator judged true but minor: every format lists each once,
//! compactly, apart from the published findings, and no format that a host turns
//! into comments or line annotations (reviewdog, Code Quality, SARIF results)
//! carries them as one.

use gauntlet_report::{Format, Options, render};
use gauntlet_review::Review;
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::review::{Funnel, Published, SCHEMA_VERSION};

const PLAIN: Options = Options { verbose: false, color: false };
const REAL: &str = "The refund is paid twice when the webhook is retried.";
const NIT: &str = "The log message says refund where it means payout.";

fn finding(id: &str, location: &str, claim: &str, severity: Severity) -> Published {
    Published {
        id: id.into(),
        reviewer: "correctness".into(),
        raised_by: vec!["correctness".into()],
        lens: Lens::FailureScenario,
        location: location.into(),
        inline: true,
        claim: claim.into(),
        evidence: "pay(order)".into(),
        severity,
        confidence: 75,
        validator_evidence: format!("{location} `pay(order)` runs on every retry"),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

/// One published finding and one minor one (listed at the capped severity).
fn review(published: bool) -> Review {
    let published: Vec<Published> =
        if published { vec![finding("aa11", "src/pay.py:12", REAL, Severity::High)] } else { Vec::new() };
    let n = published.len();
    Review {
        schema_version: SCHEMA_VERSION,
        base: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b".into(),
        head: "2c26b46b68ffc68ff99b453c1d30413413422d70".into(),
        provider: "anthropic:claude-sonnet-4-5".into(),
        rules_version: "2025.06.1".into(),
        funnel: Funnel { candidates: 2, grounded: 2, clustered: 2, survived: 2, published: n, minor: 1 },
        published,
        minor: vec![finding("bb22", "src/pay.py:30", NIT, Severity::Low)],
        ..Review::default()
    }
}

#[test]
fn the_terminal_lists_a_minor_finding_once_on_one_line_under_its_own_heading() {
    let out = render(&review(true), Format::Terminal, &PLAIN);
    assert_eq!(out.matches(NIT).count(), 1, "{out}");
    assert!(out.contains("1 minor (verified, not published: never a comment, never gating)"), "{out}");
    assert!(out.contains("  - src/pay.py:30 · low · correctness: The log message"), "{out}");
    assert!(out.contains("published 1 (+ 1 minor, listed)"), "the funnel counts it: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn markdown_lists_a_minor_finding_once_outside_the_findings_table() {
    let out = render(&review(true), Format::Markdown, &PLAIN);
    assert_eq!(out.matches(NIT).count(), 1, "{out}");
    let table_end = out.find("### Details").unwrap();
    assert!(out.find(NIT).unwrap() > table_end, "not a row of the findings table: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn json_carries_a_minor_array_and_counts_it_in_the_funnel() {
    let v: serde_json::Value = serde_json::from_str(&render(&review(true), Format::Json, &PLAIN)).unwrap();
    assert_eq!(v["published"].as_array().unwrap().len(), 1);
    assert_eq!(v["minor"].as_array().unwrap().len(), 1);
    assert_eq!((v["minor"][0]["claim"].as_str(), v["minor"][0]["severity"].as_str()), (Some(NIT), Some("low")));
    assert_eq!(v["funnel"]["minor"], 1);
}

#[test]
fn formats_a_host_turns_into_comments_or_annotations_never_carry_a_minor_finding_as_one() {
    for format in [Format::Rdjson, Format::Rdjsonl, Format::Codequality] {
        let out = render(&review(true), format, &PLAIN);
        assert!(out.contains("The refund is paid twice"), "{format:?} still carries the published finding");
        assert!(!out.contains(NIT), "{format:?} carries the minor finding: {out}");
    }
    let sarif: serde_json::Value = serde_json::from_str(&render(&review(true), Format::Sarif, &PLAIN)).unwrap();
    let run = &sarif["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 1, "only the published finding is a result");
    let notes = run["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    let minor: Vec<&serde_json::Value> = notes.iter().filter(|n| n.to_string().contains(NIT)).collect();
    assert_eq!(minor.len(), 1, "{notes:?}");
    assert_eq!(minor[0]["level"], "note");
}

#[test]
fn a_review_with_only_minor_findings_does_not_read_as_no_findings() {
    for format in [Format::Terminal, Format::Markdown] {
        let out = render(&review(false), format, &PLAIN);
        assert!(!out.contains("No findings."), "{format:?}: {out}");
        assert!(out.contains("No findings published; 1 minor finding (see below)."), "{format:?}: {out}");
    }
}
