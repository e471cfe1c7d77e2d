//! A private copy of a case's repository, checked out at the case's head.
//!
//! Bundles and repository folders alike are fetched into a fresh temporary
//! repository, so a case never touches the original, and repository-local reviewer
//! files (`.gauntlet/reviewers/`) are read as they were at head.

use gauntlet_change::git::Git;
use std::path::Path;
use std::process::Command;

/// A case repository: deleted with its temporary folder when dropped.
pub struct Checkout {
    _dir: tempfile::TempDir,
    pub git: Git,
}

/// What went wrong preparing a case; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    #[error(
        "the repository {path} does not exist: fix `repo` in case.toml, or run corpus/build.sh to build the bundles"
    )]
    Missing { path: String },
    #[error("cannot read the repository {path}: {message} (rebuild the bundle, e.g. with corpus/build.sh)")]
    Unreadable { path: String, message: String },
    #[error("revision `{rev}` is not in {path}: fix `base`/`head` in case.toml or rebuild the bundle")]
    Revision { rev: String, path: String },
    #[error("{0}")]
    Io(String),
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("could not run git: {e} (is git installed and on PATH?)"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(stderr.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("; "))
}

/// Copy `repo` (a bundle file or a repository folder) into a temporary repository
/// and check out `head` there, after checking that `base` resolves too.
pub fn checkout(repo: &Path, base: &str, head: &str) -> Result<Checkout, CheckoutError> {
    let shown = repo.display().to_string();
    if !repo.exists() {
        return Err(CheckoutError::Missing { path: shown });
    }
    let dir = tempfile::Builder::new()
        .prefix("gauntlet-backtest-")
        .tempdir()
        .map_err(|e| CheckoutError::Io(e.to_string()))?;
    let path = dir.path();
    let source = repo.canonicalize().map_err(|e| CheckoutError::Io(e.to_string()))?;
    let source = source.to_string_lossy();
    // An unborn branch name no corpus uses, so fetching every ref never collides
    // with the branch checked out in the empty repository.
    git(path, &["init", "-q", "--initial-branch=gauntlet-backtest-unborn"]).map_err(CheckoutError::Io)?;
    git(path, &["config", "user.email", "backtest@gauntlet.invalid"]).map_err(CheckoutError::Io)?;
    git(path, &["config", "user.name", "gauntlet backtest"]).map_err(CheckoutError::Io)?;
    git(path, &["fetch", "-q", "--no-tags", &source, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
        .map_err(|message| CheckoutError::Unreadable { path: shown.clone(), message })?;
    for rev in [base, head] {
        let commit = format!("{rev}^{{commit}}");
        git(path, &["rev-parse", "-q", "--verify", &commit])
            .map_err(|_| CheckoutError::Revision { rev: rev.to_string(), path: shown.clone() })?;
    }
    git(path, &["checkout", "-q", "-f", "--detach", head]).map_err(CheckoutError::Io)?;
    Ok(Checkout { git: Git::at(path), _dir: dir })
}
