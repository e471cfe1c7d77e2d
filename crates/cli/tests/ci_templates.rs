//! The shipped CI templates, read as a pull request's author would attack them:
//! the author controls every file of the checkout, so nothing the pipeline runs
//! may live there (a committed `.gauntlet/bin/gauntlet` would run with the job's
//! tokens), no `cargo` may run there (the change's `.cargo/config.toml` or
//! `rust-toolchain.toml` would choose what builds gauntlet), and nothing cached
//! for later jobs may come from there. GitLab keeps caches only inside the
//! checkout: there the job must refuse to run when the change tracks a file
//! where the cache goes, and run nothing from that folder.
//!
//! The shell is read the simple way templates write it: commands split at
//! newlines, `;`, `&&`, `||` and `|`; `cd` and variable assignments followed in
//! order. A path the test cannot place (an unknown variable) fails the test, so
//! a new template teaches it where its folders are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Checkout,
    Outside,
}

/// Where a CI system's variables point. Checked in order, checkout first.
struct Host {
    checkout: &'static [&'static str],
    outside: &'static [&'static str],
}

const GITHUB: Host = Host {
    checkout: &["$GITHUB_WORKSPACE", "${{ github.workspace }}"],
    outside: &["$RUNNER_TEMP", "${{ runner.temp }}", "~/", "$HOME", "$GITHUB_ACTION_PATH"],
};
const GITLAB: Host = Host { checkout: &["$CI_PROJECT_DIR"], outside: &["$CI_BUILDS_DIR"] };
const AZURE: Host = Host {
    checkout: &["$(Pipeline.Workspace)/s/repo", "$(Build.SourcesDirectory)", "$(System.DefaultWorkingDirectory)"],
    outside: &["$(Agent.TempDirectory)", "$(Pipeline.Workspace)"],
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(name: &str) -> Yaml {
    let text = std::fs::read_to_string(root().join(name)).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

fn text(y: &Yaml) -> Option<&str> {
    y.as_str()
}

/// Where `path` points, with the working directory `cwd` and the shell's own variables.
fn place(host: &Host, path: &str, cwd: Place, vars: &BTreeMap<String, Place>) -> Place {
    let path = path.replace(['"', '\''], "");
    if host.checkout.iter().any(|v| path.starts_with(v)) {
        return Place::Checkout;
    }
    if host.outside.iter().any(|v| path.starts_with(v)) || path == "~" {
        return Place::Outside;
    }
    if let Some(rest) = path.strip_prefix('$') {
        let name: String =
            rest.trim_start_matches('{').chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        return *vars.get(&name).unwrap_or_else(|| panic!("`{path}`: the test does not know where ${name} points"));
    }
    if path.starts_with('/') { Place::Outside } else { cwd }
}

/// The commands of a shell script, as words (quotes kept, `$(…)` kept whole).
fn commands(script: &str) -> Vec<Vec<String>> {
    let script = script.replace("\\\n", " ");
    let (mut out, mut words, mut word) = (Vec::new(), Vec::new(), String::new());
    let (mut quote, mut depth) = (None::<char>, 0usize);
    let mut chars = script.chars().peekable();
    let end_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q && depth == 0 => {
                quote = None;
                word.push(c);
            }
            (q, '$') if q != Some('\'') && chars.peek() == Some(&'(') => {
                depth += 1;
                word.push(c);
            }
            (_, ')') if depth > 0 => {
                depth -= 1;
                word.push(c);
            }
            (None, '"' | '\'') if depth == 0 => {
                quote = Some(c);
                word.push(c);
            }
            (None, ' ' | '\t') if depth == 0 => end_word(&mut word, &mut words),
            (None, '\n' | ';' | '|' | '&' | '(' | ')') if depth == 0 => {
                end_word(&mut word, &mut words);
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
            }
            _ => word.push(c),
        }
    }
    end_word(&mut word, &mut words);
    if !words.is_empty() {
        out.push(words);
    }
    out
}

/// What in `script` runs from, builds in or installs into the checkout.
fn check_script(host: &Host, script: &str, start: Place, problems: &mut Vec<String>) {
    let (mut cwd, mut vars) = (start, BTreeMap::new());
    for words in commands(script) {
        let mut words: &[String] = &words;
        while let Some((first, rest)) = words.split_first() {
            let keyword = ["if", "then", "else", "elif", "fi", "do", "done", "!", "{", "}", "export"];
            let assignment = first
                .split_once('=')
                .filter(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            if let Some((name, value)) = assignment {
                let value = value.replace('"', "");
                let at = if value.contains("mktemp") {
                    Some(Place::Outside)
                } else if value.contains('/') {
                    Some(place(host, &value, cwd, &vars))
                } else {
                    None
                };
                if let Some(at) = at {
                    vars.insert(name.to_string(), at);
                }
            } else if !keyword.contains(&first.as_str()) {
                break;
            }
            words = rest;
        }
        let Some(first) = words.first() else { continue };
        let arg = |flag: &str| words.iter().position(|w| w == flag).and_then(|i| words.get(i + 1));
        match first.as_str() {
            "cd" => cwd = place(host, &words[1], cwd, &vars),
            "cargo" => {
                if cwd == Place::Checkout {
                    problems.push(format!("runs `{}` in the checkout", words.join(" ")));
                }
                for flag in ["--path", "--root"] {
                    if arg(flag).is_some_and(|p| place(host, p, cwd, &vars) == Place::Checkout) {
                        problems.push(format!("`cargo {flag}` inside the checkout: `{}`", words.join(" ")));
                    }
                }
            }
            "sh" | "bash" | "source" | "."
                if words.len() > 1
                    && words[1].contains('/')
                    && place(host, &words[1], cwd, &vars) == Place::Checkout =>
            {
                problems.push(format!("runs `{}` from the checkout", words[1]));
            }
            program if program.contains('/') && place(host, program, cwd, &vars) == Place::Checkout => {
                problems.push(format!("runs `{program}` from the checkout"));
            }
            _ => {}
        }
    }
}

/// Each GitHub Actions step: its script and working directory, and the paths it caches.
fn github(steps: &Yaml, problems: &mut Vec<String>) {
    for step in steps.as_vec().unwrap() {
        if let Some(run) = text(&step["run"]) {
            let start = text(&step["working-directory"])
                .map_or(Place::Checkout, |d| place(&GITHUB, d, Place::Checkout, &BTreeMap::new()));
            check_script(&GITHUB, run, start, problems);
        }
        if text(&step["uses"]).is_some_and(|u| u.starts_with("actions/cache")) {
            for path in text(&step["with"]["path"]).unwrap().lines().filter(|l| !l.trim().is_empty()) {
                if place(&GITHUB, path.trim(), Place::Checkout, &BTreeMap::new()) == Place::Checkout {
                    problems.push(format!("caches `{path}`, inside the checkout"));
                }
            }
        }
    }
}

fn azure(steps: &Yaml, problems: &mut Vec<String>) {
    for step in steps.as_vec().unwrap() {
        if let Some(run) = text(&step["bash"]).or(text(&step["script"])) {
            let start = text(&step["workingDirectory"])
                .map_or(Place::Checkout, |d| place(&AZURE, d, Place::Checkout, &BTreeMap::new()));
            check_script(&AZURE, run, start, problems);
        }
        if text(&step["task"]).is_some_and(|t| t.starts_with("Cache@")) {
            let path = text(&step["inputs"]["path"]).unwrap();
            if place(&AZURE, path, Place::Checkout, &BTreeMap::new()) == Place::Checkout {
                problems.push(format!("caches `{path}`, inside the checkout"));
            }
        }
    }
}

/// A GitLab job with what it `extends` merged in, hashes key by key as GitLab
/// merges them (one level of `extends`, as the templates use it).
fn gitlab_job(doc: &Yaml, job: &Yaml) -> Yaml {
    fn merge(base: &Yaml, over: &Yaml) -> Yaml {
        let (Some(b), Some(o)) = (base.as_hash(), over.as_hash()) else { return over.clone() };
        let mut out = b.clone();
        for (k, v) in o {
            let merged = b.get(k).map_or_else(|| v.clone(), |old| merge(old, v));
            out.insert(k.clone(), merged);
        }
        Yaml::Hash(out)
    }
    match text(&job["extends"]) {
        Some(parent) => merge(&doc[parent], job),
        None => job.clone(),
    }
}

fn lines(y: &Yaml) -> Vec<String> {
    y.as_vec().map(|v| v.iter().filter_map(|l| l.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// The paths a GitLab job caches.
fn gitlab_cached(job: &Yaml) -> Vec<String> {
    let caches = match &job["cache"] {
        Yaml::Array(list) => list.clone(),
        Yaml::BadValue => Vec::new(),
        one => vec![one.clone()],
    };
    caches.iter().flat_map(|c| lines(&c["paths"])).collect()
}

/// The jobs of a GitLab template that run (not the hidden `.name` ones), merged.
fn gitlab_jobs(doc: &Yaml) -> Vec<(String, Yaml)> {
    let jobs = doc.as_hash().unwrap().iter().filter_map(|(k, v)| {
        let key = k.as_str().filter(|k| !k.starts_with('.'))?;
        let job = gitlab_job(doc, v);
        job["script"].as_vec().is_some().then(|| (key.to_string(), job))
    });
    jobs.collect()
}

/// Run the guard lines of `job` (its `before_script` up to the `git ls-files`
/// check) in a repository that tracks `tracked`; the exit code, stderr, and
/// whether the tracked file is still there afterwards (a cache saved even when
/// the job fails would carry it).
fn guard(job: &Yaml, tracked: Option<&str>) -> (i32, String, bool) {
    let before = lines(&job["before_script"]);
    let upto = before.iter().position(|l| l.contains("git ls-files")).map_or(0, |i| i + 1);
    let dir = tempfile::tempdir().unwrap();
    let git =
        |args: &[&str]| assert!(Command::new("git").arg("-C").arg(dir.path()).args(args).status().unwrap().success());
    git(&["init", "-q"]);
    let file = tracked.unwrap_or("README.md");
    std::fs::create_dir_all(dir.path().join(file).parent().unwrap()).unwrap();
    std::fs::write(dir.path().join(file), "#!/bin/sh\nexit 0\n").unwrap();
    git(&["add", "-A"]);
    let out = Command::new("bash").arg("-c").arg(before[..upto].join("\n")).current_dir(dir.path()).output().unwrap();
    let left = dir.path().join(file).exists();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), left)
}

fn gitlab(doc: &Yaml, problems: &mut Vec<String>) {
    for (name, job) in gitlab_jobs(doc) {
        let mut script = lines(&job["before_script"]);
        script.extend(lines(&job["script"]));
        let mut found = Vec::new();
        check_script(&GITLAB, &script.join("\n"), Place::Checkout, &mut found);
        check_script(&GITLAB, &lines(&job["after_script"]).join("\n"), Place::Checkout, &mut found);
        for path in gitlab_cached(&job) {
            if place(&GITLAB, &path, Place::Checkout, &BTreeMap::new()) == Place::Outside {
                continue;
            }
            // Inside the checkout, as GitLab requires: the change must not be able to put anything there.
            let planted = format!("{}/bin/gauntlet", path.trim_end_matches('/'));
            // The same folder in other case is the same folder on a macOS or Windows runner.
            let folded = planted.replacen(".gauntlet-cache", ".Gauntlet-Cache", 1);
            for planted in [planted.clone(), folded] {
                let (code, stderr, left) = guard(&job, Some(&planted));
                if code == 0 || !stderr.contains("refusing to run") {
                    found.push(format!(
                        "caches `{path}` in the checkout and still runs when the change commits `{planted}`"
                    ));
                }
                if left {
                    found.push(format!("refuses `{planted}` but leaves it where a cache saved on failure takes it"));
                }
            }
        }
        if gitlab_cached(&job).iter().any(|p| !p.starts_with('$')) && guard(&job, None).0 != 0 {
            found.push("its check for tracked files refuses a change that tracks nothing there".into());
        }
        problems.extend(found.into_iter().map(|p| format!("job {name}: {p}")));
    }
}

#[test]
fn no_shipped_template_runs_builds_or_caches_gauntlet_inside_the_checkout() {
    let mut problems = Vec::new();
    let mut each = |name: &str, check: &dyn Fn(&Yaml, &mut Vec<String>)| {
        let mut found = Vec::new();
        check(&load(name), &mut found);
        problems.extend(found.into_iter().map(|p| format!("{name}: {p}")));
    };
    each("action.yml", &|doc, found| github(&doc["runs"]["steps"], found));
    each("ci/backtest-github.yml", &|doc, found| {
        for (_, job) in doc["jobs"].as_hash().unwrap() {
            github(&job["steps"], found);
        }
    });
    for recipe in ["ci/github-review.yml", "ci/github-fork-review.yml"] {
        each(recipe, &|doc, found| {
            for (_, job) in doc["jobs"].as_hash().unwrap() {
                github(&job["steps"], found);
            }
        });
    }
    each("ci/azure-pipelines.yml", &|doc, found| azure(&doc["steps"], found));
    each("ci/gitlab-ci.yml", &gitlab);
    each("ci/backtest-gitlab.yml", &gitlab);
    assert!(problems.is_empty(), "tooling from the checkout:\n  {}", problems.join("\n  "));
}

#[test]
fn the_gitlab_backtest_installs_a_pinned_gauntlet_and_keeps_its_build_per_version() {
    let name = "ci/backtest-gitlab.yml";
    let doc = load(name);
    for (job_name, job) in gitlab_jobs(&doc) {
        let script = [lines(&job["before_script"]), lines(&job["script"])].concat().join("\n");
        let install = commands(&script).into_iter().find(|c| c.first().is_some_and(|w| w == "cargo"));
        let install = install.unwrap_or_else(|| panic!("{name} {job_name}: no cargo install")).join(" ");
        assert!(install.contains("--tag \"$GAUNTLET_VERSION\""), "{name} {job_name}: {install}");
        assert!(text(&job["variables"]["GAUNTLET_VERSION"]).is_some(), "{name} {job_name}: no default version");
        let caches = match &job["cache"] {
            Yaml::Array(list) => list.clone(),
            one => vec![one.clone()],
        };
        let tool = caches.iter().find(|c| lines(&c["paths"]).iter().any(|p| p.contains("tool")));
        let key = text(tool.map_or(&Yaml::BadValue, |c| &c["key"])).unwrap_or_default();
        assert!(key.contains("$GAUNTLET_VERSION"), "{name} {job_name}: the tool's cache key `{key}`");
    }
}

/// The release this checkout names in ci/release/VERSION (the version the
/// workspace builds; the release commit fills in the checksums).
fn release_version() -> String {
    std::fs::read_to_string(root().join("ci/release/VERSION")).unwrap().trim().to_string()
}

#[test]
fn the_release_files_name_the_version_the_workspace_builds() {
    assert_eq!(release_version(), env!("CARGO_PKG_VERSION"), "ci/release/VERSION and the workspace's version differ");
    let url = std::fs::read_to_string(root().join("ci/release/URL")).unwrap();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains(&format!("repository = \"{}\"", url.trim())), "the workspace's `repository`");
}

#[test]
fn the_gitlab_template_runs_the_gauntlet_image_of_its_release_and_builds_nothing() {
    let doc = load("ci/gitlab-ci.yml");
    for (job_name, job) in gitlab_jobs(&doc) {
        let image = text(&job["image"]).unwrap_or_default();
        assert_eq!(image, format!("ghcr.io/gauntlet-review/gauntlet:{}", release_version()), "job {job_name}");
        let script = [lines(&job["before_script"]), lines(&job["script"])].concat().join("\n");
        let run = commands(&script);
        assert!(!run.iter().any(|c| c.first().is_some_and(|w| w == "cargo")), "job {job_name} builds gauntlet");
        assert!(run.iter().any(|c| c.first().is_some_and(|w| w == "/usr/local/bin/gauntlet")), "job {job_name}");
        let tool_cache = gitlab_cached(&job).into_iter().find(|p| p.contains("tool"));
        assert_eq!(tool_cache, None, "job {job_name}: nothing of the tool is cached");
    }
}

#[test]
fn the_github_backtest_installs_a_pinned_gauntlet_and_keeps_its_build_per_version() {
    let doc = load("ci/backtest-github.yml");
    assert!(text(&doc["env"]["GAUNTLET_VERSION"]).is_some(), "no default version");
    for (_, job) in doc["jobs"].as_hash().unwrap() {
        let steps = job["steps"].as_vec().unwrap();
        let install = steps.iter().filter_map(|s| text(&s["run"])).find(|r| r.contains("cargo install")).unwrap();
        assert!(install.contains("--tag \"$GAUNTLET_VERSION\""), "{install}");
        let cache = steps.iter().find(|s| text(&s["uses"]).is_some_and(|u| u.starts_with("actions/cache"))).unwrap();
        let key = text(&cache["with"]["key"]).unwrap();
        assert!(key.contains("env.GAUNTLET_VERSION"), "the build's cache key `{key}`");
    }
}

#[test]
fn the_action_refuses_to_install_gauntlet_from_the_checkout() {
    let doc = load("action.yml");
    let steps = doc["runs"]["steps"].as_vec().unwrap();
    // The first step that runs the action's own install.sh is the one that
    // refuses: a local action's install.sh is the pull request's code.
    let first = steps.iter().find(|s| text(&s["run"]).is_some_and(|r| r.contains("install.sh"))).unwrap();
    let workspace = tempfile::tempdir().unwrap();
    // `uses: ./`: the action is the pull request's own copy.
    std::fs::create_dir_all(workspace.path().join("ci")).unwrap();
    std::fs::write(workspace.path().join("ci/install.sh"), "echo planted > \"$RUNNER_TEMP/ran\"\n").unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(text(&first["run"]).unwrap())
        .env("GITHUB_ACTION_PATH", workspace.path())
        .env("GITHUB_WORKSPACE", workspace.path())
        .env("GITHUB_OUTPUT", workspace.path().join("out"))
        .env("RUNNER_TEMP", workspace.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("refusing to install the action from inside the checkout"), "{stderr}");
    assert!(!workspace.path().join("ran").exists(), "the checkout's install.sh ran");
}

#[test]
fn the_action_installs_its_own_release_keyed_by_that_release() {
    let doc = load("action.yml");
    let steps = doc["runs"]["steps"].as_vec().unwrap();
    let at = |f: &dyn Fn(&Yaml) -> bool| steps.iter().position(f);
    let run = |s: &Yaml| text(&s["run"]).unwrap_or_default().to_string();
    let named = at(&|s| run(s).contains("install.sh\" --cache-key")).expect("a step names the release");
    let id = text(&steps[named]["id"]).expect("the naming step has an id").to_string();
    let cache = at(&|s| text(&s["uses"]).is_some_and(|u| u.starts_with("actions/cache@"))).expect("a cache step");
    let key = text(&steps[cache]["with"]["key"]).unwrap();
    assert!(key.contains(&format!("steps.{id}.outputs.key")), "the install's cache key `{key}`");
    assert!(!key.contains("hashFiles") && !key.contains("action_ref"), "GitHub evaluates these wrongly here: `{key}`");
    assert_eq!(text(&steps[cache]["with"]["path"]), Some("${{ runner.temp }}/gauntlet"));
    let install = at(&|s| run(s).contains("install.sh\" --dir")).expect("an install step");
    assert!(named < cache && cache < install, "named, then restored, then installed (skipped when restored)");
    assert!(
        run(&steps[install]).contains("bash \"$GITHUB_ACTION_PATH/ci/install.sh\" --dir \"$RUNNER_TEMP/gauntlet\"")
    );
    for step in &steps[install + 1..] {
        let script = run(step);
        if script.contains("gauntlet\" ") {
            assert!(script.contains("\"$RUNNER_TEMP/gauntlet/bin/gauntlet\""), "{script}");
        }
    }
    assert!(steps.iter().all(|s| !run(s).contains("cargo ")), "only install.sh builds, and only without an archive");
}
