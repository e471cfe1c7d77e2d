//! Changes that hold files no model can be shown, through the real binary: a
//! name that is not UTF-8 costs only that file, and a change with nothing
//! reviewable left (only a binary file, only a submodule pointer, a file too
//! large beside a binary one) makes no model call and exits 1, as documented.

mod support;

use serde_json::Value;
use std::path::Path;
use support::{Fake, Wire, finder, gauntlet, git, repo};

const BASE: &str = "def refund(order):\n    return order.total\n";
const HEAD: &str = "def refund(order):\n    pay(order.total)\n    return order.total\n";

/// `gauntlet review --format json` in `dir` against a fake that answers every
/// finder: (exit code, report, stderr, model calls made).
async fn review(dir: &Path) -> (i32, Value, String, usize) {
    let (server, fake) = Fake::start(Wire::Anthropic, vec![finder("correctness", serde_json::json!([]))]).await;
    let (code, out, err) = gauntlet(dir, Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    let report =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: a JSON report\nstdout: {out}\nstderr: {err}"));
    (code, report, err, fake.seen().len())
}

/// The reason `report` gives for not reviewing `path`.
fn not_reviewed<'a>(report: &'a Value, path: &str) -> Option<&'a str> {
    let list = report["not_reviewed"].as_array()?;
    list.iter().find(|n| n["path"] == path).and_then(|n| n["reason"].as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_named_in_bytes_that_are_not_utf8_is_listed_and_the_rest_is_reviewed() {
    use std::os::unix::ffi::OsStrExt;
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let name = std::ffi::OsStr::from_bytes(b"src/r\xe9sum\xe9.py");
    std::fs::write(dir.path().join(name), "print('latin-1 name')\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "a file with a Latin-1 name"]);
    let (code, report, err, calls) = review(dir.path()).await;
    assert_eq!(code, 0, "the rest was reviewed: {err}");
    let reason = not_reviewed(&report, "src/r\\xe9sum\\xe9.py").unwrap_or_else(|| panic!("listed: {report}"));
    assert!(reason.contains("not valid UTF-8") && reason.contains("rename"), "{reason}");
    assert!(calls > 0 && report["reviewers"].as_array().is_some_and(|r| !r.is_empty()), "{report}");
    assert!(not_reviewed(&report, "src/pay.py").is_none(), "{report}");
}

/// Asserts the run reviewed nothing, made no model call, exited 1 and named
/// each of `files` with its reason.
fn assert_nothing_reviewable(run: (i32, Value, String, usize), files: &[(&str, &str)]) {
    let (code, report, err, calls) = run;
    assert_eq!(calls, 0, "no model call on an empty diff: {err}");
    assert_eq!(code, 1, "nothing was reviewed: {err}");
    assert!(err.contains("nothing reviewable was left, so no reviewer ran"), "{err}");
    assert_eq!(report["reviewers"], serde_json::json!([]), "{report}");
    for (path, why) in files {
        let reason = not_reviewed(&report, path).unwrap_or_else(|| panic!("{path} is listed: {report}"));
        assert!(reason.contains(why), "{path}: {reason}");
        assert!(err.contains(path), "stderr names {path}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_binary_file_exits_1_without_a_model_call() {
    let dir = repo(&[("src/pay.py", BASE), ("logo.png", "\0PNG one")], &[("logo.png", "\0PNG two")]);
    assert_nothing_reviewable(review(dir.path()).await, &[("logo.png", "binary")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_submodule_pointer_exits_1_without_a_model_call() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let d = dir.path();
    git(d, &["reset", "-q", "--hard", "main"]);
    let first = git(d, &["rev-parse", "HEAD"]).trim().to_string();
    git(d, &["update-index", "--add", "--cacheinfo", &format!("160000,{first},modules/engine")]);
    git(d, &["commit", "-q", "-m", "add the submodule"]);
    git(d, &["branch", "-f", "main"]);
    git(d, &["update-index", "--cacheinfo", &format!("160000,{},modules/engine", "1".repeat(40))]);
    git(d, &["commit", "-q", "-m", "bump the submodule"]);
    assert_nothing_reviewable(review(d).await, &[("modules/engine", "submodule pointer")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_too_large_beside_a_binary_one_exits_1_without_a_model_call() {
    let huge: String = (0..3_000).map(|i| format!("ROW_{i} = \"{}\"\n", "x".repeat(40))).collect();
    let dir = repo(&[("src/pay.py", BASE)], &[("data/rows.py", huge.as_str()), ("logo.png", "\0PNG")]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[review]\ncontext_tokens = 8000\n").unwrap();
    assert_nothing_reviewable(review(dir.path()).await, &[("data/rows.py", "too large"), ("logo.png", "binary")]);
}
