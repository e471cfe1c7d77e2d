//! A repository with a real history for `backtest mine`, built commit by commit
//! with fixed dates: features that introduce bugs, unrelated commits, the fixes
//! (a `Fixes:` trailer, one found by blame alone, a revert that says why, a fix of
//! tests only, one that only adds a guard), a formatting sweep blame must look
//! through, and old commits that make clean cases. Shared with the CLI's tests.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const DAY: i64 = 24 * 3600;
/// 2021-01-01T00:00:00Z: day 0 of the history.
const START: i64 = 1_609_459_200;

/// The fixture's commit ids, by name.
pub struct History {
    pub ids: BTreeMap<&'static str, String>,
}

impl History {
    pub fn id(&self, name: &str) -> &str {
        &self.ids[name]
    }
}

pub fn git(dir: &Path, args: &[&str], day: i64) -> String {
    let date = format!("@{} +0000", START + day * DAY);
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub fn commit(dir: &Path, day: i64, message: &str, files: &[(&str, Option<&str>)]) -> String {
    for (path, text) in files {
        let p = dir.join(path);
        match text {
            Some(text) => {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, text).unwrap();
            }
            None => std::fs::remove_file(&p).unwrap(),
        }
    }
    git(dir, &["add", "-A"], day);
    git(dir, &["commit", "-q", "-m", message], day);
    git(dir, &["rev-parse", "HEAD"], day)
}

pub const AUTH_V1: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return doc.owner_id == user.id
";
const RENAME: &str = "

def rename(doc, title):
    doc.title = title.strip()
    return doc
";
const RENAME_GUARDED: &str = "

def rename(doc, title):
    if title is None:
        return doc
    doc.title = title.strip()
    return doc
";
const PAGING_V1: &str = "def page(items, n, size):
    start = n*size
    return items[start:start+size]
";
const CACHE: &str = "CACHE = {}
def cached(key, load):
    if key not in CACHE:
        CACHE[key] = load(key)
    return CACHE[key]
";
const TEST_V1: &str = "def test_rename():\n    assert rename(Doc(), ' a ').title == 'a'\n";
const TEST_V2: &str = "def test_rename():\n    assert rename(Doc(), ' a ').title.strip() == 'a'\n";

/// One commit of the fixture: its name, day, message and files (`None` deletes).
type Step<'a> = (&'static str, i64, String, Vec<(&'a str, Option<&'a str>)>);

fn export_job() -> String {
    (1..=40).map(|i| format!("STEP_{i} = {i}\n")).collect()
}

/// Build the history in `dir` (an empty folder). HEAD ends on day 240.
pub fn build(dir: &Path) -> History {
    git(dir, &["init", "-q", "-b", "main"], 0);
    let mut ids = BTreeMap::new();
    let auth_v1_rename = format!("{AUTH_V1}{RENAME}");
    let auth_bug = AUTH_V1.replace("return doc.owner_id == user.id", "return True");
    let paging_default = PAGING_V1.replace("size):", "size=20):");
    let paging_bug = paging_default.replace("start+size]", "start+size+1]");
    let paging_swept =
        paging_bug.replace("n*size", "n * size").replace("[start:start+size+1]", "[start : start + size + 1]");
    let paging_fixed = paging_swept.replace("start + size + 1]", "start + size]");
    let users = "def users(db):\n    rows = db.query('users')\n    out = []\n    for r in rows:\n        out.append(r)\n    return out\n";
    let users_counted = users.replace("    return out\n", "    count = len(out)\n    return out[:count]\n");
    let export = export_job();
    let auth_simplified = format!("{auth_bug}{RENAME}");
    let steps: Vec<Step> = vec![
        (
            "root",
            0,
            "Start the documents service".into(),
            vec![
                ("src/auth.py", Some(AUTH_V1)),
                ("src/paging.py", Some(PAGING_V1)),
                ("README.md", Some("# docs\n")),
                ("tests/test_auth.py", Some(TEST_V1)),
            ],
        ),
        ("page-default", 1, "Give the page size a default".into(), vec![("src/paging.py", Some(&paging_default))]),
        ("users", 2, "List users".into(), vec![("src/users.py", Some(users))]),
        ("export", 3, "Add the export job".into(), vec![("src/export.py", Some(&export))]),
        ("rename", 5, "Let documents be renamed".into(), vec![("src/auth.py", Some(&auth_v1_rename))]),
        ("count", 6, "Count the listed users".into(), vec![("src/users.py", Some(&users_counted))]),
        ("simplify", 10, "Simplify the delete check".into(), vec![("src/auth.py", Some(&auth_simplified))]),
        ("readme", 11, "Describe paging in the README".into(), vec![("README.md", Some("# docs\n\nPages of 20.\n"))]),
        ("paging", 20, "Page through results".into(), vec![("src/paging.py", Some(&paging_bug))]),
        ("cache", 40, "Add a result cache".into(), vec![("src/cache.py", Some(CACHE))]),
        ("sweep", 150, "Reformat the paging module".into(), vec![("src/paging.py", Some(&paging_swept))]),
    ];
    for (name, day, message, files) in &steps {
        ids.insert(*name, commit(dir, *day, message, files));
    }
    let ignore = format!("# formatting sweeps\n{}\n0000000000000000000000000000000000000001\n", ids["sweep"]);
    ids.insert(
        "ignore-revs",
        commit(dir, 151, "Ignore the reformat in blame", &[(".git-blame-ignore-revs", Some(&ignore))]),
    );
    let trailer = format!(
        "Keep the owner check when deleting\n\nOnly the owner or an admin may delete a document.\n\nFixes: {} (\"Simplify the delete check\")\n",
        &ids["simplify"][..12]
    );
    let auth_fixed = format!("{AUTH_V1}{RENAME}");
    ids.insert("fix-trailer", commit(dir, 200, &trailer, &[("src/auth.py", Some(&auth_fixed))]));
    ids.insert(
        "fix-blame",
        commit(dir, 210, "Fix the last page having one item too many", &[("src/paging.py", Some(&paging_fixed))]),
    );
    let revert = format!(
        "Revert \"Add a result cache\"\n\nThis reverts commit {}.\n\nThe cache serves stale entries after a write.\n",
        ids["cache"]
    );
    ids.insert("revert", commit(dir, 220, &revert, &[("src/cache.py", None)]));
    ids.insert("fix-tests", commit(dir, 230, "Fix the flaky rename test", &[("tests/test_auth.py", Some(TEST_V2))]));
    let guarded = format!("{AUTH_V1}{RENAME_GUARDED}");
    ids.insert(
        "fix-guard",
        commit(dir, 240, "Fix a crash when the title is missing", &[("src/auth.py", Some(&guarded))]),
    );
    History { ids }
}

/// Every file under `dir`, by path relative to it, with its bytes.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
