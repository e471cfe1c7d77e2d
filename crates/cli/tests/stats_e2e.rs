//! `gauntlet stats` against the stateful repository fake the publisher's tests
//! use: the figures computed by hand in `crates/publish/tests/history.rs`.

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use fakes::repo::{FakeRepo, Kind, scenario};
use serde_json::Value;

async fn stats(fake: &FakeRepo, args: &[&str]) -> (bool, String, String) {
    let uri = fake.server.uri();
    let kind = fake.kind;
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut cmd = assert_cmd::Command::cargo_bin("gauntlet").unwrap();
        cmd.current_dir(&path).arg("stats").args(&args);
        // The host is chosen by which of these is set: only the fake's.
        for var in
            ["GITHUB_REPOSITORY", "GITHUB_GRAPHQL_URL", "GAUNTLET_GITHUB_LOGIN", "CI_PROJECT_ID", "BUILD_REPOSITORY_ID"]
        {
            cmd.env_remove(var);
        }
        match kind {
            Kind::GitHub => {
                cmd.env("GITHUB_REPOSITORY", "o/r").env("GITHUB_API_URL", &uri).env("GITHUB_TOKEN", "ghs_faketoken")
            }
            Kind::GitLab => cmd
                .env("CI_PROJECT_ID", "7")
                .env("CI_API_V4_URL", format!("{uri}/api/v4"))
                .env("GAUNTLET_GITLAB_TOKEN", "glpat-fake"),
            Kind::Azure => cmd
                .env("BUILD_REPOSITORY_ID", "repo-id")
                .env("SYSTEM_COLLECTIONURI", format!("{uri}/org/"))
                .env("SYSTEM_TEAMPROJECT", "My Project")
                .env("SYSTEM_ACCESSTOKEN", "azure-fake-token"),
        };
        let out = cmd.output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn json_and_terminal_give_the_hand_counted_figures() {
    let mut repo = scenario(Kind::GitHub);
    repo.rate_limit_at = Some(1);
    let fake = FakeRepo::start(Kind::GitHub, repo).await;
    let (ok, out, err) = stats(&fake, &["--format", "json"]).await;
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let total = &v["total"];
    let counts: Vec<u64> =
        ["fixed", "withdrawn", "dismissed", "ignored", "open"].iter().map(|k| total[k].as_u64().unwrap()).collect();
    assert_eq!(counts, vec![3, 2, 3, 3, 0]);
    assert_eq!(total["precision"], 0.5);
    assert_eq!(v["per_reviewer"]["security"]["fixed"], 3);
    assert_eq!(v["per_month"]["2024-01"]["fixed"], 1);
    assert_eq!(v["left_out_edited"], 2);
    assert_eq!(v["left_out_unreadable"], 1);
    assert_eq!(v["partial"], Value::Null);
    assert!(fake.repo().log.iter().any(|l| l.starts_with("429")));

    let (ok, out, err) = stats(&fake, &["--last", "2"]).await;
    assert!(ok, "{err}");
    assert!(out.contains("2 merged or closed pull request(s), closed 2024-02-10 to 2024-03-05"), "{out}");
    assert!(out.contains("published 10: fixed 2, withdrawn 2, dismissed 3, ignored 3, open 0"), "{out}");
    assert!(out.contains("precision in the wild 40%"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_date_or_format_is_refused() {
    let fake = FakeRepo::start(Kind::GitHub, scenario(Kind::GitHub)).await;
    let (ok, _, err) = stats(&fake, &["--since", "March"]).await;
    assert!(!ok && err.contains("YYYY-MM-DD"), "{err}");
    let (ok, _, err) = stats(&fake, &["--format", "xml"]).await;
    assert!(!ok && err.contains("terminal, json or html"), "{err}");
    assert!(fake.repo().log.is_empty(), "nothing asked of the host");
}

/// GitLab and Azure DevOps through the same variables `gauntlet ci` reads: the
/// same hand counts (Azure DevOps records no edits, so nothing is left out there).
#[tokio::test(flavor = "multi_thread")]
async fn gitlab_and_azure_give_the_same_figures() {
    for (kind, edited, name) in
        [(Kind::GitLab, 2, "GitLab project 7"), (Kind::Azure, 0, "Azure DevOps repository repo-id")]
    {
        let fake = FakeRepo::start(kind, scenario(kind)).await;
        let (ok, out, err) = stats(&fake, &["--format", "json"]).await;
        assert!(ok, "{kind:?}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["repository"], name);
        let total = &v["total"];
        let counts: Vec<u64> =
            ["fixed", "withdrawn", "dismissed", "ignored", "open"].iter().map(|k| total[k].as_u64().unwrap()).collect();
        assert_eq!(counts, vec![3, 2, 3, 3, 0], "{kind:?}");
        assert_eq!(v["per_reviewer"]["security"]["fixed"], 3, "{kind:?}");
        assert_eq!(v["per_month"]["2024-01"]["fixed"], 1, "{kind:?}");
        assert_eq!(v["left_out_edited"], edited, "{kind:?}");
        let numbers: Vec<u64> =
            v["pull_requests"].as_array().unwrap().iter().map(|p| p["number"].as_u64().unwrap()).collect();
        assert_eq!(numbers, vec![3, 2, 1], "{kind:?}");
    }
}
