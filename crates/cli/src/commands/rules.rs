//! `gauntlet rules lock|verify|draft`: rules governance. Rules change only through
//! reviewed commits: `lock` pins the rules in use, `verify` fails on any drift, and
//! `draft` proposes a rule from an escaped defect, or (`--from-stats`) a section of
//! known false positives for the reviewer people dismissed most, for a human to
//! commit. No command here writes a rule file.

use crate::ruleset::{LockState, RuleSet, cache_dir};
use crate::settings::{Env, FILE_NAME, read_file};
use crate::trusted::Trusted;
use anyhow::{Context as _, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_publish::history::{self, Scope};
use gauntlet_publish::outcome::figures;
use gauntlet_review::rules::{self, Origin, draft, lock};
use std::io::Write;
use std::path::{Path, PathBuf};

fn ruleset(git: &Git, config: Option<&Path>, env: &Env) -> Result<RuleSet> {
    let path = config.map(Path::to_path_buf).unwrap_or_else(|| git.root().join(FILE_NAME));
    RuleSet::load(git, &Trusted::Local, &read_file(&path, config.is_some())?, env)
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
    match set.check()? {
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

/// Dismissed claims listed at most in a drafted section.
const MAX_DRAFT_ITEMS: usize = 20;
/// Characters kept of a claim or a reason in a drafted section.
const MAX_DRAFT_CHARS: usize = 200;
/// The heading `rules draft --from-stats` adds.
pub const FALSE_POSITIVES_HEADING: &str = "## Known false positives on this repository";

/// `rules draft --from-stats`: read the outcomes of the pipeline's findings as
/// `gauntlet stats` does, pick the reviewer with the most dismissed findings (ties:
/// lowest precision, then name) and print a unified diff that adds a section of its
/// dismissed claims and the reasons given to that reviewer's rule file (or, for a
/// built-in or channel reviewer, a repository override of it). Writes nothing.
pub fn draft_from_stats(git: &Git, config: Option<&Path>, last: Option<usize>, env: &Env) -> Result<()> {
    let path = config.map(Path::to_path_buf).unwrap_or_else(|| git.root().join(FILE_NAME));
    let file = read_file(&path, config.is_some())?;
    let set = RuleSet::load(git, &Trusted::Local, &file, env)?;
    let (host, what) = super::stats::connect(env)?;
    let policy = gauntlet_publish::Policy { author_may_dismiss: file.ci.author_may_dismiss.unwrap_or(false) };
    let scope = Scope { last: last.unwrap_or(50), since: None, policy };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let read = runtime.block_on(history::read(host.as_ref(), &scope)).with_context(|| format!("reading {what}"))?;
    let f = figures(&read.records);
    let noisiest = f.per_reviewer.iter().filter(|(_, t)| t.dismissed > 0).min_by(|(a, x), (b, y)| {
        y.dismissed
            .cmp(&x.dismissed)
            .then(x.precision().unwrap_or(0.0).total_cmp(&y.precision().unwrap_or(0.0)))
            .then(a.cmp(b))
    });
    let Some((name, tally)) = noisiest else {
        println!("no finding was dismissed on {what} ({}): nothing to draft", read.covers());
        return Ok(());
    };
    let reviewer = set.all.iter().find(|r| &r.name == name).with_context(|| {
        format!("reviewer `{}` has the most dismissed findings, but no rule file in use defines it", clean(name, 60))
    })?;
    let section = false_positives(name, &read.dismissed);
    let patch = match &reviewer.origin {
        Origin::Repo(rel) => {
            let rel = rel.to_string_lossy().replace('\\', "/");
            let old = std::fs::read_to_string(git.root().join(&rel)).with_context(|| format!("reading {rel}"))?;
            append_patch(&rel, &old, &section)
        }
        Origin::Builtin | Origin::Channel { .. } => {
            let rel = format!("{}/{}.md", rules::REPO_DIR, reviewer.name);
            if git.root().join(&rel).exists() {
                bail!("{rel} exists but does not define reviewer `{}`: add the section by hand", reviewer.name);
            }
            new_file_patch(&rel, &format!("{}{}", with_newline(&reviewer.source), section))
        }
    };
    eprintln!(
        "gauntlet: reviewer `{}` has the most dismissed findings on {what} ({} of {} published; {}); \
         review this patch, then apply it with `git apply` and commit it yourself",
        reviewer.name,
        tally.dismissed,
        tally.published(),
        read.covers()
    );
    print!("{patch}");
    Ok(())
}

/// The section listing `name`'s dismissed claims, deduplicated, with their reasons.
fn false_positives(name: &str, dismissed: &[history::Dismissed]) -> String {
    let mut items: Vec<(String, String, Vec<String>)> = Vec::new();
    for d in dismissed.iter().filter(|d| d.reviewers.iter().any(|r| r == name)) {
        let claim = escape(&d.claim);
        let reason = match &d.reason {
            Some(r) => escape(r),
            None => format!("no reason given ({})", d.form).replace('`', ""),
        };
        let path = escape(&d.path);
        match items.iter_mut().find(|(c, r, _)| *c == claim && *r == reason) {
            Some((_, _, paths)) if !paths.contains(&path) => paths.push(path),
            Some(_) => {}
            None => items.push((claim, reason, vec![path])),
        }
    }
    let more = items.len().saturating_sub(MAX_DRAFT_ITEMS);
    items.truncate(MAX_DRAFT_ITEMS);
    let mut out = format!(
        "\n{FALSE_POSITIVES_HEADING}\n\n\
         <!-- Drafted by `gauntlet rules draft --from-stats` from findings people allowed to dismiss them \
         dismissed. Review every line before committing. -->\n\n\
         Maintainers dismissed these findings as not applying here. Do not raise the same claim again \
         unless the change gives a new reason to:\n\n"
    );
    for (claim, reason, paths) in &items {
        out.push_str(&format!("- {claim} (in {}). Dismissed: {reason}\n", paths.join(", ")));
    }
    if more > 0 {
        out.push_str(&format!("- … and {more} more dismissed claim(s), not listed.\n"));
    }
    out
}

/// Host text made inert in Markdown: one line, at most [`MAX_DRAFT_CHARS`]
/// characters, with Markdown and HTML punctuation backslash-escaped.
fn escape(text: &str) -> String {
    let line = clean(text, MAX_DRAFT_CHARS);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if "\\`*_[]<>#|!{}()~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One line of at most `max` characters: control characters become spaces, runs
/// of spaces one.
fn clean(text: &str, max: usize) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let line = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max { line.chars().take(max).collect::<String>() + "…" } else { line }
}

fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') { text.to_string() } else { format!("{text}\n") }
}

/// A unified diff that adds `added` (whole lines) at the end of file `rel`, whose
/// text is `old`.
fn append_patch(rel: &str, old: &str, added: &str) -> String {
    let lines: Vec<&str> = old.lines().collect();
    let newline_at_end = old.is_empty() || old.ends_with('\n');
    let context = lines.len().min(3);
    let start = lines.len() - context;
    let new_lines: Vec<&str> = added.lines().collect();
    let mut hunk = String::new();
    let (old_count, new_count);
    if newline_at_end {
        for l in &lines[start..] {
            hunk.push_str(&format!(" {l}\n"));
        }
        old_count = context;
        new_count = context + new_lines.len();
    } else {
        // The last line gains its line break: it is removed and added again.
        for l in &lines[start..lines.len() - 1] {
            hunk.push_str(&format!(" {l}\n"));
        }
        let last = lines[lines.len() - 1];
        hunk.push_str(&format!("-{last}\n\\ No newline at end of file\n+{last}\n"));
        old_count = context;
        new_count = context + new_lines.len();
    }
    for l in &new_lines {
        hunk.push_str(&format!("+{l}\n"));
    }
    let old_start = if old_count == 0 { 0 } else { start + 1 };
    let new_start = if new_count == 0 { 0 } else { start + 1 };
    format!(
        "diff --git a/{rel} b/{rel}\n--- a/{rel}\n+++ b/{rel}\n@@ -{old_start},{old_count} +{new_start},{new_count} @@\n{hunk}"
    )
}

/// A unified diff that creates file `rel` holding `text`.
fn new_file_patch(rel: &str, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let body: String = lines.iter().map(|l| format!("+{l}\n")).collect();
    format!(
        "diff --git a/{rel} b/{rel}\nnew file mode 100644\n--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,{} @@\n{body}",
        lines.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_text_is_one_escaped_capped_line() {
        let e = escape("<!-- x -->\n# [link](http://a) `code` *b*");
        assert_eq!(e, "\\<\\!-- x --\\> \\# \\[link\\]\\(http://a\\) \\`code\\` \\*b\\*");
        assert_eq!(escape(&"a".repeat(500)).chars().count(), MAX_DRAFT_CHARS + 1);
    }

    #[test]
    fn an_append_patch_counts_its_lines() {
        let p = append_patch("r.md", "a\nb\nc\nd\n", "\nx\n");
        assert!(p.ends_with("@@ -2,3 +2,5 @@\n b\n c\n d\n+\n+x\n"), "{p}");
        let p = append_patch("r.md", "a\nb", "x\n");
        assert!(p.ends_with("@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+x\n"), "{p}");
    }
}
