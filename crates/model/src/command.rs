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
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

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
        if output.cut {
            return Err(ModelError::Protocol {
                provider: NAME.to_string(),
                message: format!(
                    "`{program}` printed more than {} MiB on stdout and was stopped there (a real answer is a \
                     few KiB); check that it prints one answer and exits",
                    crate::MAX_RESPONSE_BYTES / (1024 * 1024)
                ),
            });
        }
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

/// What the child left: its exit status, stdout up to the cap (`cut` when it
/// printed more) and the end of its stderr.
struct Output {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    cut: bool,
}

impl Command {
    async fn run(&self, input: &str, request: &Request) -> Result<Output, ModelError> {
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
        let stderr = tokio::spawn(read_tail(child.stderr.take(), MAX_STDERR * 4));
        let read = read_capped(child.stdout.take(), crate::MAX_RESPONSE_BYTES).await;
        writer.abort();
        let (stdout, cut) = read.map_err(|e| self.error(format!("reading from `{program}` failed: {e}")))?;
        if cut {
            // It would block writing the rest, and the rest is not wanted.
            let _ = child.kill().await;
        }
        let status = child.wait().await.map_err(|e| self.error(format!("waiting for `{program}` failed: {e}")))?;
        let stderr = stderr.await.ok().and_then(Result::ok).unwrap_or_default();
        Ok(Output { status, stdout, stderr, cut })
    }
}

/// Read at most `max` bytes; `true` when the stream had more (it is left unread).
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>, max: usize) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    let Some(pipe) = pipe else { return Ok((buf, false)) };
    pipe.take(max as u64 + 1).read_to_end(&mut buf).await?;
    let cut = buf.len() > max;
    buf.truncate(max);
    Ok((buf, cut))
}

/// Read the whole stream (so the child never blocks writing it) and keep only
/// its last `keep` bytes: the end is where programs say what went wrong.
async fn read_tail(pipe: Option<impl AsyncRead + Unpin>, keep: usize) -> std::io::Result<Vec<u8>> {
    let mut tail = Vec::new();
    let Some(mut pipe) = pipe else { return Ok(tail) };
    let mut chunk = vec![0u8; 8192];
    loop {
        let n = pipe.read(&mut chunk).await?;
        if n == 0 {
            return Ok(tail);
        }
        tail.extend_from_slice(&chunk[..n]);
        if tail.len() > 2 * keep {
            tail.drain(..tail.len() - keep);
        }
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
    let mut parts: Vec<String> = request.shared.to_vec();
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
