//! What a run that reviews nothing still shows: its head was reviewed already,
//! or the gate found nothing to review. The check run, the Azure DevOps status
//! and the Code Quality report follow what stands on the pull request now, so a
//! dismissal or a resolution since the last review turns a required check green
//! on a re-run, without a push, and a finding still standing keeps it red.

use super::Poster;
use super::publish::Tally;
use crate::ci_env::CiContext;
use anyhow::{Context, Result};
use gauntlet_publish::{Standing, Status, Verdict};
use gauntlet_report::{codequality, plain};
use gauntlet_review::contract::Severity;
use serde_json::{Value, json};
use std::path::Path;

/// Show `tally` (what stands) where the host shows a verdict, blocking at `min`,
/// and write it as the Code Quality report at `report` when asked.
pub fn show(
    runtime: &tokio::runtime::Runtime,
    poster: &Poster,
    ctx: &CiContext,
    min: Option<Severity>,
    tally: &Tally,
    report: Option<&Path>,
) -> Result<()> {
    let status = status(min, &tally.standing, ctx.details_url.clone());
    super::status::report(runtime, poster, &ctx.head, &status);
    if let Some(path) = report {
        super::status::write_atomic(path, codequality_report(&tally.standing).as_bytes())
            .with_context(|| format!("cannot write the Code Quality report {}", path.display()))?;
    }
    Ok(())
}

/// The status of a run that reviewed nothing: failed when a finding that stands
/// reaches `min`, passed when none does, advisory without `min`.
fn status(min: Option<Severity>, standing: &[Standing], details_url: Option<String>) -> Status<'static> {
    let blocking = min.map_or(0, |min| standing.iter().filter(|s| s.severity.weight() >= min.weight()).count());
    let verdict = match min {
        None => Verdict::Advisory,
        Some(_) if blocking > 0 => Verdict::Failed,
        Some(_) => Verdict::Passed,
    };
    let note = format!(
        "Nothing was reviewed in this run: this status is what stands on the pull request now, {} finding(s) of \
         earlier runs, with every dismissal and resolution since then counted.",
        standing.len()
    );
    Status {
        verdict,
        fail_on: min,
        findings: Vec::new(),
        dismissed: 0,
        held_back: 0,
        standing: blocking,
        // A run whose last review left a candidate undecided is never skipped
        // (see `scope::decide`), so a skip has nothing undecided to report.
        undecided: Vec::new(),
        incomplete: 0,
        unfinished: Vec::new(),
        notes: vec![note],
        details_url,
    }
}

/// The Code Quality report of what stands: one entry per finding, under its
/// thread's file, or under `(overview)` for a finding only the overview shows
/// (its marker keeps no path, only a tag of it). The line is not known to a run
/// that reviewed nothing: the entry sits on line 1 and says so.
fn codequality_report(standing: &[Standing]) -> String {
    let entries: Vec<Value> = standing
        .iter()
        .map(|s| {
            let path = s.thread_path.as_deref().unwrap_or("(overview)");
            let id = plain::line(&s.id, 100);
            json!({
                "description": format!("gauntlet finding {id} still stands on the pull request (see its comment there; this run reviewed nothing again)"),
                "check_name": "gauntlet/standing",
                "fingerprint": id,
                "severity": codequality::severity(s.severity),
                "location": { "path": plain::line(path, 1_000), "lines": { "begin": 1, "end": 1 } },
            })
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&entries).expect("a JSON value always serialises");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(id: &str, severity: Severity) -> Standing {
        Standing { id: id.into(), severity, thread_path: Some("src/a.rs".into()) }
    }

    #[test]
    fn what_stands_decides_the_verdict_of_a_run_that_reviewed_nothing() {
        let high = [standing("h1", Severity::High)];
        let low = [standing("l1", Severity::Low)];
        assert_eq!(status(Some(Severity::High), &high, None).verdict, Verdict::Failed);
        assert_eq!(status(Some(Severity::High), &low, None).verdict, Verdict::Passed);
        assert_eq!(status(Some(Severity::High), &[], None).verdict, Verdict::Passed);
        assert_eq!(status(None, &high, None).verdict, Verdict::Advisory);
        let failed = status(Some(Severity::High), &high, None);
        assert!(failed.headline().contains("1 of an earlier run that still stands"), "{}", failed.headline());
    }

    #[test]
    fn the_code_quality_report_lists_what_stands() {
        let report: Value = serde_json::from_str(&codequality_report(&[standing("h1", Severity::High)])).unwrap();
        assert_eq!(report[0]["fingerprint"], "h1");
        assert_eq!(report[0]["severity"], "critical");
        assert_eq!(report[0]["location"]["path"], "src/a.rs");
        assert_eq!(codequality_report(&[]), "[]\n");
    }
}
