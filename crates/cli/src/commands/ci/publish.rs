//! Posting a finished review, and saying loudly when that was impossible.

use super::Poster;
use super::scope::Scope;
use crate::ci_env::CiContext;
use crate::commands::review::Prepared;
use anyhow::{Context, Result};
use gauntlet_change::FileDiff;
use gauntlet_change::git::Git;
use gauntlet_publish::{Candidate, OverviewMarker, Request, anchor};
use gauntlet_review::Review;
use gauntlet_review::contract::Location;
use std::collections::BTreeSet;
use std::io::Write;

/// What the review covered, for placing and scoping the comments.
pub struct Target<'a> {
    pub git: &'a Git,
    pub merge_base: &'a str,
    pub scope: &'a Scope,
    pub prepared: &'a Prepared,
    pub digest: String,
    /// Comments to open per run at most.
    pub cap: usize,
}

/// `Ok(summary line)` when posted, `Err(why not)` otherwise.
pub type Posted = Result<String, String>;

pub fn post(runtime: &tokio::runtime::Runtime, poster: &mut Poster, review: &Review, target: &Target<'_>) -> Posted {
    let (host, existing) = poster.as_ref().map_err(Clone::clone)?;
    // Anchors come from the pull request's whole diff (what the host shows),
    // even when only part of it was reviewed.
    let text = target.git.diff(&[target.merge_base, &review.head, "--"]).map_err(|e| e.to_string())?;
    let diffs = gauntlet_change::parse_patch(&text).map_err(|e| e.to_string())?;
    let candidates = review
        .published
        .iter()
        .map(|p| Candidate { finding: p, anchor: place(&diffs, &p.location, p.inline) })
        .collect();
    let mut notes = Vec::new();
    let reviewed = match target.scope {
        Scope::Since { last } => {
            notes.push(format!(
                "Incremental review: only what changed since {} (the last reviewed head); comments on other files carry over. Run `gauntlet ci --full` to review everything.",
                &last[..last.len().min(12)]
            ));
            Some(target.prepared.change.files.iter().map(|f| f.diff.path().to_string()).collect::<BTreeSet<_>>())
        }
        Scope::Full { note } => {
            notes.extend(note.clone());
            None
        }
        Scope::Same { .. } => None,
    };
    let marker = OverviewMarker {
        head: review.head.clone(),
        rules: review.rules_version.clone(),
        config: target.digest.clone(),
    };
    let request = Request { review, candidates, marker, cap: target.cap, reviewed, notes };
    let summary = runtime.block_on(gauntlet_publish::sync(host.as_ref(), existing, request)).map_err(|e| {
        if e.is_denied() {
            format!("{e}. The token may not write to this pull request: a pull request from a fork gets a read-only token; GitHub needs `permissions: pull-requests: write`, GitLab a project access token with the `api` scope, Azure DevOps the build identity's \"Contribute to pull requests\" permission")
        } else {
            e.to_string()
        }
    })?;
    Ok(format!("posted to {}: {summary}", host.name()))
}

fn place(diffs: &[FileDiff], location: &str, inline: bool) -> Option<gauntlet_publish::Anchor> {
    let location = Location::parse(location).filter(|_| inline)?;
    let diff = diffs.iter().find(|d| d.new_path.as_deref() == Some(location.path.as_str()))?;
    anchor::place(diff, location.start, location.end)
}

/// Report how posting went, loudly when nothing was posted, and write the job
/// summary where the CI system has one.
pub fn summary(ctx: &CiContext, review: &Review, posted: &Posted) -> Result<()> {
    let status = match posted {
        Ok(line) => {
            eprintln!("gauntlet: {line}");
            None
        }
        Err(why) => {
            let bar = "=".repeat(72);
            let also = if ctx.summary_file.is_some() { " and in the job summary" } else { "" };
            eprintln!(
                "gauntlet: {bar}\ngauntlet: NOTHING WAS POSTED to the pull request.\ngauntlet: why: {why}\ngauntlet: the full review is printed above{also}.\ngauntlet: {bar}"
            );
            Some(why.clone())
        }
    };
    let Some(path) = &ctx.summary_file else { return Ok(()) };
    let mut text = String::new();
    if let Some(why) = status {
        text.push_str(&format!(
            "> **Nothing was posted to the pull request:** {}\n\n",
            gauntlet_report::markdown::text(&why)
        ));
    }
    text.push_str(&gauntlet_report::render(review, gauntlet_report::Format::Markdown, &Default::default()));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open the job summary {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}
