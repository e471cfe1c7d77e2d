//! A person signs the corpus: each case carries a curation `status` in its
//! `case.toml` (`unreviewed` as mined, then `accepted` or `rejected` with a reason,
//! who decided and when). [`walk`] asks a person case by case; [`record`] writes a
//! decision into `case.toml` keeping everything else in it (comments included);
//! [`Selection`] says which cases a backtest scores: only the accepted ones once
//! any case is accepted, every case while none is.

pub mod state;
pub mod walk;

pub use state::{Curation, Selection, Status};

use crate::corpus::Case;
use crate::report::CaseResult;
use std::path::Path;

/// A person's decision on one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub status: Status,
    /// `None` or empty leaves no reason (an old one is removed).
    pub reason: Option<String>,
    pub by: String,
    /// `YYYY-MM-DD`.
    pub at: String,
}

/// Why a decision could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum CurateError {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("{path} is not valid TOML ({message}); fix it by hand, then curate again")]
    Parse { path: String, message: String },
    #[error("cannot write {path}: {message}; the case is unchanged")]
    Write { path: String, message: String },
    #[error("a rejection needs a reason: say what the miner got wrong")]
    NoReason,
}

/// Write `bytes` to `path` all at once: into a temporary file in the same folder,
/// then renamed over `path`, so a reader never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    // A temporary file is private (0600); the corpus is shared like any other
    // file of a repository: keep the mode of the file replaced, else 0644.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o777);
        file.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    std::io::Write::write_all(&mut file, bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Record `decision` in the `case.toml` of the case folder `dir`: `status`,
/// `reason`, `curated_by` and `curated_at` are set (added when missing, before the
/// first table), every other key, table and comment stays as it was.
pub fn record(dir: &Path, decision: &Decision) -> Result<(), CurateError> {
    let reason = decision.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
    if decision.status == Status::Rejected && reason.is_none() {
        return Err(CurateError::NoReason);
    }
    let file = dir.join(crate::corpus::CASE_FILE);
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(&file)
        .map_err(|e| CurateError::Read { path: shown.clone(), message: e.to_string() })?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| CurateError::Parse { path: shown.clone(), message: e.to_string() })?;
    set(&mut doc, "status", Some(decision.status.as_str()));
    set(&mut doc, "reason", reason);
    set(&mut doc, "curated_by", Some(decision.by.as_str()));
    set(&mut doc, "curated_at", Some(decision.at.as_str()));
    write_atomic(&file, doc.to_string().as_bytes())
        .map_err(|e| CurateError::Write { path: shown, message: e.to_string() })
}

/// Set a top-level string, keeping the comment and spacing around an existing
/// key; `None` removes it.
fn set(doc: &mut toml_edit::DocumentMut, key: &str, value: Option<&str>) {
    let Some(value) = value else {
        doc.remove(key);
        return;
    };
    match doc.get_mut(key).and_then(|item| item.as_value_mut()) {
        Some(old) => {
            let decor = old.decor().clone();
            *old = toml_edit::Value::from(value);
            *old.decor_mut() = decor;
        }
        None => {
            doc.insert(key, toml_edit::value(value));
        }
    }
}

impl Selection {
    /// The selection of a whole corpus.
    pub fn of_cases(cases: &[Case]) -> Selection {
        Selection::of(cases.iter().map(|c| &c.curation.status))
    }
}

/// The cases to run, and the results of those the curation leaves out (listed in
/// the report, never run).
pub fn split(cases: Vec<Case>, selection: &Selection) -> (Vec<Case>, Vec<CaseResult>) {
    let (run, out): (Vec<Case>, Vec<Case>) = cases.into_iter().partition(|c| selection.scores(c.curation.status));
    let left_out = out.iter().map(|c| CaseResult { left_out: true, ..CaseResult::new(c) }).collect();
    (run, left_out)
}

/// Today's date, `YYYY-MM-DD` (UTC), from the clock.
pub fn today() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    gauntlet_review::context::history::date(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINED: &str = "# Mined by `gauntlet backtest mine`. Keep this comment.\n\
        description = \"Add paging\"\nrepo = \"../..\"\nbase = \"a\"\nhead = \"b\"\nkind = \"escape\"\n\
        mined_at = \"c\"\nstatus = \"unreviewed\" # what a person said\n\n\
        [[defects]]\npath = \"src/paging.py\" # the file\nlines = [3, 3]\ndescription = \"d\"\n";

    fn case(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("case.toml"), text).unwrap();
        dir
    }

    fn decide(status: Status, reason: Option<&str>) -> Decision {
        Decision { status, reason: reason.map(Into::into), by: "Ada".into(), at: "2026-12-06".into() }
    }

    #[test]
    fn a_decision_is_recorded_and_every_comment_and_other_key_stays() {
        let dir = case(MINED);
        record(dir.path(), &decide(Status::Accepted, Some("the slice is one too long"))).unwrap();
        let text = std::fs::read_to_string(dir.path().join("case.toml")).unwrap();
        assert!(text.starts_with("# Mined by `gauntlet backtest mine`. Keep this comment.\n"), "{text}");
        assert!(text.contains("status = \"accepted\" # what a person said\n"), "{text}");
        assert!(text.contains("path = \"src/paging.py\" # the file"), "{text}");
        let loaded = crate::corpus::load_case(dir.path()).unwrap();
        assert_eq!(
            loaded.curation,
            Curation {
                status: Status::Accepted,
                reason: Some("the slice is one too long".into()),
                curated_by: Some("Ada".into()),
                curated_at: Some("2026-12-06".into()),
            }
        );
        assert_eq!(loaded.defects[0].at.to_string(), "src/paging.py:3");
        // Accepted again without a reason: the old reason does not linger.
        record(dir.path(), &decide(Status::Accepted, Some("  "))).unwrap();
        assert_eq!(crate::corpus::load_case(dir.path()).unwrap().curation.reason, None);
    }

    #[test]
    fn a_case_without_a_status_gets_one_before_its_tables() {
        let old = "repo = \"r\"\nbase = \"a\"\nhead = \"b\"\nkind = \"escape\"\n\
                   [[defects]]\npath = \"a.py\"\nlines = 2\ndescription = \"d\"\n";
        let dir = case(old);
        assert_eq!(crate::corpus::load_case(dir.path()).unwrap().curation.status, Status::Unreviewed);
        record(dir.path(), &decide(Status::Rejected, Some("a refactor, not the bug"))).unwrap();
        let loaded = crate::corpus::load_case(dir.path()).unwrap();
        assert_eq!(loaded.curation.status, Status::Rejected);
        assert_eq!(loaded.curation.reason.as_deref(), Some("a refactor, not the bug"));
        assert_eq!(loaded.defects.len(), 1, "the defect stays a defect");
    }

    #[test]
    fn a_rejection_without_a_reason_changes_nothing() {
        let dir = case(MINED);
        let err = record(dir.path(), &decide(Status::Rejected, Some(" "))).unwrap_err();
        assert!(err.to_string().contains("needs a reason"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("case.toml")).unwrap(), MINED);
    }

    #[test]
    fn only_accepted_cases_are_scored_once_one_is() {
        use Status::*;
        let none = Selection::of(&[Unreviewed, Rejected, Unreviewed]);
        assert!(!none.only_accepted && none.scores(Rejected) && none.scores(Unreviewed));
        assert_eq!(none.left_out(), 0);
        assert!(none.sentence().contains("every case is scored"), "{}", none.sentence());
        let some = Selection::of(&[Unreviewed, Rejected, Accepted, Unreviewed]);
        assert!(some.only_accepted && some.scores(Accepted) && !some.scores(Rejected) && !some.scores(Unreviewed));
        assert_eq!(some.left_out(), 3);
        assert!(some.sentence().contains("left out 1 rejected and 2 unreviewed"), "{}", some.sentence());
    }
}
