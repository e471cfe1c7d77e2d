//! Prior review comments from the code host, in a pull-request pipeline, with the
//! token the pipeline already has (the same one `gauntlet ci` posts with): GitHub's
//! pull request review comments, GitLab's merge request diff notes, Azure DevOps'
//! pull request threads. Cached under `.git/gauntlet/feedback/` so repeated runs
//! within an hour do not ask again, and read from the cache, however old, when the
//! host cannot be reached.

use crate::ci_env::{self, HostConfig};
use crate::settings::Env;
use anyhow::{Context as _, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_publish::history::{self, Scope};
use gauntlet_review::context::feedback::{self, Comment, Dismissal};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Earlier pull requests read (GitLab, Azure: one request each), and pages of 100
/// comments (GitHub): recent feedback matters most.
const MAX_PULL_REQUESTS: usize = 20;
const MAX_PAGES: u32 = 3;
const FRESH: Duration = Duration::from_secs(3600);

/// Comments from the host when running in a pull-request pipeline; `None` elsewhere.
pub fn load(git: &Git, env: &Env) -> Result<Option<(Vec<Comment>, String)>> {
    let Ok(ctx) = ci_env::detect(env) else {
        return Ok(None);
    };
    let host = match ctx.host {
        Ok(host) => host,
        Err(why) => {
            eprintln!("gauntlet: warning: no prior review comments from {}: {why}", ctx.system);
            return Ok(None);
        }
    };
    let (source, key, current) = describe(&host);
    let cache = cache_file(git, &key)?;
    let earlier = |c: Vec<Comment>| c.into_iter().filter(|c| c.pr != Some(current)).collect::<Vec<_>>();
    if let Some(cached) = read_cache(&cache, true) {
        return Ok(Some((earlier(cached), format!("{source} (cached)"))));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    match runtime.block_on(fetch(&host)) {
        Ok(comments) => {
            if let Err(e) = write_cache(&cache, &comments) {
                eprintln!("gauntlet: warning: could not cache review comments under .git/gauntlet: {e}");
            }
            Ok(Some((earlier(comments), source)))
        }
        Err(e) => {
            eprintln!("gauntlet: warning: could not read earlier review comments: {e:#}");
            Ok(read_cache(&cache, false).map(|c| (earlier(c), format!("{source} (stale cache)"))))
        }
    }
}

/// Earlier pull requests whose counted dismissals are read for prior feedback: the
/// read asks for one listing page or two, each pull request's threads, and each
/// dismisser's write access once.
const DISMISSAL_PULLS: usize = 15;

/// Reasons given for counted dismissals of the pipeline's findings on the
/// repository's recent merged or closed pull requests, when running in a
/// pull-request pipeline; empty elsewhere. Read the way `gauntlet stats` reads
/// outcomes (so only people allowed to dismiss count: writers, and the author
/// when `author_may_dismiss`), cached under `.git/gauntlet/feedback/` for an hour.
pub fn load_dismissals(git: &Git, env: &Env, author_may_dismiss: bool) -> Vec<Dismissal> {
    let Ok(ctx) = ci_env::detect(env) else {
        return Vec::new();
    };
    let Ok(host) = ctx.host else {
        return Vec::new();
    };
    let (_, key, _) = describe(&host);
    let policy = if author_may_dismiss { "author" } else { "writers" };
    let Ok(cache) = cache_file(git, &format!("{key}-dismissals-{policy}")) else {
        return Vec::new();
    };
    let read_cached = |fresh_only: bool| -> Option<Vec<Dismissal>> {
        let age =
            SystemTime::now().duration_since(std::fs::metadata(&cache).ok()?.modified().ok()?).unwrap_or_default();
        if fresh_only && age > FRESH {
            return None;
        }
        serde_json::from_str(&std::fs::read_to_string(&cache).ok()?).ok()
    };
    if let Some(cached) = read_cached(true) {
        return cached;
    }
    match read_dismissals(&host, author_may_dismiss) {
        Ok(found) => {
            let written = std::fs::create_dir_all(cache.parent().expect("cache file has a folder"))
                .and_then(|()| std::fs::write(&cache, serde_json::to_string(&found).expect("dismissals serialise")));
            if let Err(e) = written {
                eprintln!("gauntlet: warning: could not cache dismissals under .git/gauntlet: {e}");
            }
            found
        }
        Err(e) => {
            eprintln!("gauntlet: warning: could not read earlier dismissals: {e:#}");
            read_cached(false).unwrap_or_default()
        }
    }
}

fn read_dismissals(host: &HostConfig, author_may_dismiss: bool) -> Result<Vec<Dismissal>> {
    let history = host.history(None)?;
    let scope = Scope { last: DISMISSAL_PULLS, since: None, policy: gauntlet_publish::Policy { author_may_dismiss } };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let read = runtime.block_on(history::read(history.as_ref(), &scope))?;
    Ok(read
        .dismissed
        .into_iter()
        .filter_map(|d| {
            Some(Dismissal {
                path: d.path,
                pr: d.pr,
                claim: d.claim,
                reason: d.reason.filter(|r| !r.trim().is_empty())?,
            })
        })
        .collect())
}

/// What the comments are called in notes, their cache key, and the pull request
/// under review (whose own comments are not "earlier" feedback).
fn describe(host: &HostConfig) -> (String, String, u64) {
    match host {
        HostConfig::GitHub(c) => {
            (format!("GitHub review comments of {}", c.repository), format!("github-{}", c.repository), c.number)
        }
        HostConfig::GitLab(c) => (
            format!("GitLab merge request notes of project {}", c.project),
            format!("gitlab-{}", c.project),
            c.merge_request,
        ),
        HostConfig::Azure(c) => (
            format!("Azure DevOps pull request threads of {}", c.repository),
            format!("azure-{}-{}", c.project, c.repository),
            c.pull_request,
        ),
    }
}

async fn fetch(host: &HostConfig) -> Result<Vec<Comment>> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build()?;
    match host {
        HostConfig::GitHub(c) => {
            let auth = ("authorization", format!("Bearer {}", c.token));
            let mut out = Vec::new();
            for page in 1..=MAX_PAGES {
                let url = format!(
                    "{}/repos/{}/pulls/comments?sort=created&direction=desc&per_page=100&page={page}",
                    c.api_url.trim_end_matches('/'),
                    c.repository
                );
                let batch = get(&client, &url, &auth).await?;
                let items = batch.as_array().cloned().unwrap_or_default();
                out.extend(items.iter().filter_map(github_comment));
                if items.len() < 100 {
                    break;
                }
            }
            Ok(out)
        }
        HostConfig::GitLab(c) => {
            let auth = ("private-token", c.token.clone());
            let project = format!("{}/projects/{}", c.api_url.trim_end_matches('/'), encode(&c.project));
            let url = format!(
                "{project}/merge_requests?state=merged&order_by=updated_at&sort=desc&per_page={MAX_PULL_REQUESTS}"
            );
            let mut out = Vec::new();
            for iid in ids(&get(&client, &url, &auth).await?, "/iid") {
                let url = format!("{project}/merge_requests/{iid}/discussions?per_page=100");
                let discussions = get(&client, &url, &auth).await?;
                let notes =
                    discussions.as_array().into_iter().flatten().filter_map(|d| d["notes"].as_array()).flatten();
                out.extend(notes.filter_map(|n| gitlab_note(n, iid)));
            }
            Ok(out)
        }
        HostConfig::Azure(c) => {
            let auth = ("authorization", format!("Bearer {}", c.token));
            let repo = format!(
                "{}/{}/_apis/git/repositories/{}",
                c.collection_uri.trim_end_matches('/'),
                encode(&c.project),
                encode(&c.repository)
            );
            let url =
                format!("{repo}/pullrequests?searchCriteria.status=completed&$top={MAX_PULL_REQUESTS}&api-version=7.1");
            let mut out = Vec::new();
            for id in ids(&get(&client, &url, &auth).await?["value"], "/pullRequestId") {
                let threads = get(&client, &format!("{repo}/pullRequests/{id}/threads?api-version=7.1"), &auth).await?;
                out.extend(threads["value"].as_array().into_iter().flatten().flat_map(|t| azure_thread(t, id)));
            }
            Ok(out)
        }
    }
}

/// One GET, decoded; the error names the host's answer, never the token.
async fn get(client: &reqwest::Client, url: &str, auth: &(&str, String)) -> Result<Value> {
    let resp = client
        .get(url)
        .header(auth.0, &auth.1)
        .header("accept", "application/json")
        .header("user-agent", "gauntlet")
        .send()
        .await
        .with_context(|| format!("GET {}", url.split('?').next().unwrap_or(url)))?;
    let status = resp.status();
    if !status.is_success() {
        bail!("{} answered {status}", url.split('?').next().unwrap_or(url));
    }
    gauntlet_publish::read_json(resp).await.map_err(anyhow::Error::msg).context("decoding the code host's answer")
}

fn ids(list: &Value, pointer: &str) -> Vec<u64> {
    list.as_array().into_iter().flatten().filter_map(|v| v.pointer(pointer)?.as_u64()).take(MAX_PULL_REQUESTS).collect()
}

fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)?.as_str().map(str::to_string)
}

fn line(v: &Value, pointers: &[&str]) -> Option<u32> {
    pointers.iter().find_map(|p| v.pointer(p)?.as_u64()).map(|l| l as u32)
}

fn github_comment(c: &Value) -> Option<Comment> {
    let pr = text(c, "/pull_request_url").and_then(|u| u.rsplit('/').next()?.parse().ok());
    Some(Comment {
        path: text(c, "/path")?,
        body: text(c, "/body")?,
        pr,
        line: line(c, &["/line", "/original_line"]),
        author: text(c, "/user/login"),
        created_at: text(c, "/created_at"),
        url: text(c, "/html_url"),
    })
}

/// A diff note (not a system note) of merge request `iid`.
fn gitlab_note(n: &Value, iid: u64) -> Option<Comment> {
    if n["system"].as_bool() == Some(true) {
        return None;
    }
    Some(Comment {
        path: text(n, "/position/new_path").or_else(|| text(n, "/position/old_path"))?,
        body: text(n, "/body")?,
        pr: Some(iid),
        line: line(n, &["/position/new_line", "/position/old_line"]),
        author: text(n, "/author/username"),
        created_at: text(n, "/created_at"),
        url: None,
    })
}

/// The human comments of a file thread of pull request `id`.
fn azure_thread(t: &Value, id: u64) -> Vec<Comment> {
    let Some(path) = text(t, "/threadContext/filePath") else {
        return Vec::new();
    };
    let path = path.trim_start_matches('/').to_string();
    let line = line(t, &["/threadContext/rightFileStart/line", "/threadContext/leftFileStart/line"]);
    let comments = t["comments"].as_array().into_iter().flatten();
    comments
        .filter(|c| c["commentType"].as_str() != Some("system"))
        .filter_map(|c| {
            Some(Comment {
                path: path.clone(),
                body: text(c, "/content")?,
                pr: Some(id),
                line,
                author: text(c, "/author/displayName"),
                created_at: text(c, "/publishedDate"),
                url: None,
            })
        })
        .collect()
}

/// Percent-encode a path segment (a GitLab project path, an Azure project name).
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn cache_file(git: &Git, key: &str) -> Result<PathBuf> {
    let common = git.common_dir()?;
    let name: String = key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    Ok(common.join("gauntlet").join("feedback").join(format!("{name}.jsonl")))
}

/// The cached comments; with `fresh_only`, only when written within the hour.
fn read_cache(path: &Path, fresh_only: bool) -> Option<Vec<Comment>> {
    let age = SystemTime::now().duration_since(std::fs::metadata(path).ok()?.modified().ok()?).unwrap_or_default();
    if fresh_only && age > FRESH {
        return None;
    }
    feedback::parse_jsonl(&path.display().to_string(), &std::fs::read_to_string(path).ok()?).ok()
}

fn write_cache(path: &Path, comments: &[Comment]) -> Result<()> {
    std::fs::create_dir_all(path.parent().expect("cache file has a folder"))?;
    std::fs::write(path, feedback::to_jsonl(comments))?;
    Ok(())
}
