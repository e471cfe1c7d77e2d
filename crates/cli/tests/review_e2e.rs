//! `gauntlet review` end to end: a real git repository, the real binary, and an
//! in-process fake of each model wire format playing scripted answers.

mod support;

use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet, repo, verdict};

const BASE: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return doc.owner_id == user.id


def rename(doc, title):
    doc.title = title.strip()
    return doc
";

const HEAD: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return True


def rename(doc, title):
    if not title:
        return doc
    doc.title = title.strip()
    return doc
";

const REAL: &str = "Any user can delete any document because the ownership check was removed.";
const INVENTED: &str = "Locked documents can now be deleted.";
const INTENDED: &str = "Empty titles are silently ignored instead of rejected.";
const UNREAD: &str = "The admin check trusts a flag the client controls.";
const GARBLED: &str = "Stripping the title drops meaningful whitespace.";

fn finding(location: &str, claim: &str, evidence: &str, severity: &str) -> Value {
    json!({"lens": "failure_scenario", "location": location, "claim": claim, "evidence": evidence, "severity": severity})
}

fn scripts() -> Vec<support::Script> {
    vec![
        finder(
            "correctness",
            json!([
                finding("src/auth.py:4", REAL, "    return True", "high"),
                finding("src/auth.py:4", INVENTED, "if doc.locked: raise", "high"),
                finding("src/auth.py:7-8", INTENDED, "if not title:", "medium"),
                finding("src/auth.py:2", UNREAD, "if user.is_admin:", "high"),
                finding("src/auth.py:9", GARBLED, "doc.title = title.strip()", "low"),
            ]),
        ),
        verdict(
            "validate",
            REAL,
            &[
                json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced `return doc.owner_id == user.id`", "confidence": 100, "impact": "consequential"}),
            ],
        ),
        verdict(
            "validate",
            INTENDED,
            &[
                json!({"verdict": "disproved", "evidence": "src/auth.py:7-8 `if not title:` then `return doc`: an intended no-op for empty input", "confidence": 75, "impact": "consequential"}),
            ],
        ),
        verdict(
            "validate",
            UNREAD,
            &[
                json!({"verdict": "disproved", "evidence": "src/session.py:10 `user.is_admin = verify(token)` sets it server-side", "confidence": 100, "impact": "consequential"}),
            ],
        ),
        verdict(
            "validate",
            GARBLED,
            &[
                json!({"verdict": "false_positive", "evidence": "src/auth.py:9 `doc.title`", "confidence": 75, "impact": "consequential"}),
            ],
        ),
    ]
}

fn claims(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|f| f["claim"].as_str().unwrap().to_string()).collect()
}

fn dropped_reason(report: &Value, claim: &str) -> String {
    let d = report["dropped"].as_array().unwrap().iter().find(|d| d["claim"] == claim);
    d.unwrap_or_else(|| panic!("{claim} not in dropped: {}", report["dropped"]))["reason"].as_str().unwrap().to_string()
}

async fn full_pipeline_on(wire: Wire) {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(wire, scripts()).await;
    let (code, stdout, stderr) = gauntlet(dir.path(), wire, &server, &["review", "--format", "json"]).await;
    assert_eq!(code, 0, "stderr: {stderr}\nstdout: {stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON object");

    assert_eq!(claims(&report["published"]), vec![REAL], "only the real, grounded, surviving finding is published");
    assert_eq!(report["published"][0]["location"], "src/auth.py:4");
    assert_eq!(report["published"][0]["inline"], true);
    assert_eq!(report["published"][0]["confidence"], 100);
    assert!(report["published"][0]["validator_evidence"].as_str().unwrap().starts_with("src/auth.py:4"));

    assert_eq!(dropped_reason(&report, INVENTED), "ungrounded");
    assert_eq!(dropped_reason(&report, INTENDED), "disproved");
    assert_eq!(claims(&report["unverified"]), vec![UNREAD], "a disproof citing unread code cannot drop a high finding");
    assert_eq!(report["unverified"][0]["confidence"], 25);
    assert!(report["unverified"][0]["gap"].as_str().unwrap().contains("src/session.py:10"));
    assert_eq!(dropped_reason(&report, GARBLED), "not_validated");
    let gaps = report["gaps"].as_array().unwrap();
    assert!(
        gaps.iter().any(|g| g["step"] == "validate" && g["message"].as_str().unwrap().contains("twice")),
        "a second contract violation is a coverage gap: {gaps:?}"
    );
    assert_eq!(
        report["funnel"],
        json!({"candidates": 5, "grounded": 4, "clustered": 4, "survived": 2, "published": 1, "minor": 0})
    );

    // The unread disproof and the garbled verdict were each re-asked exactly once.
    let validations_of =
        |claim: &str| fake.seen().iter().filter(|s| s.step == "validate" && s.body.to_string().contains(claim)).count();
    assert_eq!(validations_of(UNREAD), 2);
    assert_eq!(validations_of(GARBLED), 2);
    assert_eq!(validations_of(REAL), 1);
    // Every selected reviewer ran as its own session.
    let finders: Vec<_> = fake.seen().iter().filter(|s| s.step == "find").filter_map(|s| s.reviewer.clone()).collect();
    for r in ["correctness", "broad", "security-privacy"] {
        assert!(finders.contains(&r.to_string()), "{r} did not run: {finders:?}");
    }
    let usage = report["usage"].as_array().unwrap();
    assert!(usage.iter().any(|u| u["step"] == "find" && u["input"].as_u64().unwrap() > 0));
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["skipped"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_wire_publishes_only_grounded_survivors() {
    full_pipeline_on(Wire::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_wire_publishes_only_grounded_survivors() {
    full_pipeline_on(Wire::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rubber_stamp_triggers_a_stricter_second_validation() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let survive = |loc: &str| json!({"verdict": "survives", "evidence": format!("{loc} the code does what the claim says"), "confidence": 75, "impact": "consequential"});
    let scripts = vec![
        finder(
            "correctness",
            json!([
                finding("src/auth.py:4", REAL, "return True", "high"),
                finding("src/auth.py:7-8", INTENDED, "if not title:", "medium"),
                finding("src/auth.py:9", GARBLED, "doc.title = title.strip()", "low"),
            ]),
        ),
        verdict("validate", REAL, &[survive("src/auth.py:4")]),
        verdict("validate", INTENDED, &[survive("src/auth.py:7")]),
        verdict("validate", GARBLED, &[survive("src/auth.py:9")]),
        verdict("revalidate", REAL, &[survive("src/auth.py:4")]),
        verdict(
            "revalidate",
            INTENDED,
            &[
                json!({"verdict": "disproved", "evidence": "src/auth.py:7 `if not title:` is an intended guard", "confidence": 75, "impact": "consequential"}),
            ],
        ),
        verdict(
            "revalidate",
            GARBLED,
            &[
                json!({"verdict": "disproved", "evidence": "src/auth.py:9 `doc.title = title.strip()` was already there", "confidence": 75, "impact": "consequential"}),
            ],
        ),
    ];
    let (server, fake) = Fake::start(Wire::Anthropic, scripts).await;
    let (code, stdout, stderr) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json", "--reviewers", "correctness"])
            .await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fake.count("validate"), 3);
    assert_eq!(fake.count("revalidate"), 3, "every finding is validated again");
    assert_eq!(claims(&report["published"]), vec![REAL], "the second answers stand");
    assert!(report["notes"].to_string().contains("rubber-stamp"), "the report says so: {}", report["notes"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_change_gets_a_clean_report() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::OpenAi, &server, &["review"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("No findings"), "{stdout}");
    assert!(stdout.contains("candidates 0"), "the funnel is always shown: {stdout}");
    assert_eq!(fake.count("validate"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_that_always_fails_is_reported_and_exits_1() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[network]\nmax_attempts = 1\n").unwrap();
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(
            wiremock::ResponseTemplate::new(401).set_body_string("{\"error\":{\"message\":\"invalid x-api-key\"}}"),
        )
        .mount(&server)
        .await;
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    assert_eq!(code, 1, "nothing was reviewed: {stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert!(report["gaps"].as_array().unwrap().len() >= 3);
    assert!(report["gaps"][0]["message"].as_str().unwrap().contains("401"));
    assert!(!stdout.contains("test-key-anthropic") && !stderr.contains("test-key-anthropic"), "the key never appears");
}
