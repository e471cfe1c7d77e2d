//! Test support: a temporary git repository and in-process fakes of the model wire
//! formats that keep state and play scripted answers.

#![allow(dead_code)]

pub mod auth;
pub mod paging;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A repository whose `main` holds `base` files and whose `feature` branch (checked
/// out) changes them to `head` files, committed.
pub fn repo(base: &[(&str, &str)], head: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "t"]);
    write_all(d, base);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "feature"]);
    write_all(d, head);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

/// Commit `files` on `main` (the base branch of a [`repo`]) and come back to the
/// branch under review: how a reviewed `gauntlet.toml` reaches the base that
/// `gauntlet ci` reads its configuration from. The working tree then holds the
/// branch's own files only.
pub fn commit_on_main(dir: &Path, files: &[(&str, &str)]) {
    let branch = git(dir, &["branch", "--show-current"]);
    git(dir, &["checkout", "-q", "main"]);
    write_all(dir, files);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "configure gauntlet"]);
    git(dir, &["checkout", "-q", branch.trim()]);
}

fn write_all(d: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = d.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// A GitHub Actions environment for a pull request from `feature` into `main`.
pub struct Ci {
    pub dir: tempfile::TempDir,
    pub event: tempfile::NamedTempFile,
    pub summary: tempfile::NamedTempFile,
}

impl Ci {
    pub fn new(dir: tempfile::TempDir) -> Ci {
        let event = tempfile::NamedTempFile::new().unwrap();
        let summary = tempfile::NamedTempFile::new().unwrap();
        let ci = Ci { dir, event, summary };
        ci.write_event();
        ci
    }

    pub fn write_event(&self) {
        let base = git(self.dir.path(), &["rev-parse", "main"]);
        let head = git(self.dir.path(), &["rev-parse", "HEAD"]);
        let event = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
        std::fs::write(self.event.path(), event.to_string()).unwrap();
    }

    /// `gauntlet ci ARGS` in this pipeline, posting to the fake host at `host`.
    pub async fn run(&self, host: &str, model: &MockServer, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["ci"];
        all.extend_from_slice(args);
        gauntlet_env(self.dir.path(), Wire::Anthropic, model, &all, &self.env(host)).await
    }

    pub fn env<'a>(&'a self, host: &'a str) -> Vec<(&'a str, &'a str)> {
        vec![
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", self.event.path().to_str().unwrap()),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_API_URL", host),
            ("GITHUB_TOKEN", "ghs_faketoken123"),
            ("GITHUB_STEP_SUMMARY", self.summary.path().to_str().unwrap()),
        ]
    }
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gauntlet"))
}

/// Which wire format a fake speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Anthropic,
    OpenAi,
}

/// One scripted exchange: requests matching (step, reviewer, claim) get `answers`
/// in turn. Matching on content, not arrival order, keeps concurrency harmless.
#[derive(Clone, Debug)]
pub struct Script {
    pub step: &'static str,
    pub reviewer: Option<&'static str>,
    pub claim: Option<&'static str>,
    pub answers: Vec<String>,
}

pub fn finder(reviewer: &'static str, findings: Value) -> Script {
    Script {
        step: "find",
        reviewer: Some(reviewer),
        claim: None,
        answers: vec![json!({ "findings": findings }).to_string()],
    }
}

pub fn verdict(step: &'static str, claim: &'static str, answers: &[Value]) -> Script {
    Script { step, reviewer: None, claim: Some(claim), answers: answers.iter().map(Value::to_string).collect() }
}

/// A scripted answer that calls one tool instead of answering.
pub fn tool(name: &str, input: Value) -> Value {
    tools(&[(name, input)])
}

/// A scripted answer that calls several tools in one turn.
pub fn tools(calls: &[(&str, Value)]) -> Value {
    json!({ TOOL_CALLS: calls.iter().map(|(n, i)| json!({"name": n, "input": i})).collect::<Vec<_>>() })
}

/// In a scripted answer, stands for the run's fence boundary.
pub const BOUNDARY: &str = "{BOUNDARY}";

/// The fence boundary a request's instructions name.
fn boundary_in(text: &str) -> Option<String> {
    let at = text.find("`<<<DATA-")? + "`<<<".len();
    text.get(at..at + "DATA-".len() + 16).map(str::to_string)
}

/// The key marking a scripted answer as tool calls.
const TOOL_CALLS: &str = "__tool_calls__";

/// The tool results of a request body (either wire format): (content, is_error).
pub fn tool_results(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        if m["role"] == "tool" {
            let text = m["content"].as_str().unwrap_or_default().to_string();
            // The OpenAI wire has no error flag; the sandbox's refusals say "refused".
            let is_error = text.starts_with("refused") || text.starts_with("no ") || text.contains("allowance");
            out.push((text, is_error));
        }
        for block in m["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push((block["content"].as_str().unwrap_or_default().to_string(), block["is_error"] == true));
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
pub struct Seen {
    pub step: String,
    pub reviewer: Option<String>,
    pub body: Value,
}

#[derive(Default)]
struct State {
    scripts: Vec<(Script, usize)>,
    seen: Vec<Seen>,
    /// Steps whose answers arrive only after a delay (a slow provider).
    slow: Vec<(String, std::time::Duration)>,
}

#[derive(Clone)]
pub struct Fake {
    wire: Wire,
    state: Arc<Mutex<State>>,
    /// Answer for finders without a script.
    default_findings: String,
}

impl Fake {
    pub async fn start(wire: Wire, scripts: Vec<Script>) -> (MockServer, Fake) {
        let server = MockServer::start().await;
        let fake = Fake {
            wire,
            state: Arc::new(Mutex::new(State {
                scripts: scripts.into_iter().map(|s| (s, 0)).collect(),
                ..State::default()
            })),
            default_findings: json!({"findings": []}).to_string(),
        };
        Mock::given(method("POST")).respond_with(fake.clone()).mount(&server).await;
        (server, fake)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    pub fn count(&self, step: &str) -> usize {
        self.seen().iter().filter(|s| s.step == step).count()
    }

    /// Answer requests of `step` only after `delay`.
    pub fn slow_down(&self, step: &str, delay: std::time::Duration) {
        self.state.lock().unwrap().slow.push((step.to_string(), delay));
    }
}

/// The pipeline step a request belongs to, read from what the model is asked.
fn classify(body: &Value, text: &str) -> (String, Option<String>) {
    let schema_name = schema_name(body);
    let step = match schema_name {
        "report_findings" => "find",
        "report_verdict" if text.contains("This is a second pass") => "revalidate",
        "report_verdict" => "validate",
        other => other,
    };
    let reviewer = text.split("You are the `").nth(1).and_then(|rest| rest.split('`').next()).map(str::to_string);
    (step.to_string(), reviewer)
}

/// The answer contract a request names: the forced tool, the JSON schema, or (in a
/// tool loop, where the choice is left to the model) the offered `report_*` tool.
fn schema_name(body: &Value) -> &str {
    let offered = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|n| n.starts_with("report_"));
    body["tool_choice"]["name"]
        .as_str()
        .or(body["response_format"]["json_schema"]["name"].as_str())
        .or(offered)
        .unwrap_or("")
}

impl Respond for Fake {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).expect("requests are JSON");
        let text = body.to_string();
        let (step, reviewer) = classify(&body, &text);
        let mut state = self.state.lock().unwrap();
        state.seen.push(Seen { step: step.clone(), reviewer: reviewer.clone(), body: body.clone() });
        let script = state.scripts.iter_mut().find(|(s, _)| {
            s.step == step
                && s.reviewer.is_none_or(|r| reviewer.as_deref() == Some(r))
                && s.claim.is_none_or(|c| text.contains(c))
        });
        let answer = match script {
            Some((s, used)) => {
                let a = s.answers[(*used).min(s.answers.len() - 1)].clone();
                // A steered model can repeat the boundary its instructions name.
                let a = match boundary_in(&text) {
                    Some(b) => a.replace(BOUNDARY, &b),
                    None => a,
                };
                *used += 1;
                a
            }
            None if step == "find" => self.default_findings.clone(),
            None => return ResponseTemplate::new(500).set_body_string(format!("no script for {step} {reviewer:?}")),
        };
        let n = state.seen.len();
        let delay = state.slow.iter().find(|(s, _)| *s == step).map(|(_, d)| *d).unwrap_or_default();
        ResponseTemplate::new(200).set_body_json(self.wire_answer(&body, &answer, n)).set_delay(delay)
    }
}

impl Fake {
    fn wire_answer(&self, body: &Value, answer: &str, n: usize) -> Value {
        let usage_in = 1000;
        let parsed = serde_json::from_str::<Value>(answer).ok();
        if let Some(calls) = parsed.as_ref().and_then(|v| v[TOOL_CALLS].as_array()) {
            return self.wire_tool_calls(body, calls, n);
        }
        match self.wire {
            Wire::Anthropic => {
                let content = match parsed {
                    Some(input) if input.is_object() => {
                        json!([{"type": "tool_use", "id": format!("toolu_a{n}"), "name": schema_name(body), "input": input}])
                    }
                    _ => json!([{"type": "text", "text": answer}]),
                };
                json!({"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                       "content": content, "stop_reason": "tool_use",
                       "usage": {"input_tokens": 100, "output_tokens": 50,
                                 "cache_read_input_tokens": usage_in, "cache_creation_input_tokens": 0}})
            }
            Wire::OpenAi => json!({"id": "c1", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
                "usage": {"prompt_tokens": usage_in + 100, "completion_tokens": 50,
                          "prompt_tokens_details": {"cached_tokens": usage_in}}}),
        }
    }
}

impl Fake {
    fn wire_tool_calls(&self, body: &Value, calls: &[Value], n: usize) -> Value {
        let usage = |w: Wire| match w {
            Wire::Anthropic => json!({"input_tokens": 100, "output_tokens": 20}),
            Wire::OpenAi => json!({"prompt_tokens": 100, "completion_tokens": 20}),
        };
        let id = |i: usize| format!("call_{n}_{i}");
        match self.wire {
            Wire::Anthropic => {
                let content: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| json!({"type": "tool_use", "id": id(i), "name": c["name"], "input": c["input"]}))
                    .collect();
                json!({"id": "msg_t", "type": "message", "role": "assistant", "model": body["model"],
                       "content": content, "stop_reason": "tool_use", "usage": usage(Wire::Anthropic)})
            }
            Wire::OpenAi => {
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        json!({"id": id(i), "type": "function",
                        "function": {"name": c["name"], "arguments": c["input"].to_string()}})
                    })
                    .collect();
                json!({"id": "c_t", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "tool_calls",
                                 "message": {"role": "assistant", "content": null, "tool_calls": tool_calls}}],
                    "usage": usage(Wire::OpenAi)})
            }
        }
    }
}

/// Run `gauntlet` in `dir` against a fake; returns (exit code, stdout, stderr).
pub async fn gauntlet(dir: &Path, wire: Wire, server: &MockServer, args: &[&str]) -> (i32, String, String) {
    gauntlet_env(dir, wire, server, args, &[]).await
}

/// [`gauntlet`] with extra environment variables (a CI's, for instance).
pub async fn gauntlet_env(
    dir: &Path,
    wire: Wire,
    server: &MockServer,
    args: &[&str],
    envs: &[(&str, &str)],
) -> (i32, String, String) {
    let out = command(dir, wire, server, args, envs).output().await.expect("gauntlet runs");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// A CI system `gauntlet ci` can run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    GitHub,
    GitLab,
    Azure,
}

/// The variables `gauntlet ci` reads in `pipeline` for a pull request from
/// `feature` into `main` of the repository in `dir`, with the code host at `uri`:
/// the publisher fakes' pull requests (GitHub's 1, whose event payload is at
/// `event`, with the job summary at `summary`; GitLab's 3; Azure DevOps' 5).
pub fn ci_vars(pipeline: Pipeline, dir: &Path, uri: &str, event: &Path, summary: &Path) -> Vec<(&'static str, String)> {
    let base = git(dir, &["rev-parse", "main"]).trim().to_string();
    let head = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    match pipeline {
        Pipeline::GitHub => vec![
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            ("GITHUB_EVENT_PATH", path(event)),
            ("GITHUB_REPOSITORY", "o/r".into()),
            ("GITHUB_API_URL", uri.into()),
            ("GITHUB_TOKEN", "ghs_faketoken123".into()),
            ("GITHUB_STEP_SUMMARY", path(summary)),
        ],
        Pipeline::GitLab => vec![
            ("GITLAB_CI", "true".into()),
            ("CI_MERGE_REQUEST_IID", "3".into()),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", head),
            ("GAUNTLET_GITLAB_TOKEN", "glpat-fake".into()),
            ("CI_API_V4_URL", format!("{uri}/api/v4")),
            ("CI_PROJECT_ID", "7".into()),
        ],
        Pipeline::Azure => vec![
            ("TF_BUILD", "True".into()),
            ("SYSTEM_PULLREQUEST_PULLREQUESTID", "5".into()),
            ("SYSTEM_PULLREQUEST_SOURCECOMMITID", head),
            ("SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/main".into()),
            ("SYSTEM_ACCESSTOKEN", "azure-fake-token".into()),
            ("SYSTEM_COLLECTIONURI", format!("{uri}/org/")),
            ("SYSTEM_TEAMPROJECT", "My Project".into()),
            ("BUILD_REPOSITORY_ID", "repo-id".into()),
        ],
    }
}

/// Write GitHub's `pull_request` event for the repository in `dir` to `event`:
/// pull request 1, from `feature` (its head) into `main`, opened by `alice`.
pub fn write_github_event(dir: &Path, event: &Path) {
    let base = git(dir, &["rev-parse", "main"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    let e = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()}, "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(event, e.to_string()).unwrap();
}

/// The `gauntlet` command [`gauntlet_env`] runs, for a test that needs the process.
pub fn command(
    dir: &Path,
    wire: Wire,
    server: &MockServer,
    args: &[&str],
    envs: &[(&str, &str)],
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.current_dir(dir)
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        // Tests running inside a CI must not reach its code host.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITLAB_CI")
        .env_remove("TF_BUILD")
        .envs(envs.iter().copied());
    match wire {
        Wire::Anthropic => cmd.env("ANTHROPIC_API_KEY", "test-key-anthropic").env("ANTHROPIC_BASE_URL", server.uri()),
        Wire::OpenAi => {
            cmd.env("OPENAI_API_KEY", "test-key-openai").env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        }
    };
    cmd
}

// --- headless Chromium, for the HTML pages -----------------------------------

/// Where the screenshot goes: `GAUNTLET_TEST_ARTIFACTS`, else cargo's test scratch folder.
pub fn artifacts() -> PathBuf {
    let dir = std::env::var_os("GAUNTLET_TEST_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run headless Chromium on `page` with the flags that keep it offline and fresh;
/// returns (stdout, stderr).
pub async fn chromium(page: &Path, profile: &Path, extra: &[&str]) -> (String, String) {
    let binary = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| std::process::Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()))
        .expect("Chromium is not installed: run scripts/deps (Debian package `chromium`) to install it");
    let url = format!("file://{}", page.display());
    let run = tokio::process::Command::new(binary)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), run)
        .await
        .expect("chromium finished in 2 minutes")
        .unwrap();
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
