//! The conventions a command-line user expects of a tool in this ecosystem:
//! `review --fail-on` for scripts and pre-commit hooks, several report files
//! from one run (`--output FORMAT=PATH`), no colour where the terminal or the
//! user says none, shell completions, man pages and `--help` with examples.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet, gauntlet_env, git, repo, verdict};

const BASE: &str = "def refund(order):\n    return order.total\n";
const HEAD: &str = "def refund(order):\n    pay(order.total)\n    return order.total\n";
const CLAIM: &str = "The refund is paid twice when the callback retries.";

/// A finding of `severity` at src/pay.py:2 that its validator confirms.
fn confirmed(severity: &str) -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/pay.py:2", "claim": CLAIM,
                         "evidence": "    pay(order.total)", "severity": severity});
    let survives = json!({"verdict": "survives", "confidence": 100, "impact": "consequential",
                          "evidence": "src/pay.py:2 `pay(order.total)` runs on every retry of the callback"});
    vec![finder("correctness", json!([finding])), verdict("validate", "paid twice", &[survives])]
}

/// The same high finding, whose validator breaks the verdict contract on every try.
fn undecided() -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/pay.py:2", "claim": CLAIM,
                         "evidence": "    pay(order.total)", "severity": "high"});
    let wrong = json!({"verdict": "valid", "evidence": "src/pay.py:2 `pay(order.total)`", "confidence": 75});
    vec![finder("correctness", json!([finding])), verdict("validate", "paid twice", &[wrong.clone(), wrong])]
}

fn pay_repo() -> tempfile::TempDir {
    repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_fail_on_exits_3_on_a_finding_that_severe_and_0_below_it_even_on_a_head_reviewed_before() {
    let dir = pay_repo();
    let (server, _fake) = Fake::start(Wire::Anthropic, confirmed("medium")).await;
    let review = |fail_on: &'static str| ["review", "--reviewers", "correctness", "--fail-on", fail_on];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &review("high")).await;
    assert_eq!(code, 0, "a medium finding is below `high`\n{out}\n{err}");
    assert!(out.contains(CLAIM), "{out}");
    // Reviewed now; a script asking again must still see the finding, not an "already reviewed" skip.
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &review("medium")).await;
    assert_eq!(code, 3, "a medium finding at --fail-on medium\n{out}\n{err}");
    assert!(out.contains(CLAIM), "{out}");
    assert!(err.contains("1 finding(s) at or above `medium`"), "{err}");
    let (code, _, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &review("critical")).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("use high, medium or low"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_fail_on_exits_4_when_a_candidate_that_severe_could_not_be_validated() {
    let dir = pay_repo();
    let (server, _fake) = Fake::start(Wire::Anthropic, undecided()).await;
    let args = ["review", "--reviewers", "correctness", "--fail-on", "high"];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 4, "an undecided high candidate is not a pass\n{out}\n{err}");
    assert!(err.contains("the review is incomplete") && err.contains("src/pay.py:2"), "{err}");
    let (code, _, _) = gauntlet(dir.path(), Wire::Anthropic, &server, &args[..3]).await;
    assert_eq!(code, 0, "without --fail-on `review` stays advisory");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_writes_every_output_whole_and_still_prints_the_terminal_report() {
    let dir = pay_repo();
    let (server, _fake) = Fake::start(Wire::Anthropic, confirmed("high")).await;
    let out_dir = tempfile::tempdir().unwrap();
    let sarif = out_dir.path().join("gauntlet.sarif");
    let json_path = out_dir.path().join("review.json");
    std::fs::write(&json_path, "stale").unwrap();
    let outputs = [format!("sarif={}", sarif.display()), format!("json={}", json_path.display())];
    let args = ["review", "--reviewers", "correctness", "--output", &outputs[0], "--output", &outputs[1]];
    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("gauntlet review") && out.contains(CLAIM), "the terminal report on stdout: {out}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(1), "{log}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(report["published"][0]["claim"], CLAIM, "the old file was replaced");
    let mut left: Vec<String> =
        std::fs::read_dir(out_dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(left, ["gauntlet.sarif", "review.json"], "no temporary file is left beside the reports");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_output_is_a_usage_error_before_any_model_call() {
    let dir = pay_repo();
    let (server, fake) = Fake::start(Wire::Anthropic, confirmed("high")).await;
    let missing = dir.path().join("no/such/folder/gauntlet.sarif");
    let cases = [
        ("sarf=gauntlet.sarif".to_string(), "unknown format `sarf`"),
        ("gauntlet.sarif".to_string(), "FORMAT=PATH"),
        (format!("sarif={}", missing.display()), "does not exist; create it first"),
        (format!("json={}", dir.path().display()), "that is a folder"),
    ];
    for (output, says) in &cases {
        let args = ["review", "--reviewers", "correctness", "--output", output];
        let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
        assert_eq!(code, 2, "{output}: {err}");
        assert!(err.contains(says), "{output}: {err}");
        assert!(out.is_empty(), "{output}: nothing reviewed, nothing printed: {out}");
    }
    assert!(fake.seen().is_empty(), "no model was called: {:?}", fake.seen().len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ci_writes_sarif_and_code_quality_next_to_the_posted_review() {
    let dir = repo(&[("src/pay.py", BASE)], &[("src/pay.py", HEAD)]);
    let (model, _fake) = Fake::start(Wire::Anthropic, confirmed("high")).await;
    let host = fakes::github::start().await;
    let event = tempfile::NamedTempFile::new().unwrap();
    let (base, head) = (git(dir.path(), &["rev-parse", "main"]), git(dir.path(), &["rev-parse", "HEAD"]));
    let pr = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()},
                    "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(event.path(), pr.to_string()).unwrap();
    let uri = host.server.uri();
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", event.path().to_str().unwrap()),
        ("GITHUB_REPOSITORY", "o/r"),
        ("GITHUB_API_URL", uri.as_str()),
        ("GITHUB_TOKEN", "ghs_faketoken123"),
    ];
    let reports = tempfile::tempdir().unwrap();
    let (sarif, quality) = (reports.path().join("gauntlet.sarif"), reports.path().join("gl-code-quality.json"));
    let outputs = [format!("sarif={}", sarif.display()), format!("codequality={}", quality.display())];
    let args = ["ci", "--fail-on", "high", "--output", &outputs[0], "--output", &outputs[1]];
    let (code, out, err) = gauntlet_env(dir.path(), Wire::Anthropic, &model, &args, &env).await;
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(!host.state().threads.is_empty(), "the review was posted too");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["message"]["text"].as_str().map(|t| t.contains("paid twice")), Some(true));
    let entries: Value = serde_json::from_str(&std::fs::read_to_string(&quality).unwrap()).unwrap();
    assert_eq!(entries[0]["severity"], "critical", "{entries}");
}

/// Run `gauntlet review --color auto` on a pseudo-terminal (util-linux `script`),
/// with `env` set; returns what the terminal showed.
fn on_a_terminal(dir: &std::path::Path, server: &str, env: &[(&str, &str)]) -> String {
    let bin = support::bin();
    let cmd = format!("{} review --reviewers correctness --force", bin.display());
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("GITHUB_ACTIONS")
        .env("ANTHROPIC_API_KEY", "test-key-anthropic")
        .env("ANTHROPIC_BASE_URL", server)
        .envs(env.iter().copied())
        .output()
        .expect("script runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dumb_terminal_or_no_color_gets_no_colour_escapes() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = pay_repo();
    let (server, _fake) = Fake::start(Wire::Anthropic, confirmed("high")).await;
    let shown = on_a_terminal(dir.path(), &server.uri(), &[("TERM", "xterm-256color")]);
    assert!(shown.contains(CLAIM) && shown.contains("\x1b[1;31mHIGH"), "a colour terminal gets colour: {shown:?}");
    // Colour is SGR (`ESC [ … m`); the live progress display may still redraw its line.
    let sgr = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap();
    for env in [[("TERM", "dumb"), ("CI", "")], [("TERM", "xterm-256color"), ("NO_COLOR", "1")]] {
        let shown = on_a_terminal(dir.path(), &server.uri(), &env);
        assert!(shown.contains(CLAIM), "{env:?}: {shown:?}");
        let coloured: Vec<&str> = shown.lines().filter(|l| sgr.is_match(l)).collect();
        assert!(coloured.is_empty(), "{env:?}: {} line(s) carry escapes: {coloured:?}", coloured.len());
    }
}
