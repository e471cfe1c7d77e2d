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
//! The record is kept in a file the pipeline writes on the machine it runs
//! on, `earned.json` under `$GAUNTLET_CACHE_DIR` or else the checkout's
//! `.git/gauntlet/` (the CI templates keep that folder in the host's cache),
//! with each pull request's records and when they were read. A later run lists
//! the closed pull requests again (one call a hundred), reads only those it
//! does not hold, and takes the rest from the file: so the record grows across
//! runs under a small budget, and a flood of empty pull requests cannot push
//! it out of the read. A pull request's records are taken as final once they
//! were read a week after it closed (a late dismissal is rare); until then they
//! are read again when more than a day old. The file can always be rebuilt
//! from the host: deleting it costs one longer read. Nothing a pull request's
//! author writes on the host goes into it.

use crate::ci_env::{CiContext, HostConfig};
use crate::settings::EarnedSettings;
use gauntlet_change::git::Git;
use gauntlet_publish::Policy;
use gauntlet_publish::earned::{self, Earned};
use gauntlet_publish::history::{self, History, Known, MAX_PULLS, Scope};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How long a pull request's records are reused before they are read again, in
/// seconds (a day), until they are settled.
pub const FRESH_FOR: u64 = 24 * 60 * 60;

/// How long after a close records read then are final, in seconds (a week).
pub const SETTLED_AFTER: u64 = 7 * 24 * 60 * 60;

/// The cache file's name.
pub const CACHE_FILE: &str = "earned.json";

/// The record as the cache keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cached {
    /// The repository and the dismissal policy the records were decided under.
    pub key: String,
    /// When the file was last written, in seconds since the Unix epoch.
    pub at: u64,
    /// The base commit of the `ci` run that wrote it (none from `gauntlet stats`).
    #[serde(default)]
    pub commit: Option<String>,
    /// Each merged or closed pull request read, by number.
    pub pulls: BTreeMap<u64, Kept>,
}

/// One pull request's records, and when they were read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub read_at: u64,
    #[serde(flatten)]
    pub known: Known,
}

impl Kept {
    /// Whether these records may stand in for a read at `now`: read less than
    /// [`FRESH_FOR`] ago, or at least [`SETTLED_AFTER`] after the close. A time
    /// ahead of the clock is never reused.
    fn reusable(&self, now: u64) -> bool {
        if self.read_at > now {
            return false;
        }
        // Compared by day, so a day more than SETTLED_AFTER: never early.
        let settled = self.read_at.checked_sub(SETTLED_AFTER + 24 * 60 * 60).is_some_and(|t| {
            let day = gauntlet_review::context::history::date(i64::try_from(t).unwrap_or(i64::MAX));
            self.known.closed_at.get(..10).is_some_and(|closed| closed <= day.as_str())
        });
        now - self.read_at < FRESH_FOR || settled
    }
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

/// The figure for this run, from the record read within `settings.calls` API
/// calls and what the cache holds (which is then updated). `Err` with the reason
/// when the record could not be read at all: the run is then advisory.
pub fn decide(
    runtime: &tokio::runtime::Runtime,
    git: &Git,
    ctx: &CiContext,
    settings: &EarnedSettings,
    (era, base): (&str, &str),
    policy: Policy,
    cache_dir: Option<PathBuf>,
) -> Result<Decision, String> {
    let config = ctx.host.clone()?;
    let path = cache_dir.or_else(|| git.common_dir().ok().map(|d| d.join("gauntlet"))).map(|d| d.join(CACHE_FILE));
    // A record the repository itself holds came with the change under review, not
    // from an earlier run: an author could write any figure into it.
    let path = path.filter(|p| match tracked(git, p) {
        false => true,
        true => {
            crate::progress::say!(
                "gauntlet: warning: {} is a file of the repository, not a record an earlier run kept: not read or written",
                p.display()
            );
            false
        }
    });
    let kept = path.as_deref().map(|p| load(p, &config, policy)).unwrap_or_default();
    let host = config.history(Some(settings.calls)).map_err(|e| e.to_string())?;
    let scope = Scope { last: MAX_PULLS, since: None, policy };
    let (read, kept) = read_and_keep(runtime, host.as_ref(), &scope, kept).map_err(|e| e.to_string())?;
    if let Some(why) = &read.unanswered {
        return Err(format!("who may dismiss could not be asked ({why}), so the record would leave dismissals out"));
    }
    if let Some(path) = &path {
        let c = Cached { key: key(&config, policy), at: now(), commit: Some(base.to_string()), pulls: kept };
        if let Err(e) = save(path, &c) {
            crate::progress::say!("gauntlet: note: could not keep the record of precision at {}: {e}", path.display());
        }
    }
    let records =
        if settings.keep_record_across_rules { read.records.clone() } else { earned::of_era(&read.records, era) };
    let earned = earned::assess(&records, settings.bar);
    let source = format!("precision read from {} over {}", host.name(), read.covers());
    Ok(Decision { earned, source })
}

/// Read the record through `host`, taking what `kept` holds where it may stand in;
/// and what to keep for the next run.
pub fn read_and_keep(
    runtime: &tokio::runtime::Runtime,
    host: &dyn History,
    scope: &Scope,
    kept: BTreeMap<u64, Kept>,
) -> anyhow::Result<(history::Read, BTreeMap<u64, Kept>)> {
    let now = now();
    let known = kept.iter().filter(|(_, k)| k.reusable(now)).map(|(n, k)| (*n, k.known.clone())).collect();
    let read = runtime.block_on(history::read_with(host, scope, &known))?;
    let mut next = kept;
    for (number, found) in read.known() {
        // Taken from the file unchanged: it keeps the time it was read.
        let read_at = match known.get(&number).zip(next.get(&number)) {
            Some((was, k)) if was.closed_at == found.closed_at => k.read_at,
            _ => now,
        };
        next.insert(number, Kept { read_at, known: found });
    }
    // The newest closes are all a read can use; older ones only grow the file.
    let mut by_close: Vec<(String, u64)> = next.iter().map(|(n, k)| (k.known.closed_at.clone(), *n)).collect();
    by_close.sort_unstable_by(|a, b| b.cmp(a));
    for (_, number) in by_close.into_iter().skip(MAX_PULLS) {
        next.remove(&number);
    }
    Ok((read, next))
}

/// What the cache at `path` holds for this repository and policy; nothing when
/// the file is absent, unreadable or of another repository.
pub fn load(path: &std::path::Path, config: &HostConfig, policy: Policy) -> BTreeMap<u64, Kept> {
    let cached = std::fs::read(path).ok().and_then(|b| serde_json::from_slice::<Cached>(&b).ok());
    cached.filter(|c| c.key == key(config, policy)).map(|c| c.pulls).unwrap_or_default()
}

/// Write `cached` to `path` whole (never half a file), creating its folder.
pub fn save(path: &std::path::Path, cached: &Cached) -> anyhow::Result<()> {
    let bytes = serde_json::to_vec_pretty(cached)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    super::status::write_atomic(path, &bytes)
}

/// The version of how outcomes are decided and kept: a release that decides
/// them differently changes it, and every kept record is read again.
const RECORD_VERSION: u32 = 2;

/// What the kept records were decided for: how, the repository, and whether its
/// authors may dismiss (which changes outcomes).
pub fn key(config: &HostConfig, policy: Policy) -> String {
    format!("v{RECORD_VERSION}|{}|author_may_dismiss={}", config.repository(), policy.author_may_dismiss)
}

/// Whether `path` is a file git tracks in the repository (inside the checkout, as
/// GitLab's cache folder must be).
pub(crate) fn tracked(git: &Git, path: &std::path::Path) -> bool {
    // A tracked file exists, so its folder does: compare real paths.
    let real = |p: &std::path::Path| p.canonicalize().ok();
    let (Some(dir), Some(name), Some(root)) = (path.parent().and_then(real), path.file_name(), real(git.root())) else {
        return false;
    };
    let path = dir.join(name);
    let Ok(relative) = path.strip_prefix(&root) else { return false };
    let Some(relative) = relative.to_str() else { return true };
    git.run(&["ls-files", "--error-unmatch", "--", relative]).is_ok()
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(closed: &str, read_at: u64) -> Kept {
        Kept { read_at, known: Known { closed_at: closed.into(), records: Vec::new() } }
    }

    #[test]
    fn records_are_reused_while_fresh_and_for_good_once_settled() {
        // 2024-03-05T00:00:00Z
        let closed_day = 1_709_596_800;
        let closed = "2024-03-05T12:00:00Z";
        let hour = 3600;
        // Read the day after the close: fresh for a day, then read again.
        let early = kept(closed, closed_day + 24 * hour);
        assert!(early.reusable(closed_day + 30 * hour));
        assert!(!early.reusable(closed_day + 49 * hour), "a day old and not settled");
        // Read eight days after the close: final.
        let settled = kept(closed, closed_day + 8 * 24 * hour);
        assert!(settled.reusable(closed_day + 400 * 24 * hour));
        // Read six days after: not yet.
        assert!(!kept(closed, closed_day + 6 * 24 * hour).reusable(closed_day + 9 * 24 * hour));
        // Read 6 days 2 hours after a close late in its day: a week has not passed,
        // though the read's date is seven days on (a comparison by day alone
        // would settle it).
        let late = "2024-03-05T23:00:00Z";
        assert!(!kept(late, closed_day + 6 * 24 * hour + 25 * hour).reusable(closed_day + 9 * 24 * hour));
        // Read at midnight eight days on (seven days and an hour after it): final.
        assert!(kept(late, closed_day + 8 * 24 * hour).reusable(closed_day + 30 * 24 * hour));
        // A read dated ahead of the clock is never reused.
        assert!(!settled.reusable(closed_day + 24 * hour));
    }
}
