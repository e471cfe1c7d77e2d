//! A private copy of a case's repository, checked out at the case's head.
//!
//! A bundle is fetched into a fresh temporary repository. A repository folder (a
//! mined corpus points at the repository it came from) is not copied: the
//! temporary repository borrows its objects through `objects/info/alternates`, and
//! base and head are resolved to commit ids in the source, so no branch or tag is
//! needed (a detached CI checkout works) and a large repository costs one small
//! folder per case. Either way a case never touches the original, and
//! repository-local reviewer files (`.gauntlet/reviewers/`) are read as they were
//! at head.

use gauntlet_change::git::Git;
use std::path::Path;
use std::process::Command;

/// A case repository: deleted with its temporary folder when dropped.
pub struct Checkout {
    _dir: tempfile::TempDir,
    pub git: Git,
    /// The commit ids of the case's base and head.
    pub base: String,
    pub head: String,
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

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("could not run git: {e} (is git installed and on PATH?)"))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
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
    // An unborn branch name no corpus uses, so fetching every ref never collides
    // with the branch checked out in the empty repository.
    git(path, &["init", "-q", "--initial-branch=gauntlet-backtest-unborn"]).map_err(CheckoutError::Io)?;
    git(path, &["config", "user.email", "backtest@gauntlet.invalid"]).map_err(CheckoutError::Io)?;
    git(path, &["config", "user.name", "gauntlet backtest"]).map_err(CheckoutError::Io)?;
    let (base, head) = match source.is_dir() {
        true => share(&source, path, base, head, &shown)?,
        false => fetch(&source, path, base, head, &shown)?,
    };
    git(path, &["checkout", "-q", "-f", "--detach", &head]).map_err(CheckoutError::Io)?;
    Ok(Checkout { git: Git::at(path), _dir: dir, base, head })
}

/// Both revisions as commit ids in `dir`, or which one is missing. A base that is
/// git's empty tree (a root commit's case) stays as it is.
fn resolve(dir: &Path, base: &str, head: &str, shown: &str) -> Result<(String, String), CheckoutError> {
    let one = |rev: &str| {
        if gauntlet_change::is_empty_tree(rev) && rev == base {
            return Ok(rev.to_string());
        }
        let commit = format!("{rev}^{{commit}}");
        git(dir, &["rev-parse", "-q", "--verify", &commit])
            .map_err(|_| CheckoutError::Revision { rev: rev.to_string(), path: shown.to_string() })
    };
    Ok((one(base)?, one(head)?))
}

/// A bundle: fetch every branch and tag.
fn fetch(source: &Path, path: &Path, base: &str, head: &str, shown: &str) -> Result<(String, String), CheckoutError> {
    let source = source.to_string_lossy();
    git(path, &["fetch", "-q", "--no-tags", &source, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
        .map_err(|message| CheckoutError::Unreadable { path: shown.to_string(), message })?;
    resolve(path, base, head, shown)
}

/// A repository folder: resolve the revisions there, then borrow its objects (and
/// its shallow boundary, so a shallow clone reads as one).
fn share(source: &Path, path: &Path, base: &str, head: &str, shown: &str) -> Result<(String, String), CheckoutError> {
    let common = git(source, &["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .map_err(|message| CheckoutError::Unreadable { path: shown.to_string(), message })?;
    let (base, head) = resolve(source, base, head, shown)?;
    let common = Path::new(&common);
    let io = |e: std::io::Error| CheckoutError::Io(format!("sharing the objects of {shown}: {e}"));
    let objects = common.join("objects");
    std::fs::write(path.join(".git/objects/info/alternates"), format!("{}\n", objects.display())).map_err(io)?;
    if common.join("shallow").is_file() {
        std::fs::copy(common.join("shallow"), path.join(".git/shallow")).map_err(io)?;
    }
    Ok((base, head))
}
