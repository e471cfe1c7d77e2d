//! Which commits `backtest mine` samples as clean cases: written by people, changing
//! code in a language the escapes use, and near the escapes in era as well as size;
//! the summary shows both distributions side by side.

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::mine::{self, Bucket, Options};
use gauntlet_change::git::Git;
use history::commit;
use std::collections::BTreeSet;
use std::path::Path;

fn bucket(bucket: &str, escapes: usize, clean: usize) -> Bucket {
    Bucket { bucket: bucket.into(), escapes, clean }
}

/// One escape from day 1 (2021, two changed lines), a bot's commit and a CI-only
/// commit of the same era and size, a person's Python commit of the same era but
/// twice the size (day 5) and one of the same size two years later (day 700).
fn build(d: &Path) -> [String; 3] {
    history::git(d, &["init", "-q", "-b", "main"], 0);
    commit(d, 0, "Start", &[("README.md", Some("# shop\n"))]);
    let rate = "def rate(kind):\n    return 0.3\n";
    let escape = commit(d, 1, "Add rates", &[("src/rate.py", Some(rate))]);
    std::fs::write(d.join("src/pin.py"), "def pin():\n    return 2\n").unwrap();
    history::git(d, &["add", "-A"], 2);
    let bot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>";
    history::git(d, &["commit", "-q", "--author", bot, "-m", "Pin the helper"], 2);
    commit(d, 3, "Run the checks", &[(".github/workflows/ci.yml", Some("on: push\njobs: {}\n"))]);
    let near =
        commit(d, 5, "Add names", &[("src/name.py", Some("def name(x):\n    s = x.name\n    t = s\n    return t\n"))]);
    let late = commit(d, 700, "Add codes", &[("src/code.py", Some("def code(x):\n    return x.code\n"))]);
    commit(d, 900, "Fix the standard rate", &[("src/rate.py", Some(&rate.replace("0.3", "0.25")))]);
    [escape, near, late]
}

#[test]
fn clean_cases_are_people_changing_the_escapes_language_near_their_era() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    let [escape, near, late] = build(d);
    let m = mine::mine(&Git::at(d), &Options::default()).expect("mining works");
    assert_eq!(m.escapes.iter().map(|e| e.head.as_str()).collect::<Vec<_>>(), vec![escape.as_str()]);
    // Size alone would pick the later commit of the escape's size; a year apart
    // weighs as much as a size class apart, and the nearer era wins the tie.
    assert_eq!(m.cleans.iter().map(|c| c.head.as_str()).collect::<Vec<_>>(), vec![near.as_str()]);

    let three = Options { clean_ratio: 3.0, ..Options::default() };
    let m = mine::mine(&Git::at(d), &three).expect("mining works");
    let heads: BTreeSet<&str> = m.cleans.iter().map(|c| c.head.as_str()).collect();
    assert_eq!(heads, BTreeSet::from([near.as_str(), late.as_str()]), "never the bot's nor the CI-only commit");
    assert_eq!((m.summary.clean, m.summary.clean_wanted), (2, 3));
    assert_eq!(m.summary.eras, vec![bucket("2021", 1, 1), bucket("2022", 0, 1)]);
    assert_eq!(m.summary.sizes, vec![bucket("2-3", 1, 1), bucket("4-7", 0, 1)]);
}

#[test]
fn a_commit_that_changes_only_comments_docstrings_or_layout_or_says_it_ran_a_formatter_is_never_clean() {
    let repo = tempfile::tempdir().unwrap();
    let d = repo.path();
    history::git(d, &["init", "-q", "-b", "main"], 0);
    commit(d, 0, "Start", &[("README.md", Some("# shop\n"))]);
    let rate = "def rate(kind):\n    return 0.3\n";
    let escape = commit(d, 1, "Add rates", &[("src/rate.py", Some(rate))]);
    let fee = "def fee(x):\n    \"\"\"The fee.\"\"\"\n    return max(x, 0)  # flat\n";
    let added = commit(d, 2, "Add fees", &[("src/fee.py", Some(fee))]);
    // Same era and size as the escape, but no code token changes.
    let words = fee.replace("The fee.", "The flat fee.").replace("# flat", "# flat, for now");
    commit(d, 3, "Explain fees", &[("src/fee.py", Some(&words))]);
    commit(d, 4, "Wrap fees", &[("src/fee.py", Some(&words.replace("max(x, 0)", "max(\n        x, 0)")))]);
    // Code tokens change, but the subject says a formatter ran.
    commit(d, 5, "Run black", &[("src/fee.py", Some(&words.replace("max(x, 0)", "max(x, 0,)")))]);
    commit(d, 900, "Fix the standard rate", &[("src/rate.py", Some(&rate.replace("0.3", "0.25")))]);

    let three = Options { clean_ratio: 3.0, ..Options::default() };
    let m = mine::mine(&Git::at(d), &three).expect("mining works");
    assert_eq!(m.escapes.iter().map(|e| e.head.as_str()).collect::<Vec<_>>(), vec![escape.as_str()]);
    assert_eq!(m.cleans.iter().map(|c| c.head.as_str()).collect::<Vec<_>>(), vec![added.as_str()]);
    assert_eq!((m.summary.clean, m.summary.clean_wanted), (1, 3));
}
