//! The sample corpus in `corpus/` is well-formed: enough cases of each kind, every
//! bundle opens, holds exactly what `corpus/src` says (so `build.sh` was re-run after
//! an edit), and every known defect points at real head lines the change touched.

use gauntlet_backtest::checkout::checkout;
use gauntlet_backtest::corpus::{self, Case, Kind};
use gauntlet_change::{Snapshot, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn cases() -> Vec<Case> {
    corpus::load(&corpus_dir()).expect("the sample corpus loads")
}

/// Every file under `dir`, by path relative to it.
fn files_under(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// What the head of a case should hold: its base with its head files laid over.
fn expected_head(name: &str) -> BTreeMap<String, String> {
    let src = corpus_dir().join("src").join(name);
    let base_case = std::fs::read_to_string(src.join("same_base_as")).map(|s| s.trim().to_string());
    let base = corpus_dir().join("src").join(base_case.as_deref().unwrap_or(name)).join("base");
    let mut files = files_under(&base);
    files.extend(files_under(&src.join("head")));
    files
}

#[test]
fn the_sample_corpus_has_six_escapes_in_three_languages_and_six_clean_changes() {
    let cases = cases();
    let escapes: Vec<&Case> = cases.iter().filter(|c| c.kind == Kind::Escape).collect();
    assert!(escapes.len() >= 6, "{} escapes", escapes.len());
    assert!(cases.iter().filter(|c| c.kind == Kind::Clean).count() >= 6);
    let languages: BTreeSet<&str> = escapes
        .iter()
        .flat_map(|c| &c.defects)
        .filter_map(|d| d.at.path.rsplit_once('.').map(|(_, ext)| ext))
        .collect();
    assert!(languages.len() >= 3, "escape languages: {languages:?}");
}

#[test]
fn every_bundle_holds_its_sources_and_every_defect_points_at_changed_head_lines() {
    for case in cases() {
        let repo = checkout(&case.repo, &case.base, &case.head).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let target = Target::Range { base: case.base.clone(), head: Some(case.head.clone()) };
        let change = gauntlet_change::acquire(&repo.git, &target).unwrap();
        let snapshot = Snapshot::Commit(change.head.clone());
        let at_head: BTreeSet<String> = repo.git.list_files(&snapshot).unwrap().into_iter().collect();
        let expected = expected_head(&case.name);
        assert_eq!(
            at_head,
            expected.keys().cloned().collect(),
            "{}: the bundle's files differ from corpus/src; run corpus/build.sh",
            case.name
        );
        for (path, text) in &expected {
            let bytes = repo.git.read(&snapshot, path).unwrap().unwrap();
            assert_eq!(&String::from_utf8(bytes).unwrap(), text, "{}: {path} is stale; run corpus/build.sh", case.name);
        }
        for d in &case.defects {
            let file = change.file(&d.at.path).unwrap_or_else(|| panic!("{}: {} is not changed", case.name, d.at.path));
            let lines = file.head_text.as_deref().unwrap().lines().count() as u32;
            assert!(d.at.end <= lines, "{}: {} is past the end of the file", case.name, d.at);
            assert!(
                (d.at.start..=d.at.end).any(|l| file.diff.in_hunk(l)),
                "{}: {} is outside the change",
                case.name,
                d.at
            );
            for also in &d.also {
                assert!(at_head.contains(&also.path), "{}: also {also} does not exist", case.name);
            }
        }
    }
}

/// The case whose base a case's sources use (its own, or the one `same_base_as` names).
fn base_of(name: &str) -> String {
    let src = corpus_dir().join("src").join(name);
    std::fs::read_to_string(src.join("same_base_as")).map_or_else(|_| name.to_string(), |s| s.trim().to_string())
}

/// Escapes that name decoys are the cross-file cases: the change is shown, the
/// proof lives in a file it did not touch.
#[test]
fn cross_file_escapes_are_proven_by_untouched_files_and_have_clean_mirrors() {
    let cases = cases();
    let cross: Vec<&Case> = cases.iter().filter(|c| c.kind == Kind::Escape && !c.decoys.is_empty()).collect();
    assert!(cross.len() >= 6, "{} cross-file escapes", cross.len());
    for case in &cross {
        let repo = checkout(&case.repo, &case.base, &case.head).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let target = Target::Range { base: case.base.clone(), head: Some(case.head.clone()) };
        let change = gauntlet_change::acquire(&repo.git, &target).unwrap();
        let head = expected_head(&case.name);
        for also in case.defects.iter().flat_map(|d| &d.also) {
            assert!(change.file(&also.path).is_none(), "{}: also {also} is in a changed file", case.name);
            let lines = head[&also.path].lines().count() as u32;
            assert!(also.end <= lines, "{}: also {also} is past the end of the file", case.name);
        }
        let mirror = cases.iter().find(|c| c.kind == Kind::Clean && base_of(&c.name) == base_of(&case.name));
        assert!(mirror.is_some(), "{}: no clean case shares its base", case.name);
    }
}

#[test]
fn decoys_exist_at_head_and_the_change_leaves_them_alone() {
    for case in cases().iter().filter(|c| !c.decoys.is_empty()) {
        let repo = checkout(&case.repo, &case.base, &case.head).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let target = Target::Range { base: case.base.clone(), head: Some(case.head.clone()) };
        let change = gauntlet_change::acquire(&repo.git, &target).unwrap();
        let head = expected_head(&case.name);
        for decoy in &case.decoys {
            assert!(head.contains_key(decoy), "{}: decoy {decoy} is not in the head", case.name);
            assert!(change.file(decoy).is_none(), "{}: decoy {decoy} is changed", case.name);
        }
    }
}

/// Related code is cut to a quarter of the context. At a 32k-token context that
/// is 8k tokens; a repository whose head alone is larger cannot be shown whole,
/// so its related code has to be chosen.
#[test]
fn one_cross_file_case_is_larger_than_a_related_code_budget() {
    const BUDGET_TOKENS: usize = 32_768 / 4;
    let largest = cases()
        .into_iter()
        .filter(|c| c.kind == Kind::Escape && !c.decoys.is_empty())
        .map(|c| (expected_head(&c.name).values().map(|t| t.len() / 4).sum::<usize>(), c.name))
        .max()
        .unwrap();
    assert!(largest.0 > BUDGET_TOKENS, "the largest cross-file case, {}, is about {} tokens", largest.1, largest.0);
}

/// Finders see the commit message as the author's stated intent; a message that
/// named the file proving the defect would hand them the answer.
#[test]
fn cross_file_messages_do_not_point_at_the_proof() {
    for case in cases().iter().filter(|c| c.kind == Kind::Escape && !c.decoys.is_empty()) {
        let message = std::fs::read_to_string(corpus_dir().join("src").join(&case.name).join("message")).unwrap();
        for also in case.defects.iter().flat_map(|d| &d.also) {
            let file = also.path.rsplit('/').next().unwrap();
            assert!(!message.contains(file), "{}: the message names {file}", case.name);
        }
    }
}
