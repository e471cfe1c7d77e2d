//! What `backtest mine` counts as a defect fix and as a defect line, one small
//! repository each: fixes of words (comments, docstrings, messages, typos) are no
//! defect fixes, version bumps and test suites are never blamed, blame walks past
//! commits that only renamed or re-wrapped a line, and ports get confidence C.

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::mine::{self, Confidence, Options};
use gauntlet_change::git::Git;
use history::commit;
use std::path::Path;

fn mined(dir: &Path, options: &Options) -> mine::Mined {
    mine::mine(&Git::at(dir), options).expect("mining works")
}

fn start(dir: &Path) {
    history::git(dir, &["init", "-q", "-b", "main"], 0);
    commit(dir, 0, "Start", &[("README.md", Some("# shop\n"))]);
}

fn no_clean() -> Options {
    Options { clean_ratio: 0.0, ..Options::default() }
}

type Row = (String, Confidence, Vec<(String, u32, u32)>);

fn rows(m: &mine::Mined) -> Vec<Row> {
    m.escapes.iter().map(|e| (e.head.clone(), e.confidence, e.defects.clone())).collect()
}

fn skipped(m: &mine::Mined, reason: &str) -> usize {
    m.summary.skipped.get(reason).copied().unwrap_or(0)
}

const PROSE_ONLY: &str = "the fix changes only comments, docstrings, string literals or layout";

const REFUND: &str = "def refund(order, amount):
    \"\"\"Gives back part of an order, wich must be paid.\"\"\"
    if amount > order.total:
        raise ValueError('refund larger then the order',
                         amount)
    return order.total - amount + 1
";

#[test]
fn a_fix_of_a_docstring_and_a_message_is_no_defect_fix_and_a_mixed_fix_blames_only_its_code() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let added = commit(d, 1, "Add refunds", &[("src/refund.py", Some(REFUND))]);
    // Another commit rewrites the docstring: were docstring lines blamed, the mixed
    // fix below would split over two commits.
    let doc = REFUND.replace("wich must be paid", "which must be paid");
    commit(d, 5, "Say what a refund needs", &[("src/refund.py", Some(&doc))]);
    let words = doc.replace("larger then", "larger than");
    commit(d, 200, "Fix the refund error message", &[("src/refund.py", Some(&words))]);
    let mixed = words.replace("Gives back part", "Gives back some").replace("amount + 1", "amount");
    commit(d, 210, "Fix refunds keeping one unit back", &[("src/refund.py", Some(&mixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(skipped(&m, PROSE_ONLY), 1, "{:?}", m.summary.skipped);
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/refund.py".to_string(), 6, 6)])]);
}

#[test]
fn typo_and_docs_subjects_are_skipped_unless_the_exclusions_are_replaced() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let rate = "def rate(kind):\n    return 0.2 if kind == 'food' else 0.3\n";
    let added = commit(d, 1, "Add tax rates", &[("src/rate.py", Some(rate))]);
    let fixed = rate.replace("0.3", "0.25");
    commit(d, 200, "Fix typo in the standard rate", &[("src/rate.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert!(m.escapes.is_empty());
    assert_eq!(skipped(&m, mine::EXCLUDED_SUBJECT), 1, "{:?}", m.summary.skipped);

    let patterns = mine::detect::Patterns::defaults().excluding(&[]).unwrap();
    let m = mined(d, &Options { patterns, ..no_clean() });
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/rate.py".to_string(), 2, 2)])]);
}

#[test]
fn version_bumps_in_manifests_and_root_level_test_suites_are_never_blamed() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let setup = "from setuptools import setup\nsetup(\n    name='shop',\n    version='0.1',\n)\n";
    let price = "def price(p, qty):\n    return p * qty - 1\n";
    let tests = "from shop import price\n\ndef test_price():\n    assert price(2, 3) == 5\n";
    let added = commit(d, 1, "Add prices", &[("src/shop.py", Some(price)), ("tests.py", Some(tests))]);
    commit(d, 2, "Release 0.2", &[("setup.py", Some(&setup.replace("0.1", "0.2")))]);
    commit(d, 3, "Start the suite", &[("conftest.py", Some("import pytest\n"))]);
    // The fix rides a version bump and corrects the tests beside the code: only the
    // code line is a defect line, so blame lands on one commit (confidence B).
    commit(
        d,
        200,
        "Fix prices being one short",
        &[
            ("src/shop.py", Some(&price.replace(" - 1", ""))),
            ("setup.py", Some(&setup.replace("0.1", "0.3"))),
            ("tests.py", Some(&tests.replace("== 5", "== 6"))),
            ("conftest.py", Some("import pytest\n\npytest.register_assert_rewrite('shop')\n")),
        ],
    );
    commit(d, 210, "Fix the price test", &[("tests.py", Some(&tests.replace("== 5", ">= 6")))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/shop.py".to_string(), 2, 2)])]);
    assert_eq!(skipped(&m, "the fix touches only tests"), 1, "{:?}", m.summary.skipped);
}

#[test]
fn blame_walks_past_commits_that_only_renamed_or_rewrapped_the_line() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def total(price, qty):\n    subtotal = (price * qty + 1)\n    return subtotal\n";
    let added = commit(d, 1, "Add totals", &[("src/total.py", Some(v1))]);
    let renamed = v1.replace("subtotal", "amount");
    commit(d, 2, "Call the subtotal an amount", &[("src/total.py", Some(&renamed))]);
    let wrapped = renamed.replace("(price * qty + 1)", "(price * qty\n              + 1)");
    commit(d, 3, "Wrap the amount", &[("src/total.py", Some(&wrapped))]);
    let fixed = wrapped.replace("(price * qty\n              + 1)", "price * qty");
    commit(d, 200, "Fix totals one too high", &[("src/total.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/total.py".to_string(), 2, 2)])]);
}

#[test]
fn a_commit_that_swaps_in_a_name_the_file_already_had_is_blamed() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def share(total, people, tip):\n    each = total / people\n    return each\n";
    commit(d, 1, "Add sharing", &[("src/share.py", Some(v1))]);
    // Not a rename: `tip` was already a name in the file, and `people` stays one.
    let swapped = v1.replace("each = total / people", "each = total / tip");
    let bug = commit(d, 2, "Share by tip", &[("src/share.py", Some(&swapped))]);
    commit(d, 200, "Fix sharing dividing by the tip", &[("src/share.py", Some(v1))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(bug, Confidence::B, vec![("src/share.py".to_string(), 2, 2)])]);
}

#[test]
fn a_port_or_compat_fix_gets_confidence_c() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def encode(s):\n    return s.encode('utf-8', errors='strict')\n";
    let added = commit(d, 1, "Add encode", &[("src/text.py", Some(v1))]);
    let fixed = v1.replace(", errors='strict'", ", 'strict'");
    commit(d, 200, "py3 compat: fix encode on old interpreters", &[("src/text.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert!(m.escapes.is_empty());
    let why = "confidence C: the fix's subject says port, compat, upgrade or migrate, not kept (see --confidence)";
    assert_eq!(skipped(&m, why), 1, "{:?}", m.summary.skipped);
    let all = Options { keep: vec![Confidence::A, Confidence::B, Confidence::C], ..no_clean() };
    assert_eq!(rows(&mined(d, &all)), vec![(added, Confidence::C, vec![("src/text.py".to_string(), 2, 2)])]);
}

#[test]
fn a_fix_large_enough_to_be_a_rework_gets_confidence_c() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def limit(n):\n    return min(n, 99)\n";
    let added = commit(d, 1, "Add the limit", &[("src/limit.py", Some(v1))]);
    // The repair rides in with 200 new lines of code: a rework, not one defect's fix.
    let rework: String = (0..200).map(|i| format!("LIMIT_{i} = {i}\n")).collect();
    let fixed = v1.replace("99", "100");
    commit(d, 200, "Fix the limit", &[("src/limit.py", Some(&fixed)), ("src/limits.py", Some(&rework))]);

    let m = mined(d, &no_clean());
    assert!(m.escapes.is_empty());
    let why = "confidence C: the fix is large enough to be a port or rework, not kept (see --confidence)";
    assert_eq!(skipped(&m, why), 1, "{:?}", m.summary.skipped);
    let all = Options { keep: vec![Confidence::A, Confidence::B, Confidence::C], ..no_clean() };
    assert_eq!(rows(&mined(d, &all)), vec![(added, Confidence::C, vec![("src/limit.py".to_string(), 2, 2)])]);
}

#[test]
fn port_subjects_are_told_from_a_network_port() {
    for port in ["py3 compat: fix str", "Fix the Python 3 port", "ported to asyncio", "Upgrade to Django 4", "migrate"]
    {
        assert!(mine::says_port(port), "{port}");
    }
    for fix in ["Fix port number parsing", "Fix the report totals", "Fix support for proxies"] {
        assert!(!mine::says_port(fix), "{fix}");
    }
}
