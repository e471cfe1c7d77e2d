//! `gauntlet backtest curate [CORPUS]`: a person signs the corpus, case by case,
//! in the terminal or from answers piped in (see [`gauntlet_backtest::curate`]).

use crate::args::CurateArgs;
use anyhow::{Result, bail};
use gauntlet_backtest::curate::walk::{Filter, Options, walk};
use gauntlet_backtest::curate::{Status, today};
use gauntlet_change::git::Git;
use std::io::IsTerminal;
use std::path::Path;

/// Lines of one diff shown on a terminal; the rest is in the file the screen names.
const SCREEN_LINES: usize = 60;

/// Who signs: git's `user.name` where gauntlet runs, else `$USER`.
fn curator(dir: &Path) -> Result<String> {
    let from_git = Git::at(dir).run(&["config", "--get", "user.name"]).ok();
    let name = from_git.map(|b| String::from_utf8_lossy(&b).trim().to_string()).filter(|n| !n.is_empty());
    match name.or_else(|| std::env::var("USER").ok().filter(|u| !u.trim().is_empty())) {
        Some(name) => Ok(name),
        None => bail!(
            "who is curating? set your name with `git config --global user.name \"Your Name\"` (or the USER \
             variable): every decision records who made it"
        ),
    }
}

fn filter(args: &CurateArgs) -> Result<Filter> {
    if let Some(name) = &args.case {
        return Ok(Filter::Case(name.clone()));
    }
    Ok(Filter::Status(match args.status.as_str() {
        "all" => vec![Status::Unreviewed, Status::Rejected, Status::Accepted],
        other => match Status::parse(other) {
            Some(status) => vec![status],
            None => bail!("--status {other}: use unreviewed, rejected, accepted or all"),
        },
    }))
}

pub fn run(dir: &Path, args: &CurateArgs) -> Result<()> {
    let filter = filter(args)?;
    let corpus = dir.join(&args.corpus);
    let by = curator(dir)?;
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let tty = stdin.is_terminal() && stdout.is_terminal();
    let options = Options { filter, by, today: today(), tty, max_lines: if tty { SCREEN_LINES } else { 0 } };
    let tally = walk(&corpus, &options, &mut stdin.lock(), &mut stdout.lock())?;
    let decided = tally.accepted + tally.rejected + tally.skipped;
    if decided > 0 || tally.quit {
        let s = &tally.corpus;
        println!(
            "This session: {} accepted, {} rejected, {} skipped. The corpus: {} accepted, {} rejected, {} unreviewed.",
            tally.accepted, tally.rejected, tally.skipped, s.accepted, s.rejected, s.unreviewed
        );
        if s.accepted > 0 {
            println!(
                "`gauntlet backtest {}` now scores only the {} accepted case(s).",
                args.corpus.display(),
                s.accepted
            );
        }
    }
    Ok(())
}
