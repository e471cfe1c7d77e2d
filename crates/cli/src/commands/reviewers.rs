//! `gauntlet reviewers`: which reviewers would run on the change, and why.

use crate::args::ChangeArgs;
use crate::settings::{Env, read_file};
use anyhow::Result;
use gauntlet_change::git::Git;
use gauntlet_review::rules;
use std::path::Path;

pub fn run(git: &Git, config: Option<&Path>, change_args: &ChangeArgs, env: &Env) -> Result<()> {
    let root = git.root();
    let path = config.map(Path::to_path_buf).unwrap_or_else(|| root.join(crate::settings::FILE_NAME));
    let file = read_file(&path, config.is_some())?;
    let change = gauntlet_change::acquire(git, &super::review::target(change_args)?)?;
    let paths: Vec<&str> = change.files.iter().map(|f| f.diff.path()).collect();
    let all = crate::ruleset::RuleSet::load(git, &file, env)?.all;
    let selection = rules::select(&all, &paths, &file.reviewers.disable, &file.reviewers.only);
    let width = all.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for (r, why) in &selection {
        // Reviewers with context run only when gathering finds something for them.
        let needs: Vec<&str> = r.context.iter().map(|k| k.as_str()).collect();
        let needs = if needs.is_empty() { String::new() } else { format!(" (needs context: {})", needs.join(", ")) };
        println!(
            "{:width$}  {:8}  max {:2}  {}  [{}] {}{needs}",
            r.name,
            r.tier.as_str(),
            r.max_findings,
            why,
            r.origin,
            r.description
        );
    }
    if paths.is_empty() {
        println!("(the change is empty: no reviewer would run)");
    }
    Ok(())
}
