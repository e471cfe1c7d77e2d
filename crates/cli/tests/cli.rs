//! The command line's contract with the user: errors name the fix, skips say why.

mod support;

use std::process::Command;
use support::{bin, git, repo};

fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .current_dir(dir)
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("GAUNTLET_PROVIDER")
        .output()
        .unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn outside_a_repository_is_an_error_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(dir.path(), &["review"]);
    assert_eq!(code, 2);
    assert!(err.contains("not inside a git repository") && err.contains("-C DIR"), "{err}");
}

#[test]
fn unknown_revision_is_an_error_naming_it() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    let (code, _, err) = run(dir.path(), &["review", "--base", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-branch") && err.contains("git fetch"), "{err}");
}

#[test]
fn empty_change_says_so_and_exits_0() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    git(dir.path(), &["checkout", "-q", "main"]);
    let (code, out, err) = run(dir.path(), &["review", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(report["skipped"]["reason"].as_str().unwrap().contains("empty"), "{out}");
}

// With the embedded model built in (the default), nothing configured means the
// local model; only a build without it has no provider to fall back on.
#[cfg(not(feature = "local"))]
#[test]
fn no_provider_is_an_error_that_says_how_to_configure_one() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    let (code, _, err) = run(dir.path(), &["review"]);
    assert_eq!(code, 2);
    assert!(err.contains("ANTHROPIC_API_KEY") && err.contains("gauntlet init"), "{err}");
}

#[test]
fn a_missing_local_model_names_the_fix() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    let missing = dir.path().join("missing.gguf");
    let (code, _, err) = run(dir.path(), &["review", "--model-path", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing.gguf") && err.contains("gauntlet model pull"), "{err}");
}

#[test]
fn unknown_config_key_names_the_key_and_the_file() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    std::fs::write(dir.path().join("gauntlet.toml"), "[review]\nthreshhold = 50\n").unwrap();
    let (code, _, err) = run(dir.path(), &["review"]);
    assert_eq!(code, 2);
    assert!(err.contains("threshhold") && err.contains("gauntlet.toml"), "{err}");
}

#[test]
fn init_writes_a_starter_config_that_parses_and_refuses_to_overwrite() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    let (code, _, err) = run(dir.path(), &["init"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.path().join("gauntlet.toml")).unwrap();
    assert!(text.contains("[models]"));
    // Uncommenting every example key must still give a valid file.
    let uncommented: String = text
        .lines()
        .map(|l| if l.starts_with("# ") && (l.contains(" = ") || l.starts_with("# [")) { &l[2..] } else { l })
        // A rules channel would be fetched over the network; rules_e2e covers it.
        .filter(|l| !l.starts_with("git = ") && !l.starts_with("tag = "))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.path().join("full.toml"), uncommented).unwrap();
    let (code, out, err) = run(dir.path(), &["--config", "full.toml", "reviewers"]);
    assert_eq!(code, 0, "uncommented starter must parse: {err}");
    assert!(out.contains("off: disabled"), "{out}");
    let (code, _, err) = run(dir.path(), &["init"]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn reviewers_lists_what_would_run_and_why() {
    let dir = repo(&[("src/a.rs", "a\n")], &[("src/a.rs", "b\n")]);
    let (code, out, err) = run(dir.path(), &["reviewers"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("correctness") && out.contains("runs: src/a.rs matches"), "{out}");
    let tests = out.lines().find(|l| l.starts_with("tests ")).unwrap_or_else(|| panic!("no tests reviewer in:\n{out}"));
    assert!(tests.contains("off: the change touches nothing it looks for"), "{tests}");
    let broad = out.lines().find(|l| l.contains("broad")).unwrap_or_else(|| panic!("no broad reviewer in:\n{out}"));
    assert!(broad.contains("runs"), "the broad reviewer runs on every change by default: {broad}");
}

#[test]
fn ci_help_lists_only_the_flags_ci_takes() {
    let dir = repo(&[("a.txt", "a\n")], &[("a.txt", "b\n")]);
    let (code, out, err) = run(dir.path(), &["ci", "--help"]);
    assert_eq!(code, 0, "{err}");
    for flag in ["--fail-on", "--max-comments", "--full", "--suggest", "--provider", "--threshold"] {
        assert!(out.contains(flag), "ci takes {flag}, so its help shows it:\n{out}");
    }
    for flag in ["--base", "--head", "--staged", "--worktree", "--patch", "--pr <"] {
        assert!(!out.contains(flag), "ci rejects {flag}, so its help must not offer it:\n{out}");
    }
    let (code, review, err) = run(dir.path(), &["review", "--help"]);
    assert_eq!(code, 0, "{err}");
    assert!(review.contains("--staged") && review.contains("--pr <URL>"), "review still offers them:\n{review}");
}
