//! Names the build in `gauntlet --version`: the commit it was built from and the
//! features compiled in. The commit comes from git when this crate sits in its
//! own repository; a packaged crate has no `.git`, so then from
//! `GAUNTLET_BUILD_COMMIT` (the Dockerfile and release workflow set it), then
//! from the `.cargo_vcs_info.json` that `cargo package` writes, else "unknown".

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GAUNTLET_BUILD_COMMIT");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let commit = from_git(&manifest)
        .or_else(|| std::env::var("GAUNTLET_BUILD_COMMIT").ok().map(|c| c.trim().to_string()).filter(|c| !c.is_empty()))
        .or_else(|| from_vcs_info(&manifest))
        .map(|c| c.chars().take(7).collect::<String>())
        .unwrap_or_else(|| "unknown".to_string());
    let feature = |name: &str| std::env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let mut features = Vec::new();
    if feature("LOCAL") {
        features.push("embedded-model");
    }
    if feature("GRAMMARS") {
        features.push("grammars");
    }
    let features = match (features.is_empty(), feature("LOCAL")) {
        (true, _) => "none, hosted providers only".to_string(),
        (false, true) => features.join(", "),
        (false, false) => format!("{}; hosted providers only", features.join(", ")),
    };
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    println!("cargo:rustc-env=GAUNTLET_LONG_VERSION={version} (commit {commit}, features: {features})");
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// HEAD of the repository this crate belongs to: not of some other repository the
/// unpacked crate happens to sit in (a vendored copy inside a user's project).
fn from_git(manifest: &Path) -> Option<String> {
    let top = PathBuf::from(git(manifest, &["rev-parse", "--show-toplevel"])?);
    let ours = top.join("crates/cli/Cargo.toml").canonicalize().ok()?;
    if ours != manifest.join("Cargo.toml").canonicalize().ok()? {
        return None;
    }
    let commit = git(manifest, &["rev-parse", "HEAD"])?;
    // Rebuild the version when HEAD moves: HEAD itself (a checkout), the branch it
    // points at (a commit), and packed-refs (where a fetched ref may live). Only
    // files that exist: a missing one would make cargo rerun this on every build.
    let mut watched = vec![git(manifest, &["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
        watched.extend(git(manifest, &["rev-parse", "--git-path", &branch]));
    }
    watched.extend(git(manifest, &["rev-parse", "--git-path", "packed-refs"]));
    for path in watched {
        let path = if Path::new(&path).is_absolute() { PathBuf::from(path) } else { manifest.join(path) };
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    Some(commit)
}

/// `"sha1": "…"` in the file `cargo package` adds to a crate built from a git checkout.
fn from_vcs_info(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest.join(".cargo_vcs_info.json")).ok()?;
    let after = text.split("\"sha1\"").nth(1)?;
    let sha: String = after.trim_start_matches([' ', ':', '"']).chars().take_while(char::is_ascii_hexdigit).collect();
    (sha.len() >= 7).then_some(sha)
}
