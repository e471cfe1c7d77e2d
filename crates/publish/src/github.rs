//! GitHub: the overview is an issue comment on the pull request; inline
//! findings go out as one review (`event: COMMENT`) on the head commit; threads
//! are listed and resolved through GraphQL, the only API that knows them.

use crate::PublishError;
use crate::host::{CodeHost, Edited, Existing, Handle, NewComment, Overview, Person, Reply, Thread};
use crate::http::{Client, encode, string};
use crate::marker::{FindingMarker, OverviewMarker};
use crate::status::{NAME, Status};
use async_trait::async_trait;
use gauntlet_report::plain;
use gauntlet_review::contract::{Location, Severity};
use gauntlet_review::review::Published;
use reqwest::Method;
use serde_json::{Value, json};

const HOST: &str = "GitHub";

#[path = "github_history.rs"]
mod history;

/// Annotations one check-run request may carry: the Checks API takes at most 50.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;
/// GitHub's limit on an annotation's title, in characters.
pub const TITLE_LIMIT: usize = 255;
/// Characters of a claim kept in an annotation's message (GitHub takes up to
/// 64 KB; a claim is a few sentences, and a flood helps nobody).
pub const MESSAGE_LIMIT: usize = 4_000;
/// The `external_id` of gauntlet's check runs: it tells them from a workflow
/// job that happens to be named `gauntlet` too.
pub const EXTERNAL_ID: &str = "gauntlet-ci";

/// Pages read of any one list (threads, a thread's comments, a comment's
/// reactions), 100 items each; a list longer than that is named in the overview.
const MAX_PAGES: usize = 20;

/// The review threads, each with its opening comment (and that comment's
/// thumbs-down reactions) and its first 100 comments; longer lists are paged.
const THREADS: &str = "query($owner:String!,$name:String!,$number:Int!,$cursor:String){repository(owner:$owner,name:$name){pullRequest(number:$number){id author{login} comments(first:100){pageInfo{hasNextPage endCursor} nodes{body author{login} lastEditedAt editor{login}}} reviewThreads(first:100,after:$cursor){pageInfo{hasNextPage endCursor} nodes{id isResolved resolvedBy{login} path head:comments(first:1){nodes{id databaseId body author{login} reactions(content:THUMBS_DOWN,first:100){pageInfo{hasNextPage endCursor} nodes{user{login}}}}} comments(first:100){pageInfo{hasNextPage endCursor} nodes{databaseId body author{login} lastEditedAt editor{login}}}}}}}}";

/// A thread's comments after `cursor`.
const MORE_COMMENTS: &str = "query($id:ID!,$cursor:String){node(id:$id){... on PullRequestReviewThread{comments(first:100,after:$cursor){pageInfo{hasNextPage endCursor} nodes{databaseId body author{login} lastEditedAt editor{login}}}}}}";

/// The pull request's own comments after `cursor`.
const MORE_PR_COMMENTS: &str = "query($id:ID!,$cursor:String){node(id:$id){... on PullRequest{comments(first:100,after:$cursor){pageInfo{hasNextPage endCursor} nodes{body author{login} lastEditedAt editor{login} userContentEdits(first:100){totalCount nodes{editor{login}}}}}}}}";

/// A comment's thumbs-down reactions after `cursor`.
const MORE_REACTIONS: &str = "query($id:ID!,$cursor:String){node(id:$id){... on PullRequestReviewComment{reactions(content:THUMBS_DOWN,first:100,after:$cursor){pageInfo{hasNextPage endCursor} nodes{user{login}}}}}}";

/// Where the pull request is and who the pipeline is.
#[derive(Clone, Debug)]
pub struct Config {
    /// `GITHUB_API_URL`, e.g. `https://api.github.com`.
    pub api_url: String,
    /// `GITHUB_GRAPHQL_URL`; defaults to `{api_url}/graphql`.
    pub graphql_url: Option<String>,
    /// `owner/name` (`GITHUB_REPOSITORY`).
    pub repository: String,
    pub number: u64,
    pub token: String,
    /// The login the token posts as; `github-actions[bot]` for `GITHUB_TOKEN`.
    pub login: String,
}

pub struct GitHub {
    client: Client,
    repo: String,
    graphql: String,
    owner: String,
    name: String,
    number: u64,
    login: String,
}

impl GitHub {
    /// Send at most `calls` requests from now on (retries included); later ones
    /// fail without reaching the host. `ci` reads history under such a budget.
    pub fn limit_calls(mut self, calls: usize) -> GitHub {
        self.client.limit_calls(calls);
        self
    }

    pub fn new(config: Config) -> Result<GitHub, PublishError> {
        let api = config.api_url.trim_end_matches('/').to_string();
        let (owner, name) = config.repository.split_once('/').ok_or_else(|| PublishError::Response {
            host: HOST,
            what: "read the repository name".into(),
            message: format!("`{}` is not owner/name", config.repository),
        })?;
        let headers = [
            ("Authorization", format!("Bearer {}", config.token)),
            ("Accept", "application/vnd.github+json, application/json".to_string()),
            ("X-GitHub-Api-Version", "2022-11-28".to_string()),
        ];
        Ok(GitHub {
            client: Client::new(HOST, &headers, &config.token)?,
            repo: format!("{api}/repos/{owner}/{name}"),
            graphql: config.graphql_url.unwrap_or_else(|| format!("{api}/graphql")),
            owner: owner.to_string(),
            name: name.to_string(),
            number: config.number,
            login: config.login,
        })
    }

    /// Logins compare without the `[bot]` suffix GraphQL leaves off.
    fn is_pipeline(&self, login: Option<&str>) -> bool {
        let norm = |l: &str| l.trim_end_matches("[bot]").to_ascii_lowercase();
        login.is_some_and(|l| norm(l) == norm(&self.login))
    }

    async fn graphql(&self, query: &str, variables: Value, what: &str) -> Result<Value, PublishError> {
        let body = json!({"query": query, "variables": variables});
        let answer = if query.starts_with("mutation") {
            self.client.send(Method::POST, &self.graphql, &body, what).await?
        } else {
            self.client.query(&self.graphql, &body, what).await?
        };
        if let Some(errors) = answer.get("errors").filter(|e| e.as_array().is_some_and(|a| !a.is_empty())) {
            let message = errors.to_string().chars().take(300).collect();
            let forbidden = errors.to_string().contains("FORBIDDEN") || errors.to_string().contains("not accessible");
            let what = what.to_string();
            return Err(if forbidden {
                PublishError::Denied { host: HOST, what, status: 403, message }
            } else {
                PublishError::Response { host: HOST, what, message }
            });
        }
        Ok(answer)
    }

    async fn overview(&self) -> Result<Option<Overview>, PublishError> {
        for page in 1..=30 {
            let url = format!("{}/issues/{}/comments?per_page=100&page={page}", self.repo, self.number);
            let (list, _) = self.client.get(&url, "list the pull request's comments").await?;
            let items = list.as_array().cloned().unwrap_or_default();
            for c in &items {
                let body = c["body"].as_str().unwrap_or_default();
                if self.is_pipeline(c["user"]["login"].as_str()) && OverviewMarker::parse(body).is_some() {
                    let id = string(c, "/id", HOST, "list comments")?;
                    let handle = Handle { thread: id.clone(), comment: id };
                    return Ok(Some(Overview { handle, body: body.to_string() }));
                }
            }
            if items.len() < 100 {
                break;
            }
        }
        Ok(None)
    }

    /// The pipeline's review threads, the pull request's author, comments on the
    /// pull request by others, and what could not be read in full.
    async fn threads(&self) -> Result<(Vec<Thread>, Option<Person>, Vec<Reply>, Vec<String>), PublishError> {
        let mut threads = Vec::new();
        let mut author = None;
        let mut general = Vec::new();
        let mut unread = Vec::new();
        let mut cursor = Value::Null;
        for page in 1.. {
            let vars = json!({"owner": self.owner, "name": self.name, "number": self.number, "cursor": cursor});
            let answer = self.graphql(THREADS, vars, "list the review threads").await?;
            let pr = &answer["data"]["repository"]["pullRequest"];
            if page == 1 {
                author = person(&pr["author"]);
                let id = pr["id"].as_str().unwrap_or_default();
                let (comments, cut) = self.pages(&pr["comments"], MORE_PR_COMMENTS, id, "comments").await?;
                if cut {
                    unread.push(format!("pull request comments after the first {}", comments.len()));
                }
                general = self.replies(&comments, 0);
            }
            let list = &pr["reviewThreads"];
            for node in list["nodes"].as_array().into_iter().flatten() {
                threads.extend(self.thread(node, &mut unread).await?);
            }
            if !more(list) {
                break;
            }
            if page == MAX_PAGES {
                unread.push(format!("review threads after the first {}", threads.len()));
                break;
            }
            cursor = list["pageInfo"]["endCursor"].clone();
        }
        Ok((threads, author, general, unread))
    }

    /// The comments in `comments` from index `skip` on that are not the pipeline's.
    fn replies(&self, comments: &[Value], skip: usize) -> Vec<Reply> {
        comments
            .iter()
            .skip(skip)
            .filter(|c| !self.is_pipeline(c["author"]["login"].as_str()))
            .filter_map(|c| {
                let author = person(&c["author"])?;
                Some(Reply { edited: self.edited(c, &author), author, body: c["body"].as_str()?.to_string() })
            })
            .collect()
    }

    /// A review thread, when the pipeline opened it with a finding marker, with
    /// all its replies and thumbs-down reactions (paged up to [`MAX_PAGES`]).
    async fn thread(&self, node: &Value, unread: &mut Vec<String>) -> Result<Option<Thread>, PublishError> {
        let Some(first) = node["head"]["nodes"].as_array().and_then(|c| c.first()) else { return Ok(None) };
        let Some(body) = first["body"].as_str() else { return Ok(None) };
        if !self.is_pipeline(first["author"]["login"].as_str()) || FindingMarker::parse(body).is_none() {
            return Ok(None);
        }
        let Some(id) = node["id"].as_str() else { return Ok(None) };
        let path = node["path"].as_str().unwrap_or_default().to_string();
        let (comments, cut) = self.pages(&node["comments"], MORE_COMMENTS, id, "comments").await?;
        if cut {
            unread.push(format!("replies on `{path}` after the first {}", comments.len()));
        }
        let comment_id = first["id"].as_str().unwrap_or_default();
        let (reactions, cut) = self.pages(&first["reactions"], MORE_REACTIONS, comment_id, "reactions").await?;
        if cut {
            unread.push(format!("thumbs-down reactions on `{path}` after the first {}", reactions.len()));
        }
        let replies = self.replies(&comments, 1);
        let resolved_by = person(&node["resolvedBy"]).filter(|p| !self.is_pipeline(Some(&p.id)));
        let thumbs_down =
            reactions.iter().filter_map(|r| person(&r["user"])).filter(|p| !self.is_pipeline(Some(&p.id))).collect();
        Ok(Some(Thread {
            handle: Handle { thread: id.to_string(), comment: first["databaseId"].to_string() },
            path,
            body: body.to_string(),
            resolved: node["isResolved"].as_bool().unwrap_or(false),
            resolved_by,
            replies,
            thumbs_down,
        }))
    }

    /// Who else edited comment `c` by `author`, as GitHub records its last edit.
    fn edited(&self, c: &Value, author: &Person) -> Edited {
        if c["lastEditedAt"].is_null() {
            return Edited::NotByOthers;
        }
        match person(&c["editor"]) {
            Some(editor) if editor.id.eq_ignore_ascii_case(&author.id) => Edited::NotByOthers,
            Some(editor) => Edited::By(editor),
            None => Edited::ByUnknown,
        }
    }

    /// The nodes of a connection (`first`, as the thread query returned it) and of
    /// the pages after it, read with `query` on node `id` under `field`; `true`
    /// when [`MAX_PAGES`] cut the list short.
    async fn pages(
        &self,
        first: &Value,
        query: &str,
        id: &str,
        field: &str,
    ) -> Result<(Vec<Value>, bool), PublishError> {
        let mut nodes: Vec<Value> = first["nodes"].as_array().cloned().unwrap_or_default();
        let mut page = first.clone();
        for _ in 1..MAX_PAGES {
            if !more(&page) {
                return Ok((nodes, false));
            }
            let vars = json!({"id": id, "cursor": page["pageInfo"]["endCursor"]});
            let answer = self.graphql(query, vars, &format!("list a review thread's {field}")).await?;
            page = answer["data"]["node"][field].clone();
            nodes.extend(page["nodes"].as_array().cloned().unwrap_or_default());
        }
        Ok((nodes, more(&page)))
    }

    async fn edit(&self, comment: &str, body: &str) -> Result<(), PublishError> {
        let url = format!("{}/pulls/comments/{comment}", self.repo);
        self.client.send(Method::PATCH, &url, &json!({"body": body}), "edit a review comment").await?;
        Ok(())
    }

    async fn set_resolved(&self, thread: &str, resolved: bool) -> Result<(), PublishError> {
        let (mutation, what) = if resolved {
            ("resolveReviewThread", "resolve a review thread")
        } else {
            ("unresolveReviewThread", "reopen a review thread")
        };
        let query = format!("mutation($id:ID!){{{mutation}(input:{{threadId:$id}}){{thread{{id isResolved}}}}}}");
        self.graphql(&query, json!({"id": thread}), what).await?;
        Ok(())
    }

    /// gauntlet's own check run on `head` that holds no annotation yet (one a run
    /// left unfinished, or a run with nothing to annotate), to complete instead of
    /// adding a second. The Checks API only ever adds annotations to a check run,
    /// never replaces them, so a run that has some is left as it is and a new one
    /// is created; GitHub shows the newest check run of a name.
    async fn reusable_check_run(&self, head: &str) -> Result<Option<u64>, PublishError> {
        let url =
            format!("{}/commits/{}/check-runs?check_name={NAME}&filter=latest&per_page=100", self.repo, encode(head));
        let (answer, _) = self.client.get(&url, "list the head commit's check runs").await?;
        let runs = answer["check_runs"].as_array().cloned().unwrap_or_default();
        Ok(runs
            .iter()
            .filter(|r| r["name"] == NAME && r["external_id"] == EXTERNAL_ID)
            .filter(|r| r["output"]["annotations_count"].as_u64() == Some(0))
            .find_map(|r| r["id"].as_u64()))
    }

    async fn create_check_run(&self, head: &str, status: &Status<'_>) -> Result<u64, PublishError> {
        let mut body = json!({
            "name": NAME,
            "head_sha": head,
            "external_id": EXTERNAL_ID,
            "status": "in_progress",
            "output": output(status, &[], None),
        });
        if let Some(url) = &status.details_url {
            body["details_url"] = json!(url);
        }
        let what = "create the check run";
        let answer = self.client.send(Method::POST, &format!("{}/check-runs", self.repo), &body, what).await?;
        answer["id"].as_u64().ok_or_else(|| PublishError::Response {
            host: HOST,
            what: what.into(),
            message: "no `id` in the answer".into(),
        })
    }

    async fn patch_check_run(&self, id: u64, body: &Value, what: &str) -> Result<(), PublishError> {
        self.client.send(Method::PATCH, &format!("{}/check-runs/{id}", self.repo), body, what).await?;
        Ok(())
    }
}

/// The check run's `output`: the verdict and notes as its title and summary
/// (gauntlet's own words), and `annotations`. `short` says how many
/// annotations could not be added, when some could not.
fn output(status: &Status<'_>, annotations: &[Value], short: Option<usize>) -> Value {
    let mut lines = status.lines();
    if let Some(missing) = short {
        lines.push(format!("{missing} annotation(s) could not be added; the run's log says why."));
    }
    json!({
        "title": plain::line(&format!("{NAME}: {}", status.headline()), TITLE_LIMIT),
        "summary": lines.join("\n\n"),
        "annotations": annotations,
    })
}

/// An annotation for a published finding. Annotations are plain text: the claim
/// goes in through [`plain`], capped.
pub fn annotation(p: &Published) -> Value {
    let (path, start, end) = match Location::parse(&p.location) {
        Some(l) => (l.path, l.start, l.end),
        None => (p.location.clone(), 1, 1),
    };
    let level = match p.severity {
        Severity::High => "failure",
        Severity::Medium => "warning",
        Severity::Low => "notice",
    };
    let title = format!("{} · {} · {}", p.severity.as_str(), p.lens.as_str().replace('_', " "), p.reviewer);
    json!({
        "path": path,
        "start_line": start,
        "end_line": end,
        "annotation_level": level,
        "title": plain::line(&title, TITLE_LIMIT),
        "message": plain::text(&format!("{}\n\ngauntlet finding {}", p.claim.trim(), p.id), MESSAGE_LIMIT),
    })
}

#[async_trait]
impl CodeHost for GitHub {
    fn name(&self) -> &'static str {
        HOST
    }

    fn wait_at_most(&mut self, limit: std::time::Duration) {
        self.client.wait_at_most(limit);
    }

    fn dialect(&self) -> crate::suggest::Dialect {
        crate::suggest::Dialect::GitHub
    }

    async fn existing(&self, _head: &str) -> Result<Existing, PublishError> {
        // GitHub accepts comments on any commit of the pull request, so a
        // newer push does not block placing them on the reviewed head.
        let (threads, author, general, unread) = self.threads().await?;
        let overview = self.overview().await?;
        Ok(Existing { overview, threads, inline_blocked: None, author, general, unread, overview_edited: None })
    }

    async fn create(&self, head: &str, comments: &[NewComment]) -> Result<(), PublishError> {
        let comments: Vec<Value> = comments
            .iter()
            .map(|c| {
                let mut comment =
                    json!({"path": c.anchor.path, "line": c.anchor.line, "side": "RIGHT", "body": c.body});
                if c.anchor.start < c.anchor.line {
                    comment["start_line"] = json!(c.anchor.start);
                    comment["start_side"] = json!("RIGHT");
                }
                comment
            })
            .collect();
        let summary = format!("gauntlet: {} new finding(s); the overview comment has the full review.", comments.len());
        let review = json!({"commit_id": head, "event": "COMMENT", "body": summary, "comments": comments});
        let url = format!("{}/pulls/{}/reviews", self.repo, self.number);
        self.client.send(Method::POST, &url, &review, "post a review").await?;
        Ok(())
    }

    async fn update(&self, thread: &Handle, body: &str, reopen: bool) -> Result<(), PublishError> {
        // Reopen first: should it fail, the body still says the pipeline
        // resolved the thread, and the next run does not mistake it for a
        // person's dismissal.
        if reopen {
            self.set_resolved(&thread.thread, false).await?;
        }
        self.edit(&thread.comment, body).await
    }

    async fn resolve(&self, thread: &Handle, body: &str) -> Result<(), PublishError> {
        self.edit(&thread.comment, body).await?;
        // The edited body already says it is resolved; a token that may not
        // resolve threads leaves it at that. Other failures are reported: the
        // next run finishes the resolution.
        match self.set_resolved(&thread.thread, true).await {
            Err(e) if !e.is_denied() => Err(e),
            _ => Ok(()),
        }
    }

    async fn upsert_overview(&self, existing: Option<&Handle>, body: &str) -> Result<(), PublishError> {
        let (method, url, what) = match existing {
            Some(h) => {
                (Method::PATCH, format!("{}/issues/comments/{}", self.repo, h.comment), "update the overview comment")
            }
            None => {
                (Method::POST, format!("{}/issues/{}/comments", self.repo, self.number), "post the overview comment")
            }
        };
        self.client.send(method, &url, &json!({"body": body}), what).await?;
        Ok(())
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        let url = format!("{}/collaborators/{}/permission", self.repo, encode(&who.id));
        match self.client.get(&url, "read a collaborator's permission").await {
            // `permission` folds maintain into write and triage into read.
            Ok((answer, _)) => Ok(matches!(answer["permission"].as_str(), Some("admin" | "write"))),
            Err(PublishError::Http { status: 404, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A check run named `gauntlet` on `head`: created in progress (or an earlier
    /// one without annotations taken up), the annotations added 50 a request,
    /// then completed with the verdict's conclusion. Should adding annotations
    /// fail part-way, the run is still completed, saying so, and the error returned.
    async fn report_status(&self, head: &str, status: &Status<'_>) -> Result<Option<String>, PublishError> {
        let id = match self.reusable_check_run(head).await? {
            Some(id) => id,
            None => self.create_check_run(head, status).await?,
        };
        let annotations: Vec<Value> = status.findings.iter().map(|p| annotation(p)).collect();
        let batches: Vec<&[Value]> = annotations.chunks(ANNOTATIONS_PER_REQUEST).collect();
        let (last, earlier) = batches.split_last().map_or((&[][..], &[][..]), |(l, e)| (*l, e));
        let mut added = 0;
        let mut failed = None;
        for batch in earlier {
            let body = json!({"output": output(status, batch, None)});
            match self.patch_check_run(id, &body, "add annotations to the check run").await {
                Ok(()) => added += batch.len(),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let (last, short) = match &failed {
            None => (last, None),
            Some(_) => (&[][..], Some(annotations.len() - added)),
        };
        let mut body = json!({
            "status": "completed",
            "conclusion": status.verdict.conclusion(),
            "output": output(status, last, short),
        });
        if let Some(url) = &status.details_url {
            body["details_url"] = json!(url);
        }
        self.patch_check_run(id, &body, "complete the check run").await?;
        if let Some(e) = failed {
            return Err(e);
        }
        let requests = batches.len().max(1);
        Ok(Some(format!(
            "check run `{NAME}` {} with {} annotation(s) in {requests} request(s)",
            status.verdict.conclusion(),
            annotations.len()
        )))
    }
}

/// Whether a GraphQL connection has another page.
fn more(connection: &Value) -> bool {
    connection["pageInfo"]["hasNextPage"].as_bool() == Some(true)
}

/// A GraphQL actor (`{login}`), when there is one (deleted accounts are `null`).
fn person(actor: &Value) -> Option<Person> {
    let login = actor["login"].as_str()?;
    Some(Person { id: login.to_string(), name: login.to_string() })
}
