//! The sample corpus with scripted answers in which three reviewers report every
//! known defect, each in its own words and at its own range: clustering must turn
//! them into one comment per defect without losing one, and validate each defect
//! about once.

mod support;

use gauntlet_backtest::checkout::checkout;
use gauntlet_backtest::corpus::{self, Case, Kind};
use gauntlet_backtest::report::{Meta, summarise};
use gauntlet_backtest::run::run_all;
use gauntlet_backtest::score::DEFAULT_MAX_SPAN;
use gauntlet_change::Target;
use gauntlet_review::cluster::names::in_code;
use serde_json::json;
use std::path::Path;
use support::{Script, Scripted, setup};

/// Three paraphrases of one defect, located the way reviewers tend to: the whole
/// range, the range and the line before it, the last line alone.
fn paraphrases(path: &str, start: u32, end: u32, lines: &[&str], description: &str) -> [(String, String, String); 3] {
    let at = |n: u32| lines[(n - 1) as usize].trim().to_string();
    let first = (start..=end).find(|&n| !at(n).is_empty()).unwrap_or(start);
    let last = (start..=end).rev().find(|&n| !at(n).is_empty()).unwrap_or(end);
    let names = in_code(&at(first));
    let name = names.iter().max_by_key(|n| n.len()).cloned().unwrap_or_else(|| at(first));
    let before = start.saturating_sub(1).max(1);
    [
        (format!("{path}:{start}-{end}"), format!("`{name}` is wrong here: {description}."), at(first)),
        (
            format!("{path}:{before}-{end}"),
            format!("Nothing reports the failure around `{name}`, so {description}."),
            at(first),
        ),
        (format!("{path}:{last}"), format!("A careless or hostile caller reaches `{name}`: {description}."), at(last)),
    ]
}

/// Every validator lets every claim survive.
fn survives() -> Script {
    Script {
        step: "validate",
        reviewer: None,
        contains: None,
        answer: json!({"verdict": "survives", "evidence": "the change does what the claim says", "confidence": 100, "impact": "consequential"})
            .to_string(),
    }
}

/// Answers for one case: three reviewers, each reporting every known defect.
fn scripts_for(case: &Case) -> Vec<Script> {
    let mut scripts = vec![survives()];
    if case.kind != Kind::Escape {
        return scripts;
    }
    let repo = checkout(&case.repo, &case.base, &case.head).unwrap();
    let target = Target::Range { base: case.base.clone(), head: Some(case.head.clone()) };
    let change = gauntlet_change::acquire(&repo.git, &target).unwrap();
    let mut by_reviewer: [Vec<serde_json::Value>; 3] = Default::default();
    for d in &case.defects {
        let text = change.file(&d.at.path).and_then(|f| f.head_text.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Claims stay within the contract's 300 characters.
        let description: String = d.description.chars().take(180).collect();
        let said = paraphrases(&d.at.path, d.at.start, d.at.end, &lines, &description);
        for (i, (location, claim, evidence)) in said.into_iter().enumerate() {
            by_reviewer[i].push(json!({"lens": "failure_scenario", "location": location, "claim": claim, "evidence": evidence, "severity": "high"}));
        }
    }
    for (reviewer, findings) in ["correctness", "error-handling", "security-privacy"].into_iter().zip(by_reviewer) {
        scripts.push(Script {
            step: "find",
            reviewer: Some(reviewer),
            contains: None,
            answer: json!({ "findings": findings }).to_string(),
        });
    }
    scripts
}

#[test]
fn paraphrases_from_three_reviewers_become_one_comment_per_defect_and_lose_none() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let cases = corpus::load(&dir).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // One provider per case, so a clean mirror never gets its escape's answers.
    let mut results = Vec::new();
    for case in &cases {
        let provider = Scripted::new(scripts_for(case));
        // The three scripted reviewers, named, so each runs whatever its `[when]`
        // says of the case: the test is about clustering their paraphrases.
        let mut setup = setup(provider, false, 3);
        setup.only = ["correctness", "error-handling", "security-privacy"].map(String::from).to_vec();
        results.extend(run_all(std::slice::from_ref(case), &setup, runtime.handle(), &|_| {}));
    }
    let meta = Meta {
        corpus: "sample".into(),
        provider: "scripted:fixed".into(),
        tolerance: 3,
        max_span: DEFAULT_MAX_SPAN,
        threshold: 75,
        baseline: false,
        shard: None,
        notes: Vec::new(),
    };
    let b = summarise(meta, results);

    let t = &b.gauntlet.totals;
    for c in &b.cases {
        if let Some(g) = &c.gauntlet
            && (!g.score.missed.is_empty() || !g.score.unmatched.is_empty())
        {
            eprintln!("{}: missed {:?} unmatched {:?}", c.name, g.score.missed, g.score.unmatched);
        }
    }
    eprintln!(
        "candidates {} grounded {} clustered {} published {}; caught {}/{}; comments per caught defect {:?}; \
         duplicates {}; validator sessions {} ({:?} per caught defect, {} saved)",
        b.funnel.candidates,
        b.funnel.grounded,
        b.funnel.clustered,
        b.funnel.published,
        t.caught,
        t.defects,
        t.comments_per_caught_defect,
        t.duplicates,
        b.validation.sessions,
        b.validation.per_caught_defect,
        b.validation.saved
    );
    assert_eq!(b.failed, 0, "{:?}", b.cases.iter().filter_map(|c| c.error.as_ref()).collect::<Vec<_>>());
    assert_eq!(b.funnel.grounded, b.funnel.candidates, "every scripted paraphrase grounds");
    assert_eq!(b.funnel.candidates, 3 * t.defects, "three reviewers per defect");
    assert_eq!(t.recall, Some(1.0), "no defect is lost to clustering");
    assert!(t.comments_per_caught_defect.unwrap() <= 1.1, "{:?}", t.comments_per_caught_defect);
    assert_eq!(t.false_positives, 0);
    assert!(b.validation.per_caught_defect.unwrap() <= 1.5, "{:?}", b.validation.per_caught_defect);
    let raised_by_three = b.reviewers.iter().filter(|r| r.published >= t.caught).count();
    assert_eq!(raised_by_three, 3, "each reviewer is credited with every comment it raised: {:?}", b.reviewers);
}
