//! Which commits a CI run reviews: the pull request's merge-base..head, made
//! present in the clone first, or (incrementally) only what changed since the
//! head the last run reviewed.

use super::short;
use crate::ci_env::CiContext;
use anyhow::{Result, bail};
use gauntlet_change::git::Git;
use gauntlet_publish::Existing;

const DEPTH_HINT: &str = "check out with the full history: GitHub `actions/checkout` with `fetch-depth: 0`, \
GitLab `GIT_DEPTH: 0`, Azure Pipelines `fetchDepth: 0`";

/// How much of the pull request this run reviews.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everything from the merge-base; `note` says why when a shorter range was possible.
    Full { note: Option<String> },
    /// Only `last..head`: the last run reviewed `last`.
    Since { last: String },
    /// The last run reviewed this very head.
    Same { last: String },
}

/// The base commit and the merge-base of base and head, with both ends fetched
/// when the clone lacks them. A shallow clone that lacks the merge-base is an
/// error naming the checkout setting that fixes it.
pub fn commits(git: &Git, ctx: &CiContext) -> Result<(String, String)> {
    let base = super::base_commit(git, &ctx.base)?;
    for (what, sha) in [("base", &base), ("head", &ctx.head)] {
        ensure(git, what, sha)?;
    }
    if let Some(mb) = git.merge_base(&base, &ctx.head)? {
        return Ok((base, mb));
    }
    let shallow =
        git.run(&["rev-parse", "--is-shallow-repository"]).map(|o| String::from_utf8_lossy(&o).trim() == "true");
    if shallow.unwrap_or(false) {
        bail!(
            "this clone is shallow and lacks the merge-base of {} and {}: {DEPTH_HINT}",
            short(&base),
            short(&ctx.head)
        );
    }
    // Unrelated histories: the base tip is the best comparison left.
    Ok((base.clone(), base))
}

fn ensure(git: &Git, what: &str, sha: &str) -> Result<()> {
    if git.try_resolve(sha)?.is_some() {
        return Ok(());
    }
    crate::progress::say!("gauntlet: fetching the {what} commit {sha}");
    let _ = git.run(&["fetch", "--no-tags", "--quiet", "origin", sha]);
    if git.try_resolve(sha)?.is_none() {
        bail!("the pull request's {what} commit {sha} is not in this clone and could not be fetched: {DEPTH_HINT}");
    }
    Ok(())
}

/// Incremental unless `full`, there is no earlier run the pipeline can take as
/// its own ([`Existing::marker`]: a forged or edited overview names no head), its
/// head is no longer an ancestor of this one (a force-push rewrote the branch), or
/// it did not finish (a candidate it could not validate, a reviewer session that
/// failed): what it left undecided or unreviewed is judged again,
/// whether this is a re-run of the same head or a later push that leaves its file alone.
pub fn decide(git: &Git, existing: Option<&Existing>, head: &str, full: bool) -> Scope {
    let Some(marker) = existing.and_then(Existing::marker) else { return Scope::Full { note: None } };
    if marker.incomplete {
        let note = format!(
            "The last run (at {}) could not validate every candidate finding or a reviewer could not finish, so the whole pull request was reviewed again.",
            short(&marker.head)
        );
        return Scope::Full { note: Some(note) };
    }
    let last = marker.head;
    if last == head {
        return Scope::Same { last };
    }
    if full {
        return Scope::Full { note: None };
    }
    let present = git.try_resolve(&last).ok().flatten().is_some();
    if present && git.run(&["merge-base", "--is-ancestor", &last, head]).is_ok() {
        return Scope::Since { last };
    }
    let note = format!(
        "The last reviewed head {} is no longer part of the branch (a force-push?): the whole pull request was reviewed again.",
        short(&last)
    );
    Scope::Full { note: Some(note) }
}

/// Why the gate must not skip this run, if it must not: the pull request carries
/// an overview this pipeline cannot check it wrote (what stands is then unknown,
/// and a skip would decide on nothing), or the last review left candidates
/// undecided (a skip would pass what nobody validated).
pub fn no_gate(existing: Option<&Existing>) -> Option<&'static str> {
    let existing = existing?;
    match existing.marker() {
        Some(marker) if marker.incomplete => Some("the last review could not validate every candidate"),
        Some(_) => None,
        None if existing.overview.is_some() => {
            Some("the overview on the pull request is not one this pipeline can check")
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_publish::{Handle, Overview};

    fn git_repo() -> (tempfile::TempDir, Git, String) {
        let dir = tempfile::tempdir().unwrap();
        let git = Git::at(dir.path());
        git.run(&["init", "--quiet"]).unwrap();
        git.run(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "one"])
            .unwrap();
        let head = git.try_resolve("HEAD").unwrap().unwrap();
        (dir, git, head)
    }

    #[test]
    fn a_recorded_head_of_multibyte_text_is_no_panic() {
        let (_dir, git, head) = git_repo();
        // Byte 12 falls inside a character.
        let last = format!("a{}", "é".repeat(12));
        let body = format!("<!-- gauntlet:overview v1 head={last} rules=r config=c -->\n\nbody");
        let existing = Existing {
            overview: Some(Overview { handle: Handle { thread: "1".into(), comment: "1".into() }, body }),
            ..Existing::default()
        };
        match decide(&git, Some(&existing), &head, false) {
            Scope::Full { note: Some(note) } => assert!(note.contains(&format!(" a{} ", "é".repeat(11))), "{note}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(short("abc"), "abc");
    }
}
