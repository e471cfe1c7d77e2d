//! `gauntlet stats`: what became of the findings the pipeline published on the
//! repository's recent merged or closed pull requests, read from the host with
//! the pipeline's own token (read only). The outcome rules and the host fields
//! that decide them are in `gauntlet_publish::history` and `::outcome`; the
//! HTML page is in `stats_html`.

use crate::args::StatsArgs;
use crate::ci_env::HostConfig;
use crate::settings::Env;
use anyhow::{Context, Result, bail};
use gauntlet_publish::history::{self, History, MAX_PULLS, Read, Scope};
use gauntlet_publish::outcome::{Figures, Outcome, Tally, figures};
use gauntlet_publish::{azure, github, gitlab};
use gauntlet_report::number::percent;
use gauntlet_report::weblink::WebRepo;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub fn run(args: &StatsArgs, author_may_dismiss: bool, env: &Env, dir: &std::path::Path) -> Result<()> {
    if !matches!(args.format.as_str(), "terminal" | "json" | "html") {
        bail!("--format {}: use terminal, json or html", args.format);
    }
    if let Some(date) = &args.since {
        let ok = date.len() == 10
            && date.chars().enumerate().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() });
        if !ok {
            bail!("--since `{date}` is not a date: write YYYY-MM-DD");
        }
    }
    let config = host_config(env)?;
    // Links are for the HTML page; a given --repo-url is checked whatever the format.
    let web = match (args.repo_url.as_deref(), args.format.as_str()) {
        (Some(url), _) => super::web::repo(dir, Some(url))?,
        (None, "html") => match web_of(env) {
            Some(web) => Some(web),
            None => super::web::repo(dir, None)?,
        },
        (None, _) => None,
    };
    let (host, what) = (config.history(None)?, config.repository());
    let last = if args.since.is_some() { args.last.unwrap_or(MAX_PULLS) } else { args.last.unwrap_or(50) };
    let policy = gauntlet_publish::Policy { author_may_dismiss };
    let scope = Scope { last, since: args.since.clone(), policy };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let read = match &args.keep_record {
        None => runtime.block_on(history::read(host.as_ref(), &scope)).with_context(|| format!("reading {what}"))?,
        Some(dir) => {
            keep_record(&runtime, host.as_ref(), &config, &scope, dir).with_context(|| format!("reading {what}"))?
        }
    };
    let f = figures(&read.records);
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&to_json(&what, &read, &f))?),
        "html" => print!("{}", super::stats_html::render(&what, &read, &f, web.as_ref())),
        _ => print!("{}", terminal(&what, &read, &f)),
    }
    Ok(())
}

/// Read `scope` taking what `dir`'s record already holds, and write the record
/// back with what this read found (whole, or not at all).
fn keep_record(
    runtime: &tokio::runtime::Runtime,
    host: &dyn History,
    config: &HostConfig,
    scope: &Scope,
    dir: &std::path::Path,
) -> Result<Read> {
    use super::ci::earned;
    let path = dir.join(earned::CACHE_FILE);
    let kept = earned::load(&path, config, scope.policy);
    let (read, pulls) = earned::read_and_keep(runtime, host, scope, kept)?;
    let cached = earned::Cached { key: earned::key(config, scope.policy), at: earned::now(), commit: None, pulls };
    earned::save(&path, &cached).with_context(|| format!("keeping the record in {}", path.display()))?;
    Ok(read)
}

/// The repository's host, from the variables `gauntlet ci` reads, and what to call it.
pub(crate) fn connect(env: &Env) -> Result<(Box<dyn History>, String)> {
    let config = host_config(env)?;
    Ok((config.history(None)?, config.repository()))
}

/// The repository's web page from the variables the pipelines set (GitHub
/// `GITHUB_SERVER_URL` and `GITHUB_REPOSITORY`, GitLab `CI_PROJECT_URL`, Azure
/// DevOps `SYSTEM_COLLECTIONURI`, `SYSTEM_TEAMPROJECT`, `BUILD_REPOSITORY_NAME`):
/// the repository read, where a local `origin` may be a fork.
fn web_of(env: &Env) -> Option<WebRepo> {
    let url = if let Some(repository) = env("GITHUB_REPOSITORY") {
        let server = env("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
        format!("{}/{repository}", server.trim_end_matches('/'))
    } else if let Some(url) = env("CI_PROJECT_URL") {
        url
    } else {
        let collection = env("SYSTEM_COLLECTIONURI")?;
        format!(
            "{}/{}/_git/{}",
            collection.trim_end_matches('/'),
            env("SYSTEM_TEAMPROJECT")?,
            env("BUILD_REPOSITORY_NAME")?
        )
    };
    WebRepo::parse(&url).ok()
}

/// The repository's host as `gauntlet ci` would post to it, outside a pull request.
pub(crate) fn host_config(env: &Env) -> Result<HostConfig> {
    if let Some(repository) = env("GITHUB_REPOSITORY") {
        let token = env("GITHUB_TOKEN").or_else(|| env("GH_TOKEN")).context("GITHUB_TOKEN (or GH_TOKEN) is not set")?;
        return Ok(HostConfig::GitHub(github::Config {
            api_url: env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
            graphql_url: env("GITHUB_GRAPHQL_URL"),
            repository,
            number: 0,
            token,
            login: env("GAUNTLET_GITHUB_LOGIN").unwrap_or_else(|| "github-actions[bot]".into()),
        }));
    }
    if let Some(project) = env("CI_PROJECT_ID") {
        let token = env("GAUNTLET_GITLAB_TOKEN")
            .or_else(|| env("GITLAB_TOKEN"))
            .context("GAUNTLET_GITLAB_TOKEN (or GITLAB_TOKEN) is not set: use the token `gauntlet ci` posts with")?;
        let api_url = env("CI_API_V4_URL").context("CI_API_V4_URL is not set")?;
        return Ok(HostConfig::GitLab(gitlab::Config { api_url, project, merge_request: 0, token }));
    }
    if let Some(repository) = env("BUILD_REPOSITORY_ID") {
        let token = env("SYSTEM_ACCESSTOKEN")
            .or_else(|| env("AZURE_DEVOPS_TOKEN"))
            .context("SYSTEM_ACCESSTOKEN is not set: use the token `gauntlet ci` posts with")?;
        return Ok(HostConfig::Azure(azure::Config {
            collection_uri: env("SYSTEM_COLLECTIONURI").context("SYSTEM_COLLECTIONURI is not set")?,
            project: env("SYSTEM_TEAMPROJECT").context("SYSTEM_TEAMPROJECT is not set")?,
            repository,
            pull_request: 0,
            token,
        }));
    }
    bail!(
        "no repository named: set GITHUB_REPOSITORY (GitHub), CI_PROJECT_ID and CI_API_V4_URL (GitLab) or \
         SYSTEM_COLLECTIONURI, SYSTEM_TEAMPROJECT and BUILD_REPOSITORY_ID (Azure DevOps), as the pipeline does, \
         with the token `gauntlet ci` posts with"
    )
}

fn row(t: &Tally) -> Value {
    let mut v = serde_json::to_value(t).expect("a tally is JSON");
    v["published"] = json!(t.published());
    v["precision"] = json!(t.precision());
    v["action_rate"] = json!(t.action_rate());
    v
}

fn rows(map: &BTreeMap<String, Tally>) -> Value {
    map.iter().map(|(k, t)| (k.clone(), row(t))).collect::<serde_json::Map<_, _>>().into()
}

fn to_json(what: &str, read: &Read, f: &Figures) -> Value {
    json!({
        "repository": what,
        "covers": read.covers(),
        "partial": read.partial,
        "pull_requests": read.pulls.iter().map(|(n, closed)| json!({"number": n, "closed_at": closed})).collect::<Vec<_>>(),
        "left_out_edited": read.edited,
        "left_out_unlisted": read.unlisted,
        "left_out": read.left_out,
        "left_out_unreadable": read.unreadable,
        "dismissals_not_counted": read.not_counted,
        "total": row(&f.total),
        "per_reviewer": rows(&f.per_reviewer),
        "per_severity": rows(&f.per_severity),
        "per_month": rows(&f.per_month),
        "findings": read.records,
    })
}

fn table(out: &mut String, title: &str, map: &BTreeMap<String, Tally>) {
    let _ = writeln!(out, "\n{title}:");
    let _ = writeln!(
        out,
        "  {:<20} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>6}",
        "", "fixed", "withd", "dism", "ign", "open", "precision", "action"
    );
    for (name, t) in map {
        let counts: Vec<usize> = Outcome::ALL.iter().map(|o| t.count(*o)).collect();
        let _ = writeln!(
            out,
            "  {:<20} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>6}",
            name.chars().filter(|c| !c.is_control()).take(20).collect::<String>(),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            percent(t.precision()),
            percent(t.action_rate())
        );
    }
}

fn terminal(what: &str, read: &Read, f: &Figures) -> String {
    let t = &f.total;
    let mut out = format!("gauntlet stats: {what}: {}\n", read.covers());
    let counts: Vec<String> = Outcome::ALL.iter().map(|o| format!("{} {}", o.as_str(), t.count(*o))).collect();
    let _ = writeln!(out, "published {}: {}", t.published(), counts.join(", "));
    let _ = writeln!(
        out,
        "precision in the wild {} ({} fixed of {} fixed or dismissed); action rate {} ({} fixed of {} published)",
        percent(t.precision()),
        t.fixed,
        t.decided(),
        percent(t.action_rate()),
        t.fixed,
        t.published()
    );
    table(&mut out, "per reviewer", &f.per_reviewer);
    table(&mut out, "per severity", &f.per_severity);
    table(&mut out, "per month", &f.per_month);
    if let Some(line) = read.left_out_line() {
        let _ = writeln!(out, "\nleft out: {line}");
        for line in &read.left_out {
            let line: String = line.chars().filter(|c| !c.is_control()).collect();
            let _ = writeln!(out, "  {line}");
        }
    }
    if !read.not_counted.is_empty() {
        let _ = writeln!(out, "\ndismissals that did not count:");
        for line in &read.not_counted {
            let line: String = line.chars().filter(|c| !c.is_control()).collect();
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}
