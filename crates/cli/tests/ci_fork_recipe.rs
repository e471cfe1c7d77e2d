//! The two GitHub workflows that review pull requests from forks
//! (ci/github-review.yml, ci/github-fork-review.yml), read as the fork's author
//! would attack them. The author controls the head's files, the branch name and
//! any workflow the pull request adds; the second workflow holds the secrets, so
//! nothing of the pull request may run there, nothing it uploads may be read,
//! and no text it chose may reach a shell as code.

use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

const REVIEW: &str = "ci/github-review.yml";
const FORKS: &str = "ci/github-fork-review.yml";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(name: &str) -> Yaml {
    let text = std::fs::read_to_string(root().join(name)).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

fn steps(doc: &Yaml) -> Vec<Yaml> {
    let jobs = doc["jobs"].as_hash().unwrap();
    jobs.values().flat_map(|j| j["steps"].as_vec().unwrap().clone()).collect()
}

fn keys(y: &Yaml) -> Vec<String> {
    y.as_hash().map_or_else(Vec::new, |h| h.keys().filter_map(|k| k.as_str().map(str::to_string)).collect())
}

/// The workflow's permissions as `scope: level`, sorted.
fn permissions(doc: &Yaml) -> Vec<String> {
    let perms = doc["permissions"].as_hash().unwrap_or_else(|| panic!("permissions are not listed one by one"));
    let mut out: Vec<String> =
        perms.iter().map(|(k, v)| format!("{}: {}", k.as_str().unwrap(), v.as_str().unwrap())).collect();
    out.sort();
    out
}

#[test]
fn neither_workflow_runs_on_pull_request_target_and_the_first_uploads_nothing() {
    for name in [REVIEW, FORKS] {
        let text = std::fs::read_to_string(root().join(name)).unwrap();
        let on = keys(&load(name)["on"]);
        assert!(!on.contains(&"pull_request_target".to_string()), "{name}: {on:?}");
        for step in steps(&load(name)) {
            let uses = step["uses"].as_str().unwrap_or_default();
            assert!(!uses.contains("artifact"), "{name}: no artifact a fork could fill crosses over: {uses}");
            assert!(!uses.starts_with("./"), "{name}: an action from the checkout: {uses}");
        }
        assert!(!text.contains("write-all"), "{name}");
    }
    assert_eq!(keys(&load(REVIEW)["on"]), ["pull_request"]);
}

#[test]
fn the_fork_review_follows_the_first_workflow_with_the_least_it_needs() {
    let (review, forks) = (load(REVIEW), load(FORKS));
    assert_eq!(keys(&forks["on"]), ["workflow_run"]);
    let names: Vec<&str> =
        forks["on"]["workflow_run"]["workflows"].as_vec().unwrap().iter().filter_map(Yaml::as_str).collect();
    assert_eq!(names, [review["name"].as_str().unwrap()], "it follows the first workflow by its name");
    assert_eq!(permissions(&forks), ["checks: write", "contents: read", "pull-requests: write"]);
    for job in forks["jobs"].as_hash().unwrap().values() {
        assert!(job["permissions"].is_badvalue(), "no job widens them");
        let only = job["if"].as_str().unwrap_or_default();
        assert!(only.contains("head_repository.full_name != github.repository"), "only forks: {only}");
    }
}

#[test]
fn the_fork_review_never_checks_out_builds_or_runs_the_pull_requests_code() {
    for step in steps(&load(FORKS)) {
        let uses = step["uses"].as_str().unwrap_or_default();
        if uses.starts_with("actions/checkout") {
            assert!(step["with"]["ref"].is_badvalue(), "the default branch only, never the head: {step:?}");
            assert_eq!(step["with"]["persist-credentials"].as_bool(), Some(false), "no token left in .git/config");
        }
        let Some(run) = step["run"].as_str() else { continue };
        // Text the fork chose (its branch name, say) reaches the script only
        // through `env:`, never spliced into it as an expression.
        assert!(!run.contains("${{"), "an expression inside the script: {run}");
        for word in
            ["checkout", "switch", "worktree", "reset", "cargo", "make", "npm", "pip install", "./", "bash ", "sh "]
        {
            assert!(!run.contains(word), "`{word}` in the script that holds the secrets: {run}");
        }
        for line in run.lines().filter(|l| l.contains("refs/gauntlet/head")) {
            assert!(line.contains("git fetch") || line.contains("git rev-parse"), "the head is data only: {line}");
        }
    }
}

/// A repository `origin` whose pull request 7 (from a fork, branch chosen by
/// its author) adds a build script, and this workflow's checkout of it.
struct Origin {
    dir: tempfile::TempDir,
    head: String,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn origin() -> Origin {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("origin");
    std::fs::create_dir(&o).unwrap();
    git(&o, &["init", "-q", "-b", "main"]);
    git(&o, &["config", "user.email", "t@example.com"]);
    git(&o, &["config", "user.name", "t"]);
    std::fs::write(o.join("a.py"), "x = 1\n").unwrap();
    git(&o, &["add", "-A"]);
    git(&o, &["commit", "-qm", "base"]);
    git(&o, &["checkout", "-qb", "fork-branch"]);
    std::fs::write(o.join("build.sh"), "touch \"$HOME/owned\"\n").unwrap();
    git(&o, &["add", "-A"]);
    git(&o, &["commit", "-qm", "the fork's change"]);
    let head = git(&o, &["rev-parse", "HEAD"]);
    git(&o, &["update-ref", "refs/pull/7/head", &head]);
    git(&o, &["checkout", "-q", "main"]);
    git(&o, &["branch", "-qD", "fork-branch"]);
    let out = Command::new("git").arg("clone").arg("-q").arg(&o).arg(dir.path().join("checkout")).status().unwrap();
    assert!(out.success());
    Origin { dir, head }
}

/// Run the step that finds the pull request, with a `gh` that answers `pulls`
/// (the API's list of open pull requests) and logs its arguments.
fn find_step(o: &Origin, pulls: serde_json::Value, branch: &str) -> (i32, String, String) {
    let doc = load(FORKS);
    let all = steps(&doc);
    let step = all.iter().find(|s| s["run"].as_str().is_some_and(|r| r.contains("gh api"))).unwrap();
    let d = o.dir.path();
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(d.join("pulls.json"), pulls.to_string()).unwrap();
    let gh = "#!/bin/bash\nprintf '%s\\n' \"$@\" >> \"$FAKE_DIR/gh.log\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --jq ] && q=\"$2\"; shift; done\njq \"$q\" \"$FAKE_DIR/pulls.json\"\n";
    std::fs::write(bin.join("gh"), gh).unwrap();
    Command::new("chmod").arg("+x").arg(bin.join("gh")).status().unwrap();
    std::fs::create_dir_all(d.join("temp")).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(step["run"].as_str().unwrap())
        .current_dir(d.join("checkout"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", d)
        .env("FAKE_DIR", d)
        .env("RUNNER_TEMP", d.join("temp"))
        .env("GITHUB_ENV", d.join("github_env"))
        .env("REPOSITORY", "o/r")
        .env("HEAD_SHA", &o.head)
        .env("HEAD_OWNER", "mallory")
        .env("HEAD_BRANCH", branch)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

fn pull(number: u64, head: &str) -> serde_json::Value {
    serde_json::json!({"number": number, "head": {"sha": head, "repo": {"full_name": "mallory/r"}},
        "base": {"ref": "main", "sha": "b", "repo": {"full_name": "o/r"}}})
}

#[test]
fn the_fork_review_fetches_the_head_as_data_and_runs_nothing_the_fork_named() {
    let o = origin();
    let d = o.dir.path();
    let branch = "x$(touch \"$HOME/owned\")`touch \"$HOME/owned\"`";
    let (code, stdout, stderr) = find_step(&o, serde_json::json!([pull(7, &o.head)]), branch);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!d.join("owned").exists(), "the branch name and the head's build script never ran");
    let env = std::fs::read_to_string(d.join("github_env")).unwrap();
    let event_path = env.trim().strip_prefix("GAUNTLET_EVENT_PATH=").unwrap_or_else(|| panic!("{env}"));
    let event: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(event_path).unwrap()).unwrap();
    assert_eq!(event["pull_request"]["number"], 7);
    let checkout = d.join("checkout");
    assert_eq!(git(&checkout, &["rev-parse", "refs/gauntlet/head"]), o.head, "the head's commits are there to read");
    assert_eq!(git(&checkout, &["branch", "--show-current"]), "main", "the checkout stays on the base");
    assert!(!checkout.join("build.sh").exists(), "no file of the head is in the working tree");
    let log = std::fs::read_to_string(d.join("gh.log")).unwrap();
    assert!(log.contains(&format!("head=mallory:{branch}")), "the branch name went to the API as text: {log}");
}

#[test]
fn the_fork_review_reviews_nothing_when_no_open_pull_request_has_that_head() {
    let o = origin();
    let d = o.dir.path();
    // Pushed to since the first workflow ran: the API's head is another commit.
    let (code, stdout, stderr) = find_step(&o, serde_json::json!([pull(7, "0123abcd")]), "fork-branch");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("::notice title=gauntlet::no open pull request"), "{stdout}");
    assert!(!d.join("github_env").exists(), "gauntlet does not run");
    // Two open pull requests from that branch at that head: which one is unknown.
    let (code, stdout, _) = find_step(&o, serde_json::json!([pull(7, &o.head), pull(8, &o.head)]), "fork-branch");
    assert_eq!(code, 0);
    assert!(stdout.contains("no open pull request"), "{stdout}");
    assert!(!d.join("github_env").exists());
}
