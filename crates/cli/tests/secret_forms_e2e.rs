//! Thirty-eight real-world forms of secrets (see `support/secret_forms.rs`), each
//! placed where a pull request author or a model can put it: added in the diff,
//! in an untouched file a reviewer reads through its tools, in the commit
//! message and the pull request's description, and in the model's own answers.
//! None may reach a provider request, a `--record` file, a report, the log or
//! anything posted to the code host; every form added in the diff is reported by
//! the `secrets` check, at its line, without its value.

mod support;

#[path = "support/secret_forms.rs"]
mod secret_forms;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use secret_forms::{Form, file, forms, heading, needles};
use serde_json::{Value, json};
use support::{Fake, Script, Wire, finder, gauntlet, gauntlet_env, git, repo, tool, verdict};

const CLAIM: &str = "The configuration file commits live credentials";
const LEAKS: &str = "config/leaks.txt";
const VAULT: &str = "untouched/vault.txt";

/// The forms of each place, each with values of its own.
struct Placed {
    diff: Vec<Form>,
    read: Vec<Form>,
    message: Vec<Form>,
    answers: Vec<Form>,
}

fn placed() -> Placed {
    Placed { diff: forms(1), read: forms(2), message: forms(3), answers: forms(4) }
}

fn joined(forms: &[Form]) -> String {
    forms.iter().map(|f| f.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// A change that adds the diff's forms, next to an untouched file holding the
/// read forms, committed with a message holding the message forms.
fn change(p: &Placed) -> tempfile::TempDir {
    let (leaks, _) = file(&p.diff);
    let (vault, _) = file(&p.read);
    let dir = repo(&[(VAULT, &vault), ("README.md", "# app\n")], &[(LEAKS, &leaks)]);
    let message = format!("Add service configuration\n\n{}", joined(&p.message));
    git(dir.path(), &["commit", "-q", "--amend", "-m", &message]);
    dir
}

/// How many answer forms each finding carries: one in its claim (300 characters
/// at most: the chunk's shortest), the rest in its validator's evidence; ten
/// findings (a reviewer's most) carry all of them.
const PER_FINDING: usize = 5;

/// The reviewer reads the untouched file, then answers with ten findings, each
/// echoing an answer form in its claim; each finding's validator echoes three
/// more in its evidence. Each finding sits on a different form's naming line.
fn scripts(p: &Placed) -> Vec<Script> {
    let (_, lines) = file(&p.diff);
    let mut findings = Vec::new();
    let mut verdicts = Vec::new();
    for (i, chunk) in p.answers.chunks(PER_FINDING).enumerate() {
        let line = lines[i].0;
        let mut chunk: Vec<&Form> = chunk.iter().collect();
        chunk.sort_by_key(|f| f.text.len());
        findings.push(json!({"lens": "blast_radius", "location": format!("{LEAKS}:{line}"),
            "claim": format!("{CLAIM} #{i}: {}", chunk[0].text), "evidence": heading(&p.diff[i]), "severity": "high"}));
        let echoed = chunk[1..].iter().map(|f| f.text.as_str()).collect::<Vec<_>>().join("\n");
        let survives = json!({"verdict": "survives", "evidence": format!("{LEAKS}:{line} holds {echoed}"), "confidence": 100, "impact": "consequential"});
        let claim: &'static str = Box::leak(format!("{CLAIM} #{i}:").into_boxed_str());
        verdicts.push(verdict("validate", claim, &[survives]));
    }
    let mut find = finder("correctness", json!(findings));
    find.answers.insert(0, tool("read_file", json!({"path": VAULT})).to_string());
    verdicts.insert(0, find);
    verdicts
}

/// Every answer finding reached the report (so its echoed secrets were masked in
/// a text that was output, not dropped on the way).
fn assert_every_answer_reported(p: &Placed, report: &Value) {
    let claims = report["published"].to_string();
    for i in 0..p.answers.chunks(PER_FINDING).count() {
        assert!(claims.contains(&format!("{CLAIM} #{i}:")), "answer finding {i} is not in the report: {claims}");
    }
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

/// Fails naming every secret (by its form, never its value) found in `text`.
fn assert_none_in(p: &Placed, what: &str, text: &str) {
    let mut leaked = Vec::new();
    for (place, forms) in [("diff", &p.diff), ("read", &p.read), ("message", &p.message), ("answer", &p.answers)] {
        for (form, needle) in needles(forms) {
            if text.contains(&needle) {
                leaked.push(format!("{form} ({place})"));
            }
        }
    }
    leaked.dedup();
    assert!(leaked.is_empty(), "{} secret(s) reached the {what}: {leaked:?}", leaked.len());
}

/// Every form added in the diff is reported by the `secrets` check on one of its
/// lines, and the report names no value.
fn assert_each_form_reported(p: &Placed, report: &Value) {
    let (_, lines) = file(&p.diff);
    let located: Vec<u32> = report["published"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["reviewer"] == "secrets")
        .filter_map(|f| f["location"].as_str()?.strip_prefix(&format!("{LEAKS}:"))?.parse().ok())
        .collect();
    let missed: Vec<&str> = p
        .diff
        .iter()
        .zip(&lines)
        .filter(|(_, (_, first, last))| !located.iter().any(|l| (first..=last).contains(&l)))
        .map(|(f, _)| f.name)
        .collect();
    assert!(missed.is_empty(), "forms the secrets check did not report: {missed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_form_of_secret_reaches_a_request_a_recording_a_report_or_the_log() {
    let p = placed();
    assert!(p.diff.len() >= 30, "at least thirty forms");
    let dir = change(&p);
    let record = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, scripts(&p)).await;
    let record_arg = record.path().to_str().unwrap();
    let args = ["review", "--format", "json", "--reviewers", "correctness", "--record", record_arg];
    let (code, stdout, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_eq!(code, 0, "{stderr}");

    let seen = fake.seen();
    let read = seen.iter().any(|s| support::tool_results(&s.body).iter().any(|(t, _)| t.contains("-----BEGIN")));
    assert!(read, "the reviewer read the untouched file through its tools");
    assert!(seen.iter().any(|s| s.step == "validate"), "the finding was validated");
    let requests: String = seen.iter().map(|s| s.body.to_string()).collect();
    assert!(requests.contains("Add service configuration"), "the commit message reached the reviewer");
    assert_none_in(&p, "provider requests", &requests);

    let report: Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_every_answer_reported(&p, &report);
    assert_each_form_reported(&p, &report);

    let args = ["review", "--format", "markdown", "--reviewers", "correctness", "--force"];
    let (_, markdown, markdown_log) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert!(markdown.contains(CLAIM), "{markdown}");
    for (what, text) in [
        ("JSON report", &stdout),
        ("markdown report", &markdown),
        ("log", &stderr),
        ("log of the markdown run", &markdown_log),
        ("recording", &all_files(record.path())),
    ] {
        assert_none_in(&p, what, text);
    }
}

/// A GitHub Actions pull-request event whose description holds the message forms.
fn event(dir: &std::path::Path, p: &Placed) -> tempfile::NamedTempFile {
    let base = git(dir, &["rev-parse", "main"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    let event = json!({"pull_request": {"number": 1, "title": "Add service configuration",
        "body": joined(&p.message), "base": {"sha": base.trim()}, "head": {"sha": head.trim()},
        "draft": false, "state": "open", "user": {"login": "alice"}}});
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), event.to_string()).unwrap();
    file
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_form_of_secret_is_posted_to_the_pull_request() {
    let p = placed();
    let dir = change(&p);
    let (model, fake) = Fake::start(Wire::Anthropic, scripts(&p)).await;
    let host = fakes::github::start().await;
    let event = event(dir.path(), &p);
    let summary = tempfile::NamedTempFile::new().unwrap();
    let uri = host.server.uri();
    let env = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_EVENT_PATH", event.path().to_str().unwrap()),
        ("GITHUB_REPOSITORY", "o/r"),
        ("GITHUB_API_URL", uri.as_str()),
        ("GITHUB_TOKEN", "ghs_faketoken123"),
        ("GITHUB_STEP_SUMMARY", summary.path().to_str().unwrap()),
    ];
    let args = ["ci", "--reviewers", "correctness"];
    let (code, stdout, stderr) = gauntlet_env(dir.path(), Wire::Anthropic, &model, &args, &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(host.errors().is_empty(), "{:?}", host.errors());
    assert!(!host.inline().is_empty(), "findings were posted inline");

    let requests: String = fake.seen().iter().map(|s| s.body.to_string()).collect();
    assert!(requests.contains("Add service configuration"), "the description reached the reviewer");
    assert_none_in(&p, "provider requests", &requests);
    let posted: String = host
        .server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    for i in 0..p.answers.chunks(PER_FINDING).count() {
        assert!(posted.contains(&format!("{CLAIM} #{i}:")), "answer finding {i} was posted");
    }
    assert_none_in(&p, "posts to GitHub", &posted);
    let summary = std::fs::read_to_string(summary.path()).unwrap();
    for (what, text) in [("job log", &stdout), ("job log (stderr)", &stderr), ("step summary", &summary)] {
        assert_none_in(&p, what, text);
    }
}
