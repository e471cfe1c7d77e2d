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
    Fake::start(AzureWire { head: head.to_string() }, make, |s, thread, who| set_status(s, thread, "wontFix", who))
        .await
}

/// Change a thread's status as `who`, leaving the system note Azure DevOps writes.
fn set_status(s: &mut State, thread: u64, status: &str, who: &str) {
    let id = s.id();
    let t = s.thread_mut(thread).unwrap();
    if t.status == status {
        return;
    }
    t.status = status.to_string();
    t.resolved = !matches!(status, "active" | "pending");
    t.notes.push(Note {
        id,
        author: who.into(),
        body: format!("{who} changed the status to {status}"),
        system: true,
        edited_by: None,
    });
}

fn identity(author: &str) -> Value {
    if author == PIPELINE {
        json!({"id": "build-identity", "displayName": "Project Build Service"})
    } else {
        json!({"id": format!("user-{author}"), "displayName": author})
    }
}

const CONTRIBUTORS: &str = "Microsoft.TeamFoundation.Identity;S-1-9-contributors";

/// The Identities API: the project's groups by name, a user's expanded memberships by id.
fn identities(s: &mut State, query: &str) -> ResponseTemplate {
    if query.contains("filterValue=%5BMy%20Project%5D%5CContributors") {
        return json(json!({"count": 1, "value": [{"descriptor": CONTRIBUTORS}]}));
    }
    if query.contains("searchFilter=General") {
        return json(json!({"count": 0, "value": []}));
    }
    let Some(user) = query.split('&').find_map(|kv| kv.strip_prefix("identityIds=user-")) else {
        return not_found("identities");
    };
    if !query.contains("queryMembership=expanded") {
        s.errors.push(format!("membership read without queryMembership=Expanded: {query}"));
    }
    let groups =
        if s.may_write(user) { vec![CONTRIBUTORS] } else { vec!["Microsoft.TeamFoundation.Identity;S-1-9-readers"] };
    json(json!({"count": 1, "value": [{"id": format!("user-{user}"), "memberOf": groups}]}))
}

fn thread(t: &FakeThread) -> Value {
    let comments: Vec<Value> = t
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"id": n.id, "parentCommentId": if i == 0 { 0 } else { t.notes[0].id }, "content": n.body, "author": identity(&n.author), "commentType": if n.system { "system" } else { "text" }}))
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
        if path == "/org/_apis/identities" {
            return identities(s, query);
        }
        if path == PR.replace("/pullRequests/", "/pullrequests/") {
            return json(json!({"pullRequestId": 5, "createdBy": identity(&s.author)}));
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
                let entries: Vec<Value> = s
                    .changed
                    .iter()
                    .enumerate()
                    .map(|(i, p)| json!({"changeTrackingId": i + 1, "item": {"path": format!("/{p}")}}))
                    .collect();
                json(json!({"changeEntries": entries}))
            }
            ("GET", "/threads") => json(json!({"value": s.threads.iter().map(thread).collect::<Vec<_>>()})),
            ("POST", "/threads") => create(s, body),
            ("POST", "/statuses") => status(s, body),
            ("PATCH", r) if r.contains("/comments/") => match id_after(r, "comments").and_then(|id| s.note_mut(id)) {
                Some(n) if n.author == PIPELINE => {
                    n.body = body["content"].as_str().unwrap_or_default().to_string();
                    json(json!({"id": n.id}))
                }
                Some(_) => ResponseTemplate::new(403),
                None => not_found(r),
            },
            ("PATCH", r) if r.starts_with("/threads/") => {
                match id_after(r, "threads").filter(|&id| s.thread_mut(id).is_some()) {
                    Some(id) => {
                        let status = body["status"].as_str().unwrap_or("active").to_string();
                        set_status(s, id, &status, PIPELINE);
                        json(json!({"id": id, "status": status}))
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

/// `POST .../pullRequests/{id}/statuses`, checked against `GitPullRequestStatus`
/// in the Git 7.1 description: a context name, a known state.
fn status(s: &mut State, body: &Value) -> ResponseTemplate {
    let states = ["notSet", "pending", "succeeded", "failed", "error", "notApplicable"];
    if body["context"]["name"].as_str().is_none_or(str::is_empty) {
        s.errors.push(format!("status without a context name: {body}"));
    }
    if !states.contains(&body["state"].as_str().unwrap_or("")) {
        s.errors.push(format!("status with an unknown state: {body}"));
    }
    s.statuses.push(body.clone());
    let id = s.id();
    let mut answer = body.clone();
    answer["id"] = json!(id);
    json(answer)
}
