//! `gauntlet backtest mine`: write a corpus mined from the history of the
//! repository gauntlet runs in, and say what was kept and what was skipped.

use crate::args::MineArgs;
use crate::settings::{FILE_NAME, gate_config, read_file};
use anyhow::{Result, bail};
use gauntlet_backtest::mine::detect::{DEFAULT_SUBJECT_PATTERNS, DEFAULT_TRAILER_PATTERNS, Patterns};
use gauntlet_backtest::mine::history::Window;
use gauntlet_backtest::mine::{self, Confidence, Options, Summary};
use gauntlet_change::git::Git;
use std::path::Path;

fn options(root: &Path, config: Option<&Path>, args: &MineArgs) -> Result<Options> {
    let path = config.map(Path::to_path_buf).unwrap_or_else(|| root.join(FILE_NAME));
    let file = read_file(&path, config.is_some())?;
    let m = &file.backtest.mine;
    let own = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let subject = m.subject_patterns.clone().unwrap_or_else(|| own(&DEFAULT_SUBJECT_PATTERNS));
    let trailer = m.trailer_patterns.clone().unwrap_or_else(|| own(&DEFAULT_TRAILER_PATTERNS));
    let mut patterns = Patterns::new(&subject, &trailer).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if let Some(exclude) = &m.exclude_subjects {
        patterns = patterns.excluding(exclude).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    let mut keep = Vec::new();
    for c in &args.confidence {
        match Confidence::parse(c) {
            Some(c) => keep.push(c),
            None => bail!("--confidence {c}: use A, B or C (comma-separated, e.g. A,B,C)"),
        }
    }
    let clean_ratio = args.clean_ratio.or(m.clean_ratio).unwrap_or(1.0);
    if !clean_ratio.is_finite() || clean_ratio < 0.0 {
        bail!("--clean-ratio {clean_ratio}: use a number of clean cases per escape, 0 or more (e.g. 1.0)");
    }
    let window = match (&args.since, args.last) {
        (Some(date), _) => Window::Since(date.clone()),
        (None, Some(n)) => Window::Last(n),
        (None, None) => Window::All,
    };
    Ok(Options {
        window,
        max_changed_lines: args.max_changed_lines.or(m.max_changed_lines).unwrap_or(mine::DEFAULT_MAX_CHANGED_LINES),
        clean_ratio,
        clean_window_days: args.clean_window.or(m.clean_window_days).unwrap_or(mine::DEFAULT_CLEAN_WINDOW_DAYS),
        seed: args.seed,
        keep,
        patterns,
        gate: gate_config(&file),
    })
}

/// The summary for a person.
fn terminal(summary: &Summary, out: &Path) -> String {
    let kept = |c: &str| summary.kept.get(c).copied().unwrap_or(0);
    let mut text = format!(
        "Mined {} at {}: {} commit(s) read, {} fix(es) seen.\n\
         Escape cases kept: {} (A {}, B {}, C {}); clean cases: {} of {} wanted.\n",
        out.display(),
        &summary.mined_at[..summary.mined_at.len().min(12)],
        summary.commits,
        summary.fixes_seen,
        summary.kept.values().sum::<usize>(),
        kept("A"),
        kept("B"),
        kept("C"),
        summary.clean,
        summary.clean_wanted
    );
    for (title, rows) in [("year", &summary.eras), ("changed lines", &summary.sizes)] {
        if rows.is_empty() {
            continue;
        }
        text.push_str(&format!("  {:<16}{:>8}{:>7}\n", format!("by {title}"), "escapes", "clean"));
        for b in rows.iter() {
            text.push_str(&format!("  {:<16}{:>8}{:>7}\n", b.bucket, b.escapes, b.clean));
        }
    }
    if !summary.skipped.is_empty() {
        text.push_str("Skipped:\n");
        for (why, n) in &summary.skipped {
            text.push_str(&format!("  {n:>4}  {why}\n"));
        }
    }
    for e in &summary.errors {
        text.push_str(&format!("git error: {e}\n"));
    }
    text
}

pub fn run(dir: &Path, config: Option<&Path>, args: &MineArgs) -> Result<()> {
    if !matches!(args.format.as_str(), "terminal" | "json") {
        bail!("--format {}: use terminal or json", args.format);
    }
    let git = Git::discover(dir)?;
    let root = git.root().to_path_buf();
    let options = options(&root, config, args)?;
    let mined = mine::mine(&git, &options)?;
    let out = dir.join(&args.out);
    mine::write::write(&mined, &root, &out)?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&mined.summary)?),
        _ => print!("{}", terminal(&mined.summary, &args.out)),
    }
    if mined.escapes.is_empty() {
        eprintln!(
            "gauntlet: no escape case was mined: widen the history (--since, --last), add fix patterns in \
             [backtest.mine], or keep confidence C (--confidence A,B,C)"
        );
    }
    Ok(())
}
