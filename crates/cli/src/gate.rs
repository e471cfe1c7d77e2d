//! Gathering the gate's inputs: PR metadata, commit subjects, `.gitattributes`,
//! and whether this head was already reviewed.

use crate::args::ReviewArgs;
use crate::settings::{Env, Settings};
use crate::{pr, state};
use anyhow::Result;
use gauntlet_change::{Change, git::Git};
use gauntlet_review::gate::{self, Decision, GateInput};

/// Subjects of the commits in base..head; empty when head is not a commit.
fn commit_subjects(git: &Git, change: &Change) -> Vec<String> {
    let range = format!("{}..{}", change.base, change.head);
    match git.run(&["log", "--format=%s", "--no-merges", &range]) {
        Ok(out) => String::from_utf8_lossy(&out).lines().map(str::to_string).collect(),
        Err(_) => Vec::new(),
    }
}

pub fn decide(
    git: &Git,
    change: &Change,
    settings: &Settings,
    args: &ReviewArgs,
    env: &Env,
    state_key: &str,
) -> Result<Decision> {
    let flags = pr::PrFlags { draft: args.pr_draft, author: args.pr_author.clone(), title: args.pr_title.clone() };
    let meta = pr::resolve(&flags, env);
    let attributes = git.read(&change.snapshot, ".gitattributes")?.map(|b| String::from_utf8_lossy(&b).into_owned());
    let generated = gate::generated_globs(attributes.as_deref().unwrap_or(""));
    let subjects = commit_subjects(git, change);
    let input = GateInput {
        change,
        pr: &meta,
        commit_subjects: &subjects,
        generated_globs: &generated,
        already_reviewed: state::was_reviewed(git, state_key)?,
        force: args.force,
    };
    gate::decide(&input, &settings.gate).map_err(|e| anyhow::anyhow!("[gate] in gauntlet.toml: {e}"))
}
