//! The HTML report's cases, rendered from results built by hand.

use super::*;
use crate::report::{BaselineResult, Meta, PipelineResult, summarise};
use crate::score::{Spend, StepSpend};
use gauntlet_report::weblink::Host;

const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";

fn reported(reviewer: &str, location: &str, claim: &str, raised_by: &[&str]) -> Reported {
    Reported {
        reviewer: reviewer.into(),
        location: location.into(),
        claim: claim.into(),
        raised_by: raised_by.iter().map(|r| r.to_string()).collect(),
        also_at: vec![],
    }
}

fn spend(step: &str, input: u64, billed: f64) -> Spend {
    let one =
        StepSpend { step: step.into(), calls: 2, input, output: 10, billed: Some(billed), ..StepSpend::default() };
    Spend { tokens: input + 10, cost: Some(billed), wall_ms: 1500, steps: vec![one] }
}

fn pipeline(findings: Vec<Reported>, unmatched: Vec<Reported>, missed: Vec<Missed>, defects: usize) -> PipelineResult {
    let score = CaseScore {
        published: findings.len(),
        true_positives: findings.len() - unmatched.len(),
        false_positives: unmatched.len(),
        defects,
        caught: defects - missed.len().min(defects),
        unmatched,
        missed,
        ..CaseScore::default()
    };
    PipelineResult {
        funnel: Default::default(),
        validator_sessions: Default::default(),
        score,
        spend: spend("find", 12_345, 0.0123),
        gaps: vec![],
        reviewers: vec![],
        findings,
        sweep: vec![],
        candidates_caught: 0,
        judge: None,
    }
}

fn case(
    name: &str,
    kind: Kind,
    gauntlet: PipelineResult,
    baseline: Vec<Reported>,
    base_unmatched: usize,
) -> CaseResult {
    let unmatched = baseline.iter().take(base_unmatched).cloned().collect::<Vec<_>>();
    let score = CaseScore {
        published: baseline.len(),
        false_positives: unmatched.len(),
        true_positives: baseline.len() - unmatched.len(),
        unmatched,
        ..CaseScore::default()
    };
    CaseResult {
        name: name.into(),
        kind,
        description: format!("{name} change"),
        head: HEAD.into(),
        error: None,
        gate_would_skip: None,
        gauntlet: Some(gauntlet),
        baseline: Some(BaselineResult {
            score,
            spend: spend("baseline", 4000, 0.004),
            error: None,
            judge: None,
            findings: baseline,
        }),
        confidence: None,
        fix: vec![],
        judge_spend: None,
        curation: Default::default(),
        left_out: false,
    }
}

fn report() -> crate::report::Backtest {
    let miss = |at: &str| Missed { at: at.into(), description: "changed by the later fix 1234 (Fix it)".into() };
    let hit = reported("correctness", "src/a.py:10-12", "off by one", &["correctness", "broad", "logic"]);
    let noise = reported("style", "src/a.py:40", "naming", &[]);
    let escape = pipeline(
        vec![hit.clone(), noise.clone()],
        vec![noise],
        // Six misses a miner wrote, two of them at the same lines.
        vec![
            miss("src/b.py:3-5"),
            miss("src/b.py:3-5"),
            miss("src/b.py:9"),
            miss("src/c.py:1"),
            miss("src/c.py:2"),
            miss("src/c.py:3"),
        ],
        7,
    );
    let base_noise = reported("baseline", "src/z.py:1", "baseline noise here", &[]);
    let base_hit = reported("baseline", "src/a.py:11", "baseline saw the off by one", &[]);
    let cases = vec![
        case("aaa-clean", Kind::Clean, pipeline(vec![], vec![], vec![], 0), vec![base_noise.clone()], 1),
        case("zzz-escape", Kind::Escape, escape, vec![base_noise, base_hit], 1),
    ];
    let meta = Meta {
        corpus: "c".into(),
        provider: "p".into(),
        tolerance: 3,
        max_span: crate::score::DEFAULT_MAX_SPAN,
        threshold: 75,
        baseline: true,
        shard: None,
        notes: vec![],
    };
    summarise(meta, cases)
}

fn github() -> WebRepo {
    WebRepo { host: Host::GitHub, base: "https://github.com/o/r".into() }
}

#[test]
fn escapes_come_first_in_the_contents_the_table_and_the_sections() {
    let page = crate::html::render_linked(&report(), None);
    for needle in ["href=\"#case-zzz-escape\"", "<tr data-case=\"zzz-escape\">", "id=\"case-zzz-escape\""] {
        let escape = page.find(needle).unwrap_or_else(|| panic!("{needle}: {page}"));
        let clean = page.find(&needle.replace("zzz-escape", "aaa-clean")).unwrap();
        assert!(escape < clean, "{needle}: the escape comes before the clean case");
    }
    assert!(page.contains("<nav id=\"toc\""), "a table of contents");
}

#[test]
fn marks_are_words_and_icons_and_every_miss_location_is_said_once() {
    let page = crate::html::render_linked(&report(), None);
    assert!(page.contains("<span class=\"mark\">✓ hit</span> <code>src/a.py:10-12</code>"), "{page}");
    assert!(page.contains("<span class=\"mark\">✗ false positive</span> <code>src/a.py:40</code>"), "{page}");
    assert_eq!(page.matches("changed by the later fix 1234 (Fix it)").count(), 1, "the description once: {page}");
    assert_eq!(page.matches("<code>src/b.py:3-5</code>").count(), 1, "the repeated miss once");
    for at in ["src/b.py:9", "src/c.py:1", "src/c.py:2", "src/c.py:3"] {
        assert!(page.contains(&format!("<span class=\"mark\">○ missed</span> <code>{at}</code>")), "{at}: {page}");
    }
    assert!(page.contains("○ missed 6 of 7"), "the case's outcome in words: {page}");
    assert!(page.contains("✓ silent"), "the clean case the pipeline left alone");
}

#[test]
fn every_reviewer_is_named_and_the_baseline_findings_stand_beside_them() {
    let page = crate::html::render_linked(&report(), None);
    assert!(page.contains("raised by correctness, broad, logic"), "{page}");
    let escape = page.split("id=\"case-zzz-escape\"").nth(1).unwrap();
    let baseline = escape.split("data-side=\"baseline\"").nth(1).expect("a baseline side per case");
    assert!(
        baseline.contains("<span class=\"mark\">✓ hit</span> <code>src/a.py:11</code> baseline saw the off by one")
    );
    assert!(baseline.contains("<span class=\"mark\">✗ false positive</span> <code>src/z.py:1</code>"));
}

#[test]
fn the_totals_compare_and_the_spend_is_shown_per_step_for_both_sides() {
    let page = crate::html::render_linked(&report(), None);
    assert!(page.contains("<th>change</th>"), "{page}");
    // gauntlet 1 false positive, the baseline 2: half as many.
    assert!(page.contains("<td class=\"change\">50% fewer</td>"), "{page}");
    for row in ["precision per distinct defect", "duplicate comments", "wall time (summed)"] {
        assert!(page.contains(&format!("<tr><th>{row}</th>")), "{row}");
    }
    assert!(page.contains("<p id=\"validation\">Validator sessions: 0"), "{page}");
    let spend = page.split("<table id=\"spend-by-step\">").nth(1).unwrap().split("</table>").next().unwrap();
    assert!(
        spend.contains("<td>gauntlet</td><td>find</td><td class=\"n\">4</td><td class=\"n\">24,690</td>"),
        "{spend}"
    );
    assert!(spend.contains("<td class=\"n\">$0.0246</td>"), "billed beside the tokens: {spend}");
    assert!(spend.contains("<td>baseline</td><td>baseline</td>"), "{spend}");
}

#[test]
fn with_a_web_address_commits_and_lines_link_to_the_host() {
    let page = crate::html::render_linked(&report(), Some(&github()));
    let lines =
        format!("<a href=\"https://github.com/o/r/blob/{HEAD}/src/a.py#L10-L12\"><code>src/a.py:10-12</code></a>");
    assert!(page.contains(&lines), "{page}");
    assert!(page.contains(&format!("<a href=\"https://github.com/o/r/commit/{HEAD}\"><code>0123456789ab</code></a>")));
    let mut b = report();
    b.cases.iter_mut().for_each(|c| c.head = "change".into());
    let page = crate::html::render_linked(&b, Some(&github()));
    assert!(!page.contains("https://github.com"), "a branch name of a bundle links nowhere");
}

#[test]
fn the_case_table_has_a_cell_for_every_column() {
    let b = report();
    let order = crate::report::reading_order(&b.cases);
    for c in &order {
        for with_baseline in [true, false] {
            assert_eq!(case_row(c, "a", with_baseline).len(), case_columns(with_baseline).len());
        }
    }
    let failed = CaseResult { error: Some("no bundle".into()), gauntlet: None, ..order[0].clone() };
    assert_eq!(case_row(&failed, "a", true).len(), case_columns(true).len());
    assert_eq!(status(&failed), ("failed", "⚠ failed".to_string()));
}

/// A hand-written case may name a branch as its head: a non-ASCII name whose
/// twelfth byte falls inside a character is shortened, not a crash.
#[test]
fn a_non_ascii_branch_head_is_shortened_by_characters() {
    let mut b = report();
    b.cases[0].head = "feature/xöäü-and-more".into();
    let page = crate::html::render(&b);
    assert!(page.contains("<code>feature/xöäü</code>"), "{page}");
}

/// A mined commit subject (a missed defect's description) and a claim holding
/// terminal escapes or markup reach the Markdown report, which `backtest`
/// prints to the terminal and the backtest workflow adds to the job summary.
#[test]
fn the_markdown_report_shows_control_sequences_and_markup_as_text() {
    let mut b = report();
    let g = b.cases.iter_mut().find(|c| c.name == "zzz-escape").unwrap().gauntlet.as_mut().unwrap();
    for m in &mut g.score.missed {
        m.description =
            "changed by the later fix 1234 (Fix it\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\u{1b}[2J<img src=x>)".into();
    }
    for u in &mut g.score.unmatched {
        u.claim = "naming <details><summary>open</summary>\u{1b}[8m hidden".into();
    }
    let md = crate::markdown::render(&b);
    assert!(!md.contains('\u{1b}') && !md.contains('\u{7}'), "raw control characters: {md:?}");
    assert!(!md.contains("<img") && !md.contains("<details>"), "raw markup: {md}");
    assert!(md.contains("Fix it") && md.contains("&lt;details&gt;"), "the text is still there: {md}");
}

/// A case the curation left out was not run, and did not fail: its mark says so.
#[test]
fn a_case_left_out_by_the_curation_is_marked_left_out_not_failed() {
    let mut b = report();
    let c = &mut b.cases[0];
    (c.gauntlet, c.baseline, c.left_out) = (None, None, true);
    assert_eq!(status(c), ("left-out", "– left out (unreviewed)".to_string()));
}

/// A model's location with `<` or `|` in it stays readable inside the
/// Markdown table's code span: not entity-escaped, not splitting the row.
#[test]
fn an_unmatched_location_is_shown_as_written_in_the_markdown_table() {
    let mut b = report();
    let g = b.cases.iter_mut().find(|c| c.name == "zzz-escape").unwrap().gauntlet.as_mut().unwrap();
    for u in &mut g.score.unmatched {
        u.location = "src/Vec<T>|a.rs:40".into();
    }
    let md = crate::markdown::render(&b);
    assert!(md.contains("`src/Vec<T>\\|a.rs:40`"), "{md}");
}
