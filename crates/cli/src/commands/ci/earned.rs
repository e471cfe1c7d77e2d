//! `[ci] blocking = "earned"`: `--fail-on` applies only while precision in the
//! wild, read from the repository's closed pull requests, clears the bar, and
//! only to findings whose reviewer cleared it on its own findings.
//!
//! The record is read with [`gauntlet_publish::history::read`] (the same
//! outcomes `gauntlet stats` shows, from the host's own records: comments the
//! pipeline opened and nobody else edited, dismissals by people allowed to
//! dismiss), newest closed pull requests first, under a budget of API calls. By
//! default only findings raised in this run's era count: a new rules version or
//! standard-tier model starts a new record.
//!
//! The figure is cached in a file the pipeline writes on the machine it runs
//! on, `earned.json` under `$GAUNTLET_CACHE_DIR` or else the checkout's
//! `.git/gauntlet/`, with when and at which base commit it was computed. A
//! later run reuses it while the base commit and the bar are the same and it is
//! less than a day old. Nothing a pull request's author writes on the host goes
//! into it.

use crate::ci_env::{CiContext, HostConfig};
use crate::settings::EarnedSettings;
use gauntlet_change::git::Git;
use gauntlet_publish::earned::{self, Earned};
use gauntlet_publish::history::{self, History, MAX_PULLS, Scope};
use gauntlet_publish::outcome::Tally;
use gauntlet_publish::{Policy, azure, github, gitlab};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How long a cached figure is reused, in seconds (a day).
pub const FRESH_FOR: u64 = 24 * 60 * 60;

/// The cache file's name.
pub const CACHE_FILE: &str = "earned.json";

/// A figure as the cache keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cached {
    /// When it was computed, in seconds since the Unix epoch.
    pub at: u64,
    /// The base commit it was computed at.
    pub commit: String,
    /// What it was computed for: the bar and the era (or `any`).
    pub key: String,
    pub overall: Tally,
    pub reviewers: BTreeMap<String, Tally>,
    /// What the read covered (`gauntlet stats`' line).
    pub covers: String,
}

/// What blocking follows this run.
#[derive(Clone, Debug)]
pub struct Decision {
    pub earned: Earned,
    /// Where the figure came from, for the log.
    pub source: String,
}

impl Decision {
    /// The line the overview and the log show.
    pub fn reason(&self) -> String {
        self.earned.reason()
    }
}

/// The figure for this run: the cached one when it still applies, else read
/// from the host within `settings.calls` API calls (and cached). `Err` with the
/// reason when the record could not be read at all: the run is then advisory.
pub fn decide(
    runtime: &tokio::runtime::Runtime,
    git: &Git,
    ctx: &CiContext,
    settings: &EarnedSettings,
    (era, base): (&str, &str),
    policy: Policy,
    cache_dir: Option<PathBuf>,
) -> Result<Decision, String> {
    let bar = settings.bar;
    let key = format!(
        "{}|{}|{}|{}",
        if settings.keep_record_across_rules { "any" } else { era },
        bar.window,
        bar.min_precision,
        bar.min_findings
    );
    let path = cache_dir.or_else(|| git.common_dir().ok().map(|d| d.join("gauntlet"))).map(|d| d.join(CACHE_FILE));
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let cached =
        path.as_ref().and_then(|p| std::fs::read(p).ok()).and_then(|b| serde_json::from_slice::<Cached>(&b).ok());
    // A time ahead of the clock is no fresh figure: it would never expire.
    let fresh = |c: &Cached| c.at <= now && now - c.at < FRESH_FOR;
    if let Some(c) = cached.filter(|c| c.key == key && c.commit == base && fresh(c)) {
        let age = now.saturating_sub(c.at) / 60;
        let source = format!("precision cached {age} min ago at base {} over {}", short(base), c.covers);
        return Ok(Decision { earned: Earned { bar, overall: c.overall, reviewers: c.reviewers }, source });
    }
    let host = history_host(ctx, settings.calls)?;
    let scope = Scope { last: MAX_PULLS, since: None, policy };
    let read = runtime.block_on(history::read(host.as_ref(), &scope)).map_err(|e| e.to_string())?;
    let records =
        if settings.keep_record_across_rules { read.records.clone() } else { earned::of_era(&read.records, era) };
    let earned = earned::assess(&records, bar);
    let covers = read.covers();
    if let Some(path) = &path {
        let c = Cached {
            at: now,
            commit: base.to_string(),
            key,
            overall: earned.overall,
            reviewers: earned.reviewers.clone(),
            covers: covers.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&c).expect("a cached figure is JSON");
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(anyhow::Error::from)
            .and_then(|()| super::status::write_atomic(path, &bytes));
        if let Err(e) = written {
            crate::progress::say!("gauntlet: note: could not cache the precision figure at {}: {e}", path.display());
        }
    }
    let source = format!("precision read from {} over {covers}", host.name());
    Ok(Decision { earned, source })
}

fn history_host(ctx: &CiContext, calls: usize) -> Result<Box<dyn History>, String> {
    let config = ctx.host.clone()?;
    let host: Box<dyn History> = match config {
        HostConfig::GitHub(c) => Box::new(github::GitHub::new(c).map_err(|e| e.to_string())?.limit_calls(calls)),
        HostConfig::GitLab(c) => Box::new(gitlab::GitLab::new(c).map_err(|e| e.to_string())?.limit_calls(calls)),
        HostConfig::Azure(c) => Box::new(azure::Azure::new(c).map_err(|e| e.to_string())?.limit_calls(calls)),
    };
    Ok(host)
}

fn short(rev: &str) -> &str {
    &rev[..rev.len().min(12)]
}
