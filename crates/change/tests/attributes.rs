//! Which `.gitattributes` decide what git treats as binary: with
//! `Git::attributes_from`, only the given tree's, whatever the checkout holds.

mod common;

use common::Repo;
use gauntlet_change::{Change, Snapshot, Target, acquire};

const BASE: &str = "def can_delete(user, doc):\n    return doc.owner_id == user.id\n";
const HEAD: &str = "def can_delete(user, doc):\n    return True\n";

/// main: `src/auth.py`; feature (checked out): changes it and adds attribute files
/// `attributes` (path, text) that would turn its diff off.
fn hiding(attributes: &[(&str, &str)]) -> (Repo, String) {
    let repo = Repo::new();
    repo.write("src/auth.py", BASE);
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/auth.py", HEAD);
    for (path, text) in attributes {
        repo.write(path, text);
    }
    repo.commit("change");
    (repo, base)
}

fn range(base: &str) -> Target {
    Target::Range { base: base.into(), head: None }
}

fn shown(change: &Change, path: &str) -> bool {
    let file = change.file(path).expect("the file is changed");
    file.unreadable.is_none() && !file.diff.hunks.is_empty()
}

#[test]
fn attribute_files_the_head_adds_at_any_depth_do_not_hide_a_file_when_read_from_the_base() {
    for attributes in [
        &[("src/.gitattributes", "auth.py -diff\n")][..],
        &[(".gitattributes", "*.py binary\n")][..],
        &[(".gitattributes", "src/auth.py -diff\n"), ("src/.gitattributes", "*.py binary\n")][..],
    ] {
        let (repo, base) = hiding(attributes);
        // The premise: git itself, left to the checkout's attributes, calls it binary.
        let plain = acquire(&repo.handle(), &range(&base)).unwrap();
        assert_eq!(plain.file("src/auth.py").unwrap().unreadable.as_deref(), Some("binary"), "{attributes:?}");
        let git = repo.handle().attributes_from(&base).unwrap();
        let change = acquire(&git, &range(&base)).unwrap();
        assert!(shown(&change, "src/auth.py"), "{attributes:?}: {:?}", change.file("src/auth.py"));
        assert_eq!(change.file("src/auth.py").unwrap().head_text.as_deref(), Some(HEAD));
    }
}

#[test]
fn attributes_in_the_working_tree_are_not_read_either() {
    let (repo, base) = hiding(&[]);
    // Not committed: only on disk, where a checkout step could have put it.
    repo.write("src/.gitattributes", "auth.py -diff\n");
    let git = repo.handle().attributes_from(&base).unwrap();
    let change = acquire(&git, &range(&base)).unwrap();
    assert!(shown(&change, "src/auth.py"), "{:?}", change.file("src/auth.py"));
}

#[test]
fn the_base_commits_own_nested_attributes_still_apply() {
    let repo = Repo::new();
    repo.write("assets/logo.svg", "<svg>one</svg>\n");
    repo.write("assets/.gitattributes", "*.svg -diff\n");
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("assets/logo.svg", "<svg>two</svg>\n");
    // The head drops the rule; the base's rule still decides.
    repo.remove("assets/.gitattributes");
    repo.commit("change");
    let git = repo.handle().attributes_from(&base).unwrap();
    let change = acquire(&git, &range(&base)).unwrap();
    assert_eq!(change.file("assets/logo.svg").unwrap().unreadable.as_deref(), Some("binary"));
}

#[test]
fn a_search_at_the_head_finds_text_the_heads_attributes_call_binary() {
    let (repo, base) = hiding(&[(".gitattributes", "*.py binary\n")]);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    let terms = ["can_delete".to_string()];
    let at_head = Snapshot::Commit(head);
    assert!(repo.handle().grep_words(&at_head, &terms, 10).unwrap().is_empty(), "the premise: git skips it");
    let git = repo.handle().attributes_from(&base).unwrap();
    let hits = git.grep_words(&at_head, &terms, 10).unwrap();
    assert_eq!(hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(), ["src/auth.py"]);
}

#[test]
fn an_attribute_source_that_names_no_tree_is_refused() {
    let (repo, _) = hiding(&[]);
    let err = repo.handle().attributes_from("no-such-branch").unwrap_err();
    assert!(err.to_string().contains("attr-source"), "{err}");
}
