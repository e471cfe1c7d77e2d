//! The repository's web address for the links in HTML reports (`backtest`,
//! `stats`): `--repo-url` when given (checked), else the `origin` remote when it
//! is on github.com, gitlab.com or dev.azure.com, else none (the page has no links).

use anyhow::{Result, anyhow};
use gauntlet_change::git::Git;
use gauntlet_report::weblink::WebRepo;
use std::path::Path;

/// `given` (`--repo-url`), or what `dir`'s repository's `origin` remote names.
pub(crate) fn repo(dir: &Path, given: Option<&str>) -> Result<Option<WebRepo>> {
    if let Some(url) = given {
        return WebRepo::parse(url).map(Some).map_err(|e| anyhow!("--repo-url: {e}"));
    }
    let Ok(git) = Git::discover(dir) else { return Ok(None) };
    let Ok(remote) = git.run(&["remote", "get-url", "origin"]) else { return Ok(None) };
    Ok(WebRepo::from_remote(String::from_utf8_lossy(&remote).trim()))
}
