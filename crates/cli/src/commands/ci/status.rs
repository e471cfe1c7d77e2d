//! The run's verdict where each host shows one: a GitHub check run with an
//! annotation per finding, an Azure DevOps pull request status, and, for
//! GitLab, the Code Quality report the job publishes as an artifact
//! (`--codequality PATH`). Findings a person dismissed count toward none of them.

use super::Poster;
use super::scope::Scope;
use crate::interrupt;
use anyhow::{Context, Result};
use gauntlet_publish::{Status, Verdict};
use gauntlet_review::Review;
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

/// The published findings nobody dismissed, in rank order.
pub fn counted<'r>(review: &'r Review, dismissed: &BTreeSet<String>) -> Vec<&'r Published> {
    review.published.iter().filter(|p| !dismissed.contains(&p.id)).collect()
}

/// How this run blocks: the severity that fails it (`None`: advisory), which
/// findings may fail it (`may_block`: under earned blocking, those a reviewer
/// that met the bar raised), and what keeps it from passing: candidates that
/// could not be validated, reviewer sessions that did not finish (see
/// [`super::incomplete`]).
pub struct Blocks<'a, 'r> {
    pub min: Option<Severity>,
    pub may_block: &'a dyn Fn(&Published) -> bool,
    pub incomplete: &'a super::Incomplete<'r>,
}

/// What the run decided: advisory unless blocking applies, then failed when a
/// finding nobody dismissed that may block reaches the severity, incomplete when
/// none does but a candidate at or above it could not be validated either way or
/// a reviewer session did not finish, and passed otherwise.
pub fn verdict(findings: &[&Published], block: &Blocks<'_, '_>) -> Verdict {
    match block.min {
        None => Verdict::Advisory,
        Some(min) if findings.iter().any(|p| p.severity.weight() >= min.weight() && (block.may_block)(p)) => {
            Verdict::Failed
        }
        Some(_) if !block.incomplete.is_empty() => Verdict::Incomplete,
        Some(_) => Verdict::Passed,
    }
}

/// The status of this run, for the hosts that show one. `standing` are findings of
/// earlier runs this run did not review again that still stand: they fail the
/// run here exactly as they fail the exit code.
pub fn build<'r>(
    review: &'r Review,
    dismissed: &BTreeSet<String>,
    block: &Blocks<'_, 'r>,
    standing: &[gauntlet_publish::Standing],
    scope: &Scope,
    details_url: Option<String>,
) -> Status<'r> {
    let findings = counted(review, dismissed);
    let mut notes = Vec::new();
    let at_least = |min: Severity, s: Severity| s.weight() >= min.weight();
    let earlier = block.min.map_or(0, |min| standing.iter().filter(|s| at_least(min, s.severity)).count());
    let held_back = block
        .min
        .map_or(0, |min| findings.iter().filter(|p| at_least(min, p.severity) && !(block.may_block)(p)).count());
    if earlier > 0 {
        notes.push(format!(
            "{earlier} finding(s) of earlier runs at or above `{}` still stand on the pull request and fail this run.",
            block.min.map(Severity::as_str).unwrap_or_default()
        ));
    }
    if let Scope::Since { last } = scope {
        notes.push(format!(
            "Incremental review: only what changed since {} was reviewed; findings on other files stay in their \
             comments and are not repeated here.",
            super::short(last)
        ));
    }
    Status {
        verdict: match verdict(&findings, block) {
            Verdict::Passed | Verdict::Incomplete if earlier > 0 => Verdict::Failed,
            v => v,
        },
        fail_on: block.min,
        dismissed: review.published.len() - findings.len(),
        held_back,
        standing: earlier,
        findings,
        undecided: review.undecided(),
        incomplete: block.incomplete.undecided.len(),
        unfinished: block.incomplete.failed.clone(),
        notes,
        details_url,
    }
}

/// Show `status` on the host, when the pull request could be reached. Never
/// fails the run: a token that may not (GitHub without `checks: write`) gets one
/// note in the log, and the review, its comments and the exit code stand.
pub fn report(runtime: &tokio::runtime::Runtime, poster: &Poster, head: &str, status: &Status<'_>) {
    let Ok((host, _)) = poster else { return };
    let guard = interrupt::posting();
    let outcome = runtime.block_on(host.report_status(head, status));
    drop(guard);
    let why = match outcome {
        Ok(Some(line)) => {
            crate::progress::say!("gauntlet: {line}");
            return;
        }
        Ok(None) => return,
        Err(e) => e,
    };
    let refused = why.is_denied() || matches!(why, gauntlet_publish::PublishError::Http { status: 404, .. });
    let hint = match (refused, host.name()) {
        (true, "GitHub") => {
            "; the `gauntlet` check run needs the optional workflow permission `checks: write` (a pull request \
             from a fork never gets it)"
        }
        (true, _) => "; the pipeline's identity needs \"Contribute to pull requests\" to post a pull request status",
        (false, _) => "",
    };
    eprintln!(
        "gauntlet: note: no status was shown on the pull request: {why}{hint}. The review and its comments are \
         posted as usual, and the exit code does not depend on it."
    );
}

/// Write the GitLab Code Quality report of `status` (its findings, then an
/// `info` entry per candidate that could not be validated) to `path`, whole or
/// not at all: into a temporary file beside it, then renamed over it.
pub fn write_codequality(path: &Path, status: &Status<'_>) -> Result<()> {
    let text = gauntlet_report::codequality::report(status.findings.iter().copied(), &status.undecided);
    write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write the Code Quality report {}", path.display()))
}

/// Write `bytes` to `path` through a file beside it renamed into place, so a
/// reader never sees half of it.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new().prefix(".gauntlet-").tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Status<'static> {
        Status {
            verdict: Verdict::Advisory,
            fail_on: None,
            findings: Vec::new(),
            dismissed: 0,
            held_back: 0,
            standing: 0,
            undecided: Vec::new(),
            incomplete: 0,
            unfinished: Vec::new(),
            notes: Vec::new(),
            details_url: None,
        }
    }

    #[test]
    fn a_failed_write_leaves_no_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the report should go: the rename fails after the write.
        let target = dir.path().join("report.json");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "x").unwrap();
        assert!(write_codequality(&target, &empty()).is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("report.json")], "no temporary file is left behind");
    }

    #[test]
    fn a_report_replaces_the_old_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("gl-code-quality-report.json");
        std::fs::write(&target, "x".repeat(10_000)).unwrap();
        write_codequality(&target, &empty()).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "[]\n");
    }
}
