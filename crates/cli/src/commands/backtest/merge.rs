//! `gauntlet backtest merge A.json B.json ...`: the shards of one backtest run,
//! added up into the report a single run over the whole corpus would print.

use super::Outcome;
use crate::args::MergeArgs;
use anyhow::{Context, Result};

pub fn run(dir: &std::path::Path, args: &MergeArgs) -> Result<Outcome> {
    super::check_format(&args.format)?;
    let web = crate::commands::web::repo(dir, args.repo_url.as_deref())?;
    let mut reports = Vec::new();
    for path in &args.reports {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading the shard report {}", path.display()))?;
        reports.push((path.display().to_string(), text));
    }
    let report = gauntlet_backtest::shard::merge(&reports)?;
    super::print(&report, &args.format, web.as_ref())?;
    Ok(if report.failed == 0 { Outcome::AllRan } else { Outcome::SomeFailed(report.failed) })
}
