//! The prompt-injection corpus (`crates/cli/tests/injection`) against the bodies
//! gauntlet posts: whatever hostile text a model repeats into a finding, a posted
//! comment carries it only escaped, and gauntlet's own marker is the only one a
//! later run reads.

use gauntlet_publish::body::{OverviewFacts, inline, overview};
use gauntlet_publish::{FindingMarker, OverviewMarker};
use gauntlet_review::Review;
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::review::{Gap, Published};

fn corpus() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/injection");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            let body = text.split_once('\n').unwrap().1.to_string();
            (p.file_name().unwrap().to_string_lossy().into_owned(), body)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 12);
    out
}

fn hostile_finding(text: &str) -> Published {
    Published {
        id: "f1".into(),
        reviewer: "correctness".into(),
        lens: Lens::FailureScenario,
        location: "src/app.py:4".into(),
        inline: false,
        claim: format!("Steered claim: {text}"),
        evidence: text.into(),
        severity: Severity::High,
        confidence: 100,
        validator_evidence: format!("src/app.py:4 {text}"),
        gap: Some(text.into()),
        read: vec![],
    }
}

/// The body outside fenced code blocks and code spans: where a host renders.
fn prose(md: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<usize> = None;
    for line in md.lines() {
        let ticks = line.chars().take_while(|c| *c == '`').count();
        match fence {
            Some(n) if ticks >= n && line.trim().chars().all(|c| c == '`') => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                let mut kept = String::new();
                let mut in_span = false;
                for c in line.chars() {
                    if c == '`' {
                        in_span = !in_span;
                    } else if !in_span {
                        kept.push(c);
                    }
                }
                out.push_str(&kept);
                out.push('\n');
            }
        }
    }
    out
}

fn assert_inert(prose: &str, what: &str) {
    assert!(!prose.contains('<'), "{what}: raw `<` (HTML, comments, markers):\n{prose}");
    assert!(!prose.contains("!["), "{what}: an image:\n{prose}");
    assert!(!prose.contains("://"), "{what}: a bare URL:\n{prose}");
    assert!(!prose.to_lowercase().contains("www."), "{what}: a bare www link:\n{prose}");
    let mention =
        prose.char_indices().any(|(i, c)| c == '@' && prose[i + 1..].starts_with(|n: char| n.is_alphanumeric()));
    assert!(!mention, "{what}: an @-mention that notifies:\n{prose}");
    let link = prose.match_indices("](").any(|(i, _)| i == 0 || !prose[..i].ends_with('\\'));
    assert!(!link, "{what}: a link:\n{prose}");
}

#[test]
fn inline_comments_carry_hostile_text_only_escaped_under_gauntlets_own_marker() {
    for (name, text) in corpus() {
        let body = inline(&hostile_finding(&text));
        assert_eq!(FindingMarker::parse(&body), Some(FindingMarker { id: "f1".into(), resolved: false }), "{name}");
        let after_marker = body.split_once('\n').unwrap().1;
        assert_inert(&prose(after_marker), &name);
    }
}

#[test]
fn the_overview_carries_hostile_text_only_escaped_under_gauntlets_own_marker() {
    for (name, text) in corpus() {
        let finding = hostile_finding(&text);
        let review = Review {
            unverified: vec![finding.clone()],
            gaps: vec![Gap { step: "find".into(), reviewer: None, finding: None, message: text.clone() }],
            ..Review::default()
        };
        let marker = OverviewMarker { head: "abc".into(), rules: "r".into(), config: "c".into() };
        let facts = OverviewFacts { findings: vec![&finding], notes: vec![text.clone()], ..Default::default() };
        let body = overview(&review, &marker, &facts);
        assert_eq!(OverviewMarker::parse(&body), Some(marker), "{name}");
        assert_inert(&prose(body.split_once('\n').unwrap().1), &name);
    }
}
