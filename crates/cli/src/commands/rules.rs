//! `gauntlet rules lock|verify|draft`: rules governance. Rules change only through
//! reviewed commits: `lock` pins the rules in use, `verify` fails on any drift, and
//! `draft` proposes a rule from an escaped defect for a human to commit. No command
//! here writes a rule file.

use crate::ruleset::{LockState, RuleSet, cache_dir};
use crate::settings::{Env, FILE_NAME, read_file};
use anyhow::{Context as _, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_review::rules::{self, draft, lock};
use std::io::Write;
use std::path::{Path, PathBuf};

fn ruleset(git: &Git, config: Option<&Path>, env: &Env) -> Result<RuleSet> {
    let path = config.map(Path::to_path_buf).unwrap_or_else(|| git.root().join(FILE_NAME));
    RuleSet::load(git, &read_file(&path, config.is_some())?, env)
}

/// Write `gauntlet.lock` for the rules in use.
pub fn lock(git: &Git, config: Option<&Path>, env: &Env) -> Result<()> {
    let set = ruleset(git, config, env)?;
    let lock = set.lock();
    let path = git.root().join(lock::FILE_NAME);
    // Beside the target, then renamed: a failure never leaves half a lock.
    let mut tmp = tempfile::NamedTempFile::new_in(git.root())?;
    tmp.write_all(lock.render().as_bytes())?;
    tmp.persist(&path).map_err(|e| e.error).with_context(|| format!("writing {}", path.display()))?;
    let channel = lock.channel.as_ref().map_or_else(String::new, |c| format!(", channel {} at {}", c.tag, c.commit));
    println!("wrote {}: {} rules{channel} ({}); commit it", lock::FILE_NAME, lock.rules.len(), lock.hash());
    Ok(())
}

/// Check the rules in use against `gauntlet.lock`; `false` on drift, each drifted
/// file printed.
pub fn verify(git: &Git, config: Option<&Path>, env: &Env) -> Result<bool> {
    let set = ruleset(git, config, env)?;
    match set.check(git.root())? {
        LockState::Absent => {
            bail!("no {} in {}: run `gauntlet rules lock` and commit it", lock::FILE_NAME, git.root().display())
        }
        LockState::Matches(l) => {
            println!(
                "{} verified: {} rules ({})",
                lock::FILE_NAME,
                l.rules.len(),
                lock::version(set.tag(), Some(&l), "")
            );
            Ok(true)
        }
        LockState::Drifted(drift) => {
            println!("the rules in use differ from {}:", lock::FILE_NAME);
            for d in &drift {
                println!("  {d}");
            }
            println!("review these rule changes, then run `gauntlet rules lock` and commit the lock with them");
            Ok(false)
        }
    }
}

/// Draft a rule from the commit that fixed an escaped defect: printed, or written to
/// `out`, which must lie outside every rules tree.
pub fn draft(git: &Git, escape: &str, out: Option<&Path>, env: &Env) -> Result<()> {
    let sha = git.resolve(escape)?;
    if let Some(out) = out {
        refuse_rules_tree(git, out, env)?;
    }
    let info = git.commit_info(&sha)?;
    let parent = git.try_resolve(&format!("{sha}^"))?.map_or_else(|| git.empty_tree(), Ok)?;
    let files = gauntlet_change::parse_patch(&git.diff(&[&parent, &sha, "--"])?)?;
    if files.is_empty() {
        bail!("commit {escape} changes no file: name the commit that fixed the defect");
    }
    let d = draft::draft(&draft::Escape { sha: &sha, subject: &info.subject, body: &info.body, files: &files });
    match out {
        None => print!("{}", d.text),
        Some(path) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .with_context(|| format!("cannot create {} (it must not exist yet)", path.display()))?;
            file.write_all(d.text.as_bytes())?;
            eprintln!(
                "wrote {} (closest built-in reviewer: {}); review it, then commit it as {}/{}.md",
                path.display(),
                d.closest,
                rules::REPO_DIR,
                d.name
            );
        }
    }
    Ok(())
}

/// Folders whose files are rules: the repository's reviewers, gauntlet's own
/// built-in `rules/` when run in its source tree, and the channel cache.
fn rules_trees(git: &Git, env: &Env) -> Vec<PathBuf> {
    let mut trees = vec![git.root().join(rules::REPO_DIR)];
    if git.root().join("rules/correctness.md").exists() {
        trees.push(git.root().join("rules"));
    }
    if let Ok(cache) = cache_dir(env) {
        trees.push(cache.join("rules"));
    }
    trees
}

fn refuse_rules_tree(git: &Git, out: &Path, env: &Env) -> Result<()> {
    let absolute = if out.is_absolute() { out.to_path_buf() } else { std::env::current_dir()?.join(out) };
    // The file does not exist yet: resolve its folder, which must.
    let parent = absolute.parent().context("--out names no file")?;
    let folder =
        parent.canonicalize().with_context(|| format!("the folder of --out ({}) does not exist", parent.display()))?;
    for tree in rules_trees(git, env) {
        let tree = tree.canonicalize().unwrap_or(tree);
        if folder.starts_with(&tree) {
            bail!(
                "--out {} is inside the rules tree {}: gauntlet never writes rule files; write the draft elsewhere \
                 and commit it there yourself after review",
                out.display(),
                tree.display()
            );
        }
    }
    Ok(())
}
