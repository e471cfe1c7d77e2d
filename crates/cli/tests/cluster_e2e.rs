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
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"});
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
    let at = |line: u32, code: &str, confidence: u8| json!({"verdict": "survives", "evidence": format!("src/calc.py:{line} `{code}` is what the claim says"), "confidence": confidence, "impact": "consequential"});
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disproved_representative_hands_over_to_the_next_member() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let disproved = json!({"verdict": "disproved", "evidence": "src/auth.py:3 `return True` for admins was already there", "confidence": 75, "impact": "consequential"});
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` now also for non-owners", "confidence": 100, "impact": "consequential"});
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:4", BY_CORRECTNESS, "    return True", "high")])),
        finder("error-handling", json!([finding("src/auth.py:2-4", BY_ERRORS, "return True", "medium")])),
        verdict("validate", BY_CORRECTNESS, &[disproved]),
        verdict("validate", BY_ERRORS, &[survives]),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness,error-handling"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fake.count("validate"), 2, "the representative, then the next member");
    let published = report["published"].as_array().unwrap();
    assert_eq!(published.len(), 1);
    assert_eq!(published[0]["claim"], BY_ERRORS);
    assert_eq!(published[0]["severity"], "high", "the cluster's highest severity");
    assert_eq!(published[0]["raised_by"], json!(["correctness", "error-handling"]));
    let reasons: Vec<&str> =
        report["dropped"].as_array().unwrap().iter().map(|d| d["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, vec!["disproved"], "the disproved representative is listed: {}", report["dropped"]);
}

const TEST_BASE: &str =
    "from src.auth import can_delete\n\n\ndef test_admin_can_delete():\n    assert can_delete(admin, doc)\n";
const TEST_HEAD: &str = "from src.auth import can_delete\n\n\ndef test_admin_can_delete():\n    assert can_delete(admin, doc)\n\n\ndef test_owner_can_delete():\n    assert can_delete(owner, doc)\n";
const TEST_GAP: &str = "No test calls `can_delete` with a user who neither owns the document nor is an admin.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_gap_about_a_published_defect_is_a_line_of_it_and_is_not_validated() {
    let dir = repo(
        &[("src/auth.py", BASE), ("tests/test_auth.py", TEST_BASE)],
        &[("src/auth.py", HEAD), ("tests/test_auth.py", TEST_HEAD)],
    );
    let mut scripts = one_defect_three_ways();
    scripts.push(finder(
        "tests",
        json!([finding("tests/test_auth.py:8-9", TEST_GAP, "assert can_delete(owner, doc)", "medium")]),
    ));
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness,tests"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fake.count("validate"), 1, "the test gap is not validated");
    let published = report["published"].as_array().unwrap();
    assert_eq!(published.len(), 1, "{published:?}");
    let lines = published[0]["unvalidated"].to_string();
    assert!(lines.contains(TEST_GAP) && lines.contains("tests/test_auth.py:8-9"), "{lines}");
    assert_eq!(published[0]["raised_by"], json!(["correctness", "tests"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_gap_about_code_with_no_published_defect_is_validated_like_any_finding() {
    let dir = repo(
        &[("src/auth.py", BASE), ("tests/test_auth.py", TEST_BASE)],
        &[("src/auth.py", HEAD), ("tests/test_auth.py", TEST_HEAD)],
    );
    let disproved = json!({"verdict": "disproved", "evidence": "src/auth.py:3 `return True` for admins was already there", "confidence": 75, "impact": "consequential"});
    let gap_survives = json!({"verdict": "survives", "evidence": "tests/test_auth.py:8 `assert can_delete(owner, doc)` only covers owners", "confidence": 75, "impact": "consequential"});
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:4", BY_CORRECTNESS, "    return True", "high")])),
        finder(
            "tests",
            json!([finding("tests/test_auth.py:8-9", TEST_GAP, "assert can_delete(owner, doc)", "medium")]),
        ),
        verdict("validate", BY_CORRECTNESS, &[disproved]),
        verdict("validate", TEST_GAP, &[gap_survives]),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness,tests"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fake.count("validate"), 2);
    let published = report["published"].as_array().unwrap();
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0]["claim"], TEST_GAP);
}

const USERS_BASE: &str =
    "def to_json(user):\n    return {\n        \"id\": user.id,\n        \"display_name\": user.display_name,\n    }\n";
const USERS_HEAD: &str =
    "def to_json(user):\n    return {\n        \"id\": user.id,\n        \"name\": user.display_name,\n    }\n";
const CLIENT_BASE: &str = "export async function loadUser(id: string) {\n  const res = await fetch(`/api/users/${id}`);\n  const user = await res.json();\n  return user.display_name;\n}\n";
const CLIENT_HEAD: &str = "export async function loadUser(id: string) {\n  const res = await fetch(`/api/users/${id}`);\n  const user = await res.json();\n  return user.display_name.trim();\n}\n";
const RENAMED: &str = "The response key `name` replaces `display_name`, so every client reading the old key breaks.";
const READER: &str =
    "`loadUser` reads `user.display_name`, which api/users.py:4 no longer sends; `.trim()` then throws.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_file_twin_is_one_comment_at_the_primary_location_naming_the_other() {
    let dir = repo(
        &[("api/users.py", USERS_BASE), ("web/client.ts", CLIENT_BASE)],
        &[("api/users.py", USERS_HEAD), ("web/client.ts", CLIENT_HEAD)],
    );
    let event = tempfile::NamedTempFile::new().unwrap();
    let (base, head) = (git(dir.path(), &["rev-parse", "main"]), git(dir.path(), &["rev-parse", "HEAD"]));
    let pr = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(event.path(), pr.to_string()).unwrap();
    let survives = json!({"verdict": "survives", "evidence": "api/users.py:4 `\"name\": user.display_name,` renames the key", "confidence": 100, "impact": "consequential"});
    let scripts = vec![
        finder(
            "correctness",
            json!([
                finding("api/users.py:4", RENAMED, "\"name\": user.display_name,", "high"),
                finding("web/client.ts:4", READER, "return user.display_name.trim();", "medium"),
            ]),
        ),
        verdict("validate", RENAMED, &[survives]),
    ];
    let (model, fake) = Fake::start(Wire::Anthropic, scripts).await;
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
    let args = ["ci", "--reviewers", "correctness"];
    let (code, _, stderr) = gauntlet_env(dir.path(), Wire::Anthropic, &model, &args, &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fake.count("validate"), 1);
    let inline = host.inline();
    assert_eq!(inline.len(), 1, "{inline:?}");
    assert_eq!((inline[0].path.as_deref(), inline[0].line), (Some("api/users.py"), Some(4)));
    assert!(inline[0].notes[0].body.contains("web/client.ts:4"), "{}", inline[0].notes[0].body);
}
