//! The image the GitLab template runs, read from its Dockerfile (this machine has
//! no Docker daemon; the release workflow builds and pushes the image): bases
//! pinned by tag, the hosted-provider build only, git installed, and a final
//! stage that runs as a user without root.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The instructions of the Dockerfile, continuation lines joined, comments left out.
fn instructions() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || (line.is_empty() && current.is_empty()) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => current.push_str(part),
            None => {
                current.push_str(line);
                let (op, rest) = current.split_once(' ').unwrap_or((&current, ""));
                out.push((op.to_uppercase(), rest.trim().to_string()));
                current.clear();
            }
        }
    }
    out
}

/// The stages: each FROM's image and the instructions under it.
fn stages() -> Vec<(String, Vec<(String, String)>)> {
    let mut stages: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for (op, rest) in instructions() {
        if op == "FROM" {
            stages.push((rest.split_whitespace().next().unwrap().to_string(), Vec::new()));
        } else {
            stages.last_mut().expect("an instruction before FROM").1.push((op, rest));
        }
    }
    stages
}

#[test]
fn every_base_image_is_pinned_to_a_release_tag() {
    let stages = stages();
    assert!(stages.len() >= 2, "a build stage and a slim final stage");
    for (image, _) in &stages {
        let (_, tag) = image.split_once(':').unwrap_or_else(|| panic!("`{image}` has no tag"));
        assert!(
            tag != "latest" && tag.starts_with(|c: char| c.is_ascii_digit()),
            "`{image}` is not pinned to a release"
        );
    }
    let (last, _) = stages.last().unwrap();
    assert!(last.starts_with("debian:") && last.ends_with("-slim"), "the final base is slim Debian: {last}");
}

#[test]
fn the_image_holds_the_hosted_provider_build_and_git_and_runs_without_root() {
    let stages = stages();
    let build =
        stages[..stages.len() - 1].iter().flat_map(|(_, s)| s).find(|(op, r)| op == "RUN" && r.contains("cargo build"));
    let (_, build) = build.expect("a stage builds gauntlet");
    assert!(build.contains("--no-default-features") && build.contains("--locked"), "{build}");
    assert!(!build.contains("--features") && !build.contains("--all-features"), "hosted providers only: {build}");

    let (_, last) = stages.last().unwrap();
    let runs: Vec<&String> = last.iter().filter(|(op, _)| op == "RUN").map(|(_, r)| r).collect();
    let installs = runs.iter().find(|r| r.contains("apt-get install")).expect("the final stage installs git");
    let packages: Vec<&str> =
        installs.split("apt-get install").nth(1).unwrap().split("&&").next().unwrap().split_whitespace().collect();
    assert!(packages.contains(&"git"), "{installs}");
    assert!(
        installs.contains("--no-install-recommends") && installs.contains("rm -rf /var/lib/apt/lists"),
        "{installs}"
    );
    let copies: Vec<&String> = last.iter().filter(|(op, _)| op == "COPY").map(|(_, r)| r).collect();
    assert_eq!(copies.len(), 1, "only the binary comes into the final stage: {copies:?}");
    assert!(copies[0].starts_with("--from=") && copies[0].ends_with("/usr/local/bin/gauntlet"), "{}", copies[0]);

    let user = last.iter().rev().find(|(op, _)| op == "USER").map(|(_, u)| u.as_str());
    let user = user.expect("the final stage names a user");
    assert!(!["root", "0", "0:0", "root:root"].contains(&user), "runs as {user}");
    let created = runs.iter().any(|r| r.contains("useradd") && r.contains(user));
    assert!(created, "the user `{user}` is created in the image");
    assert!(!last.iter().any(|(op, _)| op == "ENTRYPOINT"), "GitLab runs its own shell in the image");
}

#[test]
fn the_build_context_leaves_out_git_and_build_output() {
    let ignore = std::fs::read_to_string(root().join(".dockerignore")).unwrap();
    let lines: Vec<&str> = ignore.lines().map(str::trim).collect();
    for excluded in [".git", "target"] {
        assert!(lines.contains(&excluded), ".dockerignore keeps out {excluded}");
    }
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("ARG GAUNTLET_BUILD_COMMIT"), "without .git the commit comes as a build argument");
}

#[test]
fn the_release_workflow_pushes_the_image_the_gitlab_template_runs() {
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let gitlab = std::fs::read_to_string(root().join("ci/gitlab-ci.yml")).unwrap();
    let doc = yaml_rust2::YamlLoader::load_from_str(&workflow).unwrap().remove(0);
    let image = doc["env"]["IMAGE"].as_str().expect("the workflow names its image in env.IMAGE");
    assert!(gitlab.contains(&format!("image: {image}:")), "the GitLab template runs {image}");
    let steps = doc["jobs"]["image"]["steps"].as_vec().expect("an image job");
    let pushes = steps.iter().filter_map(|s| s["run"].as_str()).any(|r| r.contains("docker push \"$IMAGE:$VERSION\""));
    assert!(pushes, "the image job pushes $IMAGE:$VERSION");
    assert!(workflow.contains("GAUNTLET_BUILD_COMMIT="), "the image names its commit");
}
