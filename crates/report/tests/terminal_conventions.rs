//! The terminal report's layout conventions: a finding's header fits a
//! 100-column terminal, an error repeated by every reviewer is said once, and a
//! price nobody knows is never shown as a dollar amount.

use gauntlet_report::{Format, Options, render};
use gauntlet_review::Review;
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::review::{Gap, Published, StepUsage};

const PLAIN: Options = Options { verbose: false, color: false };

fn finding(location: &str, raised_by: &[&str], inline: bool) -> Published {
    Published {
        id: "3f2a9c01d4e5b6a7".into(),
        reviewer: raised_by[0].into(),
        raised_by: raised_by.iter().map(|r| r.to_string()).collect(),
        lens: Lens::FailureScenario,
        location: location.into(),
        inline,
        claim: "The refund is paid twice when the callback retries.".into(),
        evidence: "pay(order.total)".into(),
        severity: Severity::Medium,
        confidence: 100,
        validator_evidence: "No guard elsewhere.".into(),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

fn gap(reviewer: &str, message: &str) -> Gap {
    Gap { step: "find".into(), reviewer: Some(reviewer.into()), finding: None, message: message.into(), failed: true }
}

fn review() -> Review {
    let long = "services/billing/src/payments/providers/stripe/webhooks/handlers/refund_callback_handler.py:1204";
    let every = ["contract-drift", "correctness", "error-handling", "security-privacy", "tests"];
    let down = "provider error: 529 overloaded (after 3 attempts)";
    Review {
        base: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b".into(),
        head: "2c26b46b68ffc68ff99b453c1d30413413422d70".into(),
        provider: "openai:my-fine-tune".into(),
        published: vec![finding(long, &every, false), finding("src/pay.py:2", &["correctness"], true)],
        gaps: vec![
            gap("correctness", down),
            gap("security-privacy", down),
            gap("correctness", down),
            gap("tests", "the answer broke the finding contract twice"),
        ],
        usage: vec![StepUsage {
            step: "find".into(),
            tier: "standard".into(),
            model: "openai:my-fine-tune".into(),
            calls: 3,
            input: 12_000,
            output: 800,
            cached: 0,
            cache_write: 0,
            cost: None,
            wall_ms: 4_200,
        }],
        ..Review::default()
    }
}

#[test]
fn terminal_conventions() {
    insta::assert_snapshot!(render(&review(), Format::Terminal, &PLAIN));
}

#[test]
fn every_finding_header_fits_100_columns_with_its_reviewers_on_the_next_line() {
    let out = render(&review(), Format::Terminal, &PLAIN);
    let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("MEDIUM")).collect();
    assert_eq!(headers.len(), 2, "{out}");
    for header in &headers {
        assert!(header.chars().count() <= 100, "{} columns: {header}", header.chars().count());
        assert!(header.contains("confidence 100") && header.ends_with("[3f2a9c01d4e5b6a7]"), "{header}");
        assert!(!header.contains("correctness"), "reviewers are not on the header: {header}");
    }
    assert!(
        headers[0].starts_with("MEDIUM …") && headers[0].contains("handler.py:1204 "),
        "the line survives the cut: {}",
        headers[0]
    );
    assert!(out.contains(
        "  raised by contract-drift, correctness, error-handling, security-privacy, tests · failure_scenario"
    ));
    // With colour on, the escapes are not columns a terminal shows.
    let coloured = render(&review(), Format::Terminal, &Options { verbose: false, color: true });
    assert_eq!(strip_escapes(&coloured), out);
}

/// `text` without its SGR escapes (`ESC [ … m`).
fn strip_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|c| *c == 'm');
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn an_error_repeated_across_reviewers_is_said_once_with_a_count() {
    let out = render(&review(), Format::Terminal, &PLAIN);
    assert_eq!(out.matches("529 overloaded").count(), 1, "{out}");
    assert!(
        out.contains(
            "  - find · reviewers correctness, security-privacy: provider error: 529 overloaded (after 3 attempts) (3 times)"
        ),
        "{out}"
    );
    assert!(out.contains("coverage gaps (4)"), "the heading still counts every gap: {out}");
    assert!(out.contains("  - find · reviewer tests: the answer broke the finding contract twice\n"), "{out}");
}

#[test]
fn markdown_and_the_stderr_summary_also_say_a_repeated_error_once() {
    let markdown = render(&review(), Format::Markdown, &PLAIN);
    assert_eq!(markdown.matches("529 overloaded").count(), 1, "{markdown}");
    assert!(markdown.contains("(3 times)"), "{markdown}");
    let summary = gauntlet_report::coverage::summary(&review()).unwrap();
    assert_eq!(summary.matches("529 overloaded").count(), 1, "{summary}");
    assert!(
        summary.contains(
            "(reviewers correctness, security-privacy): provider error: 529 overloaded (after 3 attempts) (3 times)"
        ),
        "{summary}"
    );
    assert!(
        summary.starts_with("gauntlet: the review is incomplete (4 coverage gaps"),
        "the count is of gaps: {summary}"
    );
}

#[test]
fn an_unknown_price_is_said_to_be_unknown_never_a_dollar_amount() {
    for format in [Format::Terminal, Format::Markdown] {
        let out = render(&review(), format, &PLAIN);
        assert!(!out.contains("$0.0000") && !out.contains('$'), "{format}: {out}");
        assert!(out.contains("unknown"), "{format}: {out}");
    }
}
