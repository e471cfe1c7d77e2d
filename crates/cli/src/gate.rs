//! Gathering the gate's inputs: PR metadata, commit subjects and `.gitattributes`.

use crate::args::ReviewArgs;
use crate::pr;
use crate::settings::{Env, Settings};
use anyhow::Result;
use gauntlet_change::{Change, Snapshot, git::Git};
use gauntlet_review::gate::{self, Decision, GateInput, PrMeta};

/// What the gate needs to know besides the change itself.
pub struct Facts {
    pr: PrMeta,
    subjects: Vec<String>,
    generated: Vec<String>,
}

/// `attributes_at`: where `.gitattributes` is read (the base commit in `ci`: a
/// change that marks its own files generated must not have them ignored).
pub fn gather(git: &Git, change: &Change, attributes_at: &Snapshot, args: &ReviewArgs, env: &Env) -> Result<Facts> {
    let flags = pr::PrFlags {
        draft: args.pr_draft,
        author: args.pr_author.clone(),
        title: args.pr_title.clone(),
        body: args.pr_body.clone(),
    };
    let attributes = git.read(attributes_at, ".gitattributes")?.map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok(Facts {
        pr: pr::resolve(&flags, env),
        subjects: git.commit_subjects(&change.base, &change.head),
        generated: gate::generated_globs(attributes.as_deref().unwrap_or("")),
    })
}

impl Facts {
    /// What the pull request says about itself (flags over the CI event).
    pub fn pr(&self) -> &PrMeta {
        &self.pr
    }
}

fn config_error(e: String) -> anyhow::Error {
    anyhow::anyhow!("[gate] in gauntlet.toml: {e}")
}

/// Changed files not worth reviewing, with the reason.
pub fn ignored(facts: &Facts, change: &Change, settings: &Settings) -> Result<Vec<(String, String)>> {
    Ok(gate::classify(change, &facts.generated, &settings.gate).map_err(config_error)?.0)
}

pub fn decide(
    facts: &Facts,
    change: &Change,
    settings: &Settings,
    already_reviewed: bool,
    force: bool,
) -> Result<Decision> {
    let input = GateInput {
        change,
        pr: &facts.pr,
        commit_subjects: &facts.subjects,
        generated_globs: &facts.generated,
        already_reviewed,
        force,
    };
    gate::decide(&input, &settings.gate).map_err(config_error)
}
