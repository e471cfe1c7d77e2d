//! `gauntlet review --pr URL`: find a pull request's base and head through the
//! host's API (read only), fetch them into this clone when missing, and review
//! them like `--base BASE --head HEAD`. Nothing is posted: this is a reading
//! client, not the publisher.

use crate::args::ReviewArgs;
use crate::settings::Env;
use anyhow::{Context, Result, bail};
use gauntlet_change::git::Git;
use serde_json::Value;

/// A pull request named by its web URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrUrl {
    /// The API request that describes the pull request.
    pub api: String,
    pub host: Host,
    pub number: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    GitHub,
    GitLab,
    Azure,
}

/// What the API says about the pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrInfo {
    pub base: String,
    pub head: String,
    /// A ref that holds the head, for fetching it when its commit is not advertised.
    pub head_ref: String,
    pub draft: bool,
    pub author: Option<String>,
    pub title: Option<String>,
    pub body: Option<String>,
}

const FORMS: &str = "https://github.com/OWNER/REPO/pull/N, https://GITLAB/GROUP/PROJECT/-/merge_requests/N \
or https://dev.azure.com/ORG/PROJECT/_git/REPO/pullrequest/N";

/// Recognise a pull-request URL of GitHub (or GitHub Enterprise), GitLab or Azure DevOps.
pub fn parse(url: &str) -> Result<PrUrl> {
    let bad = || anyhow::anyhow!("`{url}` is not a pull-request URL: expected {FORMS}");
    let (scheme, rest) = url.trim().trim_end_matches('/').split_once("://").ok_or_else(bad)?;
    let (host, path) = rest.split_once('/').ok_or_else(bad)?;
    let origin = format!("{scheme}://{host}");
    let parts: Vec<&str> = path.split('/').collect();
    let number = |s: &str| s.parse::<u64>().map_err(|_| bad());
    if let Some(i) = parts.iter().position(|p| *p == "-").filter(|&i| parts.get(i + 1) == Some(&"merge_requests")) {
        let n = number(parts.get(i + 2).ok_or_else(bad)?)?;
        let project = parts[..i].join("/").replace('/', "%2F");
        return Ok(PrUrl {
            api: format!("{origin}/api/v4/projects/{project}/merge_requests/{n}"),
            host: Host::GitLab,
            number: n,
        });
    }
    if let Some(i) = parts.iter().position(|p| *p == "_git").filter(|&i| i >= 1) {
        let (repo, kind, n) = (parts.get(i + 1), parts.get(i + 2), parts.get(i + 3));
        let (Some(repo), Some(&"pullrequest"), Some(n)) = (repo, kind, n) else { return Err(bad()) };
        let n = number(n)?;
        let api =
            format!("{origin}/{}/_apis/git/repositories/{repo}/pullRequests/{n}?api-version=7.1", parts[..i].join("/"));
        return Ok(PrUrl { api, host: Host::Azure, number: n });
    }
    if let [owner, repo, "pull", n, ..] = parts.as_slice() {
        let api = if host == "github.com" { "https://api.github.com".to_string() } else { format!("{origin}/api/v3") };
        let n = number(n)?;
        return Ok(PrUrl { api: format!("{api}/repos/{owner}/{repo}/pulls/{n}"), host: Host::GitHub, number: n });
    }
    Err(bad())
}

/// `args` with `--base`/`--head` set to the pull request's commits (fetched if
/// missing), its draft state, author and title given to the gate, and its title and
/// description given to finders as the author's stated intent.
pub fn apply(git: &Git, args: &ReviewArgs, env: &Env) -> Result<ReviewArgs> {
    let Some(url) = &args.pr else { return Ok(args.clone()) };
    let pr = parse(url)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let info = runtime.block_on(fetch(&pr, env))?;
    for (what, sha, fallback) in [("base", &info.base, None), ("head", &info.head, Some(&info.head_ref))] {
        ensure(git, what, sha, fallback.map(String::as_str))?;
    }
    crate::progress::say!(
        "gauntlet: pull request {url}: reviewing {}..{} (print-only)",
        &info.base[..12.min(info.base.len())],
        &info.head[..12.min(info.head.len())]
    );
    let mut out = args.clone();
    out.change.base = Some(info.base);
    out.change.head = Some(info.head);
    out.pr_draft |= info.draft;
    out.pr_author = args.pr_author.clone().or(info.author);
    out.pr_title = args.pr_title.clone().or(info.title);
    out.pr_body = args.pr_body.clone().or(info.body);
    Ok(out)
}

async fn fetch(pr: &PrUrl, env: &Env) -> Result<PrInfo> {
    let mut request = reqwest::Client::new()
        .get(&pr.api)
        .header("Accept", "application/json")
        .header("User-Agent", concat!("gauntlet/", env!("CARGO_PKG_VERSION")))
        .timeout(std::time::Duration::from_secs(30));
    // A token is optional (public repositories need none) and never printed.
    let token = match pr.host {
        Host::GitHub => {
            env("GITHUB_TOKEN").or_else(|| env("GH_TOKEN")).map(|t| ("Authorization", format!("Bearer {t}")))
        }
        Host::GitLab => env("GAUNTLET_GITLAB_TOKEN").or_else(|| env("GITLAB_TOKEN")).map(|t| ("PRIVATE-TOKEN", t)),
        Host::Azure => env("AZURE_DEVOPS_TOKEN")
            .or_else(|| env("SYSTEM_ACCESSTOKEN"))
            .map(|t| ("Authorization", format!("Bearer {t}"))),
    };
    if let Some((name, value)) = token {
        request = request.header(name, value);
    }
    let response = request.send().await.with_context(|| format!("could not reach {}", pr.api))?;
    let status = response.status();
    if !status.is_success() {
        let hint =
            "check the URL; a private repository needs GITHUB_TOKEN, GAUNTLET_GITLAB_TOKEN or AZURE_DEVOPS_TOKEN";
        bail!("the host answered HTTP {} for {}: {hint}", status.as_u16(), pr.api);
    }
    let body: Value = gauntlet_publish::read_json(response)
        .await
        .map_err(anyhow::Error::msg)
        .context("the pull request's description could not be read")?;
    info(pr, &body).with_context(|| format!("unexpected answer from {}", pr.api))
}

fn info(pr: &PrUrl, v: &Value) -> Option<PrInfo> {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    Some(match pr.host {
        Host::GitHub => PrInfo {
            base: s("/base/sha")?,
            head: s("/head/sha")?,
            head_ref: format!("refs/pull/{}/head", pr.number),
            draft: v["draft"] == true,
            author: s("/user/login"),
            title: s("/title"),
            body: s("/body"),
        },
        Host::GitLab => PrInfo {
            base: s("/diff_refs/base_sha")?,
            head: s("/diff_refs/head_sha")?,
            head_ref: format!("refs/merge-requests/{}/head", pr.number),
            draft: v["draft"] == true || v["work_in_progress"] == true,
            author: s("/author/username"),
            title: s("/title"),
            body: s("/description"),
        },
        Host::Azure => PrInfo {
            base: s("/lastMergeTargetCommit/commitId")?,
            head: s("/lastMergeSourceCommit/commitId")?,
            head_ref: s("/sourceRefName")?,
            draft: v["isDraft"] == true,
            author: s("/createdBy/uniqueName"),
            title: s("/title"),
            body: s("/description"),
        },
    })
}

/// Make `sha` present: it may already be, else fetch it, else fetch `fallback`.
fn ensure(git: &Git, what: &str, sha: &str, fallback: Option<&str>) -> Result<()> {
    if git.try_resolve(sha)?.is_some() {
        return Ok(());
    }
    let _ = git.run(&["fetch", "--no-tags", "--quiet", "origin", sha]);
    if let (None, Some(r)) = (git.try_resolve(sha)?, fallback) {
        let _ = git.run(&["fetch", "--no-tags", "--quiet", "origin", r]);
    }
    if git.try_resolve(sha)?.is_none() {
        bail!(
            "the pull request's {what} commit {sha} is not in this clone and `git fetch origin` did not bring it: run gauntlet in a clone of the pull request's repository"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_each_host_and_names_the_api() {
        let gh = parse("https://github.com/o/r/pull/12/files").unwrap();
        assert_eq!((gh.api.as_str(), gh.host), ("https://api.github.com/repos/o/r/pulls/12", Host::GitHub));
        let ghe = parse("https://git.corp.example/o/r/pull/3").unwrap();
        assert_eq!(ghe.api, "https://git.corp.example/api/v3/repos/o/r/pulls/3");
        let gl = parse("https://gitlab.com/group/sub/proj/-/merge_requests/7").unwrap();
        assert_eq!(gl.api, "https://gitlab.com/api/v4/projects/group%2Fsub%2Fproj/merge_requests/7");
        let az = parse("https://dev.azure.com/org/Proj/_git/repo/pullrequest/5").unwrap();
        assert_eq!(az.api, "https://dev.azure.com/org/Proj/_apis/git/repositories/repo/pullRequests/5?api-version=7.1");
    }

    #[test]
    fn other_urls_are_refused_with_the_expected_forms() {
        let err = parse("https://github.com/o/r/issues/4").unwrap_err().to_string();
        assert!(err.contains("not a pull-request URL") && err.contains("/pull/N"), "{err}");
        assert!(parse("github.com/o/r/pull/4").is_err());
    }
}
