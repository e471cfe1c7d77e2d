//! What a review did not cover reaches every format and the log, with the same
//! exit code whichever format is asked for; the messages say what happened
//! (nothing reviewable left: files too large, a submodule pointer, a binary file,
//! a finding that could not be validated) instead of something close to it.

mod support;

use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet, git, repo, verdict};

const BASE: &str = "def refund(order):\n    return order.total\n";
const HEAD: &str = "def refund(order):\n    pay(order.total)\n    return order.total\n";
const CLAIM: &str = "The refund is paid <twice> when the callback retries.";

/// One high finding whose validator breaks the verdict contract on every try.
fn broken_validator() -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/pay.py:2", "claim": CLAIM,
                         "evidence": "    pay(order.total)", "severity": "high"});
    let wrong = json!({"verdict": "valid", "evidence": "src/pay.py:2 `pay(order.total)`", "confidence": 75, "impact": "consequential"});
    vec![finder("correctness", json!([finding])), verdict("validate", "paid", &[wrong.clone(), wrong])]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_validation_that_failed_is_plain_in_every_format_with_one_exit_code() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, broken_validator()).await;
    let mut codes = Vec::new();
    for format in ["terminal", "json", "markdown", "sarif", "rdjson", "rdjsonl", "codequality"] {
        let args = ["review", "--reviewers", "correctness", "--format", format];
        let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
        codes.push(code);
        let quoted = "high finding at src/pay.py:2";
        if format == "terminal" {
            assert!(out.contains(quoted) && out.contains("paid <twice>"), "the gap names the finding:\n{out}");
            assert!(!err.contains("the review is incomplete"), "the report already says it on stdout: {err}");
            continue;
        }
        assert!(err.contains("gauntlet: the review is incomplete (1 coverage gap)"), "{format}: {err}");
        assert!(err.contains(quoted) && err.contains(CLAIM), "{format}: the log names the finding: {err}");
        match format {
            "rdjson" => {
                let diagnostics = serde_json::from_str::<Value>(&out).unwrap()["diagnostics"].clone();
                assert_eq!(diagnostics.as_array().unwrap().len(), 1, "{out}");
                assert_eq!((diagnostics[0]["severity"].as_str(), diagnostics[0].get("location")), (Some("INFO"), None));
                let message = diagnostics[0]["message"].as_str().unwrap();
                assert!(message.contains("paid &lt;twice&gt;"), "escaped for posting: {message}");
            }
            "rdjsonl" => assert_eq!(out.lines().count(), 1, "one line per gap: {out}"),
            "sarif" => {
                let log: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);
            }
            "markdown" => assert!(out.contains("paid &lt;twice&gt;"), "{out}"),
            // Nothing was published, but GitLab gets an `info` entry naming what could not be validated.
            "codequality" => {
                let entries = serde_json::from_str::<Value>(&out).unwrap();
                assert_eq!(entries.as_array().map(Vec::len), Some(1), "{out}");
                assert_eq!(
                    (entries[0]["severity"].as_str(), entries[0]["location"]["path"].as_str()),
                    (Some("info"), Some("src/pay.py"))
                );
                assert!(entries[0]["description"].as_str().unwrap().contains(CLAIM), "{out}");
            }
            _ => {
                let report: Value = serde_json::from_str(&out).unwrap();
                let message = report["gaps"][0]["message"].as_str().unwrap();
                assert!(message.starts_with("high finding at src/pay.py:2, \"The refund"), "{message}");
            }
        }
    }
    assert!(codes.iter().all(|c| *c == codes[0]), "one review, one exit code: {codes:?}");
    assert_eq!(codes[0], 0, "the change was reviewed; the gap is reported, as documented");
}

/// The same candidate, decided: its validator disproves it on the code it was shown.
fn decided_validator() -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/pay.py:2", "claim": CLAIM,
                         "evidence": "    pay(order.total)", "severity": "high"});
    let disproved = json!({"verdict": "disproved", "confidence": 100, "impact": "consequential",
                           "evidence": "src/pay.py:1-3 `def refund(order):` calls `pay(order.total)` once per refund"});
    vec![finder("correctness", json!([finding])), verdict("validate", "paid", &[disproved])]
}

/// Whatever else differs between two runs (times, usage), the format itself
/// must carry the gap: a review whose high candidate nobody could validate is
/// never printed as the review that decided it, in any format.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_format_prints_a_review_that_could_not_validate_a_finding_as_a_clean_one() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let (broken, _b) = Fake::start(Wire::Anthropic, broken_validator()).await;
    let (decided, _d) = Fake::start(Wire::Anthropic, decided_validator()).await;
    // Times and token counts differ between any two runs; these formats print none.
    let timeless = ["markdown", "sarif", "rdjson", "rdjsonl", "codequality"];
    for format in ["terminal", "json", "markdown", "sarif", "rdjson", "rdjsonl", "codequality"] {
        let args = ["review", "--reviewers", "correctness", "--format", format];
        let (code, clean, err) = gauntlet(dir.path(), Wire::Anthropic, &decided, &args).await;
        assert_eq!(code, 0, "{format}: {err}");
        assert!(!err.contains("incomplete"), "{format}: the decided review is complete: {err}");
        if timeless.contains(&format) {
            let again = gauntlet(dir.path(), Wire::Anthropic, &decided, &args).await.1;
            assert_eq!(clean, again, "{format}: the clean review prints the same twice");
        }
        let (code, incomplete, _) = gauntlet(dir.path(), Wire::Anthropic, &broken, &args).await;
        assert_eq!(code, 0, "{format}: `review` is advisory; its output carries the gap");
        assert_ne!(clean, incomplete, "{format} prints the incomplete review as the clean one");
    }
    let clean = gauntlet(
        dir.path(),
        Wire::Anthropic,
        &decided,
        &["review", "--reviewers", "correctness", "--format", "codequality"],
    )
    .await
    .1;
    assert_eq!(clean, "[]\n", "the disproved candidate is no entry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_reviewable_after_the_size_limits_is_said_as_such() {
    let huge: String = (0..3_000).map(|i| format!("ROW_{i} = \"{}\"\n", "x".repeat(40))).collect();
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", BASE), ("data/rows.py", huge.as_str())]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[review]\ncontext_tokens = 8000\n").unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let args = ["review", "--format", "json"];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 1, "nothing was reviewed: {err}");
    assert!(!err.contains("every reviewer failed"), "{err}");
    assert!(err.contains("nothing reviewable was left, so no reviewer ran: data/rows.py (too large"));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["reviewers"], json!([]), "no reviewer is listed as run: {report}");
    assert_eq!(report["usage"], json!([]));
    assert_eq!(report["not_reviewed"][0]["path"], "data/rows.py");
    assert!(report["notes"].to_string().contains("nothing reviewable was left"), "{report}");
    assert_eq!(fake.count("find"), 0);
}

/// One line of a megabyte (a minified bundle, an inlined data blob) is named as
/// too large, with the default context, as a large file is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_megabyte_line_is_named_as_too_large_and_nothing_else_is_claimed() {
    let line = format!("ROWS = \"{}\"\n", "x".repeat(1 << 20));
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", BASE), ("data/blob.py", line.as_str())]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    assert_eq!(code, 1, "nothing was reviewed: {err}");
    assert!(!err.contains("every reviewer failed"), "{err}");
    assert!(err.contains("nothing reviewable was left, so no reviewer ran") && err.contains("data/blob.py (too large"));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["reviewers"], json!([]), "no reviewer is listed as run: {report}");
    assert_eq!(report["not_reviewed"][0]["path"], "data/blob.py");
    assert!(report["not_reviewed"][0]["reason"].as_str().unwrap().contains("too large"), "{report}");
    assert_eq!(fake.count("find"), 0);
}

/// A repository whose change bumps a submodule pointer and replaces a binary file.
fn pointer_and_binary() -> tempfile::TempDir {
    let dir = repo(&[("logo.png", "\0PNG one")], &[("logo.png", "\0PNG two")]);
    let d = dir.path();
    git(d, &["checkout", "-q", "main"]);
    let first = git(d, &["rev-parse", "HEAD"]).trim().to_string();
    git(d, &["update-index", "--add", "--cacheinfo", &format!("160000,{first},modules/engine")]);
    git(d, &["commit", "-q", "-m", "add the submodule"]);
    git(d, &["checkout", "-q", "feature"]);
    git(d, &["rebase", "-q", "main"]);
    git(d, &["update-index", "--cacheinfo", &format!("160000,{},modules/engine", "1".repeat(40))]);
    git(d, &["commit", "-q", "-m", "bump the submodule"]);
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submodule_bump_and_a_binary_file_are_named_with_their_reason() {
    let dir = pointer_and_binary();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    // Nothing in the change could be shown to a model: not a pass (see unreviewable_e2e.rs).
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("logo.png (binary)") && err.contains("modules/engine (submodule pointer"), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let not_reviewed = report["not_reviewed"].as_array().unwrap();
    let why = |path: &str| not_reviewed.iter().find(|n| n["path"] == path).map(|n| n["reason"].clone());
    assert_eq!(why("logo.png"), Some(json!("binary")), "{report}");
    let pointer = why("modules/engine").expect("the submodule is named").to_string();
    assert!(pointer.contains("submodule pointer") && !pointer.contains("missing at head"), "{pointer}");
    assert_eq!(fake.count("find"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_lists_exactly_what_review_runs_and_why_the_rest_do_not() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, listing, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    assert_eq!(code, 0, "{err}");
    let (_, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{err}"));
    let mut ran: Vec<String> = report["reviewers"].as_array().unwrap().iter().map(|r| r.to_string()).collect();
    ran.push("\"secrets\"".into());
    let runs: Vec<String> = listing
        .lines()
        .filter(|l| l.contains("  runs: "))
        .map(|l| format!("{:?}", l.split_whitespace().next().unwrap()))
        .collect();
    let mut sorted = ran.clone();
    sorted.sort();
    let mut listed = runs.clone();
    listed.sort();
    assert_eq!(listed, sorted, "the listing and the review agree:\n{listing}");
    for name in ["contract-drift", "history", "prior-feedback"] {
        let line = listing.lines().find(|l| l.starts_with(name)).unwrap();
        assert!(line.contains("off: nothing to work with"), "{line}");
    }
    let names: Vec<&str> = ran.iter().map(|r| r.trim_matches('"')).collect();
    assert!(listing.contains(&format!("review would run: {}", names.join(", "))), "{listing}");

    // The review marked this head as reviewed: a second review would skip it, and the listing says so.
    let (_, again, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    assert!(again.contains("review would skip this change: already reviewed at this head"), "{again}");
    let (_, forced, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers", "--force"]).await;
    assert!(forced.contains("review would run: "), "{forced}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_names_where_the_limit_on_reviewers_came_from() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[reviewers]\nonly = [\"correctness\"]\n").unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (_, listing, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    let line = listing.lines().find(|l| l.starts_with("error-handling")).unwrap();
    assert!(line.contains("off: disabled by [reviewers] only") && !line.contains("--reviewers"), "{line}");
    let args = ["reviewers", "--reviewers", "tests,correctness"];
    let (_, listing, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    let line = listing.lines().find(|l| l.starts_with("error-handling")).unwrap();
    assert!(line.contains("off: disabled by --reviewers"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_range_prints_no_empty_provider_or_rules() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--base", "HEAD"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the change is empty"), "{out}");
    assert!(!out.contains("provider") && !out.contains("rules"), "{out}");
}
