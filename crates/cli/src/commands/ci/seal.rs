//! Which overview `ci` may believe.
//!
//! The overview's marker says which head was reviewed, with which rules, and which
//! findings it holds: enough to skip a re-run or review only what changed since.
//! But anyone who can post as the pipeline's identity can write such a comment (on
//! GitHub every workflow's token is `github-actions[bot]`, a workflow a pull
//! request adds included), and a writer can edit it. So the pipeline keeps, on the
//! machine it runs on, a digest of the overview text it last wrote to each pull
//! request: under `$GAUNTLET_CACHE_DIR` when set (the CI templates cache that
//! folder), else under the clone's `.git/gauntlet/`. An overview whose text is not
//! that, or one without such a record, decides nothing: the run reviews the whole
//! pull request again and carries over only the held findings' ids, which can
//! only make `--fail-on` stricter (see [`gauntlet_publish::Existing::overview_edited`]).
//! A missing record costs a review, never trust.

use crate::ci_env::{CiContext, HostConfig};
use crate::settings::Env;
use gauntlet_change::git::Git;
use gauntlet_publish::Existing;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The folder, under the cache folder, that holds one record per pull request.
const FOLDER: &str = "overviews";

/// Where the digest of this pull request's overview is kept, when anywhere.
pub struct Seal {
    path: Option<PathBuf>,
}

impl Seal {
    /// The record for the pull request `ctx` is for. None when the host is not
    /// reachable this run, or the record would be a file of the repository itself
    /// (a pull request could commit any digest there).
    pub fn at(git: &Git, ctx: &CiContext, env: &Env) -> Seal {
        let Ok(host) = &ctx.host else { return Seal { path: None } };
        let dir =
            env("GAUNTLET_CACHE_DIR").map(PathBuf::from).or_else(|| git.common_dir().ok().map(|d| d.join("gauntlet")));
        let path = dir.map(|d| d.join(FOLDER).join(format!("{}.sha256", pull_tag(host))));
        let path = path.filter(|p| {
            let tracked = super::earned::tracked(git, p);
            if tracked {
                crate::progress::say!(
                    "gauntlet: warning: {} is a file of the repository, not a record an earlier run kept: the overview decides nothing",
                    p.display()
                );
            }
            !tracked
        });
        Seal { path }
    }

    /// Leave the overview in `existing` as it is when its text is what this
    /// pipeline last wrote there, and read the threads as it records them
    /// ([`gauntlet_publish::standing::bind`]); otherwise mark it as not the pipeline's own, so
    /// it decides neither a skip, nor an incremental range, nor what stands.
    pub fn check(&self, existing: &mut Existing) {
        let Some(overview) = &existing.overview else { return };
        if existing.overview_edited.is_some() {
            return;
        }
        let kept = self.path.as_ref().and_then(|p| std::fs::read_to_string(p).ok());
        let why = match kept {
            Some(kept) if kept.trim() == digest(&overview.body) => {
                // Its record of the open threads now outweighs what their comments say.
                gauntlet_publish::standing::bind(existing);
                return;
            }
            Some(_) => {
                "its text is not what this pipeline last wrote there (edited, or written by something else posting under the pipeline's identity)"
            }
            None => {
                "this pipeline keeps no record of writing it here (a first run on this machine, or its cache was not restored)"
            }
        };
        crate::progress::say!(
            "gauntlet: note: the overview on the pull request decides nothing: {why}; reviewing the whole pull request"
        );
        existing.overview_edited = Some(why.to_string());
    }

    /// Remember `body` as the overview this pipeline just wrote. A record that
    /// cannot be written only costs the next run a full review.
    pub fn keep(&self, body: &str) {
        let Some(path) = &self.path else { return };
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(anyhow::Error::from)
            .and_then(|()| super::status::write_atomic(path, format!("{}\n", digest(body)).as_bytes()));
        if let Err(e) = written {
            eprintln!(
                "gauntlet: warning: could not keep the record of the overview in {} ({e}); the next run reviews the whole pull request again",
                path.display()
            );
        }
    }
}

/// The digest of an overview's text. Line endings and trailing blanks are left
/// out, which a host may change on storing; nothing else is.
fn digest(body: &str) -> String {
    let text = body.replace("\r\n", "\n");
    hex::encode(Sha256::digest(text.trim_end().as_bytes()))
}

/// A file name for the pull request `host` is configured for.
fn pull_tag(host: &HostConfig) -> String {
    let number = match host {
        HostConfig::GitHub(c) => c.number,
        HostConfig::GitLab(c) => c.merge_request,
        HostConfig::Azure(c) => c.pull_request,
    };
    let key = format!("{} #{number}", host.repository());
    hex::encode(&Sha256::digest(key.as_bytes())[..12])
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_publish::{Handle, Overview};

    fn existing(body: &str) -> Existing {
        let handle = Handle { thread: "1".into(), comment: "1".into() };
        Existing { overview: Some(Overview { handle, body: body.into() }), ..Existing::default() }
    }

    #[test]
    fn only_the_text_last_kept_is_believed() {
        let dir = tempfile::tempdir().unwrap();
        let seal = Seal { path: Some(dir.path().join(FOLDER).join("x.sha256")) };
        let body = "<!-- gauntlet:overview v1 head=abc rules=r config=c held=- -->\n\nbody";
        let mut first = existing(body);
        seal.check(&mut first);
        assert!(first.overview_edited.as_deref().is_some_and(|w| w.contains("no record")), "{first:?}");
        seal.keep(body);
        let mut same = existing(&format!("{}\r\n", body.replace('\n', "\r\n")));
        seal.check(&mut same);
        assert_eq!(same.overview_edited, None, "a host's line endings change nothing");
        let mut edited = existing(&body.replace("held=-", "held=h.x.y"));
        seal.check(&mut edited);
        assert!(edited.overview_edited.as_deref().is_some_and(|w| w.contains("not what")), "{edited:?}");
        let mut nowhere = existing(body);
        Seal { path: None }.check(&mut nowhere);
        assert!(nowhere.overview_edited.is_some(), "without a record nothing is believed");
    }
}
