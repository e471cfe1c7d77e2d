//! `gauntlet.lock`: the channel's tag and commit and the sha256 of every rule file
//! in use. Rules then change only through a reviewed commit of the lock: a rule
//! edited, added or removed, or a channel tag that moved, is drift, and
//! `gauntlet rules verify` names it.

use super::{Origin, Reviewer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const FILE_NAME: &str = "gauntlet.lock";
const FORMAT_VERSION: u32 = 1;

const HEADER: &str = "# gauntlet.lock: the reviewer rules this repository reviews with. Written by\n\
# `gauntlet rules lock`, checked by `gauntlet rules verify` (and by `gauntlet ci`\n\
# before it reviews). Do not edit by hand: change a rule, re-lock, commit both.\n\n";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChannelPin>,
    #[serde(default, rename = "rule")]
    pub rules: Vec<LockedRule>,
}

/// The external channel as locked: where, which tag, and the commit the tag named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelPin {
    pub git: String,
    pub tag: String,
    pub commit: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedRule {
    pub name: String,
    /// `built-in`, `channel:rules/x.md` or the repository path of the file.
    pub source: String,
    pub sha256: String,
}

#[derive(Debug, thiserror::Error)]
#[error("{FILE_NAME} is not a valid lock file ({message}); rewrite it with `gauntlet rules lock`")]
pub struct LockError {
    message: String,
}

/// Where a rule file comes from, as the lock names it.
pub fn source(origin: &Origin) -> String {
    match origin {
        Origin::Builtin => "built-in".into(),
        Origin::Channel { path, .. } => format!("channel:{}", path.display()),
        Origin::Repo(path) => path.display().to_string(),
    }
}

impl Lock {
    /// The lock for the rules in use and the channel they came from.
    pub fn of(reviewers: &[Reviewer], channel: Option<ChannelPin>) -> Lock {
        let mut rules: Vec<LockedRule> = reviewers
            .iter()
            .map(|r| LockedRule {
                name: r.name.clone(),
                source: source(&r.origin),
                sha256: hex::encode(Sha256::digest(r.source.as_bytes())),
            })
            .collect();
        rules.sort();
        Lock { version: FORMAT_VERSION, channel, rules }
    }

    /// The file's text: a header saying how it is maintained, then the TOML.
    pub fn render(&self) -> String {
        format!("{HEADER}{}", self.body())
    }

    fn body(&self) -> String {
        toml::to_string(self).expect("a lock serialises")
    }

    pub fn parse(text: &str) -> Result<Lock, LockError> {
        let lock: Lock = toml::from_str(text).map_err(|e| LockError { message: e.message().to_string() })?;
        if lock.version != FORMAT_VERSION {
            return Err(LockError { message: format!("version {} is not {FORMAT_VERSION}", lock.version) });
        }
        Ok(lock)
    }

    /// A short hash of what the lock pins (comments and layout aside), for reports.
    pub fn hash(&self) -> String {
        format!("lock:{}", &hex::encode(Sha256::digest(self.body().as_bytes()))[..12])
    }
}

/// One way the rules in use differ from the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Drift {
    Changed { name: String, source: String },
    Added { name: String, source: String },
    Removed { name: String, source: String },
    Channel { locked: Option<String>, now: Option<String> },
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pin = |p: &Option<String>| p.clone().unwrap_or_else(|| "none".into());
        match self {
            Drift::Changed { name, source } => write!(f, "{source} (reviewer {name}): content differs from the lock"),
            Drift::Added { name, source } => write!(f, "{source} (reviewer {name}): in use but not in the lock"),
            Drift::Removed { name, source } => {
                write!(f, "{source} (reviewer {name}): in the lock but no longer in use")
            }
            Drift::Channel { locked, now } => write!(f, "rules channel: locked {}, now {}", pin(locked), pin(now)),
        }
    }
}

/// How the rules in use (`now`) differ from `locked`; empty when they match.
pub fn compare(locked: &Lock, now: &Lock) -> Vec<Drift> {
    let mut drift = Vec::new();
    let describe = |c: &Option<ChannelPin>| c.as_ref().map(|c| format!("{} at {} ({})", c.git, c.tag, c.commit));
    if locked.channel != now.channel {
        drift.push(Drift::Channel { locked: describe(&locked.channel), now: describe(&now.channel) });
    }
    for rule in &now.rules {
        match locked.rules.iter().find(|l| l.name == rule.name && l.source == rule.source) {
            Some(l) if l.sha256 != rule.sha256 => {
                drift.push(Drift::Changed { name: rule.name.clone(), source: rule.source.clone() })
            }
            Some(_) => {}
            None => drift.push(Drift::Added { name: rule.name.clone(), source: rule.source.clone() }),
        }
    }
    for l in &locked.rules {
        if !now.rules.iter().any(|r| r.name == l.name && r.source == l.source) {
            drift.push(Drift::Removed { name: l.name.clone(), source: l.source.clone() });
        }
    }
    drift
}

/// The rules version reports carry: the channel tag (when there is a channel) and
/// the lock's hash when the rules in use match the lock, else a hash of the rules
/// that ran (`unlocked`).
pub fn version(tag: Option<&str>, locked: Option<&Lock>, unlocked: &str) -> String {
    let hash = locked.map_or_else(|| unlocked.to_string(), Lock::hash);
    match tag {
        Some(tag) => format!("{tag}+{hash}"),
        None => hash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::builtin;

    #[test]
    fn a_lock_round_trips_through_its_file_text() {
        let pin = ChannelPin { git: "https://example.com/rules.git".into(), tag: "v3".into(), commit: "abc".into() };
        let lock = Lock::of(&builtin(), Some(pin));
        let text = lock.render();
        assert!(text.starts_with("# gauntlet.lock"));
        assert_eq!(Lock::parse(&text).unwrap(), lock);
        assert_eq!(Lock::parse(&text).unwrap().hash(), lock.hash());
    }

    #[test]
    fn an_edited_rule_is_drift_naming_its_file() {
        let locked = Lock::of(&builtin(), None);
        let mut now = builtin();
        now[0].source.push_str("\nOne more line.\n");
        let name = now[0].name.clone();
        let drift = compare(&locked, &Lock::of(&now, None));
        assert_eq!(drift, vec![Drift::Changed { name: name.clone(), source: "built-in".into() }]);
        assert!(drift[0].to_string().contains(&format!("reviewer {name}")));
    }

    #[test]
    fn added_and_removed_rules_and_a_moved_channel_are_drift() {
        let mut all = builtin();
        let locked = Lock::of(&all, None);
        let extra = Reviewer::parse(
            "x.md",
            "+++\nname = \"migrations\"\ndescription = \"d\"\n+++\nbody\n",
            Origin::Repo(".gauntlet/reviewers/migrations.md".into()),
        )
        .unwrap();
        all.retain(|r| r.name != "tests");
        all.push(extra);
        let pin = ChannelPin { git: "g".into(), tag: "v4".into(), commit: "c".into() };
        let drift = compare(&locked, &Lock::of(&all, Some(pin)));
        let text: Vec<String> = drift.iter().map(ToString::to_string).collect();
        assert!(text.iter().any(|t| t.starts_with("rules channel: locked none, now g at v4")), "{text:?}");
        assert!(text.iter().any(|t| t.starts_with(".gauntlet/reviewers/migrations.md (reviewer migrations): in use")));
        assert!(text.iter().any(|t| t.starts_with("built-in (reviewer tests): in the lock but no longer")));
    }

    #[test]
    fn the_rules_version_is_the_channel_tag_and_the_lock_hash() {
        let lock = Lock::of(&builtin(), None);
        assert_eq!(version(Some("v3"), Some(&lock), "sha256:x"), format!("v3+{}", lock.hash()));
        assert!(version(None, Some(&lock), "sha256:x").starts_with("lock:"));
        assert_eq!(version(Some("v3"), None, "sha256:x"), "v3+sha256:x");
    }
}
