//! What a review did not cover must be impossible to miss in every format: gaps,
//! findings that could not be verified, files nobody reviewed. And only a review
//! that covered the whole change may call itself successful.

use gauntlet_report::{Format, Options, coverage, render};
use gauntlet_review::Review;
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::finding::{DropReason, Dropped};
use gauntlet_review::review::{Gap, NotReviewed, Published, SCHEMA_VERSION, Skip};
use serde_json::Value;

const PLAIN: Options = Options { verbose: false, color: false };

fn base() -> Review {
    Review {
        schema_version: SCHEMA_VERSION,
        base: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b".into(),
        head: "2c26b46b68ffc68ff99b453c1d30413413422d70".into(),
        provider: "anthropic:claude-sonnet-4-5".into(),
        rules_version: "sha256:0123456789ab".into(),
        reviewers: vec!["correctness".into()],
        find_units: 1,
        ..Review::default()
    }
}

fn validation_gap(finding: &str) -> Gap {
    Gap {
        step: "validate".into(),
        reviewer: Some("correctness".into()),
        finding: Some(finding.into()),
        message: "the answer broke the verdict contract twice: `verdict` must be survives or disproved".into(),
        failed: false,
    }
}

/// Every validator broke its contract: three gaps, one of them about a high
/// finding that was therefore never validated. Nothing is published.
fn failed_validation() -> Review {
    Review {
        gaps: vec![validation_gap("aa11"), validation_gap("bb22"), validation_gap("cc33")],
        dropped: vec![Dropped {
            reason: DropReason::NotValidated,
            detail: "the answer broke the verdict contract twice".into(),
            reviewer: "correctness".into(),
            location: "src/pay.py:12".into(),
            claim: "The refund is issued twice when the callback retries.".into(),
            severity: Severity::High,
            confidence: Some(0),
        }],
        ..base()
    }
}

fn unverified() -> Published {
    Published {
        id: "77e1aa90c3b2d415".into(),
        reviewer: "security-privacy".into(),
        raised_by: vec!["security-privacy".into()],
        lens: Lens::HiddenAssumption,
        location: "src/api/users.rs:23".into(),
        inline: true,
        claim: "The export route has no ownership check.".into(),
        evidence: ".route(\"/users/:id/export\", get(export_user))".into(),
        severity: Severity::High,
        confidence: 25,
        validator_evidence: "src/gateway.rs:4 the gateway enforces ownership.".into(),
        gap: Some("disproof cited gateway/policy.rego:12, which the validator never read".into()),
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

fn execution_successful(review: &Review) -> Value {
    json(&render(review, Format::Sarif, &PLAIN))["runs"][0]["invocations"][0]["executionSuccessful"].clone()
}

#[test]
fn rdjson_carries_a_location_less_info_diagnostic_per_gap() {
    let review = failed_validation();
    let whole = json(&render(&review, Format::Rdjson, &PLAIN));
    let diagnostics = whole["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 3, "one per gap: {whole}");
    for d in diagnostics {
        assert_eq!(d["severity"], "INFO");
        assert!(d.get("location").is_none(), "never placed on a line: {d}");
        assert_eq!(d["code"]["value"], "gauntlet/coverage-gap");
        assert!(d["message"].as_str().unwrap().contains("verdict contract twice"), "{d}");
    }
    let lines = render(&review, Format::Rdjsonl, &PLAIN);
    assert_eq!(lines.lines().count(), 3, "rdjsonl: one line per gap:\n{lines}");
    assert!(lines.lines().all(|l| json(l)["severity"] == "INFO"));
}

#[test]
fn every_machine_format_says_the_review_is_partial() {
    let review = failed_validation();
    let sarif = json(&render(&review, Format::Sarif, &PLAIN));
    let notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(json(&render(&review, Format::Json, &PLAIN))["gaps"].as_array().unwrap().len(), 3);
    let markdown = render(&review, Format::Markdown, &PLAIN);
    assert!(markdown.contains("### Coverage gaps") && markdown.contains("coverage is incomplete"), "{markdown}");
}

#[test]
fn the_stderr_summary_names_every_hole_and_is_silent_for_a_complete_review() {
    let mut review = failed_validation();
    review.unverified = vec![unverified()];
    review.not_reviewed =
        vec![NotReviewed::new("assets/logo.png", "binary"), NotReviewed::ignored("Cargo.lock", "lockfile")];
    let summary = coverage::summary(&review).expect("a partial review has a summary");
    assert!(
        summary.contains("3 coverage gaps, 1 finding that could not be verified, 1 file not reviewed"),
        "{summary}"
    );
    assert_eq!(summary.lines().count(), 1 + 3 + 1 + 1, "{summary}");
    assert!(summary.lines().all(|l| l.starts_with("gauntlet: ")), "{summary}");
    assert!(summary.contains("src/api/users.rs:23") && summary.contains("assets/logo.png (binary)"), "{summary}");
    assert!(!summary.contains("Cargo.lock"), "files the ignore lists set aside are no hole: {summary}");

    let mut complete = base();
    complete.not_reviewed = vec![NotReviewed::ignored("Cargo.lock", "lockfile")];
    assert_eq!(coverage::summary(&complete), None);
}

#[test]
fn the_summary_escapes_control_characters_from_model_text() {
    let mut review = base();
    review.unverified = vec![Published { claim: "owned\x1b[2J\rgone".into(), ..unverified() }];
    let summary = coverage::summary(&review).unwrap();
    assert!(!summary.contains('\x1b') && !summary.contains('\r'), "{summary:?}");
}

#[test]
fn sarif_execution_is_successful_only_for_a_complete_review() {
    assert_eq!(execution_successful(&base()), true, "a complete review");
    let lockfile_only = Review { not_reviewed: vec![NotReviewed::ignored("Cargo.lock", "lockfile")], ..base() };
    assert_eq!(execution_successful(&lockfile_only), true, "the ignore lists leave files out on purpose");

    let too_large = NotReviewed::new("data/dump.sql", "too large: its changes alone are ~1300000 tokens");
    let nothing_reviewed = Review { not_reviewed: vec![too_large], reviewers: Vec::new(), find_units: 0, ..base() };
    let partial: [(&str, Review); 4] = [
        ("nothing was reviewed", nothing_reviewed),
        ("a finding was never validated", failed_validation()),
        ("a disproof could not be checked", Review { unverified: vec![unverified()], ..base() }),
        ("a binary file", Review { not_reviewed: vec![NotReviewed::new("a.png", "binary")], ..base() }),
    ];
    for (what, review) in partial {
        assert_eq!(execution_successful(&review), false, "{what}");
    }
}

#[test]
fn a_rejected_disproof_is_labelled_as_such_wherever_it_is_shown() {
    let review = Review { unverified: vec![unverified()], ..base() };
    let terminal = render(&review, Format::Terminal, &PLAIN);
    assert!(terminal.contains("the validator's rejected disproof: src/gateway.rs:4"), "{terminal}");
    assert!(terminal.contains("rejected because: disproof cited"), "{terminal}");
    let markdown = render(&review, Format::Markdown, &PLAIN);
    assert!(markdown.contains("**The validator's rejected disproof:** src/gateway.rs:4"), "{markdown}");
    assert!(!markdown.contains("**Validator:**"), "{markdown}");

    // A validator's answer that stands keeps its plain label.
    let stands = Published { gap: None, validator_evidence: "no guard anywhere".into(), ..unverified() };
    let terminal = render(&Review { published: vec![stands], ..base() }, Format::Terminal, &PLAIN);
    assert!(terminal.contains("  validator: no guard anywhere"), "{terminal}");
}

#[test]
fn an_empty_range_shows_no_empty_provider_or_rules() {
    let empty = Review {
        provider: String::new(),
        rules_version: String::new(),
        reviewers: Vec::new(),
        find_units: 0,
        skipped: Some(Skip { reason: "the change is empty: nothing to review between base and head".into() }),
        ..base()
    };
    let terminal = render(&empty, Format::Terminal, &PLAIN);
    assert!(!terminal.contains("provider") && !terminal.contains("rules"), "{terminal}");
    let markdown = render(&empty, Format::Markdown, &PLAIN);
    assert!(!markdown.contains("provider") && !markdown.contains("rules"), "{markdown}");

    // What is known is still shown.
    let rules_only = Review { rules_version: "sha256:0123456789ab".into(), ..empty };
    let terminal = render(&rules_only, Format::Terminal, &PLAIN);
    assert!(terminal.contains("\nrules sha256:0123456789ab\n") && !terminal.contains("provider"), "{terminal}");
    let markdown = render(&rules_only, Format::Markdown, &PLAIN);
    assert!(markdown.contains("` · rules `sha256:0123456789ab`") && !markdown.contains("provider"), "{markdown}");
}

/// A candidate nobody could validate, alone and next to a published finding:
/// whatever else the review holds, no format may print what it prints without it.
#[test]
fn no_format_prints_a_review_with_an_undecided_candidate_as_it_prints_one_without() {
    let published = Published { gap: None, confidence: 90, ..unverified() };
    let pairs = [
        ("validation failed", base(), failed_validation()),
        ("disproof unchecked", base(), Review { unverified: vec![unverified()], ..base() }),
        (
            "beside a published finding",
            Review { published: vec![published.clone()], ..base() },
            Review { published: vec![published], ..failed_validation() },
        ),
    ];
    for (what, clean, incomplete) in &pairs {
        for format in Format::ALL {
            let (a, b) = (render(clean, format, &PLAIN), render(incomplete, format, &PLAIN));
            assert_ne!(a, b, "{what}: {format} prints the incomplete review as the clean one:\n{b}");
        }
    }
    let report = json(&render(&failed_validation(), Format::Codequality, &PLAIN));
    let entries = report.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{report}");
    assert_eq!(entries[0]["severity"], "info");
    assert_eq!(entries[0]["location"]["path"], "src/pay.py");
    assert_eq!(entries[0]["location"]["lines"]["begin"], 12);
    let description = entries[0]["description"].as_str().unwrap();
    assert!(description.contains("high finding by correctness: The refund is issued twice"), "{description}");
}
