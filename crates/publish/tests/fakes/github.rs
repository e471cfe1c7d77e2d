//! GitHub: issue comments (REST), reviews with inline comments (REST), review
//! threads listed and resolved through GraphQL.

use super::*;
use gauntlet_publish::github::{Config, GitHub};
use serde_json::json;

pub struct GitHubWire;

/// The REST login of the pipeline, and GraphQL's (without `[bot]`).
fn login(author: &str, graphql: bool) -> String {
    match (author == PIPELINE, graphql) {
        (true, false) => "github-actions[bot]".into(),
        (true, true) => "github-actions".into(),
        (false, _) => author.into(),
    }
}

pub async fn start() -> Fake {
    let make = |uri: &str| -> Box<dyn CodeHost> {
        Box::new(
            GitHub::new(Config {
                api_url: uri.to_string(),
                graphql_url: None,
                repository: "o/r".into(),
                number: 1,
                token: "ghs_faketoken".into(),
                login: "github-actions[bot]".into(),
            })
            .unwrap(),
        )
    };
    Fake::start(GitHubWire, make, |s, thread, who| {
        let t = s.thread_mut(thread).unwrap();
        t.resolved = true;
        t.resolved_by = Some(who.to_string());
    })
    .await
}

impl Wire for GitHubWire {
    fn answer(&self, s: &mut State, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
        match (method, path) {
            ("GET", "/repos/o/r/issues/1/comments") => {
                if !query.contains("page=1") {
                    return json(json!([]));
                }
                let list: Vec<Value> = s
                    .threads
                    .iter()
                    .filter(|t| t.path.is_none())
                    .map(|t| json!({"id": t.notes[0].id, "body": t.notes[0].body, "user": {"login": login(&t.notes[0].author, false)}}))
                    .collect();
                json(json!(list))
            }
            ("POST", "/repos/o/r/issues/1/comments") => {
                let id = s.add(None, None, PIPELINE, body["body"].as_str().unwrap_or_default());
                created(json!({"id": id}))
            }
            ("POST", "/repos/o/r/pulls/1/reviews") => review(s, body),
            ("GET", p) if p.starts_with("/repos/o/r/collaborators/") && p.ends_with("/permission") => {
                let user = p.trim_start_matches("/repos/o/r/collaborators/").trim_end_matches("/permission");
                if user == "ghost" {
                    return not_found(p);
                }
                // `maintain` reads as `write` here, as GitHub folds it.
                let permission = if s.may_write(user) { "write" } else { "read" };
                json(json!({"permission": permission, "role_name": permission, "user": {"login": user}}))
            }
            ("POST", "/graphql") => graphql(s, body),
            (_, p) if p.contains("/check-runs") && s.deny_checks => {
                ResponseTemplate::new(403).set_body_json(json!({"message": "Resource not accessible by integration"}))
            }
            ("GET", p) if p.starts_with("/repos/o/r/commits/") && p.ends_with("/check-runs") => {
                let sha = p.trim_start_matches("/repos/o/r/commits/").trim_end_matches("/check-runs");
                list_check_runs(s, sha, query)
            }
            ("POST", "/repos/o/r/check-runs") => create_check_run(s, body),
            ("PATCH", p) if p.starts_with("/repos/o/r/check-runs/") => {
                let id = p.trim_start_matches("/repos/o/r/check-runs/").parse().unwrap_or(0);
                update_check_run(s, id, body)
            }
            ("PATCH", p)
                if p.starts_with("/repos/o/r/issues/comments/") || p.starts_with("/repos/o/r/pulls/comments/") =>
            {
                let id = id_after(p, "comments").unwrap_or(0);
                match s.note_mut(id) {
                    Some(n) if n.author == PIPELINE => {
                        n.body = body["body"].as_str().unwrap_or_default().to_string();
                        json(json!({"id": id}))
                    }
                    Some(_) => ResponseTemplate::new(403),
                    None => not_found(p),
                }
            }
            _ => not_found(path),
        }
    }
}

fn review(s: &mut State, body: &Value) -> ResponseTemplate {
    if body["event"] != "COMMENT" || !body["commit_id"].is_string() {
        s.errors.push(format!("review without event COMMENT or commit_id: {body}"));
    }
    for c in body["comments"].as_array().into_iter().flatten() {
        if c["side"] != "RIGHT" || !c["line"].is_u64() {
            s.errors.push(format!("inline comment not on the new side: {c}"));
        }
        let line = c["line"].as_u64().map(|l| l as u32);
        s.add(c["path"].as_str().map(str::to_string), line, PIPELINE, c["body"].as_str().unwrap_or_default());
    }
    json(json!({"id": s.id(), "state": "COMMENTED"}))
}

/// Items per page of any connection, as the publisher asks for.
const PAGE: usize = 100;

/// One page of `items` after the cursor in `variables` (an offset), as a
/// GraphQL connection.
fn page(items: Vec<Value>, cursor: &Value) -> Value {
    let from: usize = cursor.as_str().and_then(|c| c.parse().ok()).unwrap_or(0);
    let to = (from + PAGE).min(items.len());
    let more = to < items.len();
    json!({"pageInfo": {"hasNextPage": more, "endCursor": to.to_string()}, "nodes": items[from.min(to)..to].to_vec()})
}

fn comments(t: &FakeThread) -> Vec<Value> {
    t.notes
        .iter()
        .map(|n| {
            let editor = n.edited_by.as_ref().map(|who| json!({"login": login(who, true)}));
            json!({"id": format!("C{}", n.id), "databaseId": n.id, "body": n.body, "author": {"login": login(&n.author, true)},
                   "lastEditedAt": n.edited_by.as_ref().map(|_| "2026-01-01T00:00:00Z"), "editor": editor})
        })
        .collect()
}

/// The pull request's own comments (not in a review thread), oldest first.
fn general(s: &State) -> Vec<Value> {
    s.threads.iter().filter(|t| t.path.is_none()).flat_map(comments).collect()
}

fn frowns(t: &FakeThread) -> Vec<Value> {
    t.thumbs_down.iter().map(|who| json!({"user": {"login": login(who, true)}})).collect()
}

/// Node ids for threads are `T<number>`, for comments `C<number>`.
fn graphql(s: &mut State, body: &Value) -> ResponseTemplate {
    let query = body["query"].as_str().unwrap_or_default();
    let cursor = &body["variables"]["cursor"];
    let node_id = body["variables"]["id"].as_str().unwrap_or_default();
    let number = |prefix: char| node_id.strip_prefix(prefix).and_then(|n| n.parse::<u64>().ok());
    if query.contains("reviewThreads") {
        if query.contains("comments(first:50)") || !query.contains("pageInfo{hasNextPage endCursor} nodes{databaseId") {
            s.errors.push(format!("thread query without paged comments: {query}"));
        }
        let nodes: Vec<Value> = s
            .threads
            .iter()
            .filter(|t| t.path.is_some())
            .map(|t| {
                let all = comments(t);
                let mut head = all[0].clone();
                head["reactions"] = page(frowns(t), &Value::Null);
                let resolved_by =
                    t.resolved_by.as_ref().filter(|_| t.resolved).map(|who| json!({"login": login(who, true)}));
                json!({"id": format!("T{}", t.id), "isResolved": t.resolved, "resolvedBy": resolved_by, "path": t.path,
                       "head": {"nodes": [head]}, "comments": page(all, &Value::Null)})
            })
            .collect();
        let list = json!({"pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": nodes});
        let pr = json!({"id": "P1", "author": {"login": s.author}, "reviewThreads": list,
                        "comments": page(general(s), &Value::Null)});
        return json(json!({"data": {"repository": {"pullRequest": pr}}}));
    }
    if query.contains("node(id:") && query.contains("on PullRequest{") {
        return json(json!({"data": {"node": {"comments": page(general(s), cursor)}}}));
    }
    if query.contains("node(id:") && query.contains("PullRequestReviewThread") {
        let Some(t) = number('T').and_then(|id| s.threads.iter().find(|t| t.id == id)) else {
            return json(json!({"data": {"node": null}}));
        };
        return json(json!({"data": {"node": {"comments": page(comments(t), cursor)}}}));
    }
    if query.contains("node(id:") && query.contains("PullRequestReviewComment") {
        let Some(t) = number('C').and_then(|id| s.threads.iter().find(|t| t.notes[0].id == id)) else {
            return json(json!({"data": {"node": null}}));
        };
        return json(json!({"data": {"node": {"reactions": page(frowns(t), cursor)}}}));
    }
    let resolve = query.contains("mutation") && query.contains("resolveReviewThread");
    if resolve {
        let id: u64 =
            body["variables"]["id"].as_str().and_then(|i| i.trim_start_matches('T').parse().ok()).unwrap_or(0);
        let resolved = !query.contains("unresolveReviewThread");
        return match s.thread_mut(id) {
            Some(t) => {
                t.resolved = resolved;
                t.resolved_by = resolved.then(|| PIPELINE.to_string());
                json(json!({"data": {"thread": {"id": format!("T{id}"), "isResolved": resolved}}}))
            }
            None => json(json!({"errors": [{"type": "NOT_FOUND", "message": "no such thread"}]})),
        };
    }
    json(json!({"errors": [{"message": format!("unexpected query {query}")}]}))
}

/// What the Checks API documents for a check run's body (create or update):
/// problems go to `State::errors`, so a test fails on any request GitHub would
/// refuse or cut short.
fn check_run_shape(s: &mut State, body: &Value, create: bool) {
    let mut bad = |why: String| s.errors.push(format!("check run: {why}: {body}"));
    let allowed = [
        "name",
        "head_sha",
        "details_url",
        "external_id",
        "status",
        "started_at",
        "conclusion",
        "completed_at",
        "output",
        "actions",
    ];
    if let Some(key) = body.as_object().into_iter().flatten().map(|(k, _)| k).find(|k| !allowed.contains(&k.as_str())) {
        bad(format!("unknown field `{key}`"));
    }
    if create {
        if body["name"].as_str().is_none_or(str::is_empty) {
            bad("no name".into());
        }
        if !body["head_sha"].as_str().is_some_and(|h| h.len() == 40 && h.chars().all(|c| c.is_ascii_hexdigit())) {
            bad("head_sha is not a commit".into());
        }
    }
    if let Some(status) = body.get("status")
        && !["queued", "in_progress", "completed"].contains(&status.as_str().unwrap_or(""))
    {
        bad(format!("status {status}"));
    }
    let conclusions =
        ["action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"];
    if let Some(c) = body.get("conclusion")
        && !conclusions.contains(&c.as_str().unwrap_or(""))
    {
        bad(format!("conclusion {c}"));
    }
    if body["status"] == "completed" && body.get("conclusion").is_none() {
        bad("completed without a conclusion".into());
    }
    let Some(output) = body.get("output") else { return };
    if !output["title"].is_string() || !output["summary"].is_string() {
        bad("output without title and summary".into());
    }
    if output["summary"].as_str().is_some_and(|t| t.chars().count() > 65_535) {
        bad("summary over 65535 characters".into());
    }
    let annotations = output["annotations"].as_array().cloned().unwrap_or_default();
    if annotations.len() > 50 {
        bad(format!("{} annotations in one request; the API takes 50", annotations.len()));
    }
    for a in &annotations {
        let lines = (a["start_line"].as_u64(), a["end_line"].as_u64());
        if a["path"].as_str().is_none_or(str::is_empty) || !matches!(lines, (Some(s), Some(e)) if s >= 1 && e >= s) {
            bad(format!("annotation without a path and lines: {a}"));
        }
        if !["notice", "warning", "failure"].contains(&a["annotation_level"].as_str().unwrap_or("")) {
            bad(format!("annotation level {}", a["annotation_level"]));
        }
        if !a["message"].as_str().is_some_and(|m| !m.is_empty() && m.len() <= 64 * 1024) {
            bad(format!("annotation message missing or over 64 KB: {a}"));
        }
        if a["title"].as_str().is_some_and(|t| t.chars().count() > 255) {
            bad("annotation title over 255 characters".into());
        }
    }
}

fn check_run_json(r: &CheckRun) -> Value {
    json!({"id": r.id, "name": r.name, "head_sha": r.head_sha, "external_id": r.external_id, "status": r.status,
           "conclusion": r.conclusion, "output": {"title": r.title, "summary": r.summary,
           "annotations_count": r.annotations.len()}})
}

/// `GET /repos/o/r/commits/{sha}/check-runs`, filtered by `check_name` as GitHub does.
fn list_check_runs(s: &mut State, sha: &str, query: &str) -> ResponseTemplate {
    let name = query.split('&').find_map(|kv| kv.strip_prefix("check_name="));
    let runs: Vec<Value> = s
        .check_runs
        .iter()
        .rev()
        .filter(|r| r.head_sha == sha && name.is_none_or(|n| r.name == n))
        .map(check_run_json)
        .collect();
    json(json!({"total_count": runs.len(), "check_runs": runs}))
}

/// Apply a create or update body to `run`.
fn apply_check_run(run: &mut CheckRun, body: &Value) {
    if let Some(status) = body["status"].as_str() {
        run.status = status.to_string();
    }
    if let Some(conclusion) = body["conclusion"].as_str() {
        run.conclusion = Some(conclusion.to_string());
        run.status = "completed".into();
    }
    if let Some(url) = body["details_url"].as_str() {
        run.details_url = Some(url.to_string());
    }
    let output = &body["output"];
    if let Some(title) = output["title"].as_str() {
        run.title = title.to_string();
    }
    if let Some(summary) = output["summary"].as_str() {
        run.summary = summary.to_string();
    }
    let added = output["annotations"].as_array().cloned().unwrap_or_default();
    if !added.is_empty() {
        run.batches.push(added.len());
        run.annotations.extend(added);
    }
}

fn create_check_run(s: &mut State, body: &Value) -> ResponseTemplate {
    check_run_shape(s, body, true);
    let mut run = CheckRun {
        id: s.id(),
        name: body["name"].as_str().unwrap_or_default().into(),
        head_sha: body["head_sha"].as_str().unwrap_or_default().into(),
        external_id: body["external_id"].as_str().unwrap_or_default().into(),
        status: "queued".into(),
        ..CheckRun::default()
    };
    apply_check_run(&mut run, body);
    let answer = check_run_json(&run);
    s.check_runs.push(run);
    created(answer)
}

fn update_check_run(s: &mut State, id: u64, body: &Value) -> ResponseTemplate {
    check_run_shape(s, body, false);
    match s.check_runs.iter_mut().find(|r| r.id == id) {
        Some(run) => {
            apply_check_run(run, body);
            json(check_run_json(run))
        }
        None => not_found("check run"),
    }
}
