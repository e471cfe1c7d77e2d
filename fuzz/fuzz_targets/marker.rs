//! Comment markers decide which comments on a pull request are gauntlet's own,
//! and every comment body a later run reads could have been written by anyone.
//! Three properties: parsing any body is safe; a rendered marker parses back to
//! its (cleaned) values; and model text placed in a posted body can never make
//! the body carry another marker than the one gauntlet wrote.

#![no_main]

use gauntlet_publish::body;
use gauntlet_publish::marker::{FindingMarker, OverviewMarker, strip};
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::review::Published;
use libfuzzer_sys::fuzz_target;

const ID: &str = "0123456789abcdef";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    read_any(text);
    round_trip(text);
    hostile_text_in_a_body(text);
});

/// What clean values look like: ids, commit hashes, digests, `v3+lock:…`.
fn cleaned(value: &str) -> String {
    value.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-' | '+')).collect()
}

fn read_any(text: &str) {
    if let Some(m) = FindingMarker::parse(text) {
        assert!(!m.id.is_empty());
        let first = text.trim_start_matches('\u{feff}').lines().next().unwrap_or("");
        assert!(first.contains("gauntlet:finding"), "only the first line counts");
    }
    if let Some(m) = OverviewMarker::parse(text) {
        assert!(!m.head.is_empty());
    }
    assert!(text.ends_with(strip(text)), "strip returns the tail of the body");
    let _ = body::parse(text);
}

fn round_trip(text: &str) {
    let resolved = text.len() % 2 == 1;
    let finding = FindingMarker { id: text.to_string(), resolved };
    let parsed = FindingMarker::parse(&finding.render());
    let id = cleaned(text);
    let expected = (!id.is_empty()).then_some(FindingMarker { id, resolved });
    assert_eq!(parsed, expected);

    let mut parts = text.splitn(3, '\u{0}');
    let (head, rules, config) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let overview = OverviewMarker { head: head.into(), rules: rules.into(), config: config.into() };
    let parsed = OverviewMarker::parse(&format!("{}rest of the body", overview.render()));
    let expected = (!cleaned(head).is_empty()).then(|| OverviewMarker {
        head: cleaned(head),
        rules: cleaned(rules),
        config: cleaned(config),
    });
    assert_eq!(parsed, expected);
}

fn hostile_text_in_a_body(text: &str) {
    let p = Published {
        id: ID.into(),
        reviewer: "correctness".into(),
        // Reviewer names, other locations and folded lines are posted too.
        raised_by: vec!["correctness".into(), text.into()],
        lens: Lens::FailureScenario,
        location: "src/lib.rs:3".into(),
        inline: true,
        claim: text.into(),
        evidence: text.into(),
        severity: Severity::High,
        confidence: 75,
        validator_evidence: text.into(),
        gap: None,
        read: Vec::new(),
        also_at: vec![text.into()],
        unvalidated: vec![text.into()],
    };
    let ours = Some(FindingMarker { id: ID.into(), resolved: false });
    let inline = body::inline(&p);
    assert_eq!(FindingMarker::parse(&inline), ours);
    assert_eq!(OverviewMarker::parse(&inline), None);
    assert!(!strip(&inline).starts_with("<!--"), "no second marker right after ours");
    let resolved = body::resolved(&inline, ID, "abc123");
    assert_eq!(FindingMarker::parse(&resolved), Some(FindingMarker { id: ID.into(), resolved: true }));
    // A body someone else rewrote as our resolution keeps no marker of its own.
    let again = body::resolved(text, ID, "abc123");
    assert_eq!(FindingMarker::parse(&again), Some(FindingMarker { id: ID.into(), resolved: true }));
}
