//! ci/install.sh, the step every CI template installs gauntlet with, against a
//! release served from 127.0.0.1: a good archive installs and runs, an altered
//! one is refused before anything is installed, and only a missing one (404 or
//! none recorded) falls back to building from source with cargo.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const TARGET: &str = "x86_64-unknown-linux-musl";
const ASSET: &str = "gauntlet-v0.1.0-x86_64-unknown-linux-musl.tar.gz";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A release server: serves `files` by path, 404 for anything else, and
/// remembers every path asked for.
struct Server {
    url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

fn serve(files: BTreeMap<String, Vec<u8>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let request = String::from_utf8_lossy(&request);
            let path = request.split_whitespace().nth(1).unwrap_or_default().to_string();
            seen.lock().unwrap().push(path.clone());
            let (status, body) = match files.get(&path) {
                Some(body) => ("200 OK", body.clone()),
                None => ("404 Not Found", b"Not Found".to_vec()),
            };
            let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
        }
    });
    Server { url, asked }
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn write_exe(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    assert!(Command::new("chmod").arg("+x").arg(path).status().unwrap().success());
}

/// A release archive holding a stand-in `gauntlet` that prints `says`.
fn archive(says: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    write_exe(&dir.path().join("gauntlet"), &format!("#!/bin/sh\necho '{says}'\n"));
    let out = dir.path().join("a.tar.gz");
    assert!(
        Command::new("tar").arg("-czf").arg(&out).arg("-C").arg(dir.path()).arg("gauntlet").status().unwrap().success()
    );
    std::fs::read(out).unwrap()
}

/// A copy of the action (ci/install.sh and the files a release records) whose
/// release lives at `url` and records `sums`, beside a stand-in cargo that
/// notes its arguments and "builds" a gauntlet.
struct Action {
    dir: tempfile::TempDir,
}

impl Action {
    fn new(url: &str, sums: &str) -> Action {
        let dir = tempfile::tempdir().unwrap();
        let ci = dir.path().join("action/ci");
        std::fs::create_dir_all(ci.join("release")).unwrap();
        std::fs::copy(root().join("ci/install.sh"), ci.join("install.sh")).unwrap();
        std::fs::write(ci.join("release/VERSION"), "0.1.0\n").unwrap();
        std::fs::write(ci.join("release/URL"), format!("{url}\n")).unwrap();
        std::fs::write(ci.join("release/SHA256SUMS"), sums).unwrap();
        // The action is a whole gauntlet checkout: its sources are what a
        // missing archive is built from.
        let crate_dir = dir.path().join("action/crates/cli");
        std::fs::create_dir_all(&crate_dir).unwrap();
        std::fs::write(crate_dir.join("Cargo.toml"), "[package]\n").unwrap();
        let cargo = "#!/bin/sh\n\
            { pwd; echo \"$@\"; } > \"$CARGO_LOG\"\n\
            while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n\
            mkdir -p \"$root/bin\" && printf '#!/bin/sh\\necho built from source\\n' > \"$root/bin/gauntlet\"\n";
        write_exe(&dir.path().join("fakebin/cargo"), cargo);
        Action { dir }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("tools")
    }

    fn install(&self, env: &[(&str, &Path)]) -> Output {
        let mut cmd = Command::new("sh");
        cmd.arg(self.dir.path().join("action/ci/install.sh"))
            .arg("--dir")
            .arg(self.out())
            .current_dir(self.dir.path())
            .env("PATH", format!("{}:/usr/bin:/bin", self.dir.path().join("fakebin").display()))
            .env("GAUNTLET_TARGET", TARGET)
            .env("CARGO_LOG", self.dir.path().join("cargo.log"))
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_WORKSPACE")
            .env_remove("CI_PROJECT_DIR")
            .env_remove("BUILD_SOURCESDIRECTORY");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn cargo_log(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("cargo.log")).ok()
    }

    fn run_installed(&self) -> String {
        let out = Command::new(self.out().join("bin/gauntlet")).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    }

    /// What the install folder holds besides bin/ and the marker: leftovers.
    fn leftovers(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.out()) else { return Vec::new() };
        let names = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
        names.filter(|n| n != "bin" && n != ".gauntlet-install").collect()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn release(asset: Vec<u8>) -> Server {
    serve(BTreeMap::from([(format!("/releases/download/v0.1.0/{ASSET}"), asset)]))
}

#[test]
fn a_release_archive_matching_its_recorded_checksum_installs_and_runs() {
    let good = archive("gauntlet 0.1.0 (from the release)");
    let server = release(good.clone());
    let sums =
        format!("{}  gauntlet-v0.1.0-aarch64-apple-darwin.tar.gz\n{}  {ASSET}\n", sha256(b"other"), sha256(&good));
    let action = Action::new(&server.url, &sums);
    let out = action.install(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(action.run_installed(), "gauntlet 0.1.0 (from the release)\n");
    assert!(stderr(&out).contains("installed gauntlet 0.1.0 (from the release)"), "{}", stderr(&out));
    assert_eq!(action.cargo_log(), None, "nothing built from source");
    assert_eq!(action.leftovers(), Vec::<String>::new());
    assert_eq!(server.asked.lock().unwrap().clone(), [format!("/releases/download/v0.1.0/{ASSET}")]);

    // A cache that restored the same release: nothing downloaded again.
    let again = action.install(&[]);
    assert!(again.status.success() && stderr(&again).contains("already installed"), "{}", stderr(&again));
    assert_eq!(server.asked.lock().unwrap().len(), 1);
}

#[test]
fn an_altered_archive_is_refused_and_nothing_is_installed() {
    let good = archive("gauntlet 0.1.0");
    let server = release(archive("gauntlet 0.1.0, with something added"));
    let action = Action::new(&server.url, &format!("{}  {ASSET}\n", sha256(&good)));
    let out = action.install(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("refusing to install {ASSET}")), "{err}");
    assert!(
        err.contains(&format!("the release recorded {}", sha256(&good))) && err.contains("nothing was installed"),
        "{err}"
    );
    assert!(!action.out().join("bin/gauntlet").exists());
    assert_eq!(action.leftovers(), Vec::<String>::new(), "the download is removed");
    assert_eq!(action.cargo_log(), None, "an altered archive is no reason to build from source");
}

#[test]
fn a_missing_archive_falls_back_to_building_the_action_own_sources() {
    let server = serve(BTreeMap::new());
    let action = Action::new(&server.url, &format!("{}  {ASSET}\n", sha256(b"never uploaded")));
    let out = action.install(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("answered 404") && stderr(&out).contains("building it from source"),
        "{}",
        stderr(&out)
    );
    let log = action.cargo_log().expect("cargo was called");
    let (cwd, args) = log.split_once('\n').unwrap();
    let crate_dir = action.dir.path().join("action/crates/cli").canonicalize().unwrap();
    assert!(
        args.starts_with(&format!("install --locked --no-default-features --path {} --root ", crate_dir.display())),
        "{args}"
    );
    assert!(!Path::new(cwd).starts_with(action.dir.path().join("action")), "cargo ran in {cwd}");
    assert_eq!(action.run_installed(), "built from source\n");
    assert_eq!(action.leftovers(), Vec::<String>::new());
}

#[test]
fn a_commit_between_releases_builds_the_action_own_sources() {
    let server = serve(BTreeMap::new());
    let action = Action::new(&server.url, "");
    let crate_dir = action.dir.path().join("action/crates/cli");
    let out = action.install(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let log = action.cargo_log().expect("cargo was called");
    let path = crate_dir.canonicalize().unwrap();
    assert!(log.contains(&format!("--no-default-features --path {} --root", path.display())), "{log}");
    assert!(server.asked.lock().unwrap().is_empty(), "no checksum recorded, so no download");
}

#[test]
fn the_cache_key_changes_with_the_release() {
    let key = |sums: &str| {
        let action = Action::new("http://127.0.0.1:9", sums);
        let out = Command::new("sh")
            .arg(action.dir.path().join("action/ci/install.sh"))
            .arg("--cache-key")
            .env("GAUNTLET_TARGET", TARGET)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let first = key(&format!("{}  {ASSET}\n", sha256(b"one")));
    assert!(first.starts_with(&format!("gauntlet-0.1.0-{TARGET}-")), "{first}");
    assert_ne!(first, key(&format!("{}  {ASSET}\n", sha256(b"two"))));
}

/// The version goes into a file name, a download URL and a cache key: anything
/// but `X.Y.Z` in digits is refused before any of them is built.
#[test]
fn a_version_that_is_not_three_numbers_is_refused() {
    for bad in ["0.1.0/../../evil/0.0.0", "9.9.9-$(id)x", "v0.1.0"] {
        let action = Action::new("http://127.0.0.1:9", "");
        std::fs::write(action.dir.path().join("action/ci/release/VERSION"), format!("{bad}\n")).unwrap();
        let out = action.install(&[]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains("not a version such as 0.1.0"), "{bad}: {}", stderr(&out));
        assert!(action.cargo_log().is_none(), "{bad}: nothing is built");
    }
}

#[test]
fn it_refuses_to_install_inside_the_checkout_under_review() {
    let server = release(archive("x"));
    let action = Action::new(&server.url, &format!("{}  {ASSET}\n", sha256(b"x")));
    let out = action.install(&[("GITHUB_WORKSPACE", action.dir.path())]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("refusing to install into") && stderr(&out).contains("--dir"), "{}", stderr(&out));
    assert!(server.asked.lock().unwrap().is_empty());
}

/// What `cargo binstall`, install.sh and the release workflow call an archive
/// must be one name, or one of them fetches what the other never uploaded.
#[test]
fn binstall_the_install_script_and_the_release_workflow_agree_on_archive_names() {
    use yaml_rust2::YamlLoader;
    let manifest = std::fs::read_to_string(root().join("crates/cli/Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&manifest).unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let url = binstall["pkg-url"].as_str().unwrap();
    let render = |target: &str| {
        url.replace("{ repo }", "https://github.com/gauntlet-review/gauntlet")
            .replace("{ version }", "0.1.0")
            .replace("{ name }", "gauntlet")
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.gz")
    };
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    assert_eq!(binstall["bin-dir"].as_str(), Some("{ bin }{ binary-ext }"), "the binary at the archive's top level");

    let script = std::fs::read_to_string(root().join("ci/install.sh")).unwrap();
    assert!(script.contains("asset=\"gauntlet-v$version-$target.tar.gz\""));
    assert!(script.contains("link=\"$url/releases/download/v$version/$asset\""));

    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(
        workflow.contains(
            "tar -czf \"dist/$prefix-v$VERSION-$TARGET.tar.gz\" -C \"target/$TARGET/release\" \"gauntlet$exe\""
        )
    );
    let doc = YamlLoader::load_from_str(&workflow).unwrap().remove(0);
    let matrix = doc["jobs"]["build"]["strategy"]["matrix"]["include"].as_vec().unwrap();
    let hosted: Vec<&str> = matrix
        .iter()
        .filter(|m| m["flavour"].as_str() == Some("hosted"))
        .filter_map(|m| m["target"].as_str())
        .collect();
    // Every platform install.sh detects has its archive, at the address binstall asks for.
    for target in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(hosted.contains(&target), "the release builds no hosted archive for {target}");
        assert_eq!(
            render(target),
            format!(
                "https://github.com/gauntlet-review/gauntlet/releases/download/v0.1.0/gauntlet-v0.1.0-{target}.tar.gz"
            )
        );
    }
}
