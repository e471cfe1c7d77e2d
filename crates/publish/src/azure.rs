//! Azure DevOps: every comment lives in a pull-request thread. Inline threads
//! carry a `threadContext` (a `filePath` starting with `/`, head-side lines)
//! and the file's `changeTrackingId` from the iteration that holds the head
//! under review. The overview is a thread without a file, created `closed` so
//! that a branch policy requiring resolved comments is never blocked by it.
//! The run's verdict is a pull request status, `gauntlet/gauntlet`.

use crate::PublishError;
use crate::host::{CodeHost, Edited, Existing, Handle, NewComment, Overview, Person, Reply, Thread};
use crate::http::{Client, encode, string};
use crate::marker::{FindingMarker, OverviewMarker};
use crate::status::{NAME, Status};
use async_trait::async_trait;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;

const HOST: &str = "Azure DevOps";
const VERSION: &str = "api-version=7.1";
/// Characters of a status description kept (gauntlet's own words only).
const DESCRIPTION_LIMIT: usize = 250;

#[path = "azure_history.rs"]
mod history;

#[derive(Clone, Debug)]
pub struct Config {
    /// `SYSTEM_COLLECTIONURI`, e.g. `https://dev.azure.com/org/`.
    pub collection_uri: String,
    /// `SYSTEM_TEAMPROJECT` (name or id).
    pub project: String,
    /// `BUILD_REPOSITORY_ID`.
    pub repository: String,
    /// `SYSTEM_PULLREQUEST_PULLREQUESTID`.
    pub pull_request: u64,
    /// `SYSTEM_ACCESSTOKEN`.
    pub token: String,
}

/// The iteration comments are placed against, and each file's tracking id in it.
#[derive(Clone, Debug, Default)]
struct Iteration {
    id: u64,
    tracking: BTreeMap<String, u64>,
}

pub struct Azure {
    client: Client,
    collection: String,
    /// Where the Identities API answers: `vssps.dev.azure.com/org` for the cloud
    /// service, the collection itself for Azure DevOps Server.
    identities: String,
    project: String,
    pr: String,
    iteration: Mutex<Option<Iteration>>,
    /// Descriptors of the groups whose members may write, once read.
    writer_groups: Mutex<Option<Vec<String>>>,
    /// Who the token belongs to, once asked (a history read asks per pull request).
    me: Mutex<Option<String>>,
}

impl Azure {
    /// Send at most `calls` requests from now on (retries included); later ones
    /// fail without reaching the host. `ci` reads history under such a budget.
    pub fn limit_calls(mut self, calls: usize) -> Azure {
        self.client.limit_calls(calls);
        self
    }

    pub fn new(config: Config) -> Result<Azure, PublishError> {
        let collection = config.collection_uri.trim_end_matches('/').to_string();
        let pr = format!(
            "{collection}/{}/_apis/git/repositories/{}/pullRequests/{}",
            encode(&config.project),
            encode(&config.repository),
            config.pull_request
        );
        let client = Client::new(HOST, &[("Authorization", format!("Bearer {}", config.token))], &config.token)?;
        Ok(Azure {
            client,
            identities: identities_url(&collection),
            collection,
            project: config.project,
            pr,
            iteration: Mutex::new(None),
            writer_groups: Mutex::new(None),
            me: Mutex::new(None),
        })
    }

    async fn own_id(&self) -> Result<String, PublishError> {
        if let Some(me) = self.me.lock().expect("token owner lock").clone() {
            return Ok(me);
        }
        let url = format!("{}/_apis/connectionData", self.collection);
        let (data, _) = self.client.get(&url, "find out who the token belongs to").await?;
        let me = string(&data, "/authenticatedUser/id", HOST, "read the token's identity")?;
        *self.me.lock().expect("token owner lock") = Some(me.clone());
        Ok(me)
    }

    /// The iteration whose source commit is `head`, else the latest one (with
    /// `false`: the pull request moved on since the pipeline started).
    async fn load_iteration(&self, head: &str) -> Result<(Iteration, bool), PublishError> {
        let url = format!("{}/iterations?{VERSION}", self.pr);
        let (list, _) = self.client.get(&url, "list the pull request's iterations").await?;
        let iterations = list["value"].as_array().cloned().unwrap_or_default();
        let id_of = |v: &Value| v["id"].as_u64().unwrap_or(0);
        let matching =
            iterations.iter().filter(|i| i["sourceRefCommit"]["commitId"].as_str() == Some(head)).map(id_of).max();
        let latest = iterations.iter().map(id_of).max().unwrap_or(1).max(1);
        let id = matching.unwrap_or(latest);
        let mut tracking = BTreeMap::new();
        let mut skip = 0;
        for _ in 0..100 {
            let url = format!("{}/iterations/{id}/changes?{VERSION}&$top=2000&$skip={skip}", self.pr);
            let (changes, _) = self.client.get(&url, "list the iteration's changed files").await?;
            for entry in changes["changeEntries"].as_array().into_iter().flatten() {
                if let (Some(path), Some(tid)) = (entry["item"]["path"].as_str(), entry["changeTrackingId"].as_u64()) {
                    tracking.insert(path.trim_start_matches('/').to_string(), tid);
                }
            }
            match changes["nextSkip"].as_u64() {
                Some(next) if next > skip => skip = next,
                _ => break,
            }
        }
        Ok((Iteration { id, tracking }, matching.is_some()))
    }

    async fn edit(&self, thread: &Handle, body: &str) -> Result<(), PublishError> {
        let url = format!("{}/threads/{}/comments/{}?{VERSION}", self.pr, thread.thread, thread.comment);
        self.client.send(Method::PATCH, &url, &json!({"content": body}), "edit a thread comment").await?;
        Ok(())
    }

    async fn set_status(&self, thread: &Handle, status: &str) -> Result<(), PublishError> {
        let url = format!("{}/threads/{}?{VERSION}", self.pr, thread.thread);
        self.client.send(Method::PATCH, &url, &json!({"status": status}), "change a thread's status").await?;
        Ok(())
    }

    async fn new_thread(&self, body: Value, what: &str) -> Result<(), PublishError> {
        self.client.send(Method::POST, &format!("{}/threads?{VERSION}", self.pr), &body, what).await?;
        Ok(())
    }

    async fn author(&self) -> Result<Option<Person>, PublishError> {
        // The description spells this one path `pullrequests`; Azure DevOps ignores case.
        let url = format!("{}?{VERSION}", self.pr.replace("/pullRequests/", "/pullrequests/"));
        let (pr, _) = self.client.get(&url, "read the pull request").await?;
        Ok(person(&pr["createdBy"]))
    }

    /// Descriptors of the project's Contributors and Project Administrators groups,
    /// the groups Azure DevOps grants Contribute on the project's repositories.
    async fn writer_groups(&self) -> Result<Vec<String>, PublishError> {
        if let Some(groups) = self.writer_groups.lock().expect("groups lock").clone() {
            return Ok(groups);
        }
        let mut groups = Vec::new();
        for name in ["Contributors", "Project Administrators"] {
            let filter = encode(&format!("[{}]\\{name}", self.project));
            let url = format!(
                "{}/_apis/identities?searchFilter=General&filterValue={filter}&queryMembership=none&{VERSION}",
                self.identities
            );
            let (found, _) = self.client.get(&url, "look up the project's Contributors group").await?;
            groups.extend(listed(&found).iter().filter_map(|g| descriptor(&g["descriptor"])));
        }
        *self.writer_groups.lock().expect("groups lock") = Some(groups.clone());
        Ok(groups)
    }
}

/// The identities in an Identities API answer: the service wraps the list its
/// description documents in `{count, value}`.
fn listed(answer: &Value) -> Vec<Value> {
    answer.as_array().or(answer["value"].as_array()).cloned().unwrap_or_default()
}

/// The Identities API's base for a collection URL.
fn identities_url(collection: &str) -> String {
    if let Some(org) = collection.strip_prefix("https://dev.azure.com/") {
        format!("https://vssps.dev.azure.com/{org}")
    } else if let Some(rest) = collection.strip_prefix("https://").and_then(|r| r.strip_suffix(".visualstudio.com")) {
        format!("https://{rest}.vssps.visualstudio.com")
    } else {
        collection.to_string()
    }
}

/// An identity descriptor, as a string or as `{identityType, identifier}`, in one
/// comparable form.
fn descriptor(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        v => format!("{};{}", v["identityType"].as_str()?, v["identifier"].as_str()?),
    };
    Some(text.to_ascii_lowercase())
}

/// An identity reference (`{id, displayName}`), when there is one.
fn person(identity: &Value) -> Option<Person> {
    let id = identity["id"].as_str()?;
    let name = identity["displayName"].as_str().or(identity["uniqueName"].as_str()).unwrap_or(id);
    Some(Person { id: id.to_string(), name: name.to_string() })
}

/// Sort one thread into the overview or a finding thread, when its first
/// comment is the pipeline's.
fn classify(t: &Value, me: &str, existing: &mut Existing) {
    if t["isDeleted"] == true {
        return;
    }
    let all: Vec<&Value> = t["comments"].as_array().into_iter().flatten().filter(|c| c["isDeleted"] != true).collect();
    let comments: Vec<&Value> = all.iter().copied().filter(|c| c["commentType"] != "system").collect();
    let Some(first) = comments.first() else { return };
    let author = |c: &Value| c["author"]["id"].as_str().unwrap_or_default().to_string();
    let body = first["content"].as_str().unwrap_or_default();
    if author(first) != me {
        // Someone else's thread: where a `/gauntlet dismiss <finding id>` can be.
        existing.general.extend(comments.iter().filter(|c| author(c) != me).filter_map(|c| {
            let (author, body) = (person(&c["author"])?, c["content"].as_str()?.to_string());
            Some(Reply { author, body, edited: Edited::NotByOthers })
        }));
        return;
    }
    let handle = Handle { thread: t["id"].to_string(), comment: first["id"].to_string() };
    if OverviewMarker::parse(body).is_some() {
        if existing.overview.is_none() {
            existing.overview = Some(Overview { handle, body: body.to_string() });
        }
    } else if FindingMarker::parse(body).is_some() {
        let status = t["status"].as_str().unwrap_or("active");
        let resolved = !matches!(status, "active" | "pending" | "unknown");
        // Azure DevOps records a status change as a system comment by whoever
        // made it; the latest one tells who set the status the thread has now.
        let changed_by = all.iter().rev().find(|c| c["commentType"] == "system").and_then(|c| person(&c["author"]));
        existing.threads.push(Thread {
            handle,
            path: t["threadContext"]["filePath"].as_str().unwrap_or_default().trim_start_matches('/').to_string(),
            body: body.to_string(),
            resolved,
            resolved_by: changed_by.filter(|p| resolved && p.id != me),
            replies: comments[1..]
                .iter()
                .filter(|c| author(c) != me)
                // Azure DevOps lets only a comment's author edit it.
                .filter_map(|c| {
                    let (author, body) = (person(&c["author"])?, c["content"].as_str()?.to_string());
                    Some(Reply { author, body, edited: Edited::NotByOthers })
                })
                .collect(),
            // Azure DevOps comments take likes only: no negative reaction exists.
            thumbs_down: Vec::new(),
        });
    }
}

#[async_trait]
impl CodeHost for Azure {
    fn name(&self) -> &'static str {
        HOST
    }

    fn wait_at_most(&mut self, limit: std::time::Duration) {
        self.client.wait_at_most(limit);
    }

    async fn existing(&self, head: &str) -> Result<Existing, PublishError> {
        let me = self.own_id().await?;
        let (iteration, matches_head) = self.load_iteration(head).await?;
        let mut existing = Existing { author: self.author().await?, ..Existing::default() };
        if !matches_head {
            existing.inline_blocked = Some(
                "no iteration of the pull request has the reviewed head (a push after this pipeline started)".into(),
            );
        }
        *self.iteration.lock().expect("iteration lock") = Some(iteration);
        let (threads, _) =
            self.client.get(&format!("{}/threads?{VERSION}", self.pr), "list the pull request's threads").await?;
        for t in threads["value"].as_array().into_iter().flatten() {
            classify(t, &me, &mut existing);
        }
        Ok(existing)
    }

    async fn create(&self, head: &str, comments: &[NewComment]) -> Result<(), PublishError> {
        let cached = self.iteration.lock().expect("iteration lock").clone();
        let iteration = match cached {
            Some(i) => i,
            None => self.load_iteration(head).await?.0,
        };
        // Azure DevOps has no batch endpoint: one thread per comment.
        for (i, c) in comments.iter().enumerate() {
            let mut thread = json!({
                "comments": [{"parentCommentId": 0, "content": c.body, "commentType": "text"}],
                "status": "active",
                "threadContext": {
                    "filePath": format!("/{}", c.anchor.path.trim_start_matches('/')),
                    "rightFileStart": {"line": c.anchor.start, "offset": 1},
                    "rightFileEnd": {"line": c.anchor.line, "offset": 1},
                },
            });
            if let Some(tracking) = iteration.tracking.get(&c.anchor.path) {
                thread["pullRequestThreadContext"] = json!({
                    "changeTrackingId": tracking,
                    "iterationContext": {"firstComparingIteration": 1, "secondComparingIteration": iteration.id},
                });
            }
            if let Err(e) = self.new_thread(thread, "open a thread").await {
                return Err(crate::sync::created_before(e, i, comments.len()));
            }
        }
        Ok(())
    }

    async fn update(&self, thread: &Handle, body: &str, reopen: bool) -> Result<(), PublishError> {
        if reopen {
            self.set_status(thread, "active").await?;
        }
        self.edit(thread, body).await
    }

    async fn resolve(&self, thread: &Handle, body: &str) -> Result<(), PublishError> {
        self.edit(thread, body).await?;
        self.set_status(thread, "fixed").await
    }

    async fn upsert_overview(&self, existing: Option<&Handle>, body: &str) -> Result<(), PublishError> {
        match existing {
            Some(h) => self.edit(h, body).await,
            None => {
                let thread = json!({
                    "comments": [{"parentCommentId": 0, "content": body, "commentType": "text"}],
                    "status": "closed",
                });
                self.new_thread(thread, "post the overview thread").await
            }
        }
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        let groups = self.writer_groups().await?;
        if groups.is_empty() {
            return Err(PublishError::Response {
                host: HOST,
                what: "look up the project's Contributors group".into(),
                message: format!("no group named [{}]\\Contributors was found", self.project),
            });
        }
        let url = format!(
            "{}/_apis/identities?identityIds={}&queryMembership=expanded&{VERSION}",
            self.identities,
            encode(&who.id)
        );
        let (found, _) = self.client.get(&url, "read an identity's group memberships").await?;
        let member_of = listed(&found).first().and_then(|i| i["memberOf"].as_array().cloned()).unwrap_or_default();
        Ok(member_of.iter().filter_map(descriptor).any(|d| groups.contains(&d)))
    }

    /// A pull request status with context `gauntlet/gauntlet`. Each run posts a
    /// new one; Azure DevOps shows the latest of a context, so a re-run replaces
    /// what the pull request shows rather than adding to it.
    async fn report_status(&self, _head: &str, status: &Status<'_>) -> Result<Option<String>, PublishError> {
        let state = status.verdict.azure_state();
        let description = gauntlet_report::plain::line(&status.headline(), DESCRIPTION_LIMIT);
        let mut body = json!({
            "state": state,
            "description": description,
            "context": {"name": NAME, "genre": NAME},
        });
        if let Some(url) = &status.details_url {
            body["targetUrl"] = json!(url);
        }
        let url = format!("{}/statuses?{VERSION}", self.pr);
        self.client.send(Method::POST, &url, &body, "post the pull request status").await?;
        Ok(Some(format!("pull request status `{NAME}/{NAME}` {state}")))
    }
}
