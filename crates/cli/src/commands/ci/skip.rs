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

/// Why a run reviewed nothing, which decides what it may show.
pub enum Unreviewed {
    /// This head was reviewed already, with the same rules: what stands is the
    /// whole verdict, and a pass is a pass.
    SameHead,
    /// The gate set this push aside, or it holds no file a model can be shown:
    /// its commits were never reviewed, so nothing standing is not a pass (the
    /// reason says why, in gauntlet's words and escaped paths).
    Skipped(String),
}

/// Show `tally` (what stands) where the host shows a verdict, blocking at `min`,
/// and write it as the Code Quality report at `report` when asked.
pub fn show(
    runtime: &tokio::runtime::Runtime,
    poster: &Poster,
    ctx: &CiContext,
    (min, why): (Option<Severity>, &Unreviewed),
    tally: &Tally,
    report: Option<&Path>,
) -> Result<()> {
    let status = status(min, why, &tally.standing, ctx.details_url.clone());
    super::status::report(runtime, poster, &ctx.head, &status);
    if let Some(path) = report {
        super::status::write_atomic(path, codequality_report(&tally.standing).as_bytes())
            .with_context(|| format!("cannot write the Code Quality report {}", path.display()))?;
    }
    Ok(())
}

/// The status of a run that reviewed nothing: failed when a finding that stands
/// reaches `min`; when none does, passed only for a head reviewed before, and
/// advisory (GitHub's `neutral`, Azure's `notApplicable`, headed "not reviewed")
/// for commits no model saw; advisory without `min`.
fn status(
    min: Option<Severity>,
    why: &Unreviewed,
    standing: &[Standing],
    details_url: Option<String>,
) -> Status<'static> {
    let blocking = min.map_or(0, |min| standing.iter().filter(|s| s.severity.weight() >= min.weight()).count());
    let verdict = match (min, why) {
        (None, _) => Verdict::Advisory,
        (Some(_), _) if blocking > 0 => Verdict::Failed,
        (Some(_), Unreviewed::SameHead) => Verdict::Passed,
        (Some(_), Unreviewed::Skipped(_)) => Verdict::Advisory,
    };
    let mut note = format!(
        "Nothing was reviewed in this run: this status is what stands on the pull request now, {} finding(s) of \
         earlier runs, with every dismissal and resolution since then counted.",
        standing.len()
    );
    if let Unreviewed::Skipped(reason) = why {
        // The reason can name the change's files: escaped, as the summary renders Markdown.
        note = format!("This push was not reviewed: {}. {note}", gauntlet_report::markdown::text(reason));
    }
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
        let same = Unreviewed::SameHead;
        assert_eq!(status(Some(Severity::High), &same, &high, None).verdict, Verdict::Failed);
        assert_eq!(status(Some(Severity::High), &same, &low, None).verdict, Verdict::Passed);
        assert_eq!(status(Some(Severity::High), &same, &[], None).verdict, Verdict::Passed);
        assert_eq!(status(None, &same, &high, None).verdict, Verdict::Advisory);
        let failed = status(Some(Severity::High), &same, &high, None);
        assert!(failed.headline().contains("1 of an earlier run that still stands"), "{}", failed.headline());
    }

    #[test]
    fn a_push_nobody_reviewed_fails_on_what_stands_and_otherwise_never_passes() {
        let skipped = Unreviewed::Skipped("the pull request is a draft".into());
        let high = [standing("h1", Severity::High)];
        assert_eq!(status(Some(Severity::High), &skipped, &high, None).verdict, Verdict::Failed);
        let quiet = status(Some(Severity::High), &skipped, &[], None);
        assert_eq!(quiet.verdict, Verdict::Advisory);
        assert!(quiet.headline().starts_with("not reviewed"), "{}", quiet.headline());
        assert!(quiet.lines().iter().any(|l| l.contains("the pull request is a draft")), "{:?}", quiet.lines());
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
