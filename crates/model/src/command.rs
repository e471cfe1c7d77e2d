//! A model behind a local program (e.g. `claude -p`, a wrapper script), run once
//! per call with tokio::process.
//!
//! The prompt goes to the child's stdin either as one JSON document
//! ([`Protocol::Json`]) or as one flattened text prompt ([`Protocol::Text`]); the
//! trimmed stdout is the answer. `GAUNTLET_STEP` and `GAUNTLET_REVIEWER` are set in
//! the child's environment so wrappers can route steps to different models.
//!
//! Tools are not offered: a program has no way to hand tool calls back, so the
//! model answers directly. Token usage is an ESTIMATE (characters / 4 for stdin
//! and stdout) because programs do not report it; the cache fields stay zero.
//!
//! The child is killed when the call's future is dropped, which is how
//! [`crate::retry::Retrying`]'s per-attempt timeout stops it.

use crate::{ModelError, Provider, Request, Response, Turn, Usage};
use serde_json::{Value, json};
use std::process::Stdio;
use tokio::io::AsyncWriteExt;

const NAME: &str = "command";
/// Longest stderr tail kept in an error message.
const MAX_STDERR: usize = 2000;

/// How the request is written to the child's stdin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// `{"system", "messages": [{"role", "content"}], "schema", "max_tokens", "step", "reviewer"}`.
    #[default]
    Json,
    /// One prompt: shared blocks, each turn prefixed by its role, then the schema.
    Text,
}

#[derive(Clone, Debug)]
pub struct CommandConfig {
    pub program: String,
    pub args: Vec<String>,
    pub protocol: Protocol,
    /// Reported by [`Provider::model`]; defaults to the program name.
    pub model: Option<String>,
}

impl CommandConfig {
    pub fn new(program: impl Into<String>, args: Vec<String>, protocol: Protocol) -> Self {
        CommandConfig { program: program.into(), args, protocol, model: None }
    }
}

#[derive(Debug)]
pub struct Command {
    config: CommandConfig,
}

impl Command {
    pub fn new(config: CommandConfig) -> Self {
        Command { config }
    }

    fn error(&self, message: String) -> ModelError {
        ModelError::Transport { provider: NAME.to_string(), message }
    }
}

#[async_trait::async_trait]
impl Provider for Command {
    fn name(&self) -> &str {
        NAME
    }

    fn model(&self) -> &str {
        self.config.model.as_deref().unwrap_or(&self.config.program)
    }

    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let input = match self.config.protocol {
            Protocol::Json => json_input(request),
            Protocol::Text => text_input(request),
        };
        let output = self.run(&input, request).await?;
        let program = &self.config.program;
        if !output.status.success() {
            let code = output
                .status
                .code()
                .map_or_else(|| "was killed by a signal".to_string(), |c| format!("exited with code {c}"));
            let stderr = stderr_tail(&String::from_utf8_lossy(&output.stderr));
            return Err(self.error(format!("`{program}` {code}: {stderr}")));
        }
        let json = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if json.is_empty() {
            return Err(ModelError::Protocol {
                provider: NAME.to_string(),
                message: format!("`{program}` printed nothing on stdout"),
            });
        }
        let usage = Usage { input: estimate_tokens(&input), output: estimate_tokens(&json), ..Usage::default() };
        Ok(Response { json, tool_calls: Vec::new(), usage })
    }
}

impl Command {
    async fn run(&self, input: &str, request: &Request) -> Result<std::process::Output, ModelError> {
        let program = &self.config.program;
        let mut child = tokio::process::Command::new(program)
            .args(&self.config.args)
            .env("GAUNTLET_STEP", &request.step)
            .env("GAUNTLET_REVIEWER", request.reviewer.as_deref().unwrap_or(""))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ModelError::Config {
                provider: NAME.to_string(),
                message: format!("could not start `{program}`: {e}"),
            })?;
        let mut stdin = child.stdin.take().ok_or_else(|| self.error(format!("`{program}` has no stdin pipe")))?;
        let input = input.to_string();
        // Written concurrently with reading the output: a child that prints a lot
        // before draining stdin would otherwise deadlock against us.
        let writer = tokio::spawn(async move {
            // A child that exits without reading stdin is not our error; its
            // exit status tells the story.
            let _ = stdin.write_all(input.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
        let output =
            child.wait_with_output().await.map_err(|e| self.error(format!("waiting for `{program}` failed: {e}")));
        writer.abort();
        output
    }
}

fn role(turn: &Turn) -> &'static str {
    match turn {
        Turn::User { .. } | Turn::ToolResults { .. } => "user",
        Turn::Assistant { .. } => "assistant",
    }
}

/// Tool results only occur in tool loops, which this provider never starts; they
/// are still rendered as text so a replayed conversation loses nothing.
fn turn_text(turn: &Turn) -> String {
    match turn {
        Turn::User { text } | Turn::Assistant { text, .. } => text.clone(),
        Turn::ToolResults { results } => results
            .iter()
            .map(|r| format!("[tool result {}{}]\n{}", r.id, if r.is_error { ", error" } else { "" }, r.content))
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

fn json_input(request: &Request) -> String {
    let messages: Vec<Value> =
        request.turns.iter().map(|t| json!({ "role": role(t), "content": turn_text(t) })).collect();
    json!({
        "system": request.shared.join("\n\n"),
        "messages": messages,
        "schema": request.schema.as_ref().map(|s| &s.json),
        "max_tokens": request.max_tokens,
        "step": request.step,
        "reviewer": request.reviewer,
    })
    .to_string()
}

fn text_input(request: &Request) -> String {
    let mut parts: Vec<String> = request.shared.clone();
    for turn in &request.turns {
        let label = if role(turn) == "assistant" { "Assistant" } else { "User" };
        parts.push(format!("{label}:\n{}", turn_text(turn)));
    }
    if let Some(schema) = &request.schema {
        parts.push(format!("Answer with one JSON object matching this schema:\n{}", schema.json));
    }
    parts.join("\n\n")
}

fn estimate_tokens(s: &str) -> u64 {
    (s.chars().count() as u64).div_ceil(4)
}

/// The end of stderr is where programs put the actual failure.
fn stderr_tail(stderr: &str) -> String {
    let stderr = stderr.trim();
    let count = stderr.chars().count();
    if count <= MAX_STDERR {
        return stderr.to_string();
    }
    let skip = stderr.char_indices().nth(count - MAX_STDERR).map_or(0, |(i, _)| i);
    format!("…{}", &stderr[skip..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_end() {
        let long = format!("{}END", "x".repeat(5000));
        let tail = stderr_tail(&long);
        assert!(tail.ends_with("END"));
        assert_eq!(tail.chars().count(), MAX_STDERR + 1);
        assert_eq!(stderr_tail(" short \n"), "short");
    }
}
