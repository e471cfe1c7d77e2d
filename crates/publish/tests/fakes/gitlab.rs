//! GitLab: merge-request notes and discussions, with diff positions.

use super::*;
use gauntlet_publish::gitlab::{Config, GitLab};
use serde_json::json;

pub struct GitLabWire {
    pub head: String,
}

const MR: &str = "/api/v4/projects/7/merge_requests/3";
/// The project's `path_with_namespace`, which GraphQL names it by.
const PROJECT: &str = "g/p";

pub async fn start(head: &str) -> Fake {
    let make = |uri: &str| -> Box<dyn CodeHost> {
        let api_url = format!("{uri}/api/v4");
        Box::new(
            GitLab::new(Config { api_url, project: "7".into(), merge_request: 3, token: "glpat-fake".into() }).unwrap(),
        )
    };
    Fake::start(GitLabWire { head: head.to_string() }, make, |s, thread, who| {
        let t = s.thread_mut(thread).unwrap();
        t.resolved = true;
        t.resolved_by = Some(who.to_string());
    })
    .await
}

/// A stable user id per name; the pipeline's bot is 42.
fn uid(name: &str) -> u64 {
    if name == PIPELINE { 42 } else { name.bytes().fold(0u64, |h, b| h * 31 + u64::from(b)) % 1_000_000 + 100 }
}

fn user(author: &str) -> Value {
    let username = if author == PIPELINE { "project_7_bot" } else { author };
    json!({"id": uid(author), "username": username})
}

/// A member's access level: Developer (30) for writers, Reporter (20) for anyone
/// else the fake knows of, 404 otherwise.
fn member(s: &mut State, id: u64) -> ResponseTemplate {
    let known: Vec<String> = s
        .threads
        .iter()
        .flat_map(|t| {
            t.notes.iter().map(|n| n.author.clone()).chain(t.thumbs_down.clone()).chain(t.resolved_by.clone())
        })
        .chain([s.author.clone()])
        .collect();
    let Some(name) = known.into_iter().find(|n| uid(n) == id) else { return not_found("member") };
    let level = if s.may_write(&name) { 30 } else { 20 };
    json(json!({"id": id, "username": name, "access_level": level}))
}

fn discussion(t: &FakeThread) -> Value {
    let notes: Vec<Value> = t
        .notes
        .iter()
        .map(|n| {
            let mut note = json!({"id": n.id, "body": n.body, "author": user(&n.author), "system": false});
            if t.path.is_some() {
                note["resolvable"] = json!(true);
                note["resolved"] = json!(t.resolved);
                if let Some(who) = t.resolved_by.as_ref().filter(|_| t.resolved) {
                    note["resolved_by"] = user(who);
                }
                note["position"] = json!({"new_path": t.path, "new_line": t.line});
            }
            note
        })
        .collect();
    json!({"id": format!("d{}", t.id), "individual_note": t.path.is_none(), "notes": notes})
}

impl Wire for GitLabWire {
    fn answer(&self, s: &mut State, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate {
        if let Some(id) = path.strip_prefix("/api/v4/projects/7/members/all/") {
            return member(s, id.parse().unwrap_or(0));
        }
        let Some(rest) = path.strip_prefix(MR) else {
            return match (method, path) {
                ("GET", "/api/v4/user") => json(user(PIPELINE)),
                ("GET", "/api/v4/projects/7") => json(json!({"id": 7, "path_with_namespace": PROJECT})),
                ("POST", "/api/graphql") => editors(s, body),
                _ => not_found(path),
            };
        };
        let thread_id = || rest.split('/').nth(2).and_then(|d| d.trim_start_matches('d').parse::<u64>().ok());
        match (method, rest) {
            ("GET", "") => json(
                json!({"iid": 3, "author": user(&s.author), "references": {"full": format!("{PROJECT}!3")}, "diff_refs": {"base_sha": "b".repeat(40), "start_sha": "s".repeat(40), "head_sha": self.head}}),
            ),
            ("GET", r) if r.starts_with("/notes/") && r.ends_with("/award_emoji") => {
                let note = id_after(r, "notes");
                let thread = s.threads.iter().find(|t| Some(t.notes[0].id) == note);
                let awards: Vec<Value> = thread
                    .map(|t| t.thumbs_down.iter().map(|who| json!({"name": "thumbsdown", "user": user(who)})).collect())
                    .unwrap_or_default();
                // Pages of `per_page=100`, numbered from 1.
                let page: usize = query.split('&').find_map(|kv| kv.strip_prefix("page=")?.parse().ok()).unwrap_or(1);
                let from = ((page.max(1) - 1) * 100).min(awards.len());
                json(json!(awards[from..(from + 100).min(awards.len())]))
            }
            ("GET", "/discussions") => {
                let list: Vec<Value> = s.threads.iter().map(discussion).collect();
                json(json!(list)).insert_header("x-next-page", "")
            }
            ("POST", "/notes") => {
                let id = s.add(None, None, PIPELINE, body["body"].as_str().unwrap_or_default());
                created(json!({"id": id}))
            }
            ("PUT", r) if r.starts_with("/notes/") => edit(s, id_after(r, "notes"), body),
            ("POST", "/discussions") => {
                let p = &body["position"];
                for key in ["base_sha", "start_sha", "head_sha", "new_path", "old_path"] {
                    if !p[key].is_string() {
                        s.errors.push(format!("position without {key}: {p}"));
                    }
                }
                if p["position_type"] != "text" || !p["new_line"].is_u64() {
                    s.errors.push(format!("position not on a new-side line: {p}"));
                }
                let line = p["new_line"].as_u64().map(|l| l as u32);
                let id = s.add(
                    p["new_path"].as_str().map(str::to_string),
                    line,
                    PIPELINE,
                    body["body"].as_str().unwrap_or_default(),
                );
                created(json!({"id": format!("d{id}")}))
            }
            ("PUT", r) if r.contains("/notes/") => edit(s, id_after(r, "notes"), body),
            ("PUT", r) if r.starts_with("/discussions/") => match thread_id().and_then(|id| s.thread_mut(id)) {
                Some(t) => {
                    t.resolved = body["resolved"].as_bool().unwrap_or(t.resolved);
                    t.resolved_by = t.resolved.then(|| PIPELINE.to_string());
                    json(json!({"id": format!("d{}", t.id)}))
                }
                None => not_found(r),
            },
            _ => not_found(path),
        }
    }
}

/// GraphQL `Note.lastEditedBy` of every note on the merge request, in one page.
fn editors(s: &mut State, body: &Value) -> ResponseTemplate {
    let vars = &body["variables"];
    if !body["query"].as_str().unwrap_or_default().contains("lastEditedBy")
        || vars["path"] != PROJECT
        || vars["iid"] != "3"
    {
        s.errors.push(format!("an unexpected GraphQL query: {body}"));
        return json(json!({"errors": [{"message": "unexpected query"}]}));
    }
    if s.editors_withheld {
        return json(json!({"errors": [{"message": "Field 'lastEditedBy' doesn't exist on type 'Note'"}]}));
    }
    let nodes: Vec<Value> = s
        .threads
        .iter()
        .flat_map(|t| &t.notes)
        .map(|n| {
            let editor = n.edited_by.as_ref().map(|w| json!({"id": format!("gid://gitlab/User/{}", uid(w))}));
            json!({"id": format!("gid://gitlab/Note/{}", n.id), "lastEditedBy": editor})
        })
        .collect();
    let notes = json!({"pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": nodes});
    json(json!({"data": {"project": {"mergeRequest": {"notes": notes}}}}))
}

fn edit(s: &mut State, note: Option<u64>, body: &Value) -> ResponseTemplate {
    match note.and_then(|id| s.note_mut(id)) {
        Some(n) if n.author == PIPELINE => {
            n.body = body["body"].as_str().unwrap_or_default().to_string();
            n.edited_by = Some(PIPELINE.to_string());
            json(json!({"id": n.id}))
        }
        Some(_) => ResponseTemplate::new(403),
        None => not_found("note"),
    }
}
