//! `gauntlet completions` and `gauntlet man`: shell completions and man pages,
//! generated from the same clap definitions that parse the command line, so
//! neither can drift from the flags.

use crate::args::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;

/// Print `shell`'s completion script for gauntlet.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "gauntlet", &mut script);
    print(&script)
}

/// Write to stdout; a reader that stopped early (`| head`) is not an error.
fn print(bytes: &[u8]) -> Result<()> {
    match std::io::stdout().write_all(bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Without `dir`, gauntlet(1) on stdout; with it, gauntlet.1 and one page per
/// command (gauntlet-review.1, gauntlet-rules-lock.1, …) in `dir`.
pub fn man(dir: Option<&Path>) -> Result<()> {
    let cmd = Cli::command();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        return print(&page);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir).with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
    crate::progress::say!("gauntlet: wrote the man pages into {}", dir.display());
    Ok(())
}
