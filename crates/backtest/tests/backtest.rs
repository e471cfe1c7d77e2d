//! The backtest end to end on a small corpus built here as real git bundles, with a
//! scripted provider: the expected numbers are counted by hand in the comments.

mod support;

use gauntlet_backtest::corpus::{self, Kind};
use gauntlet_backtest::report::{Backtest, Meta, summarise};
use gauntlet_backtest::run::run_all;
use gauntlet_backtest::sweep::Point;
use serde_json::json;
use std::path::Path;
use support::{Script, Scripted, baseline, bundle_case, finder, finding, judged_as, setup, verdict};

const AUTH_BASE: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return doc.owner_id == user.id


def rename(doc, title):
    doc.title = title.strip()
    return doc
";
const AUTH_HEAD: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return True


def rename(doc, title):
    doc.title = title.strip()
    return doc
";
const PAGE_BASE: &str = "export function page(items, n, size) {
  const start = n * size;
  return items.slice(start, start + size);
}
";
const PAGE_HEAD: &str = "export function page(items, n, size) {
  const start = n * size;
  return items.slice(start, start + size + 1);
}
";
const NAMES_BASE: &str = "def display_name(user):\n    return user.first\n";
const NAMES_HEAD: &str = "def display_name(user):\n    return f\"{user.first} {user.last}\".strip()\n";

const REAL: &str = "Any user can delete any document: the ownership check is gone.";
const NOISE: &str = "Stripping the title loses meaningful whitespace.";
const INVENTED: &str = "Locked documents can be deleted.";
const STRIP: &str = "A user without a last name gets a trailing space.";

/// Three cases that run and one whose bundle is broken.
fn corpus(root: &Path) {
    bundle_case(
        root,
        "auth-escape",
        &[("auth.py", AUTH_BASE)],
        &[("auth.py", AUTH_HEAD)],
        "Simplify the delete check",
        "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\nkind = \"escape\"\n\
         [[defects]]\npath = \"auth.py\"\nlines = 4\ndescription = \"ownership check removed\"\n",
    );
    bundle_case(
        root,
        "page-escape",
        &[("page.js", PAGE_BASE)],
        &[("page.js", PAGE_HEAD)],
        "Fix paging",
        "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\nkind = \"escape\"\n\
         [[defects]]\npath = \"page.js\"\nlines = [3, 3]\ndescription = \"one item too many per page\"\n",
    );
    bundle_case(
        root,
        "names-clean",
        &[("names.py", NAMES_BASE)],
        &[("names.py", NAMES_HEAD)],
        // A subject the gate takes for a dependency bot: reported, reviewed anyway.
        "Bump names from 1.0.0 to 1.1.0",
        "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\nkind = \"clean\"\n",
    );
    let broken = root.join("broken-bundle");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("repo.bundle"), "this is not a bundle\n").unwrap();
    std::fs::write(
        broken.join("case.toml"),
        "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\nkind = \"clean\"\n",
    )
    .unwrap();
}

fn scripts() -> Vec<support::Script> {
    vec![
        finder(
            "correctness",
            "auth.py",
            json!([
                finding("auth.py:4", REAL, "    return True"),
                finding("auth.py:8", NOISE, "doc.title = title.strip()"),
                finding("auth.py:4", INVENTED, "if doc.locked: raise"),
            ]),
        ),
        finder(
            "correctness",
            "names.py",
            json!([finding("names.py:2", STRIP, "f\"{user.first} {user.last}\".strip()")]),
        ),
        verdict(REAL, "survives", "auth.py:4 `return True` replaced the owner comparison", 100),
        verdict(NOISE, "survives", "auth.py:8 `doc.title = title.strip()` drops whitespace", 75),
        verdict(STRIP, "disproved", "names.py:2 `.strip()` removes the trailing space", 100),
        baseline(
            "auth.py",
            json!([
                {"location": "auth.py:4", "claim": "ownership check removed"},
                {"location": "auth.py:9", "claim": "rename returns the document"},
                {"location": "somewhere in auth", "claim": "unclear"}
            ]),
        ),
        baseline("page.js", json!([{"location": "page.js:5", "claim": "page too long"}])),
        baseline(
            "names.py",
            json!([{"location": "names.py:2", "claim": "trailing space"}, {"location": "names.py:1", "claim": "None"}]),
        ),
    ]
}

fn backtest(tolerance: u32, with_baseline: bool) -> Backtest {
    backtest_of(scripts(), tolerance, with_baseline)
}

fn backtest_of(scripts: Vec<Script>, tolerance: u32, with_baseline: bool) -> Backtest {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cases = corpus::load(dir.path()).unwrap();
    let setup = setup(Scripted::new(scripts), with_baseline, tolerance);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let results = run_all(&cases, &setup, runtime.handle(), &|_| {});
    let meta = Meta {
        corpus: "test".into(),
        provider: "scripted:fixed".into(),
        tolerance,
        max_span: gauntlet_backtest::score::DEFAULT_MAX_SPAN,
        threshold: 75,
        baseline: with_baseline,
        shard: None,
        notes: Vec::new(),
    };
    summarise(meta, results)
}

#[test]
fn pipeline_precision_and_recall_on_a_hand_checked_corpus() {
    let b = backtest(3, false);
    let names: Vec<&str> = b.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["auth-escape", "broken-bundle", "names-clean", "page-escape"]);
    let t = &b.gauntlet.totals;
    // auth: REAL (TP) and NOISE (FP) published, INVENTED ungrounded; page: nothing;
    // names: STRIP disproved. Published 2, TP 1 -> precision 1/2; defects 2, caught 1.
    assert_eq!((t.cases, t.published, t.true_positives, t.false_positives), (3, 2, 1, 1));
    assert_eq!(t.precision, Some(0.5));
    assert_eq!((t.defects, t.caught, t.recall), (2, 1, Some(0.5)));
    assert_eq!(t.fp_per_case, Some(1.0 / 3.0));
    assert_eq!((t.clean_cases, t.silent_clean), (1, 1));

    let auth = b.cases.iter().find(|c| c.name == "auth-escape").unwrap().gauntlet.as_ref().unwrap();
    assert_eq!(
        (auth.funnel.candidates, auth.funnel.grounded, auth.funnel.survived, auth.funnel.published),
        (3, 2, 2, 2)
    );
    assert_eq!(auth.score.unmatched.iter().map(|u| u.claim.as_str()).collect::<Vec<_>>(), vec![NOISE]);
    let page = b.cases.iter().find(|c| c.name == "page-escape").unwrap().gauntlet.as_ref().unwrap();
    let missed: Vec<(&str, &str)> = page.score.missed.iter().map(|m| (m.at.as_str(), m.description.as_str())).collect();
    assert_eq!(missed, vec![("page.js:3", "one item too many per page")], "a miss says where the defect is");

    let correctness = b.reviewers.iter().find(|r| r.reviewer == "correctness").unwrap();
    assert_eq!((correctness.candidates, correctness.published, correctness.true_positives), (4, 2, 1));
    assert!(b.gauntlet.spend.tokens > 0, "tokens are added up");
}

#[test]
fn a_broken_bundle_fails_its_case_with_a_clear_error_and_the_rest_still_run() {
    let b = backtest(3, false);
    assert_eq!(b.failed, 1);
    let broken = b.cases.iter().find(|c| c.name == "broken-bundle").unwrap();
    let error = broken.error.as_deref().unwrap();
    assert!(error.contains("cannot read the repository") && error.contains("repo.bundle"), "{error}");
    assert!(error.contains("rebuild the bundle"), "the error says what to do: {error}");
    assert!(broken.gauntlet.is_none());
    assert_eq!(b.cases.iter().filter(|c| c.scored()).count(), 3);
}

#[test]
fn the_gate_verdict_is_reported_but_the_case_is_reviewed() {
    let b = backtest(3, false);
    let names = b.cases.iter().find(|c| c.name == "names-clean").unwrap();
    assert!(names.gate_would_skip.as_deref().unwrap().contains("automated"), "{:?}", names.gate_would_skip);
    assert!(names.gauntlet.as_ref().unwrap().funnel.candidates == 1, "reviewed despite the gate");
    assert_eq!(names.kind, Kind::Clean);
}

#[test]
fn baseline_numbers_and_ratios_side_by_side() {
    let b = backtest(3, true);
    let base = &b.baseline.as_ref().unwrap().totals;
    // auth: auth.py:4 TP; auth.py:9 FP (5 lines past the defect); "somewhere in auth"
    // is unscoreable, so FP. page: page.js:5 is 2 lines after 3, so TP. names (clean):
    // 2 FP. Published 3+1+2 = 6; TP 1+1 = 2; FP 2+0+2 = 4; both defects caught.
    assert_eq!((base.published, base.true_positives, base.false_positives), (6, 2, 4));
    assert_eq!(base.precision, Some(2.0 / 6.0));
    assert_eq!((base.caught, base.defects, base.recall), (2, 2, Some(1.0)));
    assert_eq!((base.clean_cases, base.silent_clean), (1, 0));
    let c = b.comparison.as_ref().unwrap();
    // gauntlet: 1 FP against the baseline's 4; recall 0.5 against 1.0; precision 1/2 against 1/3.
    assert_eq!(c.fp_reduction, Some(0.75));
    assert_eq!(c.recall_change, Some(-0.5));
    assert!((c.precision_change.unwrap() - (0.5 - 1.0 / 3.0)).abs() < 1e-9);
    let auth = b.cases.iter().find(|c| c.name == "auth-escape").unwrap().baseline.as_ref().unwrap();
    assert_eq!(auth.score.unscoreable, 1);
    assert!(auth.spend.tokens > 0);
}

#[test]
fn tolerance_decides_which_findings_count() {
    let b = backtest(0, true);
    let base = &b.baseline.as_ref().unwrap().totals;
    // With no tolerance page.js:5 no longer matches page.js:3: one more FP, one less catch.
    assert_eq!((base.true_positives, base.false_positives, base.caught), (1, 5, 1));
    assert_eq!(b.gauntlet.totals.true_positives, 1, "the pipeline's finding was exact");
}

#[test]
fn markdown_report_shows_totals_cases_and_unmatched_findings() {
    let b = backtest(3, true);
    let md = gauntlet_backtest::markdown::render(&b);
    assert!(md.contains("| precision per comment | 50% (1/2) | 33% (2/6) | +17 pts |"), "{md}");
    assert!(md.contains("| comments per caught defect | 1.00 (1/1) | 1.00 (2/2) |"), "{md}");
    assert!(md.contains("| duplicate comments | 0 | 0 |"), "{md}");
    assert!(md.contains("| recall | 50% (1/2) | 100% (2/2) | -50 pts |"), "{md}");
    assert!(md.contains("| false positives | 1 (0.33 per case) | 4 (1.33 per case) | 75% fewer |"), "{md}");
    let auth_row = md.lines().find(|l| l.starts_with("| auth-escape |")).unwrap();
    assert!(auth_row.contains("`auth.py:8`"), "the row lists its unmatched finding: {auth_row}");
    let broken_row = md.lines().find(|l| l.starts_with("| broken-bundle |")).unwrap();
    assert!(broken_row.contains("**failed**"), "{broken_row}");
    assert!(md.contains("page-escape: missed `page.js:3`: one item too many per page"), "located: {md}");
    // Each step's raw tokens and billed cost, for both sides (the scripted
    // provider has no price, so the cost is unknown rather than zero).
    assert!(md.contains("## Spend by step"), "{md}");
    assert!(md.contains("| side | step | calls | in | out | cache read | cache write | billed |"), "{md}");
    let find = md.lines().find(|l| l.starts_with("| gauntlet | find |")).unwrap_or_else(|| panic!("{md}"));
    assert!(find.ends_with("| 0 | 0 | unknown |"), "{find}");
    assert!(md.lines().any(|l| l.starts_with("| baseline | baseline | 3 |")), "one baseline call per case: {md}");
    // auth 3/2/2/2, names 1/1/0/0 (disproved), page nothing.
    assert!(
        md.contains("funnel over the scored cases: 4 candidates, 3 grounded, 3 clustered, 2 survived, 2 published"),
        "{md}"
    );
    assert!(md.contains("Validator sessions: 3 (3.00 per caught defect)"), "{md}");
}

#[test]
fn reviewers_from_an_external_rules_channel_join_the_built_ins() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let channel = tempfile::tempdir().unwrap();
    std::fs::create_dir(channel.path().join("rules")).unwrap();
    let rule = "+++\nname = \"house-style\"\ndescription = \"The team's own checks\"\napplies_to = [\"**/*.py\"]\n\
                tier = \"standard\"\nmax_findings = 3\nenabled = true\n+++\nLook for what the team cares about.\n";
    std::fs::write(channel.path().join("rules/house-style.md"), rule).unwrap();
    let cases = corpus::load(dir.path()).unwrap();
    let provider = Scripted::new(scripts());
    let mut setup = setup(provider.clone(), false, 3);
    setup.channel = Some(gauntlet_review::rules::Channel { dir: channel.path().to_path_buf(), tag: "v1".into() });
    let runtime = tokio::runtime::Runtime::new().unwrap();
    run_all(&cases, &setup, runtime.handle(), &|_| {});
    let seen = provider.seen.lock().unwrap();
    let house = seen.iter().filter(|(step, r)| step == "find" && r.as_deref() == Some("house-style")).count();
    assert_eq!(house, 2, "the channel's reviewer ran on the two Python cases");
}

#[test]
fn the_threshold_sweep_readjudicates_the_same_verdicts() {
    let b = backtest(3, false);
    let at = |t: u8| b.threshold_sweep.points.iter().find(|p| p.threshold == t).unwrap().clone();
    assert_eq!(b.threshold_sweep.points.iter().map(|p| p.threshold).collect::<Vec<_>>(), vec![0, 25, 50, 75, 100]);
    // At the configured 75 the sweep is the run itself.
    let t = &b.gauntlet.totals;
    let p75 = at(75);
    assert_eq!((p75.published, p75.true_positives, p75.precision, p75.recall), (2, 1, t.precision, t.recall));
    assert_eq!(p75.fp_per_case, t.fp_per_case);
    // REAL survives at 100, NOISE at 75: at 100 only REAL is published (precision 1/1,
    // no false positive); below 75 nothing more (STRIP was disproved, not under-confident).
    let p100 = at(100);
    assert_eq!((p100.published, p100.true_positives, p100.precision, p100.fp_per_case), (1, 1, Some(1.0), Some(0.0)));
    assert_eq!(p100.recall, Some(0.5));
    assert_eq!(at(0).published, 2);
    assert!(b.threshold_sweep.points.iter().all(|p| p.silent_clean_share == Some(1.0)));
    assert!(b.threshold_sweep.basis.contains("no model was asked again"));
    let md = gauntlet_backtest::markdown::render(&b);
    assert!(md.contains("| 100 | 1 | 100% | 50% | 0.00 | 100% |"), "{md}");
    assert!(md.contains("| 75 | 2 | 50% | 50% | 0.33 | 100% |"), "{md}");
}

#[test]
fn the_sweep_scores_each_threshold_as_published_and_again_with_minor_findings_counted() {
    // NOISE is true of the code, but the validator judges it minor.
    let mut scripts = scripts();
    let noise = scripts.iter().position(|s| s.step == "validate" && s.contains == Some(NOISE)).unwrap();
    scripts[noise] =
        judged_as(NOISE, "survives", "auth.py:8 `doc.title = title.strip()` drops whitespace", 75, "minor");
    let b = backtest_of(scripts, 3, false);
    let at = |points: &[Point], t: u8| points.iter().find(|p| p.threshold == t).unwrap().clone();
    let (published, with_minor) = (&b.threshold_sweep.points, &b.threshold_sweep.with_minor);
    assert_eq!(with_minor.iter().map(|p| p.threshold).collect::<Vec<_>>(), vec![0, 25, 50, 75, 100]);
    // As published, the minor survivor is not a false positive: precision 1/1 at 75.
    let p75 = at(published, 75);
    assert_eq!((p75.published, p75.true_positives, p75.precision), (1, 1, Some(1.0)));
    assert_eq!(b.gauntlet.totals.precision, p75.precision, "at the configured threshold the sweep is the run");
    // Counted as published it is one, exactly as before impact was asked.
    let m75 = at(with_minor, 75);
    assert_eq!((m75.published, m75.true_positives, m75.precision), (2, 1, Some(0.5)));
    assert_eq!(at(with_minor, 100), at(published, 100), "nothing minor at 100");
    let md = gauntlet_backtest::markdown::render(&b);
    assert!(md.contains("counting the survivors the validator judged minor as published too"), "{md}");
    assert!(md.contains("| 75 | 2 | 50% | 50% | 0.33 | 100% |"), "{md}");
    assert!(md.contains("| 75 | 1 | 100% | 50% | 0.00 | 100% |"), "{md}");
    // A minor survivor is still a candidate its reviewer raised: the noise table counts it.
    let candidates = |b: &Backtest| b.reviewers.iter().map(|r| (r.reviewer.clone(), r.candidates)).collect::<Vec<_>>();
    assert_eq!(candidates(&b), candidates(&backtest(3, false)));
    let html = gauntlet_backtest::html::render(&b);
    let minor_table = &html[html.find("<table id=\"sweep-minor-table\">").expect("the HTML page shows it too")..];
    assert!(minor_table.contains("<tr><td>75</td><td>2</td><td>50%</td>"), "{minor_table}");
}

/// A mined escape can be the very commit that added a secret (its fix took it out):
/// the key must reach no model, not the pipeline's sessions, not the baseline, not
/// the stated intent (the commit message names it too).
#[test]
fn a_secret_the_case_adds_reaches_no_request() {
    const KEY: &str = "AKIAQWERTYUIOPASDFGH";
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "import os\n\nREGION = \"eu-west-1\"\nACCESS_KEY = \"{KEY}\"\n\n\ndef client():\n    return connect(REGION, ACCESS_KEY)\n"
    );
    let caller = "from config import client\n\n\ndef upload(data):\n    return client().put(data)\n";
    bundle_case(
        dir.path(),
        "key-added",
        &[("config.py", "import os\n\nREGION = \"eu-west-1\"\n"), ("upload.py", caller)],
        &[("config.py", config.as_str())],
        &format!("Connect with the deploy key {KEY}"),
        "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\nkind = \"escape\"\n\
         [[defects]]\npath = \"config.py\"\nlines = 4\ndescription = \"a key in the code\"\n",
    );
    let cases = corpus::load(dir.path()).unwrap();
    let provider = Scripted::new(Vec::new());
    let setup = setup(provider.clone(), true, 3);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let results = run_all(&cases, &setup, runtime.handle(), &|_| {});
    assert!(results[0].error.is_none(), "{:?}", results[0].error);
    let texts = provider.texts.lock().unwrap();
    assert!(texts.iter().any(|t| t.contains("ACCESS_KEY")), "the change was reviewed");
    assert!(texts.iter().any(|t| t.contains("Connect with the deploy key")), "the intent was sent");
    for text in texts.iter() {
        assert!(!text.contains(KEY), "a request holds the key:\n{text}");
    }
}
