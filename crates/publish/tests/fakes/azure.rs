//! Azure DevOps: pull-request threads, iterations and their changes.

use super::*;
use gauntlet_publish::azure::{Azure, Config};
use serde_json::json;

pub struct AzureWire {
    pub head: String,
}

const PR: &str = "/org/My%20Project/_apis/git/repositories/repo-id/pullRequests/5";

pub async fn start(head: &str) -> Fake {
    let make = |uri: &str| -> Box<dyn CodeHost> {
        Box::new(
            Azure::new(Config {
                collection_uri: format!("{uri}/org/"),
                project: "My Project".into(),
                repository: "repo-id".into(),
                pull_request: 5,
                token: "azure-fake-token".into(),
            })
            .unwrap(),
        )
    };
    Fake::start(AzureWire { head: head.to_string() }, make, |t| {
        t.status = "wontFix".into();
        t.resolved = true;
    })
    .await
}

fn identity(author: &str) -> Value {
    if author == PIPELINE { json!({"id": "build-identity"}) } else { json!({"id": format!("user-{author}")}) }
}

fn thread(t: &FakeThread) -> Value {
    let comments: Vec<Value> = t
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"id": n.id, "parentCommentId": if i == 0 { 0 } else { t.notes[0].id }, "content": n.body, "author": identity(&n.author), "commentType": "text"}))
        .collect();
    let mut v = json!({"id": t.id, "status": t.status, "comments": comments, "isDeleted": false});
    if let Some(path) = &t.path {
        v["threadContext"] = json!({"filePath": format!("/{path}"), "rightFileStart": {"line": t.line, "offset": 1}});
    }
    v
}

impl Wire for AzureWire {
    fn answer(&self, s: &mut State, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
        if path == "/org/_apis/connectionData" {
            return json(json!({"authenticatedUser": identity(PIPELINE)}));
        }
        let Some(rest) = path.strip_prefix(PR) else { return not_found(path) };
        if !query.contains("api-version=7.1") {
            s.errors.push(format!("{method} {path} without api-version=7.1"));
        }
        match (method, rest) {
            ("GET", "/iterations") => json(
                json!({"value": [{"id": 1, "sourceRefCommit": {"commitId": "0".repeat(40)}}, {"id": 2, "sourceRefCommit": {"commitId": self.head}}]}),
            ),
            ("GET", "/iterations/2/changes") => {
                let entries: Vec<Value> = ["src/a.rs", "src/b.rs", "lib/c.py"]
                    .iter()
                    .enumerate()
                    .map(|(i, p)| json!({"changeTrackingId": i + 1, "item": {"path": format!("/{p}")}}))
                    .collect();
                json(json!({"changeEntries": entries}))
            }
            ("GET", "/threads") => json(json!({"value": s.threads.iter().map(thread).collect::<Vec<_>>()})),
            ("POST", "/threads") => create(s, body),
            ("PATCH", r) if r.contains("/comments/") => match id_after(r, "comments").and_then(|id| s.note_mut(id)) {
                Some(n) if n.author == PIPELINE => {
                    n.body = body["content"].as_str().unwrap_or_default().to_string();
                    json(json!({"id": n.id}))
                }
                Some(_) => ResponseTemplate::new(403),
                None => not_found(r),
            },
            ("PATCH", r) if r.starts_with("/threads/") => {
                match id_after(r, "threads").and_then(|id| s.thread_mut(id)) {
                    Some(t) => {
                        t.status = body["status"].as_str().unwrap_or("active").to_string();
                        t.resolved = !matches!(t.status.as_str(), "active" | "pending");
                        json(json!({"id": t.id, "status": t.status}))
                    }
                    None => not_found(r),
                }
            }
            _ => not_found(path),
        }
    }
}

fn create(s: &mut State, body: &Value) -> ResponseTemplate {
    let content = body["comments"][0]["content"].as_str().unwrap_or_default().to_string();
    let context = &body["threadContext"];
    let path = context["filePath"].as_str().map(|p| {
        if !p.starts_with('/') {
            s.errors.push(format!("filePath without a leading slash: {p}"));
        }
        if body["pullRequestThreadContext"]["changeTrackingId"].as_u64().is_none() {
            s.errors.push(format!("inline thread without a changeTrackingId: {body}"));
        }
        p.trim_start_matches('/').to_string()
    });
    let line = context["rightFileStart"]["line"].as_u64().map(|l| l as u32);
    let id = s.add(path, line, PIPELINE, &content);
    let status = body["status"].as_str().unwrap_or("active").to_string();
    let t = s.thread_mut(id).unwrap();
    t.resolved = !matches!(status.as_str(), "active" | "pending");
    t.status = status;
    json(json!({"id": id}))
}
