//! The console examples of the manual run as tests, so they cannot go stale: every
//! ```` ```console ```` block of the pages below is run with trycmd (`$ ` lines are
//! commands, a `? N` line the exit code, the rest the output, stdout and stderr
//! together) in a small repository built here.
//!
//! After changing what a command prints, update the pages with
//! `TRYCMD=overwrite cargo test -p gauntlet --test docs_examples` and read the diff.
//! Only examples that run offline and print the same on every machine belong here:
//! no model call, no network, no path or commit id of the temporary repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pages (under docs/src) whose console examples run.
const PAGES: [&str; 5] =
    ["exit-codes.md", "configuration.md", "output/formats.md", "rules/reviewers.md", "reference/commands.md"];

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src")
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Example", "-c", "user.email=example@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The repository the examples describe: its last commit makes `app/users.py`
/// build an SQL query from a user's name. Beside it, the configuration files the
/// configuration chapter's examples pass by `--config`.
fn example_repository(dir: &Path) {
    std::fs::create_dir_all(dir.join("app")).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("app/users.py"), "def find(db, name):\n    return db.get(name)\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "Look users up by name"]);
    std::fs::write(
        dir.join("app/users.py"),
        "def find(db, name):\n    return db.execute(\"SELECT * FROM users WHERE name = '\" + name + \"'\")\n",
    )
    .unwrap();
    git(dir, &["commit", "-q", "-a", "-m", "Look users up by SQL"]);
    std::fs::write(dir.join("typo.toml"), "[review]\ntreshold = 50\n").unwrap();
    std::fs::write(dir.join("earned.toml"), "[ci]\nblocking = \"earned\"\nmin_findings = 200\n").unwrap();
}

/// `name` on the PATH, for the examples that show a file with `cat`.
fn on_path(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not on the PATH"))
}

#[test]
fn the_console_examples_of_the_manual_print_what_the_pages_say() {
    let overwrite = std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite");
    let work = tempfile::tempdir().unwrap();
    let cases = PAGES.map(|page| copy_page(work.path(), page));
    {
        let t = trycmd::TestCases::new();
        t.register_bin("gauntlet", PathBuf::from(env!("CARGO_BIN_EXE_gauntlet")))
            .register_bin("cat", on_path("cat"))
            .default_bin_name("gauntlet")
            .timeout(std::time::Duration::from_secs(60));
        // The examples show what a machine without keys or provider settings prints;
        // an empty variable counts as unset.
        for key in
            ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GAUNTLET_PROVIDER", "GAUNTLET_MODEL", "CI"]
        {
            t.env(key, "");
        }
        t.env("NO_COLOR", "1").env("XDG_CACHE_HOME", work.path().join("cache").display().to_string());
        for (copy, page) in &cases {
            // Failures name the copy; say which page it is.
            eprintln!("{} is a copy of {} (same line numbers)", copy.display(), page.display());
            t.case(copy);
        }
        t.run();
    }
    if overwrite {
        for (copy, page) in &cases {
            let (new, old) = (std::fs::read_to_string(copy).unwrap(), std::fs::read_to_string(page).unwrap());
            if new != old {
                let tmp = page.with_extension("md.tmp");
                std::fs::write(&tmp, new).unwrap();
                std::fs::rename(&tmp, page).unwrap();
            }
        }
    }
}

/// A copy of `page` to run, beside its own `NAME.in/` folder (the example
/// repository, which trycmd makes the commands' working directory), so nothing is
/// written into docs/src; with `TRYCMD=overwrite` the updated copies go back.
/// Returns the copy and the page.
fn copy_page(dir: &Path, page: &str) -> (PathBuf, PathBuf) {
    let original = docs().join(page);
    let text = std::fs::read_to_string(&original).unwrap_or_else(|e| panic!("docs/src/{page}: {e}"));
    assert!(text.contains("```console"), "docs/src/{page} has no console example to run");
    let name = page.replace('/', "-");
    let copy = dir.join(&name);
    std::fs::write(&copy, text).unwrap();
    example_repository(&dir.join(name.replace(".md", ".in")));
    (copy, original)
}
