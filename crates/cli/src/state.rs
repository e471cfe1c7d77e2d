//! Local state under `.git/gauntlet/`: which heads were already reviewed with
//! which rules and config, so the gate can skip a repeat.

use crate::settings::{ModelSpec, Settings};
use anyhow::Result;
use gauntlet_change::Change;
use gauntlet_change::git::Git;
use gauntlet_model::Tier;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A key over everything that changes a review's outcome: the range, the rules, the
/// resolved settings, the models of every tier, and the config file as written.
pub fn review_key(
    change: &Change,
    rules_version: &str,
    settings: &Settings,
    specs: &BTreeMap<Tier, ModelSpec>,
) -> String {
    let mut h = Sha256::new();
    let models: Vec<String> = specs.iter().map(|(t, s)| format!("{}={}:{}", t.as_str(), s.provider, s.model)).collect();
    for part in [&change.base, &change.head, rules_version, &settings.fingerprint, &models.join(",")] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}

fn dir(git: &Git) -> Result<PathBuf> {
    Ok(git.common_dir()?.join("gauntlet").join("reviewed"))
}

pub fn was_reviewed(git: &Git, key: &str) -> Result<bool> {
    Ok(dir(git)?.join(key).exists())
}

/// Remember a completed review. Best effort: failing to write state never fails a review.
pub fn mark_reviewed(git: &Git, key: &str, head: &str) {
    let write = || -> Result<()> {
        let d = dir(git)?;
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join(key), format!("{head}\n"))?;
        Ok(())
    };
    if let Err(e) = write() {
        eprintln!("gauntlet: warning: could not record the review under .git/gauntlet: {e}");
    }
}
