//! Gathering the context reviewers ask for in their rule files. The edge part lives
//! here (reading the feedback export, the host API in CI); the gathering itself is
//! `gauntlet_review::context`.

use crate::settings::{Env, Settings};
use crate::trusted::Trusted;
use anyhow::Result;
use gauntlet_change::{Change, git::Git};
use gauntlet_review::context::{self, Config, ContextKind, Prepared, Sources, feedback};
use gauntlet_review::pipeline::RepoRead;
use gauntlet_review::rules::Reviewer;

/// Attach to each reviewer the context it asks for; reviewers with nothing to work
/// with are left out, with a note saying why.
pub fn prepare(
    git: &Git,
    change: &Change,
    head: &dyn RepoRead,
    settings: &Settings,
    env: &Env,
    reviewers: Vec<Reviewer>,
) -> Result<Prepared> {
    let wants = |kind| reviewers.iter().any(|r| r.context.contains(&kind));
    let mut config = Config {
        history_days: settings.file.context.history_days.unwrap_or(context::history::DEFAULT_DAYS),
        token_files: settings.file.context.token_files.clone(),
        ..Config::default()
    };
    if wants(ContextKind::Feedback) {
        (config.feedback, config.feedback_source) = load_feedback(git, &settings.trusted, env)?;
        let author_may_dismiss = settings.file.ci.author_may_dismiss.unwrap_or(false);
        config.dismissals = crate::feedback_api::load_dismissals(git, env, author_may_dismiss);
    }
    let src = Sources { git, change, head, config: &config };
    // Reviewers left out are listed in the report's notes, not on stderr: on most
    // changes some of them have nothing to work with, and that is no news.
    Ok(context::prepare(&src, reviewers))
}

/// Prior review comments: the export file when there is one (in `ci`, as the base
/// commit has it: a pull request must not write its own reviewers' history), else
/// the code host's API in CI (cached under `.git/gauntlet/`), else none.
fn load_feedback(git: &Git, trusted: &Trusted, env: &Env) -> Result<(Vec<feedback::Comment>, String)> {
    if let Some(text) = trusted.read(git, feedback::EXPORT_FILE)? {
        return Ok((feedback::parse_jsonl(feedback::EXPORT_FILE, &text)?, feedback::EXPORT_FILE.into()));
    }
    if let Some(found) = crate::feedback_api::load(git, env)? {
        return Ok(found);
    }
    Ok((Vec::new(), format!("{} (absent) or the code host in CI", feedback::EXPORT_FILE)))
}
