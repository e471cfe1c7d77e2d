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
    let ports = ["py3 compat: fix str", "Fix the Python 3 port", "ported to asyncio", "Upgrade to Django 4", "migrate"];
    for port in ports.into_iter().chain(["Fix compilation on Redox", "fix build with old rustc"]) {
        assert!(mine::says_port(port), "{port}");
    }
    for fix in ["Fix port number parsing", "Fix the report totals", "Fix support for proxies", "Fix the build step"] {
        assert!(!mine::says_port(fix), "{fix}");
    }
}

#[test]
fn fixes_of_ci_or_tool_settings_are_no_defect_fixes_and_their_lines_never_defect_lines() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let cfg = "[metadata]\nname = shop\n\n[flake8]\nmax-line-length = 80\n";
    let fee = "def fee(total):\n    return total * 0.3\n";
    let workflow = "on: push\njobs:\n  test:\n    runs-on: ubuntu-18.04\n";
    let added = commit(
        d,
        1,
        "Add fees, checks and settings",
        &[
            ("src/fee.py", Some(fee)),
            ("setup.cfg", Some(cfg)),
            (".github/workflows/tests.yml", Some(workflow)),
            ("tox.ini", Some("[tox]\nenvlist = py27\n")),
        ],
    );
    commit(
        d,
        200,
        "Fix the test workflow",
        &[(".github/workflows/tests.yml", Some(&workflow.replace("18.04", "22.04"))), ("tox.ini", Some("[tox]\n"))],
    );
    commit(d, 205, "Fix the line length check", &[("setup.cfg", Some(&cfg.replace("80", "100")))]);
    // A fix of the code that also touches the settings blames only the code line.
    commit(
        d,
        210,
        "Fix fees being too high",
        &[
            ("src/fee.py", Some(&fee.replace("0.3", "0.03"))),
            ("setup.cfg", Some(&cfg.replace("80", "90"))),
            (".github/workflows/tests.yml", Some(&workflow.replace("18.04", "20.04"))),
        ],
    );

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/fee.py".to_string(), 2, 2)])]);
    assert_eq!(skipped(&m, mine::TOOLING_ONLY), 2, "{:?}", m.summary.skipped);
}

#[test]
fn linter_and_formatter_subjects_are_excluded_by_default() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def names(rows):\n    return [r.name for r in rows if r]\n";
    commit(d, 1, "Add names", &[("src/names.py", Some(v1))]);
    let v2 = v1.replace("if r]", "if r is not None]");
    commit(d, 200, "Fix flake8 warnings", &[("src/names.py", Some(&v2))]);
    let v3 = v2.replace("[r.name", "[r.name.strip()");
    commit(d, 210, "fix clippy and rustfmt lints", &[("src/names.py", Some(&v3))]);

    let m = mined(d, &no_clean());
    assert!(m.escapes.is_empty(), "{:?}", rows(&m));
    assert_eq!(skipped(&m, mine::EXCLUDED_SUBJECT), 2, "{:?}", m.summary.skipped);
    let defaults = mine::detect::Patterns::defaults();
    for style in
        ["Fix pylint complaints", "mypy: fix types", "Run black", "Fix lint", "pep8 fixes", "fix-warnings", "run fmt"]
    {
        assert!(defaults.excluded(style), "{style}");
    }
    assert!(!defaults.excluded("Fix the blacklist check"), "a word holding `black` is no formatter");
}

#[test]
fn blame_skips_a_commit_that_changed_other_tokens_of_the_line() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def pages(n, size):\n    return n // size + 1\n";
    let bug = commit(d, 1, "Count pages", &[("src/pages.py", Some(v1))]);
    // The last commit to touch the line changed its left side only: `+ 1` was
    // already there.
    let v2 = v1.replace("n // size", "max(n, 0) // size");
    commit(d, 5, "Never count negative items", &[("src/pages.py", Some(&v2))]);
    let fixed = v2.replace("// size + 1", "// size");
    commit(d, 200, "Fix one page too many", &[("src/pages.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(bug, Confidence::B, vec![("src/pages.py".to_string(), 2, 2)])]);
}

#[test]
fn blame_stays_on_the_commit_that_wrote_the_tokens_the_fix_took_out() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def pages(n, size):\n    return n // size\n";
    commit(d, 1, "Count pages", &[("src/pages.py", Some(v1))]);
    let v2 = v1.replace("n // size", "n // size + 1");
    let bug = commit(d, 5, "Count the last partial page", &[("src/pages.py", Some(&v2))]);
    commit(d, 200, "Fix one page too many", &[("src/pages.py", Some(v1))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(bug, Confidence::B, vec![("src/pages.py".to_string(), 2, 2)])]);
}

#[test]
fn a_defect_of_the_root_commit_is_a_case_whose_base_is_the_empty_tree() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    history::git(d, &["init", "-q", "-b", "main"], 0);
    let v1 = "def half(n):\n    return n / 3\n";
    let root = commit(d, 0, "Start", &[("src/half.py", Some(v1)), ("README.md", Some("# half\n"))]);
    commit(d, 200, "Fix halves", &[("src/half.py", Some(&v1.replace("/ 3", "/ 2")))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(root.clone(), Confidence::B, vec![("src/half.py".to_string(), 2, 2)])]);
    let empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    assert_eq!(m.escapes[0].base, empty);

    // The case is written, checked out and reviewed as the root commit's whole change.
    let out = tempfile::tempdir().unwrap();
    let written = mine::write::write(&m, d, &out.path().join("corpus")).expect("written");
    let text = std::fs::read_to_string(written[0].join("case.toml")).unwrap();
    assert!(text.contains(&format!("base = \"{empty}\"")), "{text}");
    let case = gauntlet_backtest::corpus::load_case(&written[0]).expect("the case loads");
    let checkout =
        gauntlet_backtest::checkout::checkout(&case.repo, &case.base, &case.head).expect("a root case checks out");
    assert_eq!((checkout.base.as_str(), checkout.head.as_str()), (empty, root.as_str()));
    let target = gauntlet_change::Target::Range { base: checkout.base.clone(), head: Some(checkout.head.clone()) };
    let change = gauntlet_change::acquire(&checkout.git, &target).expect("the root's change is read");
    let mut paths: Vec<&str> = change.files.iter().map(|f| f.diff.path()).collect();
    paths.sort();
    assert_eq!(paths, vec!["README.md", "src/half.py"]);
}

#[test]
fn a_fix_that_only_inserts_code_at_a_place_older_than_the_blamed_commit_gets_confidence_c() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def sign(value, key):\n    value = to_bytes(value)\n    return value + mac(key, value)\n";
    commit(d, 1, "Add signing", &[("src/sign.py", Some(v1))]);
    // The conversion goes away; then a commit changes another part of the line.
    let v2 = v1.replace("    value = to_bytes(value)\n", "");
    commit(d, 5, "Tidy signing", &[("src/sign.py", Some(&v2))]);
    let v3 = v2.replace("mac(key, value)", "mac(to_bytes(key), value)");
    let touched = commit(d, 6, "Accept text keys", &[("src/sign.py", Some(&v3))]);
    let fixed = v3.replace("return value +", "return to_bytes(value) +");
    commit(d, 200, "Fix signing text", &[("src/sign.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert!(m.escapes.is_empty(), "{:?}", rows(&m));
    let why = format!("confidence C: {}, not kept (see --confidence)", mine::GAPS_PREDATE);
    assert_eq!(skipped(&m, &why), 1, "{:?}", m.summary.skipped);
    let all = Options { keep: vec![Confidence::A, Confidence::B, Confidence::C], ..no_clean() };
    assert_eq!(rows(&mined(d, &all)), vec![(touched, Confidence::C, vec![("src/sign.py".to_string(), 2, 2)])]);
}

#[test]
fn a_fix_that_inserts_code_into_a_line_the_blamed_commit_wrote_keeps_confidence_b() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def keep(line, pattern):\n    if pattern.search(line):\n        return False\n    return True\n";
    let bug = commit(d, 1, "Filter lines", &[("src/filter.py", Some(v1))]);
    let fixed = v1.replace("if pattern.search", "if not pattern.search");
    commit(d, 200, "Fix the inverted filter", &[("src/filter.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(bug, Confidence::B, vec![("src/filter.py".to_string(), 2, 2)])]);
}

#[test]
fn a_comment_the_fix_adds_does_not_count_as_tokens_it_kept() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def total(a, b):\n    return a + b\n";
    let bug = commit(d, 1, "Add totals", &[("src/total.py", Some(v1))]);
    let v2 = v1.replace("return a + b", "return 0 + a + b");
    commit(d, 2, "Start totals at zero", &[("src/total.py", Some(&v2))]);
    // The fix takes `+ b` out and says so in a comment that repeats the tokens:
    // read with the comment, the fix would seem to only insert words.
    let fixed = v2.replace("    return 0 + a + b\n", "    return 0 + a\n    # + b counted b twice\n");
    commit(d, 200, "Fix totals counting b twice", &[("src/total.py", Some(&fixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(bug, Confidence::B, vec![("src/total.py".to_string(), 2, 2)])]);
}
