//! Secret hygiene end to end: a token committed in the change is masked before any
//! provider sees it and reported by the deterministic `secrets` check without its
//! value; provider keys appear in no output, recording or error message.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::Value;
use serde_json::json;
use support::{Fake, Wire, finder, gauntlet, repo, verdict};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BASE: &str = "import os\n\n\ndef client():\n    return make(os.environ[\"TOKEN\"])\n";

/// Built at run time, so no token-shaped literal sits in the repository.
fn token() -> String {
    format!("ghp_{}", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA9z")
}

fn head() -> String {
    format!("import os\n\nTOKEN = \"{}\"\n\ndef client():\n    return make(TOKEN)\n", token())
}

fn all_files(dir: &std::path::Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.push_str(&all_files(&p));
        } else {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
        }
    }
    out
}

#[tokio::test]
async fn a_committed_token_is_masked_for_providers_and_reported_without_its_value() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", &head())]);
    let record = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let record_arg = record.path().to_str().unwrap();
    let args = ["review", "--format", "json", "--reviewers", "correctness", "--record", record_arg];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");

    let seen = fake.seen();
    assert!(!seen.is_empty(), "the reviewer ran");
    let secret_tail = &token()[4..];
    for s in &seen {
        let body = s.body.to_string();
        assert!(!body.contains(secret_tail), "the token reached a provider");
        assert!(body.contains("TOKEN = \\\"[masked github-pat]\\\""), "the masked line keeps its place: {body}");
    }

    let report: Value = serde_json::from_str(&stdout).unwrap();
    let published = report["published"].as_array().unwrap();
    let secret = published.iter().find(|p| p["reviewer"] == "secrets").expect("the secret is reported");
    assert_eq!(secret["severity"], "high");
    assert_eq!(secret["location"], "src/client.py:3");
    assert_eq!(secret["evidence"], gauntlet_review::secrets::NOT_QUOTED, "no part of the line is quoted");
    let redacted = format!("A secret (github-pat, {} characters) is committed", token().len());
    assert!(secret["claim"].as_str().unwrap().contains(&redacted), "{}", secret["claim"]);

    let (_, markdown, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "markdown"]).await;
    for (what, text) in [
        ("json report", &stdout),
        ("markdown report", &markdown),
        ("log", &stderr),
        ("recording", &all_files(record.path())),
    ] {
        assert!(!text.contains(secret_tail), "the token is in the {what}");
        assert!(!text.contains("test-key-anthropic"), "the API key is in the {what}");
    }
}

#[tokio::test]
async fn masking_can_be_turned_off_but_the_secret_is_still_reported() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", &head())]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[secrets]\nmask = false\n").unwrap();
    let (server, fake) = Fake::start(Wire::OpenAi, vec![]).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::OpenAi, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(fake.seen().iter().any(|s| s.body.to_string().contains(&token())), "unmasked on request");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let secret = report["published"].as_array().unwrap().iter().find(|p| p["reviewer"] == "secrets").cloned();
    assert!(!secret.expect("still reported").to_string().contains(&token()[4..]), "never echoed");
}

#[tokio::test]
async fn a_provider_error_echoing_the_key_does_not_leak_it() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", "x = 1\n")]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_string("invalid x-api-key: test-key-anthropic"))
        .mount(&server)
        .await;
    let args = ["review", "--format", "markdown", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_ne!(code, 0, "nothing was reviewed: {stdout}");
    for (what, text) in [("report", &stdout), ("log", &stderr)] {
        assert!(!text.contains("test-key-anthropic"), "the API key is in the {what}: {text}");
    }
    assert!(stdout.contains("Coverage gaps"), "the report names what was not done: {stdout}");
}

#[tokio::test]
async fn with_masking_off_a_model_echoing_the_token_still_prints_no_token() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", &head())]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[secrets]\nmask = false\n").unwrap();
    let claim = format!("The token {} is hard-coded in the client", token());
    let finding = json!({"lens": "blast_radius", "location": "src/client.py:3", "claim": claim,
        "evidence": format!("TOKEN = \"{}\"", token()), "severity": "high"});
    let survives = json!({"verdict": "survives", "evidence": format!("src/client.py:3 sets {}", token()), "confidence": 100, "impact": "consequential"});
    let scripts = vec![finder("correctness", json!([finding])), verdict("validate", "is hard-coded", &[survives])];
    let (server, _) = Fake::start(Wire::Anthropic, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let echoed = report["published"].as_array().unwrap().iter().find(|p| p["reviewer"] == "correctness");
    let echoed = echoed.expect("the model's finding is published").to_string();
    assert!(echoed.contains("is hard-coded") && echoed.contains("[masked github-pat]"), "{echoed}");
    for (what, text) in [("report", &stdout), ("log", &stderr)] {
        assert!(!text.contains(&token()[4..]), "the token is in the {what}");
    }
}

/// The finding and verdict of a model that echoes the token, judged minor by the
/// validator: listed once among the minor findings, never gating.
fn minor_echo_scripts() -> Vec<support::Script> {
    let claim = format!("The token {} is hard-coded in the client", token());
    let finding = json!({"lens": "blast_radius", "location": "src/client.py:3", "claim": claim,
        "evidence": format!("TOKEN = \"{}\"", token()), "severity": "high"});
    let minor = json!({"verdict": "survives", "evidence": format!("src/client.py:3 sets {}", token()), "confidence": 100, "impact": "minor"});
    vec![finder("correctness", json!([finding])), verdict("validate", "is hard-coded", &[minor])]
}

#[tokio::test]
async fn with_masking_off_a_minor_finding_echoing_the_token_prints_no_token_in_any_format() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", &head())]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[secrets]\nmask = false\n").unwrap();
    let (server, _) = Fake::start(Wire::Anthropic, minor_echo_scripts()).await;
    for format in ["json", "markdown", "terminal", "sarif"] {
        let args = ["review", "--format", format, "--reviewers", "correctness"];
        let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
        assert_eq!(code, 0, "{stderr}");
        if format == "json" {
            let report: Value = serde_json::from_str(&stdout).unwrap();
            let minor = report["minor"].as_array().unwrap().iter().find(|p| p["reviewer"] == "correctness");
            let minor = minor.expect("the model's finding is listed as minor").to_string();
            assert!(minor.contains("is hard-coded") && minor.contains("[masked github-pat]"), "{minor}");
        }
        for (what, text) in [("report", &stdout), ("log", &stderr)] {
            assert!(!text.contains(&token()[4..]), "{format}: the token is in the {what}:\n{text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_masking_off_a_minor_finding_echoing_the_token_is_posted_without_it() {
    let dir = repo(&[("src/client.py", BASE)], &[("src/client.py", &head())]);
    support::commit_on_main(dir.path(), &[("gauntlet.toml", "[secrets]\nmask = false\n")]);
    let ci = support::Ci::new(dir);
    let (server, _) = Fake::start(Wire::Anthropic, minor_echo_scripts()).await;
    let host = fakes::github::start().await;
    let (code, stdout, stderr) = ci.run(&host.server.uri(), &server, &["--reviewers", "correctness"]).await;
    assert_eq!(code, 0, "{stderr}");
    let overviews = host.overviews().join("\n");
    assert!(overviews.contains("is hard-coded"), "the minor finding is listed in the overview:\n{overviews}");
    for (what, text) in [("overview", &overviews), ("report", &stdout), ("log", &stderr)] {
        assert!(!text.contains(&token()[4..]), "the token is in the {what}:\n{text}");
    }
}
