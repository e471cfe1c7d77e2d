//! A scripted in-process provider: answers by step (`primary`, `adversary`) and,
//! where several loops run at once, by a text the request must contain.

#![allow(dead_code)]

use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use serde_json::json;
use std::sync::{Arc, Mutex};

struct Script {
    step: &'static str,
    contains: Option<&'static str>,
    answers: Vec<String>,
    used: usize,
}

#[derive(Default)]
pub struct Scripted {
    scripts: Mutex<Vec<Script>>,
    seen: Mutex<Vec<Request>>,
}

impl Scripted {
    pub fn new() -> Arc<Scripted> {
        Arc::new(Scripted::default())
    }

    /// Answer requests of `step` (whose text contains `contains`, if given) with
    /// `answers` in turn; the last answer repeats.
    pub fn script(self: &Arc<Self>, step: &'static str, contains: Option<&'static str>, answers: Vec<String>) {
        self.scripts.lock().unwrap().push(Script { step, contains, answers, used: 0 });
    }

    pub fn seen(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }

    pub fn seen_step(&self, step: &str) -> Vec<Request> {
        self.seen().into_iter().filter(|r| r.step == step).collect()
    }
}

/// Everything a request says, as one text.
pub fn text_of(req: &Request) -> String {
    let mut out = req.shared.join("\n");
    for t in &req.turns {
        if let Turn::User { text } | Turn::Assistant { text, .. } = t {
            out.push('\n');
            out.push_str(text);
        }
    }
    out
}

/// The last user turn of a request.
pub fn last_user(req: &Request) -> String {
    req.turns
        .iter()
        .rev()
        .find_map(|t| match t {
            Turn::User { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[async_trait::async_trait]
impl Provider for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "scripted-1"
    }
    async fn complete(&self, req: &Request) -> Result<Response, ModelError> {
        self.seen.lock().unwrap().push(req.clone());
        let text = text_of(req);
        let mut scripts = self.scripts.lock().unwrap();
        let script =
            scripts.iter_mut().find(|s| s.step == req.step && s.contains.is_none_or(|c| text.contains(c))).ok_or_else(
                || ModelError::Protocol { provider: "scripted".into(), message: format!("no script for {}", req.step) },
            )?;
        let answer = script.answers[script.used.min(script.answers.len() - 1)].clone();
        script.used += 1;
        Ok(Response { json: answer, tool_calls: vec![], usage: Usage { input: 100, output: 20, ..Usage::default() } })
    }
}

pub fn critique(verdict: &str, issues: &[(&str, &str)]) -> String {
    let issues: Vec<_> = issues
        .iter()
        .map(|(severity, description)| json!({"category": "correctness", "description": description, "severity": severity}))
        .collect();
    json!({"verdict": verdict, "issues": issues}).to_string()
}

pub fn approved() -> String {
    critique("approved", &[])
}

/// A primary answer with its work in `field`, marking issues `fixed` by number.
pub fn work(field: &str, text: &str, fixed: &[u32]) -> String {
    let addressed: Vec<_> =
        fixed.iter().map(|n| json!({"issue": n, "resolution": "fixed", "note": "dealt with"})).collect();
    json!({ field: text, "addressed": addressed }).to_string()
}
