//! The corpus: one folder per case, each with a `case.toml` naming the repository,
//! the base and head revisions, the label, and for escapes the known defects.
//!
//! ```toml
//! description = "The export job swallows a timeout and restarts from the beginning"
//! repo = "repo.bundle"      # a git bundle in this folder, or a path to a repository
//! base = "main"
//! head = "change"
//! kind = "escape"           # or "clean"
//!
//! [[defects]]
//! path = "sync/export.py"
//! lines = [41, 43]          # head lines; a single line may be written `lines = 41`,
//!                           # lines in several runs `lines = [[41, 43], [60, 61]]`
//! description = "an exception resets the cursor, so the next run resends everything"
//! also = ["sync/state.py:12"]   # other places that count as finding this defect
//!
//! [[also_real]]             # human-confirmed extra bugs: count for precision only
//! location = "sync/export.py:60"
//! description = "..."
//!
//! decoys = ["sync/metrics.py"]  # optional: files that share words, not symbols, with
//!                               # the change; related code gathered for it must skip them
//! ```
//!
//! Top-level keys such as `decoys` must come before the first `[[defects]]` table,
//! as TOML requires.
//!
//! Cases written by `gauntlet backtest mine` carry three more fields, all optional
//! (hand-written corpora stay valid without them): `confidence` (`"A"`, `"B"` or
//! `"C"`, how sure the miner is that head introduced the defects), `mined_at` (the
//! commit id of HEAD when mined) and `[[fix]]` entries (`sha`, `subject`, `body` of
//! the commit that later fixed the defect). All three are for scoring and reports
//! only: nothing in them is ever sent to a model.
//!
//! A person's review of a case is recorded beside them (see [`crate::curate`]):
//! `status` (`"unreviewed"`, `"accepted"` or `"rejected"`; a case without one is
//! unreviewed), `reason`, `curated_by` and `curated_at`.

use crate::curate::state::{Curation, Status};
use crate::mine::{Confidence, FixRef};
use gauntlet_review::contract::Location;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file that makes a folder a case.
pub const CASE_FILE: &str = "case.toml";

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("cannot read the corpus {path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}{line}: {message}; see the corpus format in the manual, docs/src/backtest/backtest.md")]
    Parse { path: String, line: String, message: String },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error(
        "no case in {path}: a case is a folder holding a {CASE_FILE} (see the manual, docs/src/backtest/backtest.md)"
    )]
    Empty { path: String },
}

/// A case's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A change that shipped a defect reviewers should have caught.
    Escape,
    /// A change with no known defect: anything published on it is noise.
    Clean,
}

/// Head lines: `41`, `[41, 43]`, or runs `[[41, 43], [60, 61]]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
enum Lines {
    One(u32),
    Range([u32; 2]),
    Runs(Vec<[u32; 2]>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefectToml {
    path: String,
    lines: Lines,
    description: String,
    #[serde(default)]
    also: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlsoRealToml {
    location: String,
    description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    #[serde(default)]
    description: String,
    repo: String,
    base: String,
    head: String,
    kind: Kind,
    #[serde(default)]
    defects: Vec<DefectToml>,
    #[serde(default)]
    also_real: Vec<AlsoRealToml>,
    #[serde(default)]
    decoys: Vec<String>,
    confidence: Option<String>,
    mined_at: Option<String>,
    #[serde(default)]
    fix: Vec<FixToml>,
    status: Option<String>,
    reason: Option<String>,
    curated_by: Option<String>,
    curated_at: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixToml {
    sha: String,
    subject: String,
    #[serde(default)]
    body: String,
}

/// A defect the case is known to contain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Defect {
    /// Where it is, in head lines.
    pub at: Location,
    /// Other places a finding may point at and still have found it (a client reading
    /// a field the server renamed, say).
    pub also: Vec<Location>,
    pub description: String,
}

/// A real bug found beyond the known defects and confirmed by a person: a finding
/// there is a true positive, but recall is not measured against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AlsoReal {
    pub at: Location,
    pub description: String,
}

/// One case of the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The folder's name.
    pub name: String,
    pub dir: PathBuf,
    pub description: String,
    /// The repository: a bundle file or a repository folder (absolute).
    pub repo: PathBuf,
    pub base: String,
    pub head: String,
    pub kind: Kind,
    pub defects: Vec<Defect>,
    pub also_real: Vec<AlsoReal>,
    /// Head files that mention the change's words (a local variable, a comment, a
    /// same-named member of another type) without using what it changes: code
    /// gathered as related to the change should leave them out. Empty unless the
    /// case names some.
    pub decoys: Vec<String>,
    /// Mined cases: how sure the miner is that head introduced the defects.
    pub confidence: Option<Confidence>,
    /// Mined cases: the commit id of HEAD when mined.
    pub mined_at: Option<String>,
    /// Mined cases: the commits that later fixed the defects. Scoring-only: never
    /// part of what a model is shown.
    pub fix: Vec<FixRef>,
    /// What a person said of the case (unreviewed when nobody has).
    pub curation: Curation,
}

/// Every case under `root`, sorted by name. A folder without a `case.toml` is not a
/// case (so sources can live beside the cases); a `case.toml` that does not parse or
/// says something impossible is an error naming the file.
pub fn load(root: &Path) -> Result<Vec<Case>, CorpusError> {
    let read_err = |e: std::io::Error| CorpusError::Read { path: root.display().to_string(), message: e.to_string() };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(read_err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join(CASE_FILE).is_file())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Err(CorpusError::Empty { path: root.display().to_string() });
    }
    dirs.iter().map(|d| load_case(d)).collect()
}

/// Read one case folder.
pub fn load_case(dir: &Path) -> Result<Case, CorpusError> {
    let file = dir.join(CASE_FILE);
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(&file)
        .map_err(|e| CorpusError::Read { path: shown.clone(), message: e.to_string() })?;
    let raw: CaseToml = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| format!(" (line {})", text[..s.start].lines().count().max(1)));
        CorpusError::Parse { path: shown.clone(), line: line.unwrap_or_default(), message: e.message().to_string() }
    })?;
    let invalid = |message: String| CorpusError::Invalid { path: shown.clone(), message };
    let defects = raw.defects.iter().map(defect).collect::<Result<Vec<_>, String>>().map_err(invalid)?;
    let also_real = raw
        .also_real
        .iter()
        .map(|a| Ok(AlsoReal { at: location(&a.location, "also_real")?, description: a.description.clone() }))
        .collect::<Result<Vec<_>, String>>()
        .map_err(invalid)?;
    match (raw.kind, defects.is_empty()) {
        (Kind::Escape, true) => {
            return Err(invalid("an escape needs at least one [[defects]] entry (path, lines, description)".into()));
        }
        (Kind::Clean, false) => {
            return Err(invalid("a clean case has no [[defects]]; label it kind = \"escape\" instead".into()));
        }
        _ => {}
    }
    let confidence = match raw.confidence.as_deref() {
        None => None,
        Some(text) => Some(
            Confidence::parse(text)
                .ok_or_else(|| invalid(format!("confidence `{text}`: use \"A\", \"B\" or \"C\"")))?,
        ),
    };
    for (field, value) in [("repo", &raw.repo), ("base", &raw.base), ("head", &raw.head)] {
        if value.trim().is_empty() {
            return Err(invalid(format!("`{field}` is empty")));
        }
    }
    check_decoys(&raw.decoys, &defects).map_err(invalid)?;
    let status = match raw.status.as_deref() {
        None => Status::Unreviewed,
        Some(text) => Status::parse(text)
            .ok_or_else(|| invalid(format!("status `{text}`: use \"unreviewed\", \"accepted\" or \"rejected\"")))?,
    };
    let curation = Curation { status, reason: raw.reason, curated_by: raw.curated_by, curated_at: raw.curated_at };
    Ok(Case {
        name: dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        dir: dir.to_path_buf(),
        description: raw.description,
        repo: dir.join(&raw.repo),
        base: raw.base,
        head: raw.head,
        kind: raw.kind,
        defects,
        also_real,
        decoys: raw.decoys,
        confidence,
        mined_at: raw.mined_at,
        fix: raw.fix.into_iter().map(|f| FixRef { sha: f.sha, subject: f.subject, body: f.body }).collect(),
        curation,
    })
}

/// A decoy is a plain file path, and never a place that proves a defect.
fn check_decoys(decoys: &[String], defects: &[Defect]) -> Result<(), String> {
    for decoy in decoys {
        if decoy.trim().is_empty() || Location::parse(decoy).is_some() {
            return Err(format!("decoys: `{decoy}` should be a file path with no line number"));
        }
        let proves = defects.iter().flat_map(|d| std::iter::once(&d.at).chain(&d.also)).any(|l| &l.path == decoy);
        if proves {
            return Err(format!(
                "decoys: `{decoy}` is also a defect's path or `also` location; a decoy must not prove a defect"
            ));
        }
    }
    Ok(())
}

/// A defect's lines as its contiguous runs: a finding matches one run, never the
/// gap between two.
fn defect(d: &DefectToml) -> Result<Defect, String> {
    let runs: Vec<(u32, u32)> = match &d.lines {
        Lines::One(n) => vec![(*n, *n)],
        Lines::Range([a, b]) => vec![(*a, *b)],
        Lines::Runs(runs) => runs.iter().map(|[a, b]| (*a, *b)).collect(),
    };
    if runs.is_empty() {
        return Err(format!("defect in {}: `lines = []` names no line", d.path));
    }
    if let Some((start, end)) = runs.iter().find(|(s, e)| *s == 0 || e < s) {
        return Err(format!("defect in {}: lines must be 1-based with start <= end, not {start}-{end}", d.path));
    }
    if d.path.trim().is_empty() || d.description.trim().is_empty() {
        return Err("a defect needs a path and a one-line description".into());
    }
    let at = |(start, end): (u32, u32)| Location { path: d.path.clone(), start, end };
    let mut also: Vec<Location> = runs[1..].iter().copied().map(at).collect();
    also.extend(d.also.iter().map(|a| location(a, "also")).collect::<Result<Vec<_>, _>>()?);
    Ok(Defect { at: at(runs[0]), also, description: d.description.clone() })
}

fn location(text: &str, field: &str) -> Result<Location, String> {
    Location::parse(text).ok_or_else(|| format!("{field}: `{text}` is not path:LINE or path:START-END"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case_with(toml: &str) -> Result<Case, CorpusError> {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("a-case");
        std::fs::create_dir(&case).unwrap();
        std::fs::write(case.join(CASE_FILE), toml).unwrap();
        load_case(&case)
    }

    const HEAD: &str = "repo = \"repo.bundle\"\nbase = \"main\"\nhead = \"change\"\n";

    #[test]
    fn an_escape_reads_its_defects_in_head_lines() {
        let toml = format!(
            "{HEAD}kind = \"escape\"\n[[defects]]\npath = \"a.py\"\nlines = [3, 5]\ndescription = \"d\"\n\
             also = [\"b.js:7\"]\n[[defects]]\npath = \"c.go\"\nlines = 9\ndescription = \"e\"\n\
             [[also_real]]\nlocation = \"a.py:20-21\"\ndescription = \"f\"\n"
        );
        let case = case_with(&toml).unwrap();
        assert_eq!(case.name, "a-case");
        assert_eq!(case.defects[0].at.to_string(), "a.py:3-5");
        assert_eq!(case.defects[0].also[0].to_string(), "b.js:7");
        assert_eq!(case.defects[1].at.to_string(), "c.go:9");
        assert_eq!(case.also_real[0].at.to_string(), "a.py:20-21");
        assert!(case.repo.ends_with("a-case/repo.bundle"));
    }

    #[test]
    fn a_defect_in_several_runs_is_matched_run_by_run() {
        let toml = format!(
            "{HEAD}kind = \"escape\"\n[[defects]]\npath = \"a.py\"\nlines = [[3, 5], [40, 41]]\ndescription = \"d\"\n"
        );
        let d = &case_with(&toml).unwrap().defects[0];
        assert_eq!(d.at.to_string(), "a.py:3-5");
        assert_eq!(d.also.iter().map(ToString::to_string).collect::<Vec<_>>(), vec!["a.py:40-41"]);
        let s = crate::score::score_case(std::slice::from_ref(d), &[], &[reported("a.py:20")], 3);
        assert_eq!(s.caught, 0, "the gap between two runs is not the defect");
        let s = crate::score::score_case(std::slice::from_ref(d), &[], &[reported("a.py:42")], 3);
        assert_eq!(s.caught, 1);
        let empty = format!("{HEAD}kind = \"escape\"\n[[defects]]\npath = \"a.py\"\nlines = []\ndescription = \"d\"\n");
        assert!(case_with(&empty).unwrap_err().to_string().contains("names no line"));
    }

    fn reported(location: &str) -> crate::score::Reported {
        crate::score::Reported { location: location.into(), ..Default::default() }
    }

    #[test]
    fn a_malformed_case_file_names_the_file_and_line() {
        let err = case_with(&format!("{HEAD}kind = \"escaped\"\n")).unwrap_err().to_string();
        assert!(err.contains("case.toml (line 4)") && err.contains("escaped"), "{err}");
        let err = case_with(&format!("{HEAD}kind = \"clean\"\nlabel = \"x\"\n")).unwrap_err().to_string();
        assert!(err.contains("label"), "unknown keys are refused: {err}");
    }

    #[test]
    fn labels_must_agree_with_the_defects() {
        let err = case_with(&format!("{HEAD}kind = \"escape\"\n")).unwrap_err().to_string();
        assert!(err.contains("at least one [[defects]]"), "{err}");
        let toml = format!("{HEAD}kind = \"clean\"\n[[defects]]\npath = \"a\"\nlines = 1\ndescription = \"d\"\n");
        assert!(case_with(&toml).unwrap_err().to_string().contains("clean case has no [[defects]]"));
    }

    #[test]
    fn impossible_ranges_and_locations_are_refused() {
        let bad_range =
            format!("{HEAD}kind = \"escape\"\n[[defects]]\npath = \"a\"\nlines = [5, 2]\ndescription = \"d\"\n");
        assert!(case_with(&bad_range).unwrap_err().to_string().contains("start <= end"));
        let bad_also = format!(
            "{HEAD}kind = \"escape\"\n[[defects]]\npath = \"a\"\nlines = 2\ndescription = \"d\"\nalso = [\"b.js\"]\n"
        );
        assert!(case_with(&bad_also).unwrap_err().to_string().contains("`b.js` is not path:LINE"));
    }

    #[test]
    fn decoys_are_optional_and_kept_when_named() {
        let plain = case_with(&format!("{HEAD}kind = \"clean\"\n")).unwrap();
        assert!(plain.decoys.is_empty(), "a case without decoys still loads");
        let toml = format!(
            "{HEAD}kind = \"escape\"\ndecoys = [\"ops/health.py\", \"web/copy.js\"]\n\
             [[defects]]\npath = \"a.py\"\nlines = 3\ndescription = \"d\"\nalso = [\"b.py:7\"]\n"
        );
        assert_eq!(case_with(&toml).unwrap().decoys, ["ops/health.py", "web/copy.js"]);
    }

    #[test]
    fn a_decoy_that_proves_a_defect_or_names_a_line_is_refused() {
        let with = |decoys: &str| {
            format!(
                "{HEAD}kind = \"escape\"\ndecoys = [{decoys}]\n\
                 [[defects]]\npath = \"a.py\"\nlines = 3\ndescription = \"d\"\nalso = [\"b.py:7\"]\n"
            )
        };
        let err = case_with(&with("\"b.py\"")).unwrap_err().to_string();
        assert!(err.contains("`b.py` is also a defect's path"), "{err}");
        let err = case_with(&with("\"a.py\"")).unwrap_err().to_string();
        assert!(err.contains("`a.py` is also a defect's path"), "{err}");
        let err = case_with(&with("\"c.py:4\"")).unwrap_err().to_string();
        assert!(err.contains("`c.py:4` should be a file path with no line number"), "{err}");
    }

    #[test]
    fn mined_fields_are_read_and_checked() {
        let toml = format!(
            "{HEAD}kind = \"escape\"\nconfidence = \"B\"\nmined_at = \"abc\"\n[[defects]]\npath = \"a\"\nlines = 2\n\
             description = \"d\"\n[[fix]]\nsha = \"f00\"\nsubject = \"Fix a\"\nbody = \"why\"\n"
        );
        let case = case_with(&toml).unwrap();
        assert_eq!((case.confidence, case.mined_at.as_deref()), (Some(Confidence::B), Some("abc")));
        assert_eq!(case.fix, vec![FixRef { sha: "f00".into(), subject: "Fix a".into(), body: "why".into() }]);
        let bad = toml.replace("\"B\"", "\"D\"");
        assert!(case_with(&bad).unwrap_err().to_string().contains("confidence `D`"));
        let old = case_with(&format!("{HEAD}kind = \"clean\"\n")).unwrap();
        assert_eq!((old.confidence, old.mined_at, old.fix.len()), (None, None, 0), "old corpora stay valid");
        assert_eq!(old.curation, Curation::default(), "a case without a status is unreviewed");
    }

    #[test]
    fn a_curation_is_read_and_an_unknown_status_is_refused() {
        let toml = format!(
            "{HEAD}kind = \"clean\"\nstatus = \"rejected\"\nreason = \"a CI change\"\ncurated_by = \"Ada\"\n\
             curated_at = \"2026-12-06\"\n"
        );
        let c = case_with(&toml).unwrap().curation;
        assert_eq!((c.status, c.reason.as_deref()), (Status::Rejected, Some("a CI change")));
        assert_eq!((c.curated_by.as_deref(), c.curated_at.as_deref()), (Some("Ada"), Some("2026-12-06")));
        let err = case_with(&format!("{HEAD}kind = \"clean\"\nstatus = \"signed\"\n")).unwrap_err().to_string();
        assert!(err.contains("status `signed`: use"), "{err}");
    }

    #[test]
    fn a_folder_without_cases_is_an_error_saying_what_a_case_is() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no case in") && err.contains(CASE_FILE), "{err}");
    }
}
