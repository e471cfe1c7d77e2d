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
