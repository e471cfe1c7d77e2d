//! `gauntlet reviewers`: which reviewers `review` would run on the change, and
//! why each other one would not. It takes the same decisions as `review` (the
//! ignore lists, the rules, the settings, the gate, the context each reviewer
//! needs), through the same code, up to the first model call.

use crate::args::{ReviewArgs, ReviewersArgs};
use crate::roster::Roster;
use crate::settings::{Env, Settings};
use anyhow::Result;
use gauntlet_change::git::Git;
use gauntlet_review::context::Prepared;
use gauntlet_review::gate::Decision;
use gauntlet_review::pipeline::RepoHead;
use gauntlet_review::rules::{Reviewer, Selection};
use std::path::Path;

pub fn run(git: &Git, config: Option<&Path>, args: &ReviewersArgs, env: &Env) -> Result<()> {
    let review_args = ReviewArgs {
        change: args.change.clone(),
        reviewers: args.reviewers.clone(),
        force: args.force,
        color: "never".into(),
        ..ReviewArgs::default()
    };
    let settings = Settings::resolve(git.root(), config, &review_args, env, false)?;
    let mut change = gauntlet_change::acquire(git, &super::review::target(&args.change)?)?;
    if change.is_empty() {
        println!("review would skip this change: it is empty, so no reviewer would run");
        return Ok(());
    }
    let roster = Roster::choose(git, &change, &review_args, env, &settings)?;
    let selected = roster.selected();
    let already = already_reviewed(git, &change, &roster, &selected, &settings)?;
    let gate = crate::gate::decide(&roster.facts, &change, &settings, already, args.force)?;
    change.files.retain(|f| roster.kept(f.diff.path()));
    let context = if selected.is_empty() {
        Prepared::default()
    } else {
        let head = RepoHead::new(git, &change)?;
        crate::context::prepare(git, &change, &head, &settings, env, selected.clone())?
    };
    let width = roster.selection.iter().map(|(r, _)| r.name.len()).max().unwrap_or(0).max(SECRETS.len());
    for (r, selection) in &roster.selection {
        let why = verdict(r, selection, &context);
        let tier = r.tier.as_str();
        println!("{:width$}  {tier:8}  max {:2}  {why}  [{}] {}", r.name, r.max_findings, r.origin, r.description);
    }
    let gated = matches!(gate, Decision::Skip { .. });
    let has_work = !context.reviewers.is_empty() || !context.failures.is_empty();
    let runs = !gated && !selected.is_empty() && has_work;
    let secrets = if runs { "runs: every line the change adds, without a model" } else { "off: the review is skipped" };
    println!("{SECRETS:width$}  {:8}  max  -  {secrets}  [built-in] secrets the change adds", "no model");
    println!("\n{}", outcome(&gate, &selected, &context, args.force));
    Ok(())
}

/// Whether `review` would find this head already reviewed with the same rules,
/// config and models. Without configured models `review` would pick a fallback by
/// probing for one, which a listing does not do: then it cannot tell, and says no.
fn already_reviewed(
    git: &Git,
    change: &gauntlet_change::Change,
    roster: &Roster,
    selected: &[Reviewer],
    settings: &Settings,
) -> Result<bool> {
    let Some(specs) = &settings.models else {
        return Ok(false);
    };
    let ran = gauntlet_review::rules::version(&selected.iter().collect::<Vec<_>>());
    let (rules_version, _) = roster.ruleset.version(&ran)?;
    let key = crate::state::review_key(change, &rules_version, settings, specs);
    crate::state::was_reviewed(git, &key)
}

/// The reviewer of the deterministic secret check, which has no rule file.
const SECRETS: &str = gauntlet_review::secrets::REVIEWER;

/// Why a reviewer runs or not, context included: a reviewer whose context comes
/// back empty does not run, whatever its globs matched.
fn verdict(r: &Reviewer, selection: &Selection, context: &Prepared) -> String {
    if !matches!(selection, Selection::Runs { .. }) || r.context.is_empty() {
        return selection.to_string();
    }
    let named = |list: &[(String, String)]| list.iter().find(|(n, _)| *n == r.name).map(|(_, why)| why.clone());
    if let Some(why) = named(&context.failures) {
        return format!("off: {why} (the review records a coverage gap)");
    }
    if let Some(why) = named(&context.left_out) {
        return format!("off: nothing to work with: {why}");
    }
    let kinds: Vec<&str> = r.context.iter().map(|k| k.as_str()).collect();
    format!("{selection}, and its context ({}) found something", kinds.join(", "))
}

/// The last line: what `review` would do with the change as a whole.
fn outcome(gate: &Decision, selected: &[Reviewer], context: &Prepared, force: bool) -> String {
    if let Decision::Skip { reason } = gate {
        let hint = if force { "" } else { "; --force reviews it anyway, with the reviewers above" };
        return format!("review would skip this change: {reason}{hint}");
    }
    if selected.is_empty() {
        return "review would skip this change: no reviewer applies to the changed files".into();
    }
    if context.reviewers.is_empty() && context.failures.is_empty() {
        return "review would skip this change: no selected reviewer has anything to work with".into();
    }
    let mut names: Vec<&str> = context.reviewers.iter().map(|r| r.name.as_str()).collect();
    names.push(SECRETS);
    format!("review would run: {}", names.join(", "))
}
