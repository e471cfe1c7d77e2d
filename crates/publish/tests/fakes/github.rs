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

/// Node ids for threads are `T<number>`.
fn graphql(s: &mut State, body: &Value) -> ResponseTemplate {
    let query = body["query"].as_str().unwrap_or_default();
    if query.contains("reviewThreads") {
        let nodes: Vec<Value> = s
            .threads
            .iter()
            .filter(|t| t.path.is_some())
            .map(|t| {
                let comments: Vec<Value> = t
                    .notes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let frowns = if i == 0 { t.thumbs_down.clone() } else { vec![] };
                        let reactions: Vec<Value> =
                            frowns.iter().map(|who| json!({"user": {"login": login(who, true)}})).collect();
                        json!({"databaseId": n.id, "body": n.body, "author": {"login": login(&n.author, true)},
                               "reactions": {"nodes": reactions}})
                    })
                    .collect();
                let resolved_by =
                    t.resolved_by.as_ref().filter(|_| t.resolved).map(|who| json!({"login": login(who, true)}));
                json!({"id": format!("T{}", t.id), "isResolved": t.resolved, "resolvedBy": resolved_by, "path": t.path,
                       "comments": {"nodes": comments}})
            })
            .collect();
        let page = json!({"pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": nodes});
        let pr = json!({"author": {"login": s.author}, "reviewThreads": page});
        return json(json!({"data": {"repository": {"pullRequest": pr}}}));
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
