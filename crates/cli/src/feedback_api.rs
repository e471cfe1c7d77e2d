//! Prior review comments from the code host, in CI, with the token the pipeline
//! already has. GitHub Actions is supported: one listing of the repository's pull
//! request review comments (newest first), cached under `.git/gauntlet/feedback/`
//! so repeated runs within an hour do not ask again, and used from the cache when
//! the host cannot be reached.

use crate::settings::Env;
use anyhow::{Context as _, Result};
use gauntlet_change::git::Git;
use gauntlet_review::context::feedback::{self, Comment};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Pages of 100 comments read; older comments matter less than recent ones.
const MAX_PAGES: u32 = 3;
const FRESH: Duration = Duration::from_secs(3600);

#[derive(Deserialize)]
struct GithubComment {
    path: String,
    body: String,
    line: Option<u32>,
    original_line: Option<u32>,
    user: Option<GithubUser>,
    created_at: Option<String>,
    html_url: Option<String>,
    pull_request_url: Option<String>,
}

#[derive(Deserialize)]
struct GithubUser {
    login: String,
}

/// Comments from the host when running in a CI the module knows; `None` elsewhere.
pub fn load(git: &Git, env: &Env) -> Result<Option<(Vec<Comment>, String)>> {
    if env("GITHUB_ACTIONS").as_deref() != Some("true") {
        return Ok(None);
    }
    let (Some(repo), Some(token)) = (env("GITHUB_REPOSITORY"), env("GITHUB_TOKEN")) else {
        eprintln!(
            "gauntlet: warning: no prior review comments: set GITHUB_TOKEN for the job (or export them to {})",
            feedback::EXPORT_FILE
        );
        return Ok(None);
    };
    let api = env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into());
    let cache = cache_file(git, &repo)?;
    let source = format!("GitHub review comments of {repo}");
    if let Some(cached) = read_cache(&cache, true) {
        return Ok(Some((without_pr(cached, current_pr(env)), format!("{source} (cached)"))));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    match runtime.block_on(fetch(&api, &repo, &token)) {
        Ok(comments) => {
            if let Err(e) = write_cache(&cache, &comments) {
                eprintln!("gauntlet: warning: could not cache review comments under .git/gauntlet: {e}");
            }
            Ok(Some((without_pr(comments, current_pr(env)), source)))
        }
        Err(e) => {
            eprintln!("gauntlet: warning: could not read review comments from GitHub: {e:#}");
            Ok(read_cache(&cache, false).map(|c| (without_pr(c, current_pr(env)), format!("{source} (stale cache)"))))
        }
    }
}

async fn fetch(api: &str, repo: &str, token: &str) -> Result<Vec<Comment>> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build()?;
    let mut out = Vec::new();
    for page in 1..=MAX_PAGES {
        let url = format!("{api}/repos/{repo}/pulls/comments?sort=created&direction=desc&per_page=100&page={page}");
        let resp = client
            .get(&url)
            .bearer_auth(token)
            .header("accept", "application/vnd.github+json")
            .header("user-agent", "gauntlet")
            .send()
            .await
            .with_context(|| format!("GET {api}/repos/{repo}/pulls/comments"))?;
        let status = resp.status();
        if !status.is_success() {
            anyhow::bail!("GitHub answered {status} for the pull request comments of {repo}");
        }
        let batch: Vec<GithubComment> = resp.json().await.context("decoding GitHub's comment list")?;
        let last = batch.len() < 100;
        out.extend(batch.into_iter().map(to_comment));
        if last {
            break;
        }
    }
    Ok(out)
}

fn to_comment(c: GithubComment) -> Comment {
    let pr = c.pull_request_url.as_deref().and_then(|u| u.rsplit('/').next()).and_then(|n| n.parse().ok());
    Comment {
        path: c.path,
        body: c.body,
        pr,
        line: c.line.or(c.original_line),
        author: c.user.map(|u| u.login),
        created_at: c.created_at,
        url: c.html_url,
    }
}

/// The pull request under review, whose own comments are not "earlier" feedback.
fn current_pr(env: &Env) -> Option<u64> {
    let event: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env("GITHUB_EVENT_PATH")?).ok()?).ok()?;
    event["pull_request"]["number"].as_u64()
}

fn without_pr(comments: Vec<Comment>, pr: Option<u64>) -> Vec<Comment> {
    comments.into_iter().filter(|c| pr.is_none() || c.pr != pr).collect()
}

fn cache_file(git: &Git, repo: &str) -> Result<PathBuf> {
    let out = git.run(&["rev-parse", "--git-common-dir"])?;
    let common = PathBuf::from(String::from_utf8_lossy(&out).trim());
    let common = if common.is_absolute() { common } else { git.root().join(common) };
    let name: String = repo.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    Ok(common.join("gauntlet").join("feedback").join(format!("github-{name}.jsonl")))
}

/// The cached comments; with `fresh_only`, only when written within the hour.
fn read_cache(path: &PathBuf, fresh_only: bool) -> Option<Vec<Comment>> {
    let age = SystemTime::now().duration_since(std::fs::metadata(path).ok()?.modified().ok()?).unwrap_or_default();
    if fresh_only && age > FRESH {
        return None;
    }
    feedback::parse_jsonl(&path.display().to_string(), &std::fs::read_to_string(path).ok()?).ok()
}

fn write_cache(path: &PathBuf, comments: &[Comment]) -> Result<()> {
    std::fs::create_dir_all(path.parent().expect("cache file has a folder"))?;
    std::fs::write(path, feedback::to_jsonl(comments))?;
    Ok(())
}
