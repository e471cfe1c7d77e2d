//! GitLab: the overview is a merge-request note; inline findings are
//! discussions with a `position` built from the merge request's `diff_refs`.
//! GitLab's job token cannot write notes, so this needs a project (or
//! personal) access token with the `api` scope.

use crate::PublishError;
use crate::host::{CodeHost, Edited, Existing, Handle, NewComment, Overview, Person, Reply, Thread};
use crate::http::{Client, encode, string};
use crate::marker::{FindingMarker, OverviewMarker};
use async_trait::async_trait;
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Mutex;

const HOST: &str = "GitLab";

#[path = "gitlab_history.rs"]
mod history;
/// GitLab's access level for Developer, the lowest role that may push.
const DEVELOPER: u64 = 30;
/// Pages of 100 read of a note's award emoji at most.
const MAX_PAGES: usize = 20;

#[derive(Clone, Debug)]
pub struct Config {
    /// `CI_API_V4_URL`, e.g. `https://gitlab.com/api/v4`.
    pub api_url: String,
    /// `CI_PROJECT_ID` (or the URL-encoded path).
    pub project: String,
    /// `CI_MERGE_REQUEST_IID`.
    pub merge_request: u64,
    pub token: String,
}

/// The three commits a diff position names.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DiffRefs {
    base: String,
    start: String,
    head: String,
}

pub struct GitLab {
    client: Client,
    api: String,
    project: String,
    mr: String,
    /// The merge request's number in the project (`CI_MERGE_REQUEST_IID`).
    iid: u64,
    diff_refs: Mutex<Option<DiffRefs>>,
    /// Who the token belongs to, once asked (a history read asks per merge request).
    me: Mutex<Option<String>>,
    /// The project's `path_with_namespace`, once read (GraphQL names projects by it).
    pub(crate) project_path: Mutex<Option<String>>,
}

impl GitLab {
    /// Send at most `calls` requests from now on (retries included); later ones
    /// fail without reaching the host. `ci` reads history under such a budget.
    pub fn limit_calls(mut self, calls: usize) -> GitLab {
        self.client.limit_calls(calls);
        self
    }

    pub fn new(config: Config) -> Result<GitLab, PublishError> {
        let api = config.api_url.trim_end_matches('/').to_string();
        let client = Client::new(HOST, &[("PRIVATE-TOKEN", config.token.clone())], &config.token)?;
        let project = format!("{api}/projects/{}", encode(&config.project));
        let mr = format!("{project}/merge_requests/{}", config.merge_request);
        Ok(GitLab {
            client,
            api,
            project,
            mr,
            iid: config.merge_request,
            diff_refs: Mutex::new(None),
            me: Mutex::new(None),
            project_path: Mutex::new(None),
        })
    }

    async fn own_id(&self) -> Result<String, PublishError> {
        if let Some(me) = self.me.lock().expect("token owner lock").clone() {
            return Ok(me);
        }
        let (user, _) = self.client.get(&format!("{}/user", self.api), "find out who the token belongs to").await?;
        let me = string(&user, "/id", HOST, "read the token's user")?;
        *self.me.lock().expect("token owner lock") = Some(me.clone());
        Ok(me)
    }

    /// The merge request's `diff_refs`, and its author.
    async fn load_diff_refs(&self) -> Result<(DiffRefs, Option<Person>), PublishError> {
        let (mr, _) = self.client.get(&self.mr, "read the merge request").await?;
        let what = "read the merge request's diff_refs";
        let refs = DiffRefs {
            base: string(&mr, "/diff_refs/base_sha", HOST, what)?,
            start: string(&mr, "/diff_refs/start_sha", HOST, what)?,
            head: string(&mr, "/diff_refs/head_sha", HOST, what)?,
        };
        // `group/project!3`: the project's path, which GraphQL names it by.
        if let Some((path, _)) = mr["references"]["full"].as_str().and_then(|r| r.rsplit_once('!')) {
            self.project_path.lock().expect("project path lock").get_or_insert_with(|| path.to_string());
        }
        Ok((refs, person(&mr["author"])))
    }

    /// Who but the pipeline (`me`) gave the pipeline's note of `thread` a
    /// `thumbsdown` award; `true` when the page cap cut the list short.
    async fn thumbs_down(&self, thread: &Handle, me: &str) -> Result<(Vec<Person>, bool), PublishError> {
        let mut people = Vec::new();
        for page in 1..=MAX_PAGES {
            let url = format!("{}/notes/{}/award_emoji?per_page=100&page={page}", self.mr, thread.comment);
            let (list, _) = self.client.get(&url, "list a note's award emoji").await?;
            let items = list.as_array().cloned().unwrap_or_default();
            let frowns = items.iter().filter(|a| a["name"] == "thumbsdown").filter_map(|a| person(&a["user"]));
            people.extend(frowns.filter(|p| p.id != me));
            if items.len() < 100 {
                return Ok((people, false));
            }
        }
        Ok((people, true))
    }

    /// Every discussion (each with all its notes, as GitLab lists them); `true`
    /// when the page cap cut the list short.
    async fn discussions(&self) -> Result<(Vec<Value>, bool), PublishError> {
        let mut all = Vec::new();
        let mut page = "1".to_string();
        for _ in 0..100 {
            let url = format!("{}/discussions?per_page=100&page={page}", self.mr);
            let (list, headers) = self.client.get(&url, "list the merge request's discussions").await?;
            all.extend(list.as_array().cloned().unwrap_or_default());
            match headers.get("x-next-page").and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty()) {
                Some(next) => page = next.to_string(),
                None => return Ok((all, false)),
            }
        }
        Ok((all, true))
    }

    async fn edit(&self, thread: &Handle, body: &str) -> Result<(), PublishError> {
        let url = format!("{}/discussions/{}/notes/{}", self.mr, encode(&thread.thread), thread.comment);
        self.client.send(Method::PUT, &url, &json!({"body": body}), "edit a discussion note").await?;
        Ok(())
    }

    async fn set_resolved(&self, thread: &Handle, resolved: bool) -> Result<(), PublishError> {
        let url = format!("{}/discussions/{}", self.mr, encode(&thread.thread));
        let what = if resolved { "resolve a discussion" } else { "reopen a discussion" };
        self.client.send(Method::PUT, &url, &json!({"resolved": resolved}), what).await?;
        Ok(())
    }
}

/// Sort one discussion into the overview or a finding thread, when its first
/// note is the pipeline's.
fn classify(d: &Value, me: &str, existing: &mut Existing) {
    let notes: Vec<&Value> = d["notes"].as_array().into_iter().flatten().filter(|n| n["system"] != true).collect();
    let Some(first) = notes.first() else { return };
    let author = |n: &Value| n["author"]["id"].to_string();
    let body = first["body"].as_str().unwrap_or_default();
    if author(first) != me {
        // Someone else's discussion: where a `/gauntlet dismiss <finding id>` can be.
        let others = notes.iter().filter(|n| author(n) != me);
        existing.general.extend(others.filter_map(|n| {
            let author = person(&n["author"])?;
            Some(Reply { author, body: n["body"].as_str()?.to_string(), edited: Edited::NotByOthers })
        }));
        return;
    }
    let handle = Handle { thread: d["id"].as_str().unwrap_or_default().to_string(), comment: first["id"].to_string() };
    if OverviewMarker::parse(body).is_some() {
        if existing.overview.is_none() {
            existing.overview = Some(Overview { handle, body: body.to_string() });
        }
    } else if FindingMarker::parse(body).is_some() {
        let replies = notes[1..]
            .iter()
            .filter(|n| author(n) != me)
            // GitLab's REST notes do not say who last edited them (see `dismissal`).
            .filter_map(|n| {
                let author = person(&n["author"])?;
                Some(Reply { author, body: n["body"].as_str()?.to_string(), edited: Edited::NotByOthers })
            })
            .collect();
        existing.threads.push(Thread {
            handle,
            path: first["position"]["new_path"].as_str().unwrap_or_default().to_string(),
            body: body.to_string(),
            resolved: first["resolved"].as_bool().unwrap_or(false),
            resolved_by: person(&first["resolved_by"]).filter(|p| p.id != me),
            replies,
            thumbs_down: Vec::new(),
        });
    }
}

/// A GitLab user (`{id, username}`), when there is one.
fn person(user: &Value) -> Option<Person> {
    let id = user["id"].as_u64()?;
    let name = user["username"].as_str().map_or_else(|| id.to_string(), str::to_string);
    Some(Person { id: id.to_string(), name })
}

#[async_trait]
impl CodeHost for GitLab {
    fn name(&self) -> &'static str {
        HOST
    }

    fn wait_at_most(&mut self, limit: std::time::Duration) {
        self.client.wait_at_most(limit);
    }

    fn dialect(&self) -> crate::suggest::Dialect {
        crate::suggest::Dialect::GitLab
    }

    async fn existing(&self, head: &str) -> Result<Existing, PublishError> {
        let me = self.own_id().await?;
        let (refs, author) = self.load_diff_refs().await?;
        let mut existing = Existing { author, ..Existing::default() };
        if refs.head != head {
            existing.inline_blocked = Some(format!(
                "the merge request's head is now {} (a push after this pipeline started), so the reviewed lines may have moved",
                &refs.head[..refs.head.len().min(12)]
            ));
        }
        *self.diff_refs.lock().expect("diff_refs lock") = Some(refs);
        let (discussions, cut) = self.discussions().await?;
        if cut {
            existing.unread.push(format!("discussions after the first {}", discussions.len()));
        }
        for d in discussions {
            classify(&d, &me, &mut existing);
        }
        if let Some(note) = existing.overview.as_ref().map(|o| o.handle.comment.clone()) {
            existing.overview_edited = self.overview_edited(&note, &me).await?;
        }
        for thread in &mut existing.threads {
            let (people, cut) = self.thumbs_down(&thread.handle, &me).await?;
            if cut {
                existing.unread.push(format!(
                    "thumbs-down awards on `{}` after the first {}",
                    thread.path,
                    people.len()
                ));
            }
            thread.thumbs_down = people;
        }
        Ok(existing)
    }

    async fn create(&self, _head: &str, comments: &[NewComment]) -> Result<(), PublishError> {
        let cached = self.diff_refs.lock().expect("diff_refs lock").clone();
        let refs = match cached {
            Some(refs) => refs,
            None => self.load_diff_refs().await?.0,
        };
        // GitLab has no batch endpoint: one discussion per comment.
        for (i, c) in comments.iter().enumerate() {
            let mut position = json!({
                "position_type": "text",
                "base_sha": refs.base,
                "start_sha": refs.start,
                "head_sha": refs.head,
                "new_path": c.anchor.path,
                "old_path": c.anchor.old_path,
                "new_line": c.anchor.line,
            });
            if let Some(old) = c.anchor.old_line {
                position["old_line"] = json!(old);
            }
            let url = format!("{}/discussions", self.mr);
            let body = json!({"body": c.body, "position": position});
            if let Err(e) = self.client.send(Method::POST, &url, &body, "open a discussion").await {
                return Err(crate::sync::created_before(e, i, comments.len()));
            }
        }
        Ok(())
    }

    async fn update(&self, thread: &Handle, body: &str, reopen: bool) -> Result<(), PublishError> {
        if reopen {
            self.set_resolved(thread, false).await?;
        }
        self.edit(thread, body).await
    }

    async fn resolve(&self, thread: &Handle, body: &str) -> Result<(), PublishError> {
        self.edit(thread, body).await?;
        self.set_resolved(thread, true).await
    }

    async fn upsert_overview(&self, existing: Option<&Handle>, body: &str) -> Result<(), PublishError> {
        let (method, url, what) = match existing {
            Some(h) => (Method::PUT, format!("{}/notes/{}", self.mr, h.comment), "update the overview note"),
            None => (Method::POST, format!("{}/notes", self.mr), "post the overview note"),
        };
        self.client.send(method, &url, &json!({"body": body}), what).await?;
        Ok(())
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        // `members/all` counts access inherited from groups, as GitLab itself does.
        let url = format!("{}/members/all/{}", self.project, encode(&who.id));
        match self.client.get(&url, "read a project member's access level").await {
            Ok((member, _)) => Ok(member["access_level"].as_u64().is_some_and(|level| level >= DEVELOPER)),
            Err(PublishError::Http { status: 404, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
