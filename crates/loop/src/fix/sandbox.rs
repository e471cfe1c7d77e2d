//! Where a fix loop tries its patches: a temporary git worktree, detached at the
//! reviewed head, outside the user's working tree and removed when the loop ends.
//!
//! Each round starts from a clean checkout: the patch is checked with `git apply
//! --check`, applied to the index and the files, and read back as `git diff --cached`
//! (so a patch with loose hunk counts comes out canonical, and what is kept is what
//! was checked). With a check command, the command then runs there, and its exit
//! code and the tail of its output go to the adversary.

use crate::engine::Inspection;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Lines and characters of a check's output shown to the adversary.
pub const TAIL_LINES: usize = 40;
pub const TAIL_CHARS: usize = 4_000;
/// Characters of git's complaint about a patch passed back to the primary.
const GIT_ERROR_CHARS: usize = 1_500;

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot create a temporary directory for the fix worktree: {0}")]
    TempDir(std::io::Error),
    #[error("git worktree add at {head} failed: {message}")]
    Add { head: String, message: String },
    #[error("cannot run git: {0}")]
    Spawn(std::io::Error),
}

/// Credentials a check command never gets: it runs model-written code, and its
/// output goes back to a model.
pub const WITHHELD_ENV: [&str; 8] = [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "CI_JOB_TOKEN",
    "SYSTEM_ACCESSTOKEN",
    "AZURE_DEVOPS_EXT_PAT",
];

/// The user's check command (`--check "CMD"`).
#[derive(Clone, Debug)]
pub struct Check {
    pub command: String,
    pub timeout: Duration,
}

/// A temporary worktree at `head`.
pub struct Sandbox {
    repo: PathBuf,
    path: PathBuf,
    check: Option<Check>,
    // Dropped after `Drop::drop` has unregistered the worktree.
    _dir: tempfile::TempDir,
}

/// `git worktree add/remove` edit shared files under `.git/worktrees`; loops in
/// parallel take turns.
static WORKTREES: Mutex<()> = Mutex::new(());

fn git(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new("git");
    // No hooks: a post-checkout hook of the user's must not run in our checkout.
    cmd.arg("-C").arg(dir).args(["-c", "core.hooksPath=/dev/null"]).env("LC_ALL", "C").env("GIT_TERMINAL_PROMPT", "0");
    cmd
}

fn async_git(dir: &Path) -> tokio::process::Command {
    tokio::process::Command::from(git(dir))
}

impl Sandbox {
    /// Check out `head` of the repository at `repo` in a new temporary worktree.
    /// Blocking: run it off the async workers.
    pub fn create(repo: &Path, head: &str, check: Option<Check>) -> Result<Sandbox, SandboxError> {
        let dir = tempfile::Builder::new().prefix("gauntlet-fix-").tempdir().map_err(SandboxError::TempDir)?;
        let path = dir.path().join("tree");
        let _turn = WORKTREES.lock().unwrap_or_else(|e| e.into_inner());
        let out = git(repo)
            .args(["worktree", "add", "--detach", "-q"])
            .arg(&path)
            .arg(head)
            .output()
            .map_err(SandboxError::Spawn)?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(SandboxError::Add { head: head.to_string(), message });
        }
        Ok(Sandbox { repo: repo.to_path_buf(), path, check, _dir: dir })
    }

    /// The checkout's root (for reading files at head).
    pub fn root(&self) -> &Path {
        &self.path
    }

    /// Apply `patch` to a clean checkout, run the check, and say what the adversary
    /// should see.
    pub async fn inspect(&self, patch: &str) -> Inspection {
        if let Err(reason) = self.reset().await {
            return Inspection::Rejected { reason };
        }
        let work = if patch.trim().is_empty() {
            String::new()
        } else {
            match self.apply(patch).await {
                Ok(canonical) => canonical,
                Err(reason) => return Inspection::Rejected { reason },
            }
        };
        let Some(check) = &self.check else {
            return Inspection::Ready { work, evidence: None, passed: None };
        };
        let ran = run_check(&self.path, check).await;
        Inspection::Ready { work, evidence: Some(ran.describe(&check.command)), passed: Some(ran.passed()) }
    }

    async fn reset(&self) -> Result<(), String> {
        for args in [&["reset", "-q", "--hard"][..], &["clean", "-q", "-f", "-d"][..]] {
            let out = async_git(&self.path).args(args).output().await.map_err(|e| format!("cannot run git: {e}"))?;
            if !out.status.success() {
                return Err(format!("gauntlet could not reset its worktree: {}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        Ok(())
    }

    /// Apply to index and files; the canonical diff, or why it does not apply.
    async fn apply(&self, patch: &str) -> Result<String, String> {
        if let Some(line) = writes_placeholder(patch) {
            return Err(format!(
                "the patch writes a masking placeholder into the code ({}): secrets are hidden from you as \
                 `[masked …]`; leave the lines that hold them out of the patch",
                bounded(line.trim(), 120)
            ));
        }
        let file = self._dir.path().join("candidate.patch");
        let mut text = patch.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        tokio::fs::write(&file, text).await.map_err(|e| format!("gauntlet could not write the patch: {e}"))?;
        let file_arg = file.to_string_lossy().into_owned();
        // Models rarely get hunk line counts right (--recount), and often end a hunk
        // without trailing context, which git would otherwise take to mean "at the
        // end of the file" (--unidiff-zero turns that inference off). Context lines
        // must still match exactly, and what is kept is the diff git reads back.
        for check_only in [true, false] {
            let mut cmd = async_git(&self.path);
            cmd.args(["apply", "--index", "--recount", "--unidiff-zero", "--whitespace=nowarn"]);
            if check_only {
                cmd.arg("--check");
            }
            let out = cmd.arg(&file_arg).output().await.map_err(|e| format!("cannot run git: {e}"))?;
            if !out.status.success() {
                let why = String::from_utf8_lossy(&out.stderr).replace(&file_arg, "the patch");
                return Err(format!(
                    "the patch does not apply to the head commit (git apply --check): {}",
                    bounded(why.trim(), GIT_ERROR_CHARS)
                ));
            }
        }
        let out = async_git(&self.path)
            // Prefixes pinned: the suggestion step reads this diff, whatever the user's
            // `diff.noprefix` or `diff.mnemonicPrefix`.
            .args(["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"])
            .output()
            .await
            .map_err(|e| format!("cannot run git: {e}"))?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// The first line `patch` adds that holds a secret's masking placeholder.
fn writes_placeholder(patch: &str) -> Option<&str> {
    let marker = gauntlet_review::secrets::placeholder("");
    let stem = marker.trim_end_matches(']').trim_end();
    patch.lines().find(|l| l.starts_with('+') && !l.starts_with("+++") && l.contains(stem))
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _turn = WORKTREES.lock().unwrap_or_else(|e| e.into_inner());
        let removed = git(&self.repo)
            .args(["worktree", "remove", "--force"])
            .arg(&self.path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !removed {
            // The files go with the temporary directory; drop git's record of them too.
            let _ = std::fs::remove_dir_all(&self.path);
            let _ = git(&self.repo).args(["worktree", "prune"]).status();
        }
    }
}

/// The last `max` characters of `text`, marked when cut.
fn bounded(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let tail: String = text.chars().skip(n - max).collect();
    format!("[...] {tail}")
}

/// How a check command ended.
struct Ran {
    /// Exit code; `None` when it was killed (timeout, signal) or could not start.
    code: Option<i32>,
    timed_out: Option<Duration>,
    output: String,
}

impl Ran {
    fn passed(&self) -> bool {
        self.code == Some(0)
    }

    fn describe(&self, command: &str) -> String {
        let status = match (self.code, self.timed_out) {
            (_, Some(limit)) => format!("did not finish within {}s and was stopped", limit.as_secs_f64()),
            (Some(code), None) => format!("exit code {code}"),
            (None, None) => "ended by a signal".to_string(),
        };
        format!("command: {command}\nresult: {status}\nlast lines of output:\n{}", tail(&self.output))
    }
}

/// The last [`TAIL_LINES`] lines of `output`, at most [`TAIL_CHARS`] characters.
pub fn tail(output: &str) -> String {
    let lines: Vec<&str> = output.trim_end().lines().collect();
    let kept = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    let cut = lines.len() > TAIL_LINES;
    let text = bounded(&kept, TAIL_CHARS);
    if cut && !text.starts_with("[...]") { format!("[...]\n{text}") } else { text }
}

/// Run `sh -c CMD` in `dir` with stderr merged into stdout, keeping only the end of
/// the output; on timeout the whole process group is killed.
async fn run_check(dir: &Path, check: &Check) -> Ran {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("exec 2>&1\n{}", check.command))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    for name in WITHHELD_ENV {
        cmd.env_remove(name);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Ran { code: None, timed_out: None, output: format!("could not start sh: {e}") },
    };
    // Dropped unfinished (a timeout, or the run interrupted), the check takes the
    // children sh started with it.
    let mut group = Group(child.id());
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut kept: Vec<u8> = Vec::new();
    let read = async {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stdout.read(&mut buf).await {
            if n == 0 {
                break;
            }
            kept.extend_from_slice(&buf[..n]);
            // Only the end is ever shown: memory stays bounded however much it prints.
            if kept.len() > 16 * TAIL_CHARS {
                kept.drain(..kept.len() - 8 * TAIL_CHARS);
            }
        }
        child.wait().await.ok().and_then(|s| s.code())
    };
    let result = tokio::time::timeout(check.timeout, read).await;
    let output = String::from_utf8_lossy(&kept).into_owned();
    match result {
        Ok(code) => {
            group.0 = None;
            Ran { code, timed_out: None, output }
        }
        Err(_) => Ran { code: None, timed_out: Some(check.timeout), output },
    }
}

/// A check's process group, killed as a whole on drop unless disarmed (`None`):
/// sh may have started children of its own.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_and_marks_the_cut() {
        let output: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let t = tail(&output);
        assert!(t.starts_with("[...]\nline 61\n") && t.ends_with("line 100"), "{t}");
        assert_eq!(tail("ok\n"), "ok");
        let wide = "x".repeat(TAIL_CHARS * 2);
        assert!(tail(&wide).chars().count() <= TAIL_CHARS + 6);
    }
}
