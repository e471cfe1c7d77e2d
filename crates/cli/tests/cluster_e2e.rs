//! Clustering and the rubber-stamp rule end to end: the real binary, a fake model
//! playing scripted answers, and (for `ci`) the stateful fake of GitHub.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::{Value, json};
use support::{Fake, Script, Wire, finder, gauntlet, gauntlet_env, git, repo, verdict};

const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";

const BY_CORRECTNESS: &str = "Any user can delete any document: `can_delete` ends in an unconditional `return True`.";
const BY_SECURITY: &str = "Authorisation bypass: `can_delete` no longer compares `doc.owner_id` with `user.id`.";
const BY_ERRORS: &str = "Non-admins reach the last `return True` of `can_delete`, so the admin branch guards nothing.";

fn finding(location: &str, claim: &str, evidence: &str, severity: &str) -> Value {
    json!({"lens": "failure_scenario", "location": location, "claim": claim, "evidence": evidence, "severity": severity})
}

/// Three reviewers report the removed ownership check, each in its own words and
/// range. Only the representative (high, one line, `correctness`) has a verdict
/// scripted: validating any other member would get a 500 and show as a gap.
fn one_defect_three_ways() -> Vec<Script> {
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100});
    vec![
        finder("correctness", json!([finding("src/auth.py:4", BY_CORRECTNESS, "    return True", "high")])),
        finder("security-privacy", json!([finding("src/auth.py:3-4", BY_SECURITY, "return True", "high")])),
        finder("error-handling", json!([finding("src/auth.py:2-4", BY_ERRORS, "return True", "medium")])),
        verdict("validate", BY_CORRECTNESS, &[survives]),
    ]
}

const ARGS: &[&str] = &["--reviewers", "correctness,security-privacy,error-handling"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_reviewers_on_one_defect_get_one_validation_and_one_finding_raised_by_all_three() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, one_defect_three_ways()).await;
    let mut args = vec!["review", "--format", "json"];
    args.extend_from_slice(ARGS);
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fake.count("validate"), 1, "one validator session for the cluster");
    let published = report["published"].as_array().unwrap();
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0]["claim"], BY_CORRECTNESS, "the representative's wording is shown");
    assert_eq!(published[0]["raised_by"], json!(["correctness", "error-handling", "security-privacy"]));
    assert_eq!(published[0]["severity"], "high");
    assert_eq!(report["funnel"]["grounded"], 3);
    assert_eq!(report["funnel"]["clustered"], 1);
    assert_eq!(report["validator_sessions"], json!({"run": 1, "saved": 2, "rechecked": false}));
    let clustered = report["dropped"].as_array().unwrap().iter().filter(|d| d["reason"] == "clustered").count();
    assert_eq!(clustered, 2, "the other members are accounted for, not lost: {}", report["dropped"]);
    assert!(report["gaps"].as_array().unwrap().is_empty(), "{}", report["gaps"]);
    // The validator saw the representative's claim alone.
    let asked = fake.seen().into_iter().find(|s| s.step == "validate").unwrap().body.to_string();
    assert!(!asked.contains("Authorisation bypass") && !asked.contains("guards nothing"), "{asked}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ci_posts_one_inline_comment_for_a_defect_three_reviewers_found() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let event = tempfile::NamedTempFile::new().unwrap();
    let (base, head) = (git(dir.path(), &["rev-parse", "main"]), git(dir.path(), &["rev-parse", "HEAD"]));
    let pr = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(event.path(), pr.to_string()).unwrap();
    let (model, fake) = Fake::start(Wire::Anthropic, one_defect_three_ways()).await;
    let host = fakes::github::start().await;
    let uri = host.server.uri();
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", event.path().to_str().unwrap()),
        ("GITHUB_REPOSITORY", "o/r"),
        ("GITHUB_API_URL", uri.as_str()),
        ("GITHUB_TOKEN", "ghs_faketoken123"),
    ];
    let mut args = vec!["ci"];
    args.extend_from_slice(ARGS);
    let (code, _, stderr) = gauntlet_env(dir.path(), Wire::Anthropic, &model, &args, &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fake.count("validate"), 1);
    let inline = host.inline();
    assert_eq!(inline.len(), 1, "one comment for one defect: {inline:?}");
    let body = &inline[0].notes[0].body;
    assert!(
        body.contains("raised by") && body.contains("security-privacy") && body.contains("error-handling"),
        "{body}"
    );
}

const THREE_FUNCTIONS_BASE: &str = "def area(w, h):\n    return w * h\n\n\ndef ratio(a, b):\n    return a / b if b else 0\n\n\ndef first(items):\n    return items[0]\n";
const THREE_FUNCTIONS_HEAD: &str = "def area(w, h):\n    return w + h\n\n\ndef ratio(a, b):\n    return a / b\n\n\ndef first(items):\n    return items[1]\n";
const AREA: &str = "`area` adds `w` and `h` instead of multiplying them.";
const RATIO: &str = "`ratio` divides by `b` without the zero check it had.";
const FIRST: &str = "`first` returns `items[1]`, the second element.";

/// Three distinct defects, one per function, validated at the given confidences
/// on the first pass; the re-check (if asked) keeps them at 100.
async fn rubber_stamp_run(confidences: [u8; 3]) -> (Fake, Value) {
    let dir = repo(&[("src/calc.py", THREE_FUNCTIONS_BASE)], &[("src/calc.py", THREE_FUNCTIONS_HEAD)]);
    let at = |line: u32, code: &str, confidence: u8| json!({"verdict": "survives", "evidence": format!("src/calc.py:{line} `{code}` is what the claim says"), "confidence": confidence});
    let mut scripts = vec![finder(
        "correctness",
        json!([
            finding("src/calc.py:2", AREA, "return w + h", "high"),
            finding("src/calc.py:6", RATIO, "return a / b", "high"),
            finding("src/calc.py:10", FIRST, "return items[1]", "medium"),
        ]),
    )];
    for ((claim, line, code), confidence) in
        [(AREA, 2, "return w + h"), (RATIO, 6, "return a / b"), (FIRST, 10, "return items[1]")]
            .into_iter()
            .zip(confidences)
    {
        scripts.push(verdict("validate", claim, &[at(line, code, confidence)]));
        scripts.push(verdict("revalidate", claim, &[at(line, code, 100)]));
    }
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    (fake, serde_json::from_str(&stdout).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survivor_under_the_threshold_means_adjudication_drops_something_so_no_recheck() {
    let (fake, report) = rubber_stamp_run([50, 100, 100]).await;
    assert_eq!(report["funnel"]["clustered"], 3);
    assert_eq!(fake.count("validate"), 3);
    assert_eq!(fake.count("revalidate"), 0, "the threshold filter already dropped one: {}", report["notes"]);
    assert_eq!(report["validator_sessions"]["rechecked"], false);
    assert_eq!(report["published"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_survivors_all_at_full_confidence_are_checked_again() {
    let (fake, report) = rubber_stamp_run([100, 100, 100]).await;
    assert_eq!(fake.count("revalidate"), 3, "each cluster is validated once more");
    assert_eq!(report["validator_sessions"], json!({"run": 6, "saved": 0, "rechecked": true}));
    assert!(report["notes"].to_string().contains("rubber-stamp"), "{}", report["notes"]);
}
