//! Which CI system is running `gauntlet ci`, which pull request it is for, and
//! which commits to review: read from the environment the CI system sets, and
//! from GitHub's event file. Base and head are always the pull request's own
//! commits, never the merge commit a CI system checks out.

use crate::settings::Env;
use anyhow::{Context, Result, bail};
use gauntlet_publish::history::History;
use gauntlet_publish::{PublishError, azure, github, gitlab};

/// The base side as the CI system names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaseRef {
    Commit(String),
    /// A target branch name (Azure Pipelines gives no base commit).
    Branch(String),
}

/// Where to post, or why posting is impossible (a missing token): the review
/// still runs and is printed.
#[derive(Clone, Debug)]
pub enum HostConfig {
    GitHub(github::Config),
    GitLab(gitlab::Config),
    Azure(azure::Config),
}

impl HostConfig {
    /// A reader of the repository's pull request history through this host, sending
    /// at most `calls` requests when a budget is given.
    pub fn history(&self, calls: Option<usize>) -> Result<Box<dyn History>, PublishError> {
        let calls = calls.unwrap_or(usize::MAX);
        Ok(match self.clone() {
            HostConfig::GitHub(c) => Box::new(github::GitHub::new(c)?.limit_calls(calls)),
            HostConfig::GitLab(c) => Box::new(gitlab::GitLab::new(c)?.limit_calls(calls)),
            HostConfig::Azure(c) => Box::new(azure::Azure::new(c)?.limit_calls(calls)),
        })
    }

    /// The repository, as `gauntlet stats` names it: `GitHub o/r`, `GitLab project
    /// 12`, `Azure DevOps repository <id>`.
    pub fn repository(&self) -> String {
        match self {
            HostConfig::GitHub(c) => format!("GitHub {}", c.repository),
            HostConfig::GitLab(c) => format!("GitLab project {}", c.project),
            HostConfig::Azure(c) => format!("Azure DevOps repository {}", c.repository),
        }
    }
}

#[derive(Clone, Debug)]
pub struct CiContext {
    /// "GitHub Actions", "GitLab CI" or "Azure Pipelines".
    pub system: &'static str,
    pub base: BaseRef,
    pub head: String,
    pub host: Result<HostConfig, String>,
    /// Where the job summary goes (`GITHUB_STEP_SUMMARY`), when the system has one.
    pub summary_file: Option<std::path::PathBuf>,
    /// The run's page, for the check run or pull request status to link to, when
    /// the system's variables say where it is.
    pub details_url: Option<String>,
    /// Who this run belongs to when the CI system withholds the repository's
    /// secrets from it by design ("pull requests from forks"), read from what the
    /// system itself records about the pull request; `None` for a run of the
    /// repository's own branches, where a missing key is a misconfiguration.
    pub withheld: Option<&'static str>,
}

/// Whom GitHub, GitLab and Azure Pipelines give no secrets: a pull request whose
/// source is another repository (or project).
pub const FORKS: &str = "pull requests from forks";
/// GitHub runs a workflow Dependabot triggers as it runs a fork's: no secrets
/// of Actions, a read-only token.
pub const DEPENDABOT: &str = "pull requests Dependabot opens";

const OUTSIDE: &str = "`gauntlet ci` runs only inside a pull-request pipeline (GitHub Actions, GitLab CI or \
Azure Pipelines), where it posts with the pipeline's own token; to review on this machine use `gauntlet review`, \
which only prints";

/// Detect the CI system and read the pull request's context.
pub fn detect(env: &Env) -> Result<CiContext> {
    let is = |name: &str| env(name).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if is("GITHUB_ACTIONS") {
        github_context(env)
    } else if is("GITLAB_CI") {
        gitlab_context(env)
    } else if is("TF_BUILD") {
        azure_context(env)
    } else {
        bail!("{OUTSIDE}")
    }
}

fn required(env: &Env, name: &str, system: &str) -> Result<String> {
    env(name).with_context(|| format!("{name} is not set: {system} sets it in a pull-request pipeline"))
}

fn token(env: &Env, names: &[&str], fix: &str) -> Result<String, String> {
    names.iter().find_map(|n| env(n)).ok_or_else(|| format!("{} is not set: {fix}", names.join(" or ")))
}

fn github_context(env: &Env) -> Result<CiContext> {
    // A workflow that reviews fork pull requests runs on `workflow_run`, with the
    // repository's secrets, and writes the pull request's event itself from the
    // API (ci/github-fork-review.yml): that file stands in for GitHub's own.
    let relayed = env("GAUNTLET_EVENT_PATH");
    let path = match &relayed {
        Some(path) => path.clone(),
        None => required(env, "GITHUB_EVENT_PATH", "GitHub Actions")?,
    };
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read the event file {path}"))?;
    let event: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{path} is not JSON"))?;
    let pr = &event["pull_request"];
    let (Some(base), Some(head), Some(number)) =
        (pr["base"]["sha"].as_str(), pr["head"]["sha"].as_str(), pr["number"].as_u64())
    else {
        let name = env("GITHUB_EVENT_NAME").unwrap_or_else(|| "this event".into());
        bail!("`gauntlet ci` reviews pull requests, and {name} is not one: trigger the workflow `on: pull_request`");
    };
    let token = token(env, &["GITHUB_TOKEN"], "pass it to the step (`env: GITHUB_TOKEN: ${{ github.token }}`)");
    let host = token.map(|token| {
        HostConfig::GitHub(github::Config {
            api_url: env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
            graphql_url: env("GITHUB_GRAPHQL_URL"),
            repository: env("GITHUB_REPOSITORY").unwrap_or_default(),
            number,
            token,
            login: env("GAUNTLET_GITHUB_LOGIN").unwrap_or_else(|| "github-actions[bot]".into()),
        })
    });
    Ok(CiContext {
        system: "GitHub Actions",
        base: BaseRef::Commit(base.into()),
        head: head.into(),
        host,
        summary_file: env("GITHUB_STEP_SUMMARY").map(Into::into),
        details_url: github_run_url(env),
        // The relaying workflow holds the secrets, whoever opened the pull request.
        withheld: if relayed.is_some() { None } else { github_withheld(pr, env) },
    })
}

fn gitlab_context(env: &Env) -> Result<CiContext> {
    let Some(iid) = env("CI_MERGE_REQUEST_IID") else {
        bail!(
            "`gauntlet ci` reviews merge requests: run the job in a merge-request pipeline (`rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"`)"
        );
    };
    let iid: u64 = iid.parse().with_context(|| format!("CI_MERGE_REQUEST_IID `{iid}` is not a number"))?;
    let base = required(env, "CI_MERGE_REQUEST_DIFF_BASE_SHA", "GitLab CI")?;
    // In a merged-results pipeline CI_COMMIT_SHA is the merge commit; the
    // source branch's own head is this variable.
    let head = env("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA").or_else(|| env("CI_COMMIT_SHA"));
    let head = head.context("neither CI_MERGE_REQUEST_SOURCE_BRANCH_SHA nor CI_COMMIT_SHA is set")?;
    let token = token(
        env,
        &["GAUNTLET_GITLAB_TOKEN", "GITLAB_TOKEN"],
        "the job token cannot post notes; add a project access token with the `api` scope as a masked CI/CD variable \
         (one marked protected reaches only pipelines of protected branches)",
    );
    let host = token.and_then(|token| {
        Ok(HostConfig::GitLab(gitlab::Config {
            api_url: env("CI_API_V4_URL").ok_or("CI_API_V4_URL is not set")?,
            project: env("CI_PROJECT_ID").ok_or("CI_PROJECT_ID is not set")?,
            merge_request: iid,
            token,
        }))
    });
    Ok(CiContext {
        system: "GitLab CI",
        base: BaseRef::Commit(base),
        head,
        host,
        summary_file: None,
        details_url: env("CI_JOB_URL"),
        withheld: gitlab_fork(env).then_some(FORKS),
    })
}

fn azure_context(env: &Env) -> Result<CiContext> {
    let Some(id) = env("SYSTEM_PULLREQUEST_PULLREQUESTID") else {
        bail!(
            "`gauntlet ci` reviews pull requests: run the pipeline from a pull request (a build validation branch policy)"
        );
    };
    let pull_request: u64 =
        id.parse().with_context(|| format!("SYSTEM_PULLREQUEST_PULLREQUESTID `{id}` is not a number"))?;
    let head = required(env, "SYSTEM_PULLREQUEST_SOURCECOMMITID", "Azure Pipelines")?;
    let target = required(env, "SYSTEM_PULLREQUEST_TARGETBRANCH", "Azure Pipelines")?;
    let branch = target.strip_prefix("refs/heads/").unwrap_or(&target).to_string();
    let token =
        token(env, &["SYSTEM_ACCESSTOKEN"], "map it in the step (`env: SYSTEM_ACCESSTOKEN: $(System.AccessToken)`)");
    let host = token.and_then(|token| {
        Ok(HostConfig::Azure(azure::Config {
            collection_uri: env("SYSTEM_COLLECTIONURI").ok_or("SYSTEM_COLLECTIONURI is not set")?,
            project: env("SYSTEM_TEAMPROJECT").ok_or("SYSTEM_TEAMPROJECT is not set")?,
            repository: env("BUILD_REPOSITORY_ID").ok_or("BUILD_REPOSITORY_ID is not set")?,
            pull_request,
            token,
        }))
    });
    Ok(CiContext {
        system: "Azure Pipelines",
        base: BaseRef::Branch(branch),
        head,
        host,
        summary_file: None,
        details_url: azure_build_url(env),
        withheld: env("SYSTEM_PULLREQUEST_ISFORK").is_some_and(|v| v.eq_ignore_ascii_case("true")).then_some(FORKS),
    })
}

/// Whether GitHub withholds secrets from this pull request's run. The head
/// repository is compared with the base one, never `head.repo.fork` alone: a
/// branch inside a repository that is itself a fork says `fork: true` and still
/// gets that repository's secrets. A head repository that was deleted (`null`)
/// was another repository. An event without repositories (a hand-made one)
/// counts as the repository's own.
fn github_withheld(pr: &serde_json::Value, env: &Env) -> Option<&'static str> {
    let same = |key: &str| match (&pr["head"]["repo"][key], &pr["base"]["repo"][key]) {
        (serde_json::Value::Null, _) | (_, serde_json::Value::Null) => None,
        (head, base) => Some(head == base),
    };
    let head_deleted = pr["head"].get("repo").is_some_and(serde_json::Value::is_null);
    if head_deleted || same("id").or_else(|| same("full_name")) == Some(false) {
        return Some(FORKS);
    }
    (env("GITHUB_ACTOR").as_deref() == Some("dependabot[bot]")).then_some(DEPENDABOT)
}

/// Whether the merge request's source project is not the one it targets. The
/// target is `CI_MERGE_REQUEST_PROJECT_ID` (where the merge request lives); a
/// pipeline a maintainer runs in the parent project for a fork has
/// `CI_PROJECT_ID` of the parent, one in the fork has the fork's, so the
/// comparison holds in both.
fn gitlab_fork(env: &Env) -> bool {
    let Some(source) = env("CI_MERGE_REQUEST_SOURCE_PROJECT_ID") else { return false };
    let target = env("CI_MERGE_REQUEST_PROJECT_ID").or_else(|| env("CI_PROJECT_ID"));
    target.is_some_and(|target| target != source)
}

/// `{server}/{owner/name}/actions/runs/{id}`: the workflow run's page.
fn github_run_url(env: &Env) -> Option<String> {
    let server = env("GITHUB_SERVER_URL")?;
    Some(format!(
        "{}/{}/actions/runs/{}",
        server.trim_end_matches('/'),
        env("GITHUB_REPOSITORY")?,
        env("GITHUB_RUN_ID")?
    ))
}

/// `{collection}{project}/_build/results?buildId={id}`: the build's page.
fn azure_build_url(env: &Env) -> Option<String> {
    let collection = env("SYSTEM_COLLECTIONURI")?;
    let project: String = env("SYSTEM_TEAMPROJECT")?
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let build = env("BUILD_BUILDID")?;
    Some(format!("{}/{project}/_build/results?buildId={build}", collection.trim_end_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn outside_ci_is_refused_with_the_local_alternative() {
        let err = detect(&env_of(&[])).unwrap_err().to_string();
        assert!(err.contains("gauntlet review") && err.contains("only prints"), "{err}");
    }

    #[test]
    fn github_takes_base_and_head_from_the_event_not_the_merge_commit() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, r#"{"pull_request":{"number":9,"base":{"sha":"b1"},"head":{"sha":"h1"}}}"#).unwrap();
        let path = event.to_str().unwrap();
        let env = env_of(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_PATH", path),
            ("GITHUB_SHA", "merge-commit"),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_TOKEN", "t"),
        ]);
        let ctx = detect(&env).unwrap();
        assert_eq!((ctx.base, ctx.head.as_str()), (BaseRef::Commit("b1".into()), "h1"));
        let Ok(HostConfig::GitHub(c)) = ctx.host else { panic!("GitHub config") };
        assert_eq!((c.number, c.api_url.as_str()), (9, "https://api.github.com"));
    }

    #[test]
    fn a_push_event_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, r#"{"ref":"refs/heads/main"}"#).unwrap();
        let env = env_of(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_EVENT_NAME", "push"),
        ]);
        let err = detect(&env).unwrap_err().to_string();
        assert!(err.contains("push is not one") && err.contains("on: pull_request"), "{err}");
    }

    #[test]
    fn gitlab_prefers_the_source_branch_head_and_needs_a_real_token() {
        let env = env_of(&[
            ("GITLAB_CI", "true"),
            ("CI_MERGE_REQUEST_IID", "3"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", "b"),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", "h"),
            ("CI_COMMIT_SHA", "merged-result"),
            ("CI_JOB_TOKEN", "job"),
        ]);
        let ctx = detect(&env).unwrap();
        assert_eq!(ctx.head, "h");
        let why = ctx.host.unwrap_err();
        assert!(why.contains("GAUNTLET_GITLAB_TOKEN") && why.contains("job token cannot post"), "{why}");
    }

    #[test]
    fn azure_reads_the_target_branch_and_source_commit() {
        let env = env_of(&[
            ("TF_BUILD", "True"),
            ("SYSTEM_PULLREQUEST_PULLREQUESTID", "5"),
            ("SYSTEM_PULLREQUEST_SOURCECOMMITID", "h"),
            ("SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/main"),
            ("SYSTEM_ACCESSTOKEN", "t"),
            ("SYSTEM_COLLECTIONURI", "https://dev.azure.com/org/"),
            ("SYSTEM_TEAMPROJECT", "P"),
            ("BUILD_REPOSITORY_ID", "r"),
        ]);
        let ctx = detect(&env).unwrap();
        assert_eq!(ctx.base, BaseRef::Branch("main".into()));
        assert!(matches!(ctx.host, Ok(HostConfig::Azure(_))));
    }
}

#[cfg(test)]
mod withheld_tests {
    use super::*;
    use serde_json::json;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn github_compares_the_head_repository_with_the_base_never_trusting_the_fork_flag_alone() {
        let pr =
            |head: serde_json::Value| json!({"base": {"repo": {"id": 1, "full_name": "o/r"}}, "head": {"repo": head}});
        let none = vars(&[]);
        assert_eq!(github_withheld(&pr(json!({"id": 2, "full_name": "m/r", "fork": true})), &none), Some(FORKS));
        assert_eq!(github_withheld(&pr(json!(null)), &none), Some(FORKS), "a deleted head repository");
        assert_eq!(github_withheld(&pr(json!({"id": 1, "full_name": "o/r", "fork": true})), &none), None);
        assert_eq!(github_withheld(&json!({"head": {"sha": "h"}}), &none), None, "an event without repositories");
        let dependabot = vars(&[("GITHUB_ACTOR", "dependabot[bot]")]);
        assert_eq!(github_withheld(&pr(json!({"id": 1, "full_name": "o/r"})), &dependabot), Some(DEPENDABOT));
    }

    #[test]
    fn gitlab_and_azure_read_the_fork_from_their_own_variables() {
        assert!(gitlab_fork(&vars(&[
            ("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", "9"),
            ("CI_MERGE_REQUEST_PROJECT_ID", "7")
        ])));
        // A pipeline of the fork itself: CI_PROJECT_ID is the source, the target differs.
        assert!(gitlab_fork(&vars(&[
            ("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", "9"),
            ("CI_MERGE_REQUEST_PROJECT_ID", "7"),
            ("CI_PROJECT_ID", "9")
        ])));
        assert!(!gitlab_fork(&vars(&[
            ("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", "7"),
            ("CI_MERGE_REQUEST_PROJECT_ID", "7")
        ])));
        assert!(!gitlab_fork(&vars(&[("CI_PROJECT_ID", "7")])), "nothing says it is a fork");
        let azure = |fork: &'static str| {
            let pairs: &'static [(&'static str, &'static str)] = Box::leak(Box::new([
                ("TF_BUILD", "True"),
                ("SYSTEM_PULLREQUEST_PULLREQUESTID", "5"),
                ("SYSTEM_PULLREQUEST_SOURCECOMMITID", "h"),
                ("SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/main"),
                ("SYSTEM_PULLREQUEST_ISFORK", fork),
            ]));
            detect(&vars(pairs)).unwrap().withheld
        };
        assert_eq!((azure("True"), azure("False")), (Some(FORKS), None));
    }
}

#[cfg(test)]
mod details_url_tests {
    use super::*;

    #[test]
    fn the_run_page_is_built_from_the_systems_variables_or_left_out() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let github = vars(&[
            ("GITHUB_SERVER_URL", "https://github.com/"),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_RUN_ID", "42"),
        ]);
        assert_eq!(github_run_url(&github).as_deref(), Some("https://github.com/o/r/actions/runs/42"));
        assert_eq!(github_run_url(&vars(&[("GITHUB_SERVER_URL", "https://github.com")])), None);
        let azure = vars(&[
            ("SYSTEM_COLLECTIONURI", "https://dev.azure.com/org/"),
            ("SYSTEM_TEAMPROJECT", "My Project"),
            ("BUILD_BUILDID", "7"),
        ]);
        let url = azure_build_url(&azure);
        assert_eq!(url.as_deref(), Some("https://dev.azure.com/org/My%20Project/_build/results?buildId=7"));
    }
}
