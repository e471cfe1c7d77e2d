//! The SZZ rules of `backtest mine`, one small repository each, built here with
//! fixed dates: what blame looks through, what it never blames, which introducing
//! commits give no case, and which commits are never sampled as clean.

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::mine::{self, Confidence, Options};
use gauntlet_change::git::Git;
use history::commit;
use std::collections::BTreeMap;
use std::path::Path;

fn mined(dir: &Path, options: &Options) -> mine::Mined {
    mine::mine(&Git::at(dir), options).expect("mining works")
}

/// A repository whose root commit holds only a README, so the commits under test
/// are never blame's boundary.
fn start(dir: &Path) {
    history::git(dir, &["init", "-q", "-b", "main"], 0);
    commit(dir, 0, "Start", &[("README.md", Some("# service\n"))]);
}

fn no_clean() -> Options {
    Options { clean_ratio: 0.0, ..Options::default() }
}

fn all_confidences() -> Options {
    Options { keep: vec![Confidence::A, Confidence::B, Confidence::C], clean_ratio: 0.0, ..Options::default() }
}

type Row = (String, Confidence, Vec<(String, u32, u32)>);

fn rows(m: &mine::Mined) -> Vec<Row> {
    m.escapes.iter().map(|e| (e.head.clone(), e.confidence, e.defects.clone())).collect()
}

const NET: &str = "def net(amount, rate):\n    taxed = amount * (1 + rate)\n    return round(taxed - amount + 1, 2)\n";
const FEE: &str = "def fee(amount):\n    base = amount * 0.01\n    if base < 1:\n        base = 1\n    capped = min(base, 50)\n    return round(capped, 2)\n";
const GROSS: &str = "def gross(amount, rate):\n    factor = 1 + rate * 100\n    return round(amount * factor, 2)\n";

#[test]
fn blame_follows_lines_moved_within_a_file_and_copied_to_another() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let tax = format!("{NET}\n\n{FEE}\n\n{GROSS}");
    let added = commit(d, 1, "Add the tax helpers", &[("src/tax.py", Some(&tax))]);
    // `net` moves below `fee` (git's diff keeps the longer `fee` and moves `net`) and
    // `gross` moves to a file of its own.
    let moved = format!("{FEE}\n\n{NET}");
    let reorganised =
        commit(d, 5, "Reorganise the tax helpers", &[("src/tax.py", Some(&moved)), ("src/gross.py", Some(GROSS))]);
    let net_fixed = moved.replace("taxed - amount + 1", "taxed - amount");
    let fix_net = commit(d, 200, "Fix the net amount being one too high", &[("src/tax.py", Some(&net_fixed))]);
    let gross_fixed = GROSS.replace("rate * 100", "rate");
    let fix_gross = commit(d, 201, "Fix gross treating the rate as percent", &[("src/gross.py", Some(&gross_fixed))]);

    let m = mined(d, &no_clean());
    // Both lines keep the commit that wrote them, in its own file and line numbers
    // (`net` was lines 1-3 of src/tax.py there, `gross` lines 14-16).
    let want = vec![(
        added.clone(),
        Confidence::B,
        vec![("src/tax.py".to_string(), 3, 3), ("src/tax.py".to_string(), 15, 15)],
    )];
    assert_eq!(rows(&m), want, "the reorganising commit {reorganised} is never blamed");
    let fixes: Vec<&str> = m.escapes[0].fixes.iter().map(|f| f.sha.as_str()).collect();
    assert_eq!(fixes, vec![fix_net.as_str(), fix_gross.as_str()]);
}

#[test]
fn whitespace_sweeps_and_listed_sweeps_are_each_looked_through() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let clamp = "def clamp(x, lo, hi):\n    return max(lo, min(x, hi + 1))\n";
    let a1 = commit(d, 1, "Add clamp", &[("src/limits.py", Some(clamp))]);
    let scale =
        format!("{clamp}\n\ndef scale(value, factor):\n    result = value * factor * factor\n    return result\n");
    let a2 = commit(d, 2, "Add scale", &[("src/limits.py", Some(&scale))]);
    // Whitespace only, and not listed in .git-blame-ignore-revs: `-w` must look through it.
    let spaced = scale.replace("max(lo, min(x, hi + 1))", "max( lo, min( x, hi+1 ) )");
    let spacing = commit(d, 100, "Space out clamp", &[("src/limits.py", Some(&spaced))]);
    // A rename (not whitespace), listed in .git-blame-ignore-revs: only the list looks through it.
    let renamed = spaced.replace("result", "scaled");
    let rename = commit(d, 110, "Call the scaled value scaled", &[("src/limits.py", Some(&renamed))]);
    commit(d, 111, "Ignore the rename in blame", &[(".git-blame-ignore-revs", Some(&format!("{rename}\n")))]);
    let clamp_fixed = renamed.replace("hi+1", "hi");
    commit(d, 200, "Fix clamp letting one past the top through", &[("src/limits.py", Some(&clamp_fixed))]);
    let scale_fixed = clamp_fixed.replace("value * factor * factor", "value * factor");
    commit(d, 210, "Fix scale squaring the factor", &[("src/limits.py", Some(&scale_fixed))]);

    let m = mined(d, &no_clean());
    let mut want = vec![
        (a1.clone(), Confidence::B, vec![("src/limits.py".to_string(), 2, 2)]),
        (a2.clone(), Confidence::B, vec![("src/limits.py".to_string(), 6, 6)]),
    ];
    want.sort();
    assert_eq!(rows(&m), want, "neither the spacing ({spacing}) nor the rename ({rename}) is blamed");
}

#[test]
fn an_introducing_merge_or_sweep_gives_no_case_and_is_counted() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let rates = "def rate(kind):\n    if kind == 'fast':\n        return 2\n    return 1\n";
    commit(d, 1, "Add rates", &[("src/rates.py", Some(rates))]);
    history::git(d, &["checkout", "-q", "-b", "feature"], 2);
    commit(d, 2, "Add notes", &[("src/notes.py", Some("def note(x):\n    return str(x)\n"))]);
    history::git(d, &["checkout", "-q", "main"], 3);
    commit(d, 3, "Add names", &[("src/names.py", Some("def name(x):\n    return x.name\n"))]);
    // The merge itself writes a line neither side had.
    history::git(d, &["merge", "-q", "--no-ff", "--no-commit", "feature"], 4);
    let merged_rates = rates.replace("return 2", "return 3");
    let merge = commit(d, 4, "Merge branch 'feature'", &[("src/rates.py", Some(&merged_rates))]);
    let report: String = (1..=30).map(|i| format!("LINE_{i} = {i}\n")).collect::<String>() + "TOTAL = LINE_1 + 1\n";
    let sweep = commit(d, 5, "Add the report constants", &[("src/report.py", Some(&report))]);
    commit(d, 200, "Fix the fast rate", &[("src/rates.py", Some(rates))]);
    let report_fixed = report.replace("LINE_1 + 1", "LINE_1");
    commit(d, 210, "Fix the report total", &[("src/report.py", Some(&report_fixed))]);

    let small = Options { max_changed_lines: 20, ..no_clean() };
    let m = mined(d, &small);
    assert!(m.escapes.is_empty(), "{:?}", rows(&m));
    assert_eq!(
        m.summary.skipped,
        BTreeMap::from([
            ("the introducing commit is a merge".to_string(), 1),
            ("the introducing commit is a sweep (more than 20 changed lines)".to_string(), 1),
        ]),
        "the merge {merge} wrote the fast rate"
    );
    // Under the default limit the 31-line commit is an ordinary case.
    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(sweep, Confidence::B, vec![("src/report.py".to_string(), 31, 31)])]);
    assert_eq!(m.summary.skipped, BTreeMap::from([("the introducing commit is a merge".to_string(), 1)]));
}

#[test]
fn a_revert_without_a_reason_is_skipped_counted_and_its_commit_is_never_clean() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let parse = commit(d, 1, "Add parsing", &[("src/parse.py", Some("def parse(s):\n    return s.split(',')\n"))]);
    let format = commit(d, 2, "Add formatting", &[("src/fmt.py", Some("def fmt(xs):\n    return ','.join(xs)\n"))]);
    let loader = commit(d, 3, "Add the loader", &[("src/load.py", Some("def load(p):\n    return open(p).read()\n"))]);
    let retry = "def retry(f, n):\n    for _ in range(n + 1):\n        f()\n";
    let buggy = commit(d, 10, "Add retries", &[("src/retry.py", Some(retry))]);
    commit(d, 300, "Fix retries running once too often", &[("src/retry.py", Some(&retry.replace("n + 1", "n")))]);
    let revert = format!("Revert \"Add the loader\"\n\nThis reverts commit {loader}.\n");
    commit(d, 301, &revert, &[("src/load.py", None)]);

    // Ask for more clean cases than there are commits: every eligible one is taken.
    let options = Options { clean_ratio: 10.0, ..Options::default() };
    let m = mined(d, &options);
    assert_eq!(rows(&m), vec![(buggy, Confidence::B, vec![("src/retry.py".to_string(), 2, 2)])]);
    assert_eq!(m.summary.fixes_seen, 2);
    assert_eq!(m.summary.skipped.get("a revert that does not say why (not proof of a bug)"), Some(&1));
    let mut want = vec![parse, format];
    want.sort();
    let cleans: Vec<String> = m.cleans.iter().map(|c| c.head.clone()).collect();
    assert_eq!(cleans, want, "the reverted loader ({loader}) is no clean case");

    let out = tempfile::tempdir().unwrap();
    mine::write::write(&m, d, &out.path().join("a")).unwrap();
    mine::write::write(&mined(d, &options), d, &out.path().join("b")).unwrap();
    assert_eq!(
        history::read_tree(&out.path().join("a")),
        history::read_tree(&out.path().join("b")),
        "the same corpus, byte for byte"
    );
}

#[test]
fn comment_and_blank_lines_a_fix_changes_are_not_blamed() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let v1 = "def next_run(now, every):\n    # on the hour\n    return now + every * 60\n";
    let added = commit(d, 1, "Add the scheduler", &[("src/sched.py", Some(v1))]);
    // Another commit writes the comment and a blank line: blaming them would split
    // the blame over two commits (confidence C).
    let v2 = "def next_run(now, every):\n    # every is in minutes\n\n    return now + every * 60\n";
    commit(d, 5, "Explain next_run", &[("src/sched.py", Some(v2))]);
    let v3 = "def next_run(now, every):\n    # every is in seconds\n    return now + every\n";
    commit(d, 200, "Fix next_run counting seconds as minutes", &[("src/sched.py", Some(v3))]);
    let v4 = v3.replace("in seconds", "in whole seconds");
    commit(d, 210, "Fix next_run's note on units", &[("src/sched.py", Some(&v4))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/sched.py".to_string(), 3, 3)])]);
    assert_eq!(m.summary.fixes_seen, 2);
    assert_eq!(
        m.summary.skipped,
        BTreeMap::from([("the fix changes only comments, docstrings, string literals or layout".to_string(), 1)])
    );
}

#[test]
fn generated_and_vendored_files_are_never_blamed() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let api = "def get(client, id):\n    return client.call('get', id + 1)\n";
    let lib = "def pad(s):\n    return s.ljust(9)\n";
    let added = commit(
        d,
        1,
        "Add the client, its generated stubs and a vendored helper",
        &[
            ("src/api.py", Some(api)),
            ("src/stubs_pb2.py", Some("def stub(x):\n    return x + 1\n")),
            (".gitattributes", Some("src/stubs_pb2.py linguist-generated\n")),
            ("vendor/pad/lib.py", Some(lib)),
        ],
    );
    commit(
        d,
        200,
        "Fix the stub and the helper",
        &[
            ("src/stubs_pb2.py", Some("def stub(x):\n    return x\n")),
            ("vendor/pad/lib.py", Some(&lib.replace("9", "8"))),
        ],
    );
    let api_fixed = api.replace("id + 1", "id");
    commit(d, 210, "Fix get asking for the next id", &[("src/api.py", Some(&api_fixed))]);

    let m = mined(d, &no_clean());
    assert_eq!(rows(&m), vec![(added, Confidence::B, vec![("src/api.py".to_string(), 2, 2)])]);
    assert_eq!(
        m.summary.skipped,
        BTreeMap::from([(
            "the fix touches no source file (tests, documents, CI, generated or vendored files only)".to_string(),
            1
        )])
    );
}

#[test]
fn since_reads_the_fixes_of_its_window_and_blames_commits_before_it() {
    let repo = tempfile::tempdir().unwrap();
    let h = history::build(repo.path());
    // The fixture's days start on 2021-01-01 at midnight UTC: day 215 is 2021-08-04,
    // after the blame fix (day 210) and before the revert (day 220).
    let window = mine::history::Window::Since("2021-08-04 12:00 +0000".into());
    let since = Options { window, clean_ratio: 1.0, ..all_confidences() };
    let m = mined(repo.path(), &since);
    assert_eq!(m.summary.commits, 3, "the revert, the tests fix and the guard fix");
    assert_eq!(m.summary.fixes_seen, 3);
    let mut heads: Vec<&str> = m.escapes.iter().map(|e| e.head.as_str()).collect();
    heads.sort();
    let mut want = vec![h.id("cache"), h.id("rename")];
    want.sort();
    assert_eq!(heads, want, "the introducing commits lie long before the window");
    assert!(m.cleans.is_empty(), "clean cases come from the window, which has no old commit");
    let whole = mined(repo.path(), &all_confidences());
    assert_eq!(whole.escapes.len(), 4);
}

const CART: &str = "class Cart {\n    int total;\n\n    int sum(int[] xs) {\n        int t = 0;\n        for (int x : xs) t += x;\n        return t;\n    }\n\n    void clear() {\n        total = 0;\n    }\n}\n";

#[test]
fn an_insertion_is_blamed_inside_its_method_as_the_symbol_index_reads_it() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let added = commit(d, 1, "Add the cart", &[("src/Cart.java", Some(CART))]);
    let guarded = CART.replace("int[] xs) {\n", "int[] xs) {\n        if (xs == null) return 0;\n");
    commit(d, 200, "Fix a crash summing a missing cart", &[("src/Cart.java", Some(&guarded))]);

    // Indentation skips a signature that starts with a bare return type and answers
    // with the class: it would blame the class's first lines too.
    let lines: Vec<&str> = CART.lines().collect();
    assert_ne!(gauntlet_review::enclosing::enclosing(&lines, 5, 5, 400), Some((4, 8)));
    let m = mined(d, &all_confidences());
    assert_eq!(
        rows(&m),
        vec![(added, Confidence::C, vec![("src/Cart.java".to_string(), 4, 7)])],
        "the signature and three code lines after the guard, all inside `sum`"
    );
}

#[test]
fn an_insertion_after_the_last_line_of_a_python_function_is_inside_it() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let io = "def save(path, data):\n    f = open(path, 'w')\n    f.write(data)\n\n\ndef load(path):\n    return open(path).read()\n";
    let added = commit(d, 1, "Add save and load", &[("src/io.py", Some(io))]);
    let closed = io.replace("    f.write(data)\n", "    f.write(data)\n    f.close()\n");
    commit(d, 200, "Fix save leaving the file open", &[("src/io.py", Some(&closed))]);
    let m = mined(d, &all_confidences());
    assert_eq!(rows(&m), vec![(added, Confidence::C, vec![("src/io.py".to_string(), 1, 3)])]);
}

const UPLOAD: &str =
    "def upload(user, blob):\n    if blob.size > LIMIT:\n        raise TooLarge(blob.size)\n    store(user, blob)\n";

#[test]
fn a_fix_that_adds_back_deleted_code_is_skipped_as_a_defect_made_by_deleting_code() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let upload = commit(d, 1, "Add uploads", &[("src/upload.py", Some(UPLOAD))]);
    let names = commit(d, 2, "Add names", &[("src/names.py", Some("def name(x):\n    return x.name\n"))]);
    let paging = "def page(xs, n):\n    return xs[n * 10:n * 10 + 11]\n";
    let buggy = commit(d, 3, "Add paging", &[("src/paging.py", Some(paging))]);
    let without_guard = UPLOAD.replace("    if blob.size > LIMIT:\n        raise TooLarge(blob.size)\n", "");
    let deleting = commit(d, 5, "Simplify uploads", &[("src/upload.py", Some(without_guard.as_str()))]);
    commit(d, 200, "Fix uploads of any size being accepted", &[("src/upload.py", Some(UPLOAD))]);
    commit(d, 210, "Fix pages holding eleven items", &[("src/paging.py", Some(&paging.replace("+ 11", "+ 10")))]);

    let m = mined(d, &Options { clean_ratio: 10.0, ..all_confidences() });
    assert_eq!(rows(&m), vec![(buggy, Confidence::B, vec![("src/paging.py".to_string(), 2, 2)])]);
    assert_eq!(
        m.summary.skipped.get("a defect made by deleting code (the fix adds back lines an earlier commit removed)"),
        Some(&1),
        "{:?}",
        m.summary.skipped
    );
    let mut cleans: Vec<String> = m.cleans.iter().map(|c| c.head.clone()).collect();
    cleans.sort();
    let mut want = vec![upload, names];
    want.sort();
    assert_eq!(cleans, want, "the deleting commit ({deleting}) is no clean case");
}

#[test]
fn a_fix_that_only_adds_lines_outside_any_function_is_skipped_for_that_reason() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let client = "import http\n\n\ndef fetch(url):\n    return http.get(url, timeout=TIMEOUT)\n";
    commit(d, 1, "Add fetching", &[("src/client.py", Some(client))]);
    let fixed = client.replace("import http\n", "import http\n\nTIMEOUT = 30\n");
    commit(d, 200, "Fix fetch failing on the missing timeout", &[("src/client.py", Some(&fixed))]);
    let m = mined(d, &all_confidences());
    assert!(m.escapes.is_empty(), "{:?}", rows(&m));
    assert_eq!(
        m.summary.skipped,
        BTreeMap::from([(
            "the fix only adds lines outside any function (or in one too long to blame), so no code around them can be blamed"
                .to_string(),
            1
        )])
    );
}

#[test]
fn a_named_commit_makes_the_case_even_when_the_fix_only_adds_lines_outside_any_function() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    start(d);
    let client = "import http\n\n\ndef fetch(url):\n    return http.get(url, timeout=TIMEOUT)\n";
    let named = commit(d, 1, "Add fetching", &[("src/client.py", Some(client))]);
    let fixed = client.replace("import http\n", "import http\n\nTIMEOUT = 30\n");
    let message = format!("Define the fetch timeout\n\nFetching failed at once.\n\nFixes: {}\n", &named[..12]);
    commit(d, 200, &message, &[("src/client.py", Some(&fixed))]);
    let m = mined(d, &no_clean());
    // No line around the insertion can be blamed, but the developer named the commit:
    // its own code lines in the file are the defect.
    let lines = vec![("src/client.py".to_string(), 1, 1), ("src/client.py".to_string(), 4, 5)];
    assert_eq!(rows(&m), vec![(named, Confidence::A, lines)]);
    assert!(m.summary.skipped.is_empty(), "{:?}", m.summary.skipped);
}
