//! A git without `--attr-source` (before 2.40): `Git::attributes_from` refuses
//! with a message that names the version needed, rather than reading the
//! checkout's attributes. Alone in its test binary: it changes `PATH`.

mod common;

use common::Repo;
use gauntlet_change::ChangeError;
use std::os::unix::fs::PermissionsExt;

#[test]
fn a_git_without_attr_source_is_refused_with_the_version_it_needs() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let base = repo.commit("base");
    let real =
        String::from_utf8(std::process::Command::new("sh").args(["-c", "command -v git"]).output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
    let bin = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --attr-source=*) echo \"unknown option: $a\" >&2; exit 129;; esac; last=$a; done\n\
         [ \"$last\" = version ] && {{ echo 'git version 2.39.5'; exit 0; }}\nexec {real} \"$@\"\n"
    );
    let fake = bin.path().join("git");
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    // SAFETY: the only test in this binary; no other thread reads the environment.
    unsafe { std::env::set_var("PATH", path) };
    let err = repo.handle().attributes_from(&base).unwrap_err();
    assert!(matches!(err, ChangeError::GitTooOld { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("git 2.40 or later") && message.contains("2.39.5"), "{message}");
}
