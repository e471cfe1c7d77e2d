//! A repository's recent pull requests, held in memory and served the way each
//! host's API lists them: the history `gauntlet stats` reads. Pages are small
//! (`page_size`) so pagination is exercised, and one request can be answered
//! 429 with `Retry-After`.

use super::{AUTHOR, PERSON, PIPELINE, READER, json, not_found};
use gauntlet_publish::body;
use gauntlet_publish::history::History;
pub use gauntlet_publish::marker::{Gone, Held, OverviewMarker, path_tag};
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::review::Published;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, MutexGuard};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate, matchers::any};

#[derive(Clone, Debug, Default)]
pub struct RThread {
    pub note: u64,
    pub path: String,
    pub line: u32,
    /// Who opened the thread (the pipeline, or someone forging its comment).
    pub opener: String,
    pub body: String,
    /// Someone who edited the opening comment (GitHub and GitLab record it).
    pub edited_by: Option<String>,
    /// How many times the pipeline itself edited the opening comment, before
    /// `edited_by` did (`ci` rewrites the overview on every run).
    pub pipeline_edits: usize,
    /// Who resolved the thread; `PIPELINE` when the pipeline did.
    pub resolved_by: Option<String>,
    pub replies: Vec<(String, String)>,
    pub thumbs_down: Vec<String>,
    /// A later push changed the flagged lines.
    pub outdated: bool,
}

#[derive(Clone, Debug)]
pub struct RPull {
    pub number: u64,
    /// `open`, `merged` or `closed`.
    pub state: &'static str,
    pub closed_at: String,
    pub updated_at: String,
    pub author: String,
    pub threads: Vec<RThread>,
    /// Comments on the pull request outside any review thread: (who, text).
    pub comments: Vec<(String, String)>,
    /// Overview comments, served before `comments` (`path` and `line` unused):
    /// the pipeline's, and any forged by someone else.
    pub overviews: Vec<RThread>,
}

#[derive(Debug)]
pub struct Repo {
    pub pulls: Vec<RPull>,
    pub writers: Vec<String>,
    pub page_size: usize,
    /// Answer request number `n` (from 0) with 429 and `Retry-After: 1`.
    pub rate_limit_at: Option<usize>,
    pub requests: usize,
    /// A pull request whose threads the host cannot read (answered 404).
    pub broken: Option<u64>,
    /// `status METHOD path?query` of each request.
    pub log: Vec<String>,
    /// Azure DevOps' FileDiffs answer names files without their leading slash.
    pub bare_diff_paths: bool,
    next: u64,
}

impl Repo {
    pub fn new() -> Repo {
        Repo {
            pulls: Vec::new(),
            writers: vec!["alice".into()],
            page_size: 2,
            rate_limit_at: None,
            requests: 0,
            broken: None,
            log: Vec::new(),
            bare_diff_paths: false,
            next: 1000,
        }
    }

    pub fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Every finding reviewer `from` raised, raised by `to` instead: in the
    /// comments' headers and in the overviews' markers.
    pub fn rename_reviewer(&mut self, from: &str, to: &str) {
        let rename = |names: &mut Vec<String>| names.iter_mut().filter(|n| *n == from).for_each(|n| *n = to.into());
        for pull in &mut self.pulls {
            for t in &mut pull.threads {
                t.body = t.body.replace(&format!("`{from}`"), &format!("`{to}`"));
            }
            for o in &mut pull.overviews {
                let Some(mut m) = OverviewMarker::parse(&o.body) else { continue };
                m.held.iter_mut().flatten().for_each(|h| rename(&mut h.reviewers));
                m.gone.iter_mut().for_each(|g| rename(&mut g.reviewers));
                o.body = format!("{}{}", m.render(), gauntlet_publish::marker::strip(&o.body));
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    GitHub,
    GitLab,
    Azure,
}

struct Responder {
    kind: Kind,
    repo: Arc<Mutex<Repo>>,
}

impl Respond for Responder {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let mut repo = self.repo.lock().unwrap();
        let index = repo.requests;
        repo.requests += 1;
        let (path, query) = (request.url.path().to_string(), request.url.query().unwrap_or("").to_string());
        let line = format!("{} {path}?{query}", request.method);
        if repo.rate_limit_at == Some(index) {
            repo.log.push(format!("429 {line}"));
            return ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(json!({"message": "API rate limit exceeded"}));
        }
        repo.log.push(format!("200 {line}"));
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let method = request.method.as_str();
        match self.kind {
            Kind::GitHub => github(&repo, method, &path, &query, &body),
            Kind::GitLab => gitlab(&repo, method, &path, &query, &body),
            Kind::Azure => azure(&repo, method, &path, &query, &body),
        }
    }
}

pub struct FakeRepo {
    pub server: MockServer,
    pub repo: Arc<Mutex<Repo>>,
    pub kind: Kind,
}

impl FakeRepo {
    pub async fn start(kind: Kind, repo: Repo) -> FakeRepo {
        let server = MockServer::start().await;
        let repo = Arc::new(Mutex::new(repo));
        Mock::given(any()).respond_with(Responder { kind, repo: repo.clone() }).mount(&server).await;
        FakeRepo { server, repo, kind }
    }

    pub fn repo(&self) -> MutexGuard<'_, Repo> {
        self.repo.lock().unwrap()
    }

    pub fn host(&self) -> Box<dyn History> {
        self.host_with(usize::MAX)
    }

    /// [`FakeRepo::host`], sending at most `calls` requests.
    pub fn host_with(&self, calls: usize) -> Box<dyn History> {
        let uri = self.server.uri();
        match self.kind {
            Kind::GitHub => Box::new(
                gauntlet_publish::github::GitHub::new(gauntlet_publish::github::Config {
                    api_url: uri,
                    graphql_url: None,
                    repository: "o/r".into(),
                    number: 0,
                    token: "ghs_faketoken".into(),
                    login: "github-actions[bot]".into(),
                })
                .unwrap()
                .limit_calls(calls),
            ),
            Kind::GitLab => Box::new(
                gauntlet_publish::gitlab::GitLab::new(gauntlet_publish::gitlab::Config {
                    api_url: format!("{uri}/api/v4"),
                    project: "7".into(),
                    merge_request: 0,
                    token: "glpat-fake".into(),
                })
                .unwrap()
                .limit_calls(calls),
            ),
            Kind::Azure => Box::new(
                gauntlet_publish::azure::Azure::new(gauntlet_publish::azure::Config {
                    collection_uri: format!("{uri}/org/"),
                    project: "My Project".into(),
                    repository: "repo-id".into(),
                    pull_request: 0,
                    token: "azure-fake-token".into(),
                })
                .unwrap()
                .limit_calls(calls),
            ),
        }
    }
}

/// Answer, on another fake's `server` (the pull request under review's), the
/// reads a `kind` history makes, from `repo`: the listing of pull requests, every
/// read of one `repo` holds, and the identity and permission lookups (which also
/// answer the run's own questions about its pull request). Every other request
/// stays that fake's. `repo`'s pull requests must not share a number with the one
/// under review; `repo`'s `requests` then counts the requests those routes got.
pub async fn serve_history(kind: Kind, repo: &Arc<Mutex<Repo>>, server: &MockServer) {
    use wiremock::matchers::{body_string_contains, method, path, path_regex};
    let routes = match kind {
        Kind::GitHub => vec![
            Mock::given(method("GET")).and(path("/repos/o/r/pulls")),
            Mock::given(method("POST"))
                .and(path("/graphql"))
                .and(body_string_contains("{author{login} reviewThreads(first:50")),
            Mock::given(method("GET")).and(path_regex("^/repos/o/r/collaborators/[^/]+/permission$")),
        ],
        Kind::GitLab => vec![
            Mock::given(method("GET")).and(path("/api/v4/projects/7/merge_requests")),
            Mock::given(held(repo, "/api/v4/projects/7/merge_requests")),
            Mock::given(method("POST")).and(path("/api/graphql")).and(asks_about_held(repo)),
            Mock::given(method("GET")).and(path("/api/v4/projects/7")),
            Mock::given(method("GET")).and(path("/api/v4/user")),
            Mock::given(method("GET")).and(path_regex("^/api/v4/projects/7/members/all/[^/]+$")),
        ],
        Kind::Azure => vec![
            Mock::given(method("GET")).and(path(format!("{REPO}/pullrequests"))),
            Mock::given(method("POST")).and(path(format!("{REPO}/filediffs"))),
            Mock::given(held(repo, &format!("{REPO}/pullRequests"))),
            Mock::given(method("GET")).and(path("/org/_apis/connectionData")),
            Mock::given(method("GET")).and(path("/org/_apis/identities")),
        ],
    };
    for route in routes {
        route.respond_with(Responder { kind, repo: repo.clone() }).with_priority(1).mount(server).await;
    }
}

/// Requests for `{prefix}/{number}` or below it, where `repo` holds pull request `number`.
fn held(repo: &Arc<Mutex<Repo>>, prefix: &str) -> impl Fn(&wiremock::Request) -> bool + Send + Sync + 'static {
    let (repo, prefix) = (repo.clone(), format!("{prefix}/"));
    move |request: &wiremock::Request| {
        let Some(rest) = request.url.path().strip_prefix(&prefix) else { return false };
        let number = rest.split('/').next().and_then(|n| n.parse::<u64>().ok());
        number.is_some_and(|n| repo.lock().unwrap().pulls.iter().any(|p| p.number == n))
    }
}

/// GitLab GraphQL queries about a merge request `repo` holds.
fn asks_about_held(repo: &Arc<Mutex<Repo>>) -> impl Fn(&wiremock::Request) -> bool + Send + Sync + 'static {
    let repo = repo.clone();
    move |request: &wiremock::Request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let number = body["variables"]["iid"].as_str().and_then(|n| n.parse::<u64>().ok());
        number.is_some_and(|n| repo.lock().unwrap().pulls.iter().any(|p| p.number == n))
    }
}

/// `page` (from 1) of `items`, and whether more follow.
fn page<T: Clone>(items: &[T], size: usize, page: usize) -> (Vec<T>, bool) {
    let start = (page.max(1) - 1) * size;
    let chunk = items.iter().skip(start).take(size).cloned().collect();
    (chunk, items.len() > start + size)
}

fn param<'q>(query: &'q str, key: &str) -> Option<&'q str> {
    query.split('&').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

fn by_update(repo: &Repo) -> Vec<RPull> {
    let mut pulls = repo.pulls.clone();
    pulls.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    pulls
}

fn pull(repo: &Repo, number: u64) -> Option<&RPull> {
    repo.pulls.iter().find(|p| p.number == number)
}

/// A pipeline comment for a finding raised by `reviewers`, resolved by the
/// pipeline when `resolved`.
fn posted(repo: &mut Repo, path: &str, reviewers: &[&str], severity: Severity, resolved: bool) -> RThread {
    let line = 10;
    let p = Published {
        id: format!("f{}", repo.id()),
        reviewer: reviewers[0].into(),
        raised_by: reviewers.iter().map(|r| r.to_string()).collect(),
        lens: Lens::FailureScenario,
        location: format!("{path}:{line}"),
        inline: true,
        claim: format!("A defect in {path}."),
        evidence: format!("code in {path}"),
        severity,
        confidence: 75,
        validator_evidence: "the code does what the claim says".into(),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    };
    let inline = body::inline(&p);
    let text =
        if resolved { body::resolved(&inline, &p.id, "2c26b46b68ffc68ff99b453c1d30413413422d70") } else { inline };
    RThread {
        note: repo.id(),
        path: path.into(),
        line,
        opener: PIPELINE.into(),
        body: text,
        resolved_by: resolved.then(|| PIPELINE.to_string()),
        ..RThread::default()
    }
}

/// Three closed pull requests (figures in `tests/history.rs`) and an open one (see the module's figures).
pub fn scenario(kind: Kind) -> Repo {
    use Severity::*;
    let mut r = Repo::new();
    let mut pr3 = Vec::new();
    // A: fixed (the pipeline resolved it, the lines changed).
    let mut a = posted(&mut r, "src/a.rs", &["logic", "security"], High, true);
    a.outdated = true;
    pr3.push(a);
    // B: withdrawn (resolved by the pipeline, lines untouched).
    pr3.push(posted(&mut r, "src/b.rs", &["logic"], Medium, true));
    // C: dismissed (a writer resolved it).
    let mut c = posted(&mut r, "src/c.rs", &["security"], Low, false);
    c.resolved_by = Some(PERSON.into());
    pr3.push(c);
    // D: ignored: the author's own dismissal does not count, nor the author's
    // resolution.
    let mut d = posted(&mut r, "src/d.rs", &["logic"], High, false);
    d.replies.push((AUTHOR.into(), "/gauntlet dismiss not a bug".into()));
    d.resolved_by = Some(AUTHOR.into());
    d.outdated = true;
    pr3.push(d);
    // E: a forged comment by the author claiming a fixed finding.
    let mut e = posted(&mut r, "src/e.rs", &["logic"], High, true);
    e.opener = AUTHOR.into();
    e.outdated = true;
    pr3.push(e);
    let mut pr2 = Vec::new();
    // F: dismissed by a writer's command.
    let mut f = posted(&mut r, "src/f.rs", &["logic"], High, false);
    f.replies.push((PERSON.into(), "/gauntlet false-positive the caller checks".into()));
    f.replies.push((AUTHOR.into(), "thanks!".into()));
    pr2.push(f);
    // G: the pipeline's comment, edited by the author into a "resolved" one.
    if kind != Kind::Azure {
        let mut g = posted(&mut r, "src/g.rs", &["security"], Medium, false);
        g.body = g.body.replace("id=", "state=resolved id=").replacen(" -->", " state=resolved -->", 1);
        g.edited_by = Some(AUTHOR.into());
        g.outdated = true;
        pr2.push(g);
    }
    // H: ignored: a reader's thumbs-down (Azure DevOps has none: a reader's command).
    let mut h = posted(&mut r, "src/h.rs", &["logic"], Low, false);
    if kind == Kind::Azure {
        h.replies.push((READER.into(), "/gauntlet dismiss".into()));
    } else {
        h.thumbs_down.push(READER.into());
    }
    pr2.push(h);
    let overviews3 = vec![overview(&mut r, PIPELINE, &pr3[0].body)];
    let mut overviews2 = Vec::new();
    // An overview the author edited, holding a finding: left out.
    if kind != Kind::Azure {
        let mut edited = overview(&mut r, PIPELINE, "");
        edited.edited_by = Some(AUTHOR.into());
        overviews2.push(edited);
    }
    // I: fixed, a month earlier.
    let mut i = posted(&mut r, "src/i.rs", &["security"], High, true);
    i.outdated = true;
    let open = posted(&mut r, "src/o.rs", &["logic"], High, false);
    // The author's forged overview, claiming a fixed finding: not counted.
    let forged = overview(&mut r, AUTHOR, "");
    let at = |d: &str| format!("{d}T12:00:00Z");
    let pull = |number, state, closed: &str, updated: &str, threads| RPull {
        number,
        state,
        closed_at: if closed.is_empty() { String::new() } else { at(closed) },
        updated_at: at(updated),
        author: AUTHOR.into(),
        threads,
        comments: Vec::new(),
        overviews: Vec::new(),
    };
    r.pulls = vec![
        RPull { overviews: vec![forged], ..pull(1, "merged", "2024-01-20", "2024-01-21", vec![i]) },
        RPull { overviews: overviews2, ..pull(2, "closed", "2024-02-10", "2024-03-09", pr2) },
        RPull { overviews: overviews3, ..pull(3, "merged", "2024-03-05", "2024-03-05", pr3) },
        pull(4, "open", "", "2024-03-10", vec![open]),
    ];
    // N: dismissed by a writer's command naming it.
    let n = held_id(&r.pulls[2].overviews[0], "n");
    r.pulls[2].comments.push((PERSON.into(), format!("/gauntlet dismiss {n} only reached in tests")));
    r
}

/// An overview by `who` holding, and remembering as gone, findings in every
/// outcome (see `tests/history.rs`); it also holds the finding of the inline
/// comment `threaded`, which counts once, from its comment.
///
/// Held: J (`logic`, medium; ignored once merged), N (`logic`, medium;
/// dismissed by id when the scenario adds the command), an older entry without
/// line or reviewers (unreadable). Gone: K (`security`, high, fixed), L
/// (`logic`, low, withdrawn). The overview was last written in era `e3`; each
/// entry names the era that raised it: J `e1`, N `e3`, K `e2`, L none (an
/// entry written before eras were kept), the threaded finding's `e3`.
fn overview(repo: &mut Repo, who: &str, threaded: &str) -> RThread {
    use Severity::*;
    let mut id = |tag: &str| format!("{tag}{}", repo.id());
    let held = |id: String, severity, reviewer: &str, era: &str| Held {
        id,
        severity,
        path: path_tag("src/x.rs"),
        line: Some(7),
        reviewers: vec![reviewer.to_string()],
        era: Some(era.to_string()),
    };
    let mut holds = vec![held(id("j"), Medium, "logic", "e1"), held(id("n"), Medium, "logic", "e3")];
    holds.push(Held { line: None, reviewers: vec![], era: None, ..held(id("old"), High, "", "") });
    if let Some(m) = gauntlet_publish::FindingMarker::parse(threaded) {
        holds.push(held(m.id, Low, "logic", "e3"));
    }
    let gone = |id: String, severity, fixed, reviewer: &str, era: Option<&str>| Gone {
        id,
        severity,
        fixed,
        reviewers: vec![reviewer.into()],
        era: era.map(str::to_string),
    };
    let marker = OverviewMarker {
        head: "2c26b46b68ffc68ff99b453c1d30413413422d70".into(),
        rules: "v3".into(),
        config: "c".into(),
        held: Some(holds),
        era: Some("e3".into()),
        gone: vec![gone(id("k"), High, true, "security", Some("e2")), gone(id("l"), Low, false, "logic", None)],
        incomplete: false,
        open: None,
    };
    let note = repo.id();
    RThread { note, opener: who.into(), body: format!("{}## gauntlet review", marker.render()), ..RThread::default() }
}

/// The id of the finding `overview` holds whose id starts with `prefix`.
pub fn held_id(overview: &RThread, prefix: &str) -> String {
    let held = OverviewMarker::parse(&overview.body).unwrap().held.unwrap();
    held.into_iter().map(|h| h.id).find(|id| id.starts_with(prefix)).unwrap()
}

// --- GitHub ---------------------------------------------------------------

fn gh_login(who: &str) -> String {
    if who == PIPELINE { "github-actions".into() } else { who.into() }
}

fn github(repo: &Repo, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
    match (method, path) {
        ("GET", "/repos/o/r/pulls") => {
            let closed: Vec<RPull> = by_update(repo).into_iter().filter(|p| p.state != "open").collect();
            let n: usize = param(query, "page").and_then(|p| p.parse().ok()).unwrap_or(1);
            let (items, more) = page(&closed, repo.page_size, n);
            let list: Vec<Value> = items
                .iter()
                .map(|p| {
                    let merged = (p.state == "merged").then(|| p.closed_at.clone());
                    json!({"number": p.number, "state": "closed", "merged_at": merged, "closed_at": p.closed_at,
                           "updated_at": p.updated_at, "user": {"login": p.author}})
                })
                .collect();
            let mut answer = json(json!(list));
            if more {
                answer =
                    answer.insert_header("link", format!("<http://x/repos/o/r/pulls?page={}>; rel=\"next\"", n + 1));
            }
            answer
        }
        ("POST", "/graphql") if body["query"].as_str().is_some_and(|q| q.contains("... on PullRequest{comments")) => {
            // A later page of a pull request's own comments, by the node id `PR{number}`.
            let vars = &body["variables"];
            let number = vars["id"].as_str().and_then(|id| id.strip_prefix("PR")?.parse().ok());
            let Some(p) = number.and_then(|n| pull(repo, n)) else { return not_found("pull") };
            let start: usize = vars["cursor"].as_str().and_then(|c| c.parse().ok()).unwrap_or(0);
            let comments = gh_comments(repo, p, start, edits_asked(body));
            json(json!({"data": {"node": {"comments": comments}}}))
        }
        ("POST", "/graphql") => {
            let vars = &body["variables"];
            let number = vars["number"].as_u64().filter(|n| Some(*n) != repo.broken);
            let Some(p) = number.and_then(|n| pull(repo, n)) else { return not_found("pull") };
            let start: usize = vars["cursor"].as_str().and_then(|c| c.parse().ok()).unwrap_or(0);
            let listed = edits_asked(body);
            let nodes: Vec<Value> =
                p.threads.iter().skip(start).take(repo.page_size).map(|t| gh_thread(t, listed)).collect();
            let more = p.threads.len() > start + repo.page_size;
            let info = json!({"hasNextPage": more, "endCursor": (start + repo.page_size).to_string()});
            let pr = json!({"id": format!("PR{}", p.number), "author": {"login": p.author},
                            "reviewThreads": {"pageInfo": info, "nodes": nodes}, "comments": gh_comments(repo, p, 0, listed)});
            json(json!({"data": {"repository": {"pullRequest": pr}}}))
        }
        ("GET", p) if p.starts_with("/repos/o/r/collaborators/") => {
            let user = p.trim_start_matches("/repos/o/r/collaborators/").trim_end_matches("/permission");
            let permission = if repo.writers.iter().any(|w| w == user) { "write" } else { "read" };
            json(json!({"permission": permission}))
        }
        _ => not_found(path),
    }
}

/// A page of `p`'s own comments, overviews first, from index `start`, `page_size` long.
fn gh_comments(repo: &Repo, p: &RPull, start: usize, listed: usize) -> Value {
    let overviews = p.overviews.iter().map(|o| {
        let editor = gh_editor(o);
        json!({"body": o.body, "author": {"login": gh_login(&o.opener)},
               "lastEditedAt": editor.as_ref().map(|_| "2024-03-01T00:00:00Z"),
               "editor": editor.map(|w| json!({"login": gh_login(&w)})),
               "userContentEdits": gh_edits(o, listed)})
    });
    let comments = p.comments.iter().map(|(who, text)| {
        json!({"body": text, "author": {"login": gh_login(who)}, "lastEditedAt": null,
               "userContentEdits": {"totalCount": 0, "nodes": []}})
    });
    let all: Vec<Value> = overviews.chain(comments).collect();
    let nodes: Vec<Value> = all.iter().skip(start).take(repo.page_size).cloned().collect();
    let more = all.len() > start + repo.page_size;
    json!({"pageInfo": {"hasNextPage": more, "endCursor": (start + repo.page_size).to_string()}, "nodes": nodes})
}

/// Who last edited `t`'s opening comment, when anyone did.
fn gh_editor(t: &RThread) -> Option<String> {
    t.edited_by.clone().or_else(|| (t.pipeline_edits > 0).then(|| PIPELINE.to_string()))
}

/// `t`'s edits as GitHub answers `userContentEdits(first: listed)`: the newest
/// `listed` of them, and how many there are.
fn gh_edits(t: &RThread, listed: usize) -> Value {
    let all: Vec<Value> = std::iter::repeat_n(PIPELINE, t.pipeline_edits)
        .chain(t.edited_by.as_deref())
        .map(|who| json!({"editor": {"login": gh_login(who)}}))
        .collect();
    let nodes: Vec<Value> = all.iter().rev().take(listed).cloned().collect();
    json!({"totalCount": all.len(), "nodes": nodes})
}

/// How many edits of a comment the query asks GitHub to list.
fn edits_asked(body: &Value) -> usize {
    let query = body["query"].as_str().unwrap_or_default();
    let after = query.split("userContentEdits(first:").nth(1).unwrap_or_default();
    after.split(')').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

fn gh_thread(t: &RThread, listed: usize) -> Value {
    let frowns: Vec<Value> = t.thumbs_down.iter().map(|w| json!({"user": {"login": w}})).collect();
    let mut comments = vec![json!({
        "databaseId": t.note, "body": t.body, "author": {"login": gh_login(&t.opener)},
        "editor": gh_editor(t).map(|w| json!({"login": gh_login(&w)})),
        "userContentEdits": gh_edits(t, listed),
        "reactions": {"nodes": frowns},
    })];
    for (who, text) in &t.replies {
        comments.push(json!({"databaseId": 1, "body": text, "author": {"login": who}, "reactions": {"nodes": []}}));
    }
    // The paged shape the history query asks for: the opening comment under the
    // `head` alias, every comment under `comments`, each list in one page.
    json!({"id": format!("T{}", t.note), "isResolved": t.resolved_by.is_some(), "isOutdated": t.outdated,
           "resolvedBy": t.resolved_by.as_ref().map(|w| json!({"login": gh_login(w)})), "path": t.path,
           "head": {"nodes": [comments[0].clone()]},
           "comments": {"pageInfo": {"hasNextPage": false}, "nodes": comments}})
}

// --- GitLab ---------------------------------------------------------------

fn uid(name: &str) -> u64 {
    if name == PIPELINE { 42 } else { name.bytes().fold(0u64, |h, b| h * 31 + u64::from(b)) % 1_000_000 + 100 }
}

fn gl_user(who: &str) -> Value {
    json!({"id": uid(who), "username": if who == PIPELINE { "project_7_bot" } else { who }})
}

fn with_next(answer: Value, more: bool, n: usize) -> ResponseTemplate {
    json(answer).insert_header("x-next-page", if more { (n + 1).to_string() } else { String::new() })
}

fn gitlab(repo: &Repo, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
    let n: usize = param(query, "page").and_then(|p| p.parse().ok()).unwrap_or(1);
    if path == "/api/v4/user" {
        return json(gl_user(PIPELINE));
    }
    if path == "/api/v4/projects/7" {
        return json(json!({"id": 7, "path_with_namespace": "g/p"}));
    }
    if method == "POST" && path == "/api/graphql" {
        let iid: u64 = body["variables"]["iid"].as_str().and_then(|i| i.parse().ok()).unwrap_or(0);
        let Some(p) = pull(repo, iid) else { return not_found("mr") };
        let nodes: Vec<Value> = p
            .threads
            .iter()
            .chain(&p.overviews)
            .map(|t| {
                let editor = t.edited_by.as_ref().map(|w| json!({"id": format!("gid://gitlab/User/{}", uid(w))}));
                json!({"id": format!("gid://gitlab/DiffNote/{}", t.note), "lastEditedBy": editor})
            })
            .collect();
        let notes = json!({"pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": nodes});
        return json(json!({"data": {"project": {"mergeRequest": {"notes": notes}}}}));
    }
    if let Some(id) = path.strip_prefix("/api/v4/projects/7/members/all/") {
        let id: u64 = id.parse().unwrap_or(0);
        let level = if repo.writers.iter().any(|w| uid(w) == id) { 30 } else { 20 };
        return json(json!({"id": id, "access_level": level}));
    }
    if path == "/api/v4/projects/7/merge_requests" {
        let (items, more) = page(&by_update(repo), repo.page_size, n);
        let list: Vec<Value> = items
            .iter()
            .map(|p| {
                let state = if p.state == "open" { "opened" } else { p.state };
                let merged = (p.state == "merged").then(|| p.closed_at.clone());
                let closed = (p.state == "closed").then(|| p.closed_at.clone());
                json!({"iid": p.number, "state": state, "merged_at": merged, "closed_at": closed, "updated_at": p.updated_at})
            })
            .collect();
        return with_next(json!(list), more, n);
    }
    let Some(rest) = path.strip_prefix("/api/v4/projects/7/merge_requests/") else { return not_found(path) };
    let (iid, rest) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(p) = iid.parse().ok().and_then(|i| pull(repo, i)) else { return not_found(path) };
    if rest.is_empty() {
        return json(json!({"iid": p.number, "author": gl_user(&p.author)}));
    }
    if rest == "discussions" {
        // The pipeline's discussions, then everyone's comments on the merge request
        // (each a discussion of one note), all in one paged list.
        let mut all: Vec<Value> = p.threads.iter().map(gl_discussion).collect();
        all.extend(p.overviews.iter().map(|o| {
            let note = json!({"id": o.note, "body": o.body, "author": gl_user(&o.opener), "system": false});
            json!({"id": format!("o{}", o.note), "individual_note": true, "notes": [note]})
        }));
        all.extend(p.comments.iter().enumerate().map(|(i, (who, text))| {
            let note = json!({"id": 5000 + i, "body": text, "author": gl_user(who), "system": false});
            json!({"id": format!("c{i}"), "individual_note": true, "notes": [note]})
        }));
        let (items, more) = page(&all, repo.page_size, n);
        return with_next(json!(items), more, n);
    }
    if let Some(note) = rest.strip_prefix("notes/").and_then(|r| r.strip_suffix("/award_emoji")) {
        let t = p.threads.iter().find(|t| t.note.to_string() == note);
        let awards: Vec<Value> = t
            .into_iter()
            .flat_map(|t| t.thumbs_down.iter())
            .map(|w| json!({"name": "thumbsdown", "user": gl_user(w)}))
            .collect();
        return json(json!(awards));
    }
    not_found(path)
}

fn gl_discussion(t: &RThread) -> Value {
    let resolved = t.resolved_by.is_some();
    let mut first = json!({"id": t.note, "body": t.body, "author": gl_user(&t.opener), "system": false,
        "resolvable": true, "resolved": resolved, "position": {"new_path": t.path, "new_line": t.line}});
    if let Some(who) = &t.resolved_by {
        first["resolved_by"] = gl_user(who);
    }
    let mut notes = vec![first];
    if t.outdated {
        notes.push(json!({"id": 1, "body": "changed this line in [version 2 of the diff](/g/p/-/merge_requests/1/diffs?diff_id=2)",
            "author": gl_user(AUTHOR), "system": true}));
    }
    for (who, text) in &t.replies {
        notes.push(json!({"id": 2, "body": text, "author": gl_user(who), "system": false}));
    }
    json!({"id": format!("d{}", t.note), "individual_note": false, "notes": notes})
}

// --- Azure DevOps ---------------------------------------------------------

const REPO: &str = "/org/My%20Project/_apis/git/repositories/repo-id";
const CONTRIBUTORS: &str = "Microsoft.TeamFoundation.Identity;S-1-9-contributors";

fn az_identity(who: &str) -> Value {
    if who == PIPELINE {
        json!({"id": "build-identity", "displayName": "Project Build Service"})
    } else {
        json!({"id": format!("user-{who}"), "displayName": who})
    }
}

fn azure(repo: &Repo, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
    if path == "/org/_apis/connectionData" {
        return json(json!({"authenticatedUser": az_identity(PIPELINE)}));
    }
    if path == "/org/_apis/identities" {
        if query.contains("Contributors") {
            return json(json!({"count": 1, "value": [{"descriptor": CONTRIBUTORS}]}));
        }
        if query.contains("searchFilter=General") {
            return json(json!({"count": 0, "value": []}));
        }
        let user = param(query, "identityIds").unwrap_or_default().trim_start_matches("user-");
        let group = if repo.writers.iter().any(|w| w == user) { CONTRIBUTORS } else { "readers" };
        return json(json!({"count": 1, "value": [{"id": user, "memberOf": [group]}]}));
    }
    let Some(rest) = path.strip_prefix(REPO) else { return not_found(path) };
    if rest == "/pullrequests" {
        let mut pulls = repo.pulls.clone();
        pulls.sort_by_key(|p| std::cmp::Reverse(p.number));
        let top: usize = param(query, "$top").and_then(|t| t.parse().ok()).unwrap_or(100);
        let skip: usize = param(query, "$skip").and_then(|t| t.parse().ok()).unwrap_or(0);
        let list: Vec<Value> = pulls
            .iter()
            .skip(skip)
            .take(top)
            .map(|p| {
                let status = match p.state {
                    "merged" => "completed",
                    "closed" => "abandoned",
                    _ => "active",
                };
                json!({"pullRequestId": p.number, "status": status, "closedDate": p.closed_at})
            })
            .collect();
        return json(json!({"count": list.len(), "value": list}));
    }
    if method == "POST" && rest == "/filediffs" {
        // Commits are `p{number}c{iteration}`; the comment's lines are on iteration 1.
        let number: u64 = body["baseVersionCommit"].as_str().unwrap_or_default()[1..]
            .split('c')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let Some(p) = pull(repo, number) else { return not_found("pull") };
        let files = body["fileDiffParams"].as_array().cloned().unwrap_or_default();
        let diffs: Vec<Value> = files
            .iter()
            .map(|f| {
                let file = f["path"].as_str().unwrap_or_default();
                let blocks: Vec<Value> = p
                    .threads
                    .iter()
                    .filter(|t| format!("/{}", t.path) == file)
                    .map(|t| {
                        let at = if t.outdated { t.line } else { t.line + 20 };
                        json!({"changeType": "edit", "originalLineNumberStart": at, "originalLinesCount": 1,
                               "modifiedLineNumberStart": at, "modifiedLinesCount": 1})
                    })
                    .collect();
                let named = if repo.bare_diff_paths { file.trim_start_matches('/') } else { file };
                json!({"path": named, "originalPath": named, "lineDiffBlocks": blocks})
            })
            .collect();
        return json(json!(diffs));
    }
    let Some(rest) = rest.strip_prefix("/pullRequests/") else { return not_found(path) };
    let (number, rest) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(p) = number.parse().ok().and_then(|n| pull(repo, n)) else { return not_found(path) };
    match rest {
        "" => json(json!({"pullRequestId": p.number, "createdBy": az_identity(&p.author)})),
        "iterations" => json(json!({"value": [
            {"id": 1, "sourceRefCommit": {"commitId": format!("p{}c1", p.number)}},
            {"id": 2, "sourceRefCommit": {"commitId": format!("p{}c2", p.number)}},
        ]})),
        "threads" => {
            let mut list: Vec<Value> = p.threads.iter().map(az_thread).collect();
            // Overviews: threads without a file context, created closed.
            list.extend(p.overviews.iter().map(|o| {
                let comment =
                    json!({"id": 1, "content": o.body, "author": az_identity(&o.opener), "commentType": "text"});
                json!({"id": o.note, "status": "closed", "isDeleted": false, "comments": [comment]})
            }));
            // Comments on the pull request itself: threads without a file context.
            list.extend(p.comments.iter().enumerate().map(|(i, (who, text))| {
                let comment = json!({"id": 1, "content": text, "author": az_identity(who), "commentType": "text"});
                json!({"id": 9000 + i, "status": "active", "isDeleted": false, "comments": [comment]})
            }));
            json(json!({"count": list.len(), "value": list}))
        }
        _ => not_found(path),
    }
}

fn az_thread(t: &RThread) -> Value {
    let mut comments =
        vec![json!({"id": t.note, "content": t.body, "author": az_identity(&t.opener), "commentType": "text"})];
    for (i, (who, text)) in t.replies.iter().enumerate() {
        comments.push(
            json!({"id": t.note + 100 + i as u64, "content": text, "author": az_identity(who), "commentType": "text"}),
        );
    }
    let status = match t.resolved_by.as_deref() {
        None => "active",
        Some(PIPELINE) => "fixed",
        Some(_) => "wontFix",
    };
    if let Some(who) = &t.resolved_by {
        comments.push(json!({"id": t.note + 99, "content": format!("changed the status to {status}"),
            "author": az_identity(who), "commentType": "system"}));
    }
    json!({"id": t.note, "status": status, "isDeleted": false, "comments": comments,
        "threadContext": {"filePath": format!("/{}", t.path), "rightFileStart": {"line": t.line, "offset": 1},
                          "rightFileEnd": {"line": t.line, "offset": 1}},
        "pullRequestThreadContext": {"iterationContext": {"firstComparingIteration": 1, "secondComparingIteration": 1}}})
}
