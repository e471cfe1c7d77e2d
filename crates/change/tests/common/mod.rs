//! Throwaway git repositories for tests, isolated from the user's git configuration.

#![allow(dead_code)] // each test binary uses a different subset

use gauntlet_change::git::Git;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// `git init -b main` with a local identity, and nothing committed.
    pub fn new() -> Repo {
        let repo = Repo { dir: tempfile::tempdir().expect("tempdir") };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn handle(&self) -> Git {
        Git::discover(self.path()).expect("discover")
    }

    /// Run git in the repo, panicking with stderr on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(args)
            // The developer's own config (hooks, signing, prefixes) must not leak in.
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .output()
            .expect("spawn git");
        assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("utf-8 git output")
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) {
        let full = self.file(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(full, content).expect("write");
    }

    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.file(path)).expect("remove");
    }

    pub fn file(&self, path: &str) -> PathBuf {
        self.path().join(path)
    }

    /// Stage everything and commit; returns the new commit's sha.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    /// Real `git diff` output between two revisions with the given extra options,
    /// using git's default `a/`/`b/` prefixes.
    pub fn diff(&self, extra: &[&str], from: &str, to: &str) -> String {
        let mut args = vec!["diff", "--no-color"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[from, to]);
        self.git(&args)
    }
}

/// `count` numbered lines, `line 1` to `line N`, each newline-terminated.
pub fn numbered(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}
