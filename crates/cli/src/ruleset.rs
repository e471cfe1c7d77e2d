//! The rules in use: built-ins, the external channel (`[rules] git`, `tag`: fetched
//! with git into the cache and made read-only), and the repository's own; and how
//! they stand against `gauntlet.lock`. The repository's rule files and lock are
//! read from the [`Trusted`] tree: the base commit's in `ci`.

use crate::settings::{Env, FileConfig};
use crate::trusted::Trusted;
use anyhow::{Context as _, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_review::rules::lock::{self, ChannelPin, Drift, Lock};
use gauntlet_review::rules::{self, Channel, Reviewer};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every rule file in use, and the channel it may come from.
pub struct RuleSet {
    pub all: Vec<Reviewer>,
    pub channel: Option<(Channel, ChannelPin)>,
    /// `gauntlet.lock` as read with the rule files, from the same tree.
    lock_text: Option<String>,
}

/// How the rules in use stand against the lock file.
pub enum LockState {
    Absent,
    Matches(Lock),
    Drifted(Vec<Drift>),
}

impl RuleSet {
    /// Load the rules and the lock from `trusted`, fetching the channel first when
    /// one is configured.
    pub fn load(git: &Git, trusted: &Trusted, file: &FileConfig, env: &Env) -> Result<RuleSet> {
        let channel = match (&file.rules.git, &file.rules.tag) {
            (Some(url), Some(tag)) => Some(fetch(url, tag, env)?),
            (None, None) => None,
            _ => bail!("[rules] in gauntlet.toml needs both `git` (the channel's URL) and `tag` (the version to pin)"),
        };
        let on_channel = channel.as_ref().map(|(c, _)| c);
        let all = match trusted.rule_files(git)? {
            Some(files) => rules::load_files(files, on_channel)?,
            None => rules::load_with(git.root(), on_channel)?,
        };
        let lock_text = trusted.read(git, lock::FILE_NAME)?;
        Ok(RuleSet { all, channel, lock_text })
    }

    /// The lock these rules would be written as.
    pub fn lock(&self) -> Lock {
        Lock::of(&self.all, self.channel.as_ref().map(|(_, pin)| pin.clone()))
    }

    pub fn tag(&self) -> Option<&str> {
        self.channel.as_ref().map(|(c, _)| c.tag.as_str())
    }

    /// Compare with the repository's `gauntlet.lock`.
    pub fn check(&self) -> Result<LockState> {
        let Some(text) = &self.lock_text else { return Ok(LockState::Absent) };
        let locked = Lock::parse(text)?;
        let drift = lock::compare(&locked, &self.lock());
        Ok(if drift.is_empty() { LockState::Matches(locked) } else { LockState::Drifted(drift) })
    }

    /// The version of every reviewer the repository has, whether or not it applies
    /// to a change: what earned blocking's record is kept per.
    pub fn all_version(&self) -> Result<String> {
        let every = rules::version(&self.all.iter().collect::<Vec<_>>());
        Ok(self.version(&every)?.0)
    }

    /// The rules version for reports, and a warning when the rules drifted from the
    /// lock. `unlocked` is the hash of the rules that ran.
    pub fn version(&self, unlocked: &str) -> Result<(String, Option<String>)> {
        Ok(match self.check()? {
            LockState::Matches(l) => (lock::version(self.tag(), Some(&l), unlocked), None),
            LockState::Absent => (lock::version(self.tag(), None, unlocked), None),
            LockState::Drifted(drift) => {
                let note = format!(
                    "the rules in use differ from {} ({}); `gauntlet rules verify` lists every difference",
                    lock::FILE_NAME,
                    drift[0]
                );
                (lock::version(self.tag(), None, unlocked), Some(note))
            }
        })
    }
}

/// Fail unless the rules match the lock (`review --locked`, and CI); `from`
/// says where both were read.
pub fn ensure_locked(set: &RuleSet, from: &str) -> Result<()> {
    match set.check()? {
        LockState::Matches(_) => Ok(()),
        LockState::Absent => {
            bail!("no {} in {from}: run `gauntlet rules lock` and commit it", lock::FILE_NAME)
        }
        LockState::Drifted(drift) => bail!(
            "the rules in use differ from {}:\n  {}\nreview the rule changes, then run `gauntlet rules lock` and commit it",
            lock::FILE_NAME,
            drift.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
        ),
    }
}

/// The user cache folder gauntlet keeps fetched data in.
pub fn cache_dir(env: &Env) -> Result<PathBuf> {
    if let Some(dir) = env("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("gauntlet"));
    }
    let home =
        env("HOME").context("neither XDG_CACHE_HOME nor HOME is set: set one so the rules channel can be cached")?;
    Ok(PathBuf::from(home).join(".cache").join("gauntlet"))
}

/// Clone the channel at `tag` into the cache (once per URL and tag; later runs use
/// the copy, offline), make its files read-only, and pin the commit the tag names.
fn fetch(url: &str, tag: &str, env: &Env) -> Result<(Channel, ChannelPin)> {
    // A leading dash would be read as an option by git.
    if url.starts_with('-') || tag.starts_with('-') || tag.contains("..") || tag.is_empty() {
        bail!("[rules] git = {url:?}, tag = {tag:?} is not a usable channel: check both in gauntlet.toml");
    }
    let key = &hex::encode(Sha256::digest(url.as_bytes()))[..16];
    let safe_tag: String =
        tag.chars().map(|c| if c.is_ascii_alphanumeric() || ".-_".contains(c) { c } else { '_' }).collect();
    let dir = cache_dir(env)?.join("rules").join(key).join(safe_tag);
    if !dir.join(".git").exists() {
        let parent = dir.parent().expect("cache path has a parent");
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        let tmp = tempfile::tempdir_in(parent)?;
        let out = git_command(None)
            .args(["clone", "--quiet", "--depth", "1", "--single-branch", "--branch", tag, "--", url])
            .arg(tmp.path().join("c"))
            .output()
            .context("could not run git (is it installed and on PATH?)")?;
        if !out.status.success() {
            bail!(
                "could not fetch the rules channel {url} at tag {tag}: {}; check [rules] git and tag in gauntlet.toml",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        std::fs::rename(tmp.path().join("c"), &dir)
            .with_context(|| format!("moving the channel into {}", dir.display()))?;
        make_read_only(&dir.join(rules::CHANNEL_DIR));
    }
    let out = git_command(Some(&dir)).args(["rev-parse", "HEAD"]).output()?;
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || commit.is_empty() {
        bail!("the cached rules channel in {} is damaged: delete that folder and run again", dir.display());
    }
    Ok((Channel { dir, tag: tag.to_string() }, ChannelPin { git: url.to_string(), tag: tag.to_string(), commit }))
}

fn git_command(dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    // The URL comes from gauntlet.toml, which a pull request can edit: never let it
    // name a transport that runs a command.
    cmd.args(["-c", "advice.detachedHead=false", "-c", "protocol.ext.allow=never"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C");
    cmd
}

/// Rule files of a fetched channel are never edited in place: a new tag is a new copy.
fn make_read_only(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            make_read_only(&path);
        } else if let Ok(meta) = std::fs::metadata(&path) {
            let mut perms = meta.permissions();
            perms.set_readonly(true);
            let _ = std::fs::set_permissions(&path, perms);
        }
    }
}
