//! The GitLab and Azure templates: a pinned toolchain image, a build kept per
//! gauntlet release outside the checkout, and a secret that did not reach the job
//! (a fork's build) seen as no key at all, so `gauntlet ci` can end that run
//! neutral instead of calling the model with garbage.

use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(name: &str) -> Yaml {
    let text = std::fs::read_to_string(root().join(name)).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

#[test]
fn the_gitlab_templates_run_a_pinned_toolchain_image() {
    for name in ["ci/gitlab-ci.yml", "ci/backtest-gitlab.yml"] {
        let doc = load(name);
        for (job, body) in doc.as_hash().unwrap() {
            let Some(image) = body["image"].as_str() else { continue };
            let tag = image.split_once(':').map_or("", |(_, t)| t);
            let version: Vec<&str> = tag.split('-').next().unwrap_or_default().split('.').collect();
            assert!(
                version.len() >= 2 && version.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())),
                "{name} {job:?}: image `{image}` is not pinned to a release"
            );
        }
    }
}

fn azure_steps() -> Vec<Yaml> {
    load("ci/azure-pipelines.yml")["steps"].as_vec().unwrap().clone()
}

#[test]
fn the_azure_template_installs_the_pinned_release_and_keeps_it_per_release_outside_the_checkout() {
    let steps = azure_steps();
    let script = |s: &Yaml| s["bash"].as_str().unwrap_or_default().to_string();
    let install = steps.iter().position(|s| script(s).contains("install.sh\" --dir")).expect("an install step");
    assert!(
        script(&steps[install]).starts_with("bash \"$(Pipeline.Workspace)/s/gauntlet/ci/install.sh\""),
        "the install script of the pinned gauntlet resource, not of the checkout: {}",
        script(&steps[install])
    );
    let after = script(&steps[install]).split("--dir").nth(1).unwrap().to_string();
    let root_flag = after.split_whitespace().next().unwrap().trim_matches('"').to_string();
    let cache = steps.iter().position(|s| {
        s["task"].as_str().is_some_and(|t| t.starts_with("Cache@"))
            && s["inputs"]["path"].as_str() == Some(root_flag.as_str())
    });
    let cache = cache.unwrap_or_else(|| panic!("no cache keeps {root_flag}"));
    assert!(cache < install, "restored before the install, which then skips");
    assert!(
        root_flag.starts_with("$(Pipeline.Workspace)/") && !root_flag.contains("/s/"),
        "outside the sources: {root_flag}"
    );
    assert_eq!(steps[install]["workingDirectory"].as_str(), Some("$(Agent.TempDirectory)"));
    let key = steps[cache]["inputs"]["key"].as_str().unwrap();
    assert!(key.contains("$(GAUNTLET_CACHE_KEY)"), "keyed by the release installed: {key}");
    let named = steps.iter().position(|s| {
        script(s).contains("variable=GAUNTLET_CACHE_KEY")
            && script(s).contains("s/gauntlet/ci/install.sh\" --cache-key")
    });
    assert!(named.is_some_and(|n| n < cache), "the release is named before the cache is looked up");
    assert!(steps.iter().all(|s| !script(s).contains("cargo ")), "only install.sh builds, and only without an archive");
    let runs: Vec<String> = steps.iter().map(script).filter(|s| s.contains("/bin/gauntlet\" -C")).collect();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r.contains(&format!("\"{root_flag}/bin/gauntlet\""))), "{runs:?}");
}

/// Run the template's review step, Azure's macros filled in, with a stand-in
/// gauntlet that prints the key it was given.
fn review_step(key: &str) -> String {
    let steps = azure_steps();
    let step = steps.iter().find(|s| s["displayName"].as_str() == Some("gauntlet review")).unwrap();
    let text = step["bash"].as_str().unwrap();
    assert!(!text.contains("$(ANTHROPIC_API_KEY)"), "Azure would write the secret into the script");
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("gauntlet-tool/bin");
    std::fs::create_dir_all(&tool).unwrap();
    std::fs::write(tool.join("gauntlet"), "#!/bin/sh\necho \"key=${ANTHROPIC_API_KEY-none}\"\n").unwrap();
    Command::new("chmod").arg("+x").arg(tool.join("gauntlet")).status().unwrap();
    let script = text.replace("$(Pipeline.Workspace)", dir.path().to_str().unwrap());
    let out = Command::new("bash").arg("-c").arg(script).env("ANTHROPIC_API_KEY", key).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_azure_review_step_sees_an_undefined_secret_as_no_key() {
    // What Azure Pipelines passes for a secret a fork's build does not get.
    assert_eq!(review_step("$(ANTHROPIC_API_KEY)"), "key=none\n");
    assert_eq!(review_step("sk-ant-real"), "key=sk-ant-real\n");
}

/// Where gauntlet is published is one decision, `ci/release/URL`: every
/// template, install path, image and page that names an owner names that one
/// (the release workflow refuses to run in any other repository), so moving the
/// project cannot leave one file pointing at a name someone else may hold.
#[test]
fn every_shipped_file_names_the_one_home_in_ci_release_url() {
    let home = std::fs::read_to_string(root().join("ci/release/URL")).unwrap();
    let owner = home.trim().strip_prefix("https://github.com/").and_then(|r| r.strip_suffix("/gauntlet")).unwrap();
    let named = regex::Regex::new(
        r"(?m)(?:github\.com/|githubusercontent\.com/|ghcr\.io/|uses: |name: |--repo )([A-Za-z0-9_.-]+)/gauntlet(?:$|[^A-Za-z0-9_-])",
    )
    .unwrap();
    let mut files: Vec<PathBuf> =
        ["README.md", "Cargo.toml", "action.yml", "Dockerfile", "SECURITY.md"].iter().map(|f| root().join(f)).collect();
    for dir in ["ci", "ci/release", ".github/workflows"] {
        files.extend(std::fs::read_dir(root().join(dir)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()));
    }
    let mut pages = vec![root().join("docs/src")];
    while let Some(dir) = pages.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pages.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let mut seen = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for found in named.captures_iter(&text) {
            seen += 1;
            assert!(
                found[1].eq_ignore_ascii_case(owner),
                "{} names {}/gauntlet, but ci/release/URL says {owner}: {}",
                file.display(),
                &found[1],
                &found[0]
            );
        }
    }
    assert!(seen >= 10, "the templates and docs name the home ({seen} seen)");
}
