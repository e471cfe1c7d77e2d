//! Rules governance end to end: `gauntlet rules lock|verify|draft`, an external
//! rules channel fetched from a local git repository, the rules version in reports,
//! and `review --locked`.

mod support;

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use support::{Fake, Wire, bin, gauntlet_env, git, repo};

/// Run the binary in `dir` with `XDG_CACHE_HOME` at `cache`; (exit code, stdout, stderr).
fn run(dir: &Path, cache: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).current_dir(dir).args(args).env("XDG_CACHE_HOME", cache).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

const MIGRATIONS: &str = "+++\nname = \"migrations\"\ndescription = \"Migrations that lock tables\"\n\
applies_to = [\"db/**\"]\n+++\nLook for migrations that lock large tables.\n";

#[test]
fn lock_then_verify_passes_and_an_edited_rule_is_named_as_drift() {
    let dir =
        repo(&[("src/a.py", "a = 1\n"), (".gauntlet/reviewers/migrations.md", MIGRATIONS)], &[("src/a.py", "a = 2\n")]);
    let cache = tempfile::tempdir().unwrap();
    let (code, _, err) = run(dir.path(), cache.path(), &["rules", "verify"]);
    assert_eq!(code, 2, "no lock yet is an error to fix");
    assert!(err.contains("run `gauntlet rules lock` and commit it"), "{err}");

    let (code, out, err) = run(dir.path(), cache.path(), &["rules", "lock"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote gauntlet.lock: 10 rules"), "{out}");
    let lock = std::fs::read_to_string(dir.path().join("gauntlet.lock")).unwrap();
    assert!(lock.contains("source = \".gauntlet/reviewers/migrations.md\""), "{lock}");
    let rule = dir.path().join(".gauntlet/reviewers/migrations.md");
    assert_eq!(std::fs::read_to_string(&rule).unwrap(), MIGRATIONS, "locking never edits a rule file");

    let (code, out, _) = run(dir.path(), cache.path(), &["rules", "verify"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("gauntlet.lock verified: 10 rules (lock:"), "{out}");

    std::fs::write(&rule, MIGRATIONS.replace("large tables", "any table")).unwrap();
    let (code, out, _) = run(dir.path(), cache.path(), &["rules", "verify"]);
    assert_eq!(code, 1, "drift fails verification: {out}");
    assert!(
        out.contains(".gauntlet/reviewers/migrations.md (reviewer migrations): content differs from the lock"),
        "{out}"
    );
}

/// A rules channel: a git repository with `rules/api-style.md`, tagged `v1`, and
/// `v2` where that rule says more.
fn channel() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "t"]);
    let rule = "+++\nname = \"api-style\"\ndescription = \"House API conventions\"\n+++\nEvery handler returns problem+json on errors.\n";
    std::fs::create_dir_all(d.join("rules")).unwrap();
    std::fs::write(d.join("rules/api-style.md"), rule).unwrap();
    std::fs::write(d.join("README.md"), "Our shared review rules.\n").unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "v1"]);
    git(d, &["tag", "v1"]);
    std::fs::write(d.join("rules/api-style.md"), format!("{rule}Handlers log the request id.\n")).unwrap();
    git(d, &["commit", "-q", "-am", "v2"]);
    git(d, &["tag", "v2"]);
    dir
}

fn use_channel(dir: &Path, channel: &Path, tag: &str) {
    let url = format!("file://{}", channel.display());
    std::fs::write(dir.join("gauntlet.toml"), format!("[rules]\ngit = \"{url}\"\ntag = \"{tag}\"\n")).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_is_fetched_read_only_pinned_by_the_lock_and_named_in_the_rules_version() {
    let ch = channel();
    let dir = repo(&[("src/a.py", "a = 1\n")], &[("src/a.py", "a = 2\n")]);
    let cache = tempfile::tempdir().unwrap();
    use_channel(dir.path(), ch.path(), "v1");
    let (code, out, err) = run(dir.path(), cache.path(), &["rules", "lock"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("channel v1 at "), "{out}");
    let lock = std::fs::read_to_string(dir.path().join("gauntlet.lock")).unwrap();
    assert!(lock.contains("tag = \"v1\"") && lock.contains("source = \"channel:rules/api-style.md\""), "{lock}");

    let cached: Vec<_> = walk(&cache.path().join("gauntlet/rules"), "api-style.md");
    assert_eq!(cached.len(), 1, "fetched once into the cache");
    assert!(std::fs::metadata(&cached[0]).unwrap().permissions().readonly(), "channel rules are read-only");

    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let envs = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let args = ["review", "--format", "json", "--locked"];
    let (code, out, err) = gauntlet_env(dir.path(), Wire::Anthropic, &server, &args, &envs).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let version = report["rules_version"].as_str().unwrap();
    assert!(version.starts_with("v1+lock:"), "channel tag + lock hash: {version}");
    assert!(report["reviewers"].as_array().unwrap().iter().any(|r| r == "api-style"), "the channel's rule ran");
    let find = fake.seen().into_iter().find(|s| s.reviewer.as_deref() == Some("api-style")).unwrap();
    assert!(find.body.to_string().contains("problem+json"));

    // Moving the channel to v2 without re-locking is drift, named file by file.
    use_channel(dir.path(), ch.path(), "v2");
    let (code, out, _) = run(dir.path(), cache.path(), &["rules", "verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("rules channel: locked file://") && out.contains(" at v1 ("), "{out}");
    assert!(out.contains("channel:rules/api-style.md (reviewer api-style): content differs"), "{out}");
    let (code, _, err) = gauntlet_env(dir.path(), Wire::Anthropic, &server, &args, &envs).await;
    assert_eq!(code, 2, "--locked refuses drifted rules");
    assert!(err.contains("differ from gauntlet.lock") && err.contains("api-style"), "{err}");
}

fn walk(dir: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != ".git") {
            found.extend(walk(&p, name));
        } else if p.file_name().is_some_and(|n| n == name) {
            found.push(p);
        }
    }
    found
}

#[test]
fn rules_draft_turns_a_fix_commit_into_a_rule_and_refuses_to_write_into_a_rules_tree() {
    let dir = repo(
        &[("src/auth.py", "def can_delete(user, doc):\n    return True\n"), (".gauntlet/reviewers/.keep", "")],
        &[("src/auth.py", "def can_delete(user, doc):\n    return doc.owner_id == user.id\n")],
    );
    git(dir.path(), &["commit", "-q", "--amend", "-m", "Fix permission check: only owners may delete a document"]);
    let cache = tempfile::tempdir().unwrap();
    let (code, out, err) = run(dir.path(), cache.path(), &["rules", "draft", "--escape", "HEAD"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("+++\nname = \"escape-"), "{out}");
    assert!(out.contains("Bad (before the fix):") && out.contains("    return True"), "{out}");
    assert!(out.contains("return doc.owner_id == user.id"), "{out}");
    assert!(out.contains("closest built-in reviewer: security-privacy"), "{out}");

    let inside = dir.path().join(".gauntlet/reviewers/escape.md");
    let (code, _, err) =
        run(dir.path(), cache.path(), &["rules", "draft", "--escape", "HEAD", "--out", inside.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("inside the rules tree"), "{err}");
    assert!(!inside.exists(), "nothing is written into a rules tree");

    let (code, _, err) =
        run(dir.path(), cache.path(), &["rules", "draft", "--escape", "HEAD", "--out", "escape-draft.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(dir.path().join("escape-draft.md")).unwrap().starts_with("+++\n"));
    assert!(err.contains("commit it as .gauntlet/reviewers/escape-"), "{err}");
}
