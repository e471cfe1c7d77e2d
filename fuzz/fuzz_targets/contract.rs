//! Model answers are hostile input: a model can be steered by the code it reads.
//! Every input goes through each contract parser (the finder's, the validator's,
//! the loop's adversary and primary) and the location parser. What a parser
//! accepts must honour the contract's bounds, and must survive being written
//! back out and parsed again unchanged.

#![no_main]

use gauntlet_loop::contract as loop_contract;
use gauntlet_review::contract::{
    self, CLAIM_MAX, CONFIDENCE_LEVELS, EVIDENCE_MAX, LOCATION_MAX, Location, VERDICT_EVIDENCE_MAX,
};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    findings(text);
    verdict(text);
    critique(text);
    for raised in [0, 3] {
        draft(text, raised);
    }
    location(text);
});

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn findings(text: &str) {
    let Ok(found) = contract::parse_findings(text) else {
        return;
    };
    for f in &found {
        assert!(Location::parse(&f.location).is_some(), "accepted location {:?}", f.location);
        assert!(chars(&f.location) <= LOCATION_MAX);
        assert!(!f.claim.trim().is_empty() && chars(&f.claim) <= CLAIM_MAX);
        assert!(!f.evidence.trim().is_empty() && chars(&f.evidence) <= EVIDENCE_MAX);
    }
    let again = contract::parse_findings(&json!({ "findings": found }).to_string());
    assert_eq!(again.as_ref(), Ok(&found), "findings survive a round trip");
}

fn verdict(text: &str) {
    let Ok(v) = contract::parse_verdict(text) else {
        return;
    };
    assert!(CONFIDENCE_LEVELS.contains(&v.confidence));
    assert!(!v.evidence.trim().is_empty() && chars(&v.evidence) <= VERDICT_EVIDENCE_MAX);
    let again = contract::parse_verdict(&serde_json::to_string(&v).unwrap());
    assert_eq!(again.as_ref(), Ok(&v), "a verdict survives a round trip");
}

fn critique(text: &str) {
    let Ok(c) = loop_contract::parse_critique(text) else {
        return;
    };
    assert!(c.issues.len() <= loop_contract::MAX_ISSUES);
    match c.verdict {
        loop_contract::Verdict::NeedsWork => assert!(!c.issues.is_empty()),
        loop_contract::Verdict::Approved => assert!(c.issues.iter().all(|i| !i.severity.is_substantive())),
    }
    let again = loop_contract::parse_critique(&serde_json::to_string(&c).unwrap());
    assert_eq!(again.as_ref(), Ok(&c), "a critique survives a round trip");
}

fn draft(text: &str, raised: usize) {
    let Ok(d) = loop_contract::parse_draft(text, "patch", 10_000, raised) else {
        return;
    };
    assert!(chars(&d.work) <= 10_000);
    for a in &d.addressed {
        assert!(a.issue >= 1 && a.issue as usize <= raised, "issue {} of {raised}", a.issue);
        assert!(!a.note.trim().is_empty() && chars(&a.note) <= loop_contract::NOTE_MAX);
    }
    let written = json!({ "patch": d.work, "addressed": d.addressed }).to_string();
    let again = loop_contract::parse_draft(&written, "patch", 10_000, raised);
    assert_eq!(again.as_ref(), Ok(&d), "a draft survives a round trip");
}

fn location(text: &str) {
    if let Some(loc) = Location::parse(text) {
        assert!(!loc.path.is_empty() && loc.start >= 1 && loc.end >= loc.start);
        assert_eq!(Location::parse(&loc.to_string()).as_ref(), Some(&loc), "a location survives a round trip");
    }
    if let Some((loc, rest)) = Location::parse_prefix(text) {
        assert!(text.ends_with(rest), "the rest is the tail of the text");
        assert!(loc.start >= 1);
    }
}
