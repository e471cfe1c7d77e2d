//! `gauntlet --version` names what a bug report needs: the version, the commit
//! the binary was built from and the features compiled in.

use std::path::Path;
use std::process::Command;

fn version(flag: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gauntlet")).arg(flag).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_version_names_the_release_the_commit_and_the_features() {
    let head = Command::new("git")
        .arg("-C")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    let head = String::from_utf8(head.stdout).unwrap();
    // Built from this repository's checkout: the commit is HEAD's, abbreviated.
    let commit = if head.trim().len() >= 7 { &head.trim()[..7] } else { "unknown" };
    let features = if cfg!(feature = "local") {
        if cfg!(feature = "grammars") { "embedded-model, grammars" } else { "embedded-model" }
    } else if cfg!(feature = "grammars") {
        "grammars; hosted providers only"
    } else {
        "none, hosted providers only"
    };
    let expected = format!("gauntlet {} (commit {commit}, features: {features})\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(version("--version"), expected);
    // The short form (also the man pages' title) is the version alone.
    assert_eq!(version("-V"), format!("gauntlet {}\n", env!("CARGO_PKG_VERSION")));
}

/// What build.rs makes of a crate without its repository (unpacked from
/// crates.io, or a Docker build context without .git): the commit from
/// GAUNTLET_BUILD_COMMIT, else from the `.cargo_vcs_info.json` that `cargo
/// package` writes, else "unknown"; and the features, hosted-only builds named so.
#[test]
fn a_build_outside_the_repository_names_its_commit_from_the_environment_or_the_package() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("build-script");
    let compiled = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--edition", "2024", "-o"])
        .arg(&script)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("build.rs"))
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    let krate = dir.path().join("gauntlet-9.9.9");
    std::fs::create_dir(&krate).unwrap();
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(&script);
        cmd.env_clear().env("PATH", std::env::var("PATH").unwrap()).env("CARGO_MANIFEST_DIR", &krate);
        cmd.env("CARGO_PKG_VERSION", "9.9.9");
        let out = cmd.envs(env.iter().copied()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let line = stdout.lines().find_map(|l| l.strip_prefix("cargo:rustc-env=GAUNTLET_LONG_VERSION="));
        line.expect("the version is set").to_string()
    };
    assert_eq!(run(&[]), "9.9.9 (commit unknown, features: none, hosted providers only)");
    std::fs::write(
        krate.join(".cargo_vcs_info.json"),
        "{\n  \"git\": {\n    \"sha1\": \"0123456789abcdef0123456789abcdef01234567\"\n  },\n  \"path_in_vcs\": \"crates/cli\"\n}",
    )
    .unwrap();
    assert_eq!(
        run(&[("CARGO_FEATURE_GRAMMARS", "1")]),
        "9.9.9 (commit 0123456, features: grammars; hosted providers only)"
    );
    let both = [("GAUNTLET_BUILD_COMMIT", "fedcba9876"), ("CARGO_FEATURE_LOCAL", "1"), ("CARGO_FEATURE_GRAMMARS", "1")];
    assert_eq!(run(&both), "9.9.9 (commit fedcba9, features: embedded-model, grammars)");
}
