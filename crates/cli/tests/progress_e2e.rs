//! Progress on stderr, end to end: one plain line per finished step when stderr is
//! not a terminal or in CI, a live display on a terminal, nothing with `--quiet`,
//! cases done of total in a backtest, and never a byte of it on stdout.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{Fake, Script, Wire, finder, gauntlet, gauntlet_env, repo, verdict};

const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
const CLAIM: &str = "Any user can delete any document because the ownership check was removed.";

fn scripts() -> Vec<Script> {
    vec![
        finder(
            "correctness",
            json!([{"lens": "failure_scenario", "location": "src/auth.py:4", "claim": CLAIM,
                    "evidence": "    return True", "severity": "high"}]),
        ),
        verdict(
            "validate",
            CLAIM,
            &[
                json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True`", "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ]
}

// `--force`: a test may review the same head twice, which the gate would skip.
const TWO_REVIEWERS: [&str; 6] =
    ["review", "--format", "json", "--force", "--reviewers", "correctness,security-privacy"];

/// Lines of `stderr` that report a finished step.
fn step_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            ["gauntlet: find:", "gauntlet: validate:", "gauntlet: revalidate:"].iter().any(|p| l.starts_with(p))
        })
        .collect()
}

fn assert_plain_steps(stderr: &str) {
    let steps = step_lines(stderr);
    assert_eq!(steps.len(), 2, "one line per finished step: {stderr}");
    assert!(steps[0].starts_with("gauntlet: find: 2 of 2 finders done in "), "{stderr}");
    assert!(steps[1].starts_with("gauntlet: validate: 1 of 1 findings done in "), "{stderr}");
    assert!(steps.iter().all(|l| l.contains(" tokens") && l.ends_with(" so far")), "tokens and cost so far: {stderr}");
    assert!(!stderr.contains('\u{1b}'), "no terminal control codes in plain output: {stderr:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_pipe_each_finished_step_gets_one_line_and_stdout_holds_only_the_report() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let (code, stdout, stderr) =
        gauntlet_env(dir.path(), Wire::Anthropic, &server, &TWO_REVIEWERS, &[("CI", "")]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_plain_steps(&stderr);
    let report: Value = serde_json::from_str(&stdout).expect("stdout is exactly one JSON report");
    assert_eq!(report["published"][0]["claim"], CLAIM);
    assert!(!stdout.contains("gauntlet: "), "no progress on stdout: {stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ci_gets_plain_lines() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let (code, _, stderr) = gauntlet_env(dir.path(), Wire::Anthropic, &server, &TWO_REVIEWERS, &[("CI", "true")]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_plain_steps(&stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_leaves_stderr_empty_on_success_and_prints_the_report() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    for quiet in ["--quiet", "-q"] {
        let args: Vec<&str> = TWO_REVIEWERS.iter().copied().chain([quiet]).collect();
        let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stderr, "", "{quiet} prints nothing but the report");
        let report: Value = serde_json::from_str(&stdout).expect("the report is still printed");
        assert_eq!(report["published"][0]["claim"], CLAIM);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_still_says_why_a_run_failed() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (code, stdout, stderr) = {
        let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
        gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--quiet", "--base", "no-such-revision"]).await
    };
    assert_eq!(code, 2, "{stdout}");
    assert!(stderr.contains("gauntlet: error:"), "errors are never silenced: {stderr}");
}

/// A corpus of two clean cases, each a repository changing one file (kept alive by
/// the returned folders).
fn corpus(root: &Path) -> (std::path::PathBuf, Vec<tempfile::TempDir>) {
    let corpus = root.join("corpus");
    let mut repos = Vec::new();
    for name in ["alpha", "beta"] {
        let repo = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
        let case = corpus.join(name);
        std::fs::create_dir_all(&case).unwrap();
        let toml = format!(
            "description = \"case {name}\"\nrepo = \"{}\"\nbase = \"main\"\nhead = \"feature\"\nkind = \"clean\"\n",
            repo.path().display()
        );
        std::fs::write(case.join("case.toml"), toml).unwrap();
        repos.push(repo);
    }
    (corpus, repos)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backtest_counts_cases_done_of_total_on_stderr_only() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, _repos) = corpus(dir.path());
    let (server, _fake) = Fake::start(Wire::Anthropic, Vec::new()).await;
    let args = ["backtest", corpus.to_str().unwrap(), "--jobs", "2", "--format", "json"];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");
    let counted: Vec<&str> = stderr.lines().filter(|l| l.starts_with("gauntlet: [")).collect();
    assert_eq!(counted.len(), 2, "{stderr}");
    assert!(counted[0].starts_with("gauntlet: [1/2] "), "{stderr}");
    assert!(counted[1].starts_with("gauntlet: [2/2] "), "{stderr}");
    assert!(counted.iter().all(|l| l.contains(" tokens") && l.ends_with(" so far")), "spending so far: {stderr}");
    for name in ["alpha", "beta"] {
        assert_eq!(counted.iter().filter(|l| l.contains(&format!("] {name}: 0 published"))).count(), 1, "{stderr}");
    }
    let report: Value = serde_json::from_str(&stdout).expect("stdout is exactly the JSON report");
    assert_eq!(report["cases"].as_array().unwrap().len(), 2);

    let quiet: Vec<&str> = args.iter().copied().chain(["--quiet"]).collect();
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &quiet).await;
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(serde_json::from_str::<Value>(&stdout).is_ok());
}

/// Run the review under a pseudo-terminal (`script`), stdout to a file; what the
/// terminal showed, and the report. `None` where `script` is not installed.
async fn on_a_terminal(dir: &Path, server: &wiremock::MockServer, envs: &[(&str, &str)]) -> Option<(String, String)> {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed, so no pseudo-terminal");
        return None;
    }
    let out = dir.join("report.json");
    // A pseudo-terminal made without one to copy has no size; give it one.
    let line = format!("stty cols 120 rows 40; \"$GAUNTLET\" {} > \"$REPORT\"", TWO_REVIEWERS.join(" "));
    let mut review = support::command(dir, Wire::Anthropic, server, &[], envs);
    let mut script = std::process::Command::new("script");
    script.args(["-q", "-e", "-c", &line, "/dev/null"]).current_dir(dir);
    for (key, value) in review.as_std_mut().get_envs() {
        match value {
            Some(v) => script.env(key, v),
            None => script.env_remove(key),
        };
    }
    let cmd = script.env("GAUNTLET", support::bin()).env("REPORT", &out).output().expect("script runs");
    assert!(cmd.status.success(), "{}", String::from_utf8_lossy(&cmd.stdout));
    Some((String::from_utf8_lossy(&cmd.stdout).into_owned(), std::fs::read_to_string(out).unwrap()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_gets_a_live_display_that_is_cleared_before_the_report() {
    let dir = repo(&[("src/auth.py", BASE)], &[("src/auth.py", HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts()).await;
    let Some((screen, report)) = on_a_terminal(dir.path(), &server, &[("CI", ""), ("TERM", "xterm")]).await else {
        return;
    };
    assert!(screen.contains('\u{1b}'), "a live display redraws in place: {screen:?}");
    assert!(screen.contains("gauntlet: find: 2 of 2 finders done"), "finished steps stay on screen: {screen:?}");
    assert!(screen.contains("gauntlet: validate: 1 of 1 findings done"), "{screen:?}");
    let report: Value = serde_json::from_str(&report).expect("the report went to stdout alone");
    assert_eq!(report["published"][0]["claim"], CLAIM);

    // The same terminal in CI: plain lines, no redrawing.
    let Some((screen, _)) = on_a_terminal(dir.path(), &server, &[("CI", "true"), ("TERM", "xterm")]).await else {
        return;
    };
    assert_plain_steps(&screen.replace("\r\n", "\n"));
}
