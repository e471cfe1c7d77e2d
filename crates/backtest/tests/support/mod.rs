//! Test support: corpus cases built as real git bundles in a temporary folder, and
//! a scripted in-process provider that answers by step, reviewer and content.

#![allow(dead_code)]

use gauntlet_backtest::run::Setup;
use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use gauntlet_review::gate::GateConfig;
use gauntlet_review::pipeline::{Models, Options};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn write_all(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Write case `name` under `corpus`: a bundle whose `main` holds `base` and whose
/// `change` branch (one commit, `subject`) applies `head`, and the given case.toml.
pub fn bundle_case(corpus: &Path, name: &str, base: &[(&str, &str)], head: &[(&str, &str)], subject: &str, toml: &str) {
    let work = tempfile::tempdir().unwrap();
    let d = work.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "t"]);
    write_all(d, base);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "change"]);
    write_all(d, head);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", subject]);
    let case = corpus.join(name);
    std::fs::create_dir_all(&case).unwrap();
    let bundle = case.join("repo.bundle");
    git(d, &["bundle", "create", "-q", bundle.to_str().unwrap(), "main", "change"]);
    std::fs::write(case.join("case.toml"), toml).unwrap();
}

/// Requests matching `step`, `reviewer` (when set) and containing `contains` (when
/// set) get `answer`. Matching on content keeps concurrency harmless.
#[derive(Clone, Debug)]
pub struct Script {
    pub step: &'static str,
    pub reviewer: Option<&'static str>,
    pub contains: Option<&'static str>,
    pub answer: String,
}

pub fn finder(reviewer: &'static str, contains: &'static str, findings: Value) -> Script {
    Script {
        step: "find",
        reviewer: Some(reviewer),
        contains: Some(contains),
        answer: json!({"findings": findings}).to_string(),
    }
}

pub fn verdict(claim: &'static str, verdict: &str, evidence: &str, confidence: u8) -> Script {
    judged_as(claim, verdict, evidence, confidence, "consequential")
}

/// A verdict with the validator's answer about impact (`consequential` or `minor`).
pub fn judged_as(claim: &'static str, verdict: &str, evidence: &str, confidence: u8, impact: &str) -> Script {
    Script {
        step: "validate",
        reviewer: None,
        contains: Some(claim),
        answer: json!({"verdict": verdict, "evidence": evidence, "confidence": confidence, "impact": impact})
            .to_string(),
    }
}

pub fn baseline(contains: &'static str, findings: Value) -> Script {
    Script {
        step: "baseline",
        reviewer: None,
        contains: Some(contains),
        answer: json!({"findings": findings}).to_string(),
    }
}

pub fn finding(location: &str, claim: &str, evidence: &str) -> Value {
    json!({"lens": "failure_scenario", "location": location, "claim": claim, "evidence": evidence, "severity": "high"})
}

/// A provider playing scripts. Unscripted finder and baseline calls find nothing;
/// any other unscripted call fails, so a missing script shows up as a gap.
pub struct Scripted {
    scripts: Vec<Script>,
    pub seen: Mutex<Vec<(String, Option<String>)>>,
    /// The text of every request (shared blocks and turns), in arrival order.
    pub texts: Mutex<Vec<String>>,
}

impl Scripted {
    pub fn new(scripts: Vec<Script>) -> Arc<Scripted> {
        Arc::new(Scripted { scripts, seen: Mutex::new(Vec::new()), texts: Mutex::new(Vec::new()) })
    }
}

fn text_of(req: &Request) -> String {
    let mut text = req.shared.join("\n");
    for t in &req.turns {
        if let Turn::User { text: t } | Turn::Assistant { text: t, .. } = t {
            text.push_str(t);
        }
    }
    text
}

#[async_trait::async_trait]
impl Provider for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "fixed"
    }
    async fn complete(&self, req: &Request) -> Result<Response, ModelError> {
        self.seen.lock().unwrap().push((req.step.clone(), req.reviewer.clone()));
        let text = text_of(req);
        self.texts.lock().unwrap().push(text.clone());
        let script = self.scripts.iter().find(|s| {
            s.step == req.step
                && s.reviewer.is_none_or(|r| req.reviewer.as_deref() == Some(r))
                && s.contains.is_none_or(|c| text.contains(c))
        });
        let json = match script {
            Some(s) => s.answer.clone(),
            None if req.step == "find" || req.step == "baseline" => json!({"findings": []}).to_string(),
            None => {
                return Err(ModelError::Protocol {
                    provider: "scripted".into(),
                    message: format!("no script for {} {:?}", req.step, req.reviewer),
                });
            }
        };
        Ok(Response { json, tool_calls: Vec::new(), usage: Usage { input: 100, output: 10, ..Usage::default() } })
    }
}

/// A setup running every tier on `provider`.
pub fn setup(provider: Arc<Scripted>, baseline: bool, tolerance: u32) -> Setup {
    Setup {
        models: Models::single(provider),
        case_models: None,
        options: Options::default(),
        gate: GateConfig::default(),
        channel: None,
        disable: Vec::new(),
        only: Vec::new(),
        deep: None,
        context: gauntlet_review::context::Config::default(),
        baseline,
        judge: None,
        tolerance,
        max_span: gauntlet_backtest::score::DEFAULT_MAX_SPAN,
        jobs: 2,
        fence: Some("DATA-test".into()),
        masker: Some(Arc::new(gauntlet_review::secrets::Masker::new(&[]).expect("built-in secret patterns"))),
    }
}
