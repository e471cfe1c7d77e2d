//! Writing a mined corpus: one folder per case, each `case.toml` pointing at the
//! repository in place (a relative path, never a copy), and `mine.json` with the
//! summary. Beside each `case.toml` go the diffs a person reads to sign the case
//! ([`super::diffs`]); every case starts `unreviewed`, and a person's decision on
//! a case mined again with the same head and defects is kept. Everything written
//! depends only on the history (and those decisions), so mining the same HEAD
//! with the same options writes the same bytes.

use super::{Clean, Escape, FixRef, MineError, Mined, diffs};
use crate::corpus::{CASE_FILE, Case, Kind};
use crate::curate::{Curation, Status, write_atomic};
use gauntlet_change::git::Git;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The summary file written beside the cases.
pub const SUMMARY_FILE: &str = "mine.json";

#[derive(Serialize)]
struct DefectOut<'a> {
    path: &'a str,
    lines: [u32; 2],
    description: String,
}

#[derive(Serialize)]
struct CaseOut<'a> {
    description: String,
    repo: &'a str,
    base: &'a str,
    head: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<String>,
    mined_at: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    curated_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    curated_at: Option<String>,
    defects: Vec<DefectOut<'a>>,
    fix: &'a [FixRef],
}

/// The folder name of an escape case.
pub fn escape_name(e: &Escape) -> String {
    format!("escape-{}", &e.head[..e.head.len().min(12)])
}

/// The folder name of a clean case.
pub fn clean_name(c: &Clean) -> String {
    format!("clean-{}", &c.head[..c.head.len().min(12)])
}

/// `to` relative to the folder `from` (both absolute and canonical).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> MineError + '_ {
    move |e| MineError::Io(format!("{}: {e}", path.display()))
}

/// Make `out` ready: created if missing; cases a previous `mine` wrote there are
/// removed (the ones a person decided on are returned, by folder name); a
/// hand-written case there stops the run.
fn prepare(out: &Path) -> Result<BTreeMap<String, Case>, MineError> {
    std::fs::create_dir_all(out).map_err(io(out))?;
    let mut decided = BTreeMap::new();
    for entry in std::fs::read_dir(out).map_err(io(out))? {
        let dir = entry.map_err(io(out))?.path();
        let file = dir.join(CASE_FILE);
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let mined = text.lines().any(|l| l.starts_with("mined_at = "));
        if !mined {
            return Err(MineError::Io(format!(
                "{} holds a case that `mine` did not write ({}): pass another --out, so hand-written cases are never \
                 replaced",
                out.display(),
                file.display()
            )));
        }
        if let Ok(case) = crate::corpus::load_case(&dir)
            && case.curation.status != Status::Unreviewed
        {
            decided.insert(case.name.clone(), case);
        }
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    Ok(decided)
}

/// A person's decision on the case mined before under the same folder name, when
/// it still claims the same: the same kind, base, head and defect lines.
fn kept(decided: &BTreeMap<String, Case>, name: &str, case: &CaseOut<'_>) -> Curation {
    let Some(old) = decided.get(name) else { return Curation::default() };
    let kind = if case.kind == "escape" { Kind::Escape } else { Kind::Clean };
    let old_lines: Vec<(&str, u32, u32)> = old
        .defects
        .iter()
        .flat_map(|d| std::iter::once(&d.at).chain(&d.also))
        .map(|l| (l.path.as_str(), l.start, l.end))
        .collect();
    let new_lines: Vec<(&str, u32, u32)> = case.defects.iter().map(|d| (d.path, d.lines[0], d.lines[1])).collect();
    let same = old.kind == kind && old.base == case.base && old.head == case.head && old_lines == new_lines;
    if same { old.curation.clone() } else { Curation::default() }
}

/// Write the corpus into `out`, each case naming `repo_root` relative to itself.
pub fn write(mined: &Mined, repo_root: &Path, out: &Path) -> Result<Vec<PathBuf>, MineError> {
    let decided = prepare(out)?;
    let root = repo_root.canonicalize().map_err(io(repo_root))?;
    let git = Git::at(&root);
    let out_abs = out.canonicalize().map_err(io(out))?;
    let repo = relative(&out_abs.join("case"), &root).to_string_lossy().replace('\\', "/");
    let mined_at = mined.summary.mined_at.as_str();
    let mut written = Vec::new();
    for e in &mined.escapes {
        let defects = e
            .defects
            .iter()
            .map(|(path, a, b)| DefectOut {
                path,
                lines: [*a, *b],
                description: format!("changed by the later fix {} ({})", &e.fixes[0].sha[..12], e.fixes[0].subject),
            })
            .collect();
        let case = CaseOut {
            description: e.subject.clone(),
            repo: &repo,
            base: &e.base,
            head: &e.head,
            kind: "escape",
            confidence: Some(format!("{:?}", e.confidence)),
            mined_at,
            status: "",
            reason: None,
            curated_by: None,
            curated_at: None,
            defects,
            fix: &e.fixes,
        };
        let files = [(diffs::FIX_FILE, diffs::fix(&git, &e.fixes)), (diffs::INTRO_FILE, diffs::intro(&git, e))];
        written.push(write_case(out, &escape_name(e), case, &decided, &files)?);
    }
    for c in &mined.cleans {
        let case = CaseOut {
            description: c.subject.clone(),
            repo: &repo,
            base: &c.base,
            head: &c.head,
            kind: "clean",
            confidence: None,
            mined_at,
            status: "",
            reason: None,
            curated_by: None,
            curated_at: None,
            defects: Vec::new(),
            fix: &[],
        };
        let files = [(diffs::CHANGE_FILE, diffs::change(&git, c))];
        written.push(write_case(out, &clean_name(c), case, &decided, &files)?);
    }
    let summary = serde_json::to_string_pretty(&mined.summary).map_err(|e| MineError::Io(e.to_string()))? + "\n";
    let file = out.join(SUMMARY_FILE);
    write_atomic(&file, summary.as_bytes()).map_err(io(&file))?;
    Ok(written)
}

/// Write one case folder: its diffs, then `case.toml` (each file whole or not at
/// all), keeping a person's decision on the same case mined before.
fn write_case(
    out: &Path,
    name: &str,
    mut case: CaseOut<'_>,
    decided: &BTreeMap<String, Case>,
    files: &[(&str, String)],
) -> Result<PathBuf, MineError> {
    let dir = out.join(name);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    for (file, text) in files {
        let path = dir.join(file);
        write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
    }
    let curation = kept(decided, name, &case);
    case.status = curation.status.as_str();
    (case.reason, case.curated_by, case.curated_at) = (curation.reason, curation.curated_by, curation.curated_at);
    let text = toml::to_string(&case).map_err(|e| MineError::Io(format!("{name}: {e}")))?;
    let header = "# Mined by `gauntlet backtest mine`. [[fix]] is for scoring only: no model ever sees it.\n\
                  # Read the diffs beside this file and sign the case with `gauntlet backtest curate`.\n";
    let file = dir.join(CASE_FILE);
    write_atomic(&file, format!("{header}{text}").as_bytes()).map_err(io(&file))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(relative(Path::new("/r/corpus/case"), Path::new("/r")), PathBuf::from("../.."));
        assert_eq!(relative(Path::new("/tmp/out/case"), Path::new("/r/x")), PathBuf::from("../../../r/x"));
        assert_eq!(relative(Path::new("/r"), Path::new("/r")), PathBuf::from("."));
    }
}
