//! [`History`] for GitHub: see [`crate::history`] for the fields read.

use super::{GitHub, HOST, MORE_PR_COMMENTS, person};
use crate::PublishError;
use crate::history::{Comment, History, LeftOut, OverviewComment, Pull, PullRecord};
use crate::host::Person;
use crate::marker::OverviewMarker;
use crate::outcome::PrState;
use async_trait::async_trait;
use serde_json::{Value, json};

const RECORD: &str = "query($owner:String!,$name:String!,$number:Int!,$cursor:String){repository(owner:$owner,name:$name){pullRequest(number:$number){author{login} reviewThreads(first:50,after:$cursor){pageInfo{hasNextPage endCursor} nodes{id isResolved isOutdated resolvedBy{login} path head:comments(first:1){nodes{id databaseId body author{login} editor{login} userContentEdits(first:100){totalCount nodes{editor{login}}} reactions(content:THUMBS_DOWN,first:100){pageInfo{hasNextPage endCursor} nodes{user{login}}}}} comments(first:100){pageInfo{hasNextPage endCursor} nodes{databaseId body author{login} lastEditedAt editor{login}}}}} id comments(first:100){pageInfo{hasNextPage endCursor} nodes{body author{login} lastEditedAt editor{login} userContentEdits(first:100){totalCount nodes{editor{login}}}}}}}}";

/// Pages of review threads read per pull request (50 a page).
const MAX_THREAD_PAGES: usize = 20;

impl GitHub {
    /// Who besides the pipeline edited the pipeline's comment `first` (a thread's
    /// first comment, or the overview), or why that is not known; `None` when
    /// only the pipeline ever did.
    fn edited_by_other(&self, first: &Value) -> Option<LeftOut> {
        let edits = &first["userContentEdits"];
        if edits.is_null() {
            return Some(LeftOut::Unlisted("GitHub did not list the comment's edits".into()));
        }
        let listed = edits["nodes"].as_array().cloned().unwrap_or_default();
        let total = edits["totalCount"].as_u64().unwrap_or(0);
        if total > listed.len() as u64 {
            let why = format!("GitHub listed {} of the comment's {total} edits", listed.len());
            return Some(LeftOut::Unlisted(why));
        }
        for edit in &listed {
            match edit["editor"]["login"].as_str() {
                None => return Some(LeftOut::EditedBy("an account GitHub no longer names".into())),
                Some(login) if !self.is_pipeline(Some(login)) => return Some(LeftOut::EditedBy(login.to_string())),
                Some(_) => {}
            }
        }
        match first["editor"]["login"].as_str() {
            Some(login) if !self.is_pipeline(Some(login)) => Some(LeftOut::EditedBy(login.to_string())),
            _ => None,
        }
    }
}

impl GitHub {
    /// The pipeline's overview among a pull request's `comments`: the first the
    /// pipeline wrote with an overview marker, as `ci` finds it.
    fn overview_of(&self, comments: &[Value]) -> Option<OverviewComment> {
        let c = comments.iter().find(|c| {
            self.is_pipeline(c["author"]["login"].as_str())
                && c["body"].as_str().is_some_and(|b| OverviewMarker::parse(b).is_some())
        })?;
        Some(OverviewComment { body: c["body"].as_str()?.to_string(), edited: self.edited_by_other(c) })
    }
}

#[async_trait]
impl History for GitHub {
    fn name(&self) -> &'static str {
        HOST
    }

    async fn pulls(&self, page: u32) -> Result<(Vec<Pull>, bool), PublishError> {
        let url = format!("{}/pulls?state=closed&sort=updated&direction=desc&per_page=100&page={page}", self.repo);
        let (list, headers) = self.client.get(&url, "list the repository's closed pull requests").await?;
        let items = list.as_array().cloned().unwrap_or_default();
        let pulls = items
            .iter()
            .filter_map(|p| {
                let merged = p["merged_at"].as_str();
                Some(Pull {
                    number: p["number"].as_u64()?,
                    state: if merged.is_some() { PrState::Merged } else { PrState::Closed },
                    closed_at: merged.or(p["closed_at"].as_str())?.to_string(),
                    listed_at: p["updated_at"].as_str().map(str::to_string),
                })
            })
            .collect();
        // GitHub names the next page in the Link header, and only when there is one.
        let link = headers.get("link").and_then(|v| v.to_str().ok()).unwrap_or_default();
        Ok((pulls, link.split(',').any(|l| l.contains("rel=\"next\""))))
    }

    async fn record(&self, pull: &Pull) -> Result<PullRecord, PublishError> {
        let mut out = PullRecord::default();
        let mut cursor = Value::Null;
        for page in 0..MAX_THREAD_PAGES {
            let vars = json!({"owner": self.owner, "name": self.name, "number": pull.number, "cursor": cursor});
            let answer = self.graphql(RECORD, vars, "list a pull request's review threads").await?;
            let pr = &answer["data"]["repository"]["pullRequest"];
            out.author = out.author.take().or_else(|| person(&pr["author"]));
            if page == 0 {
                // The pull request's own comments, as `ci` reads them: where a
                // `/gauntlet dismiss <finding id>` can be (paged up to `MAX_PAGES`).
                let id = pr["id"].as_str().unwrap_or_default();
                let (comments, cut) = self.pages(&pr["comments"], MORE_PR_COMMENTS, id, "comments").await?;
                if cut {
                    out.general_unread = Some(format!("pull request comments after the first {}", comments.len()));
                }
                out.general = self.replies(&comments, 0);
                out.overview = self.overview_of(&comments);
            }
            let page = &pr["reviewThreads"];
            for node in page["nodes"].as_array().into_iter().flatten() {
                let mut unread = Vec::new();
                if let Some(thread) = self.thread(node, &mut unread).await? {
                    // A thread whose replies or reactions could not all be read may
                    // hide a dismissal: it is left out of the figures, with why.
                    let cut = (!unread.is_empty())
                        .then(|| LeftOut::Unlisted(format!("not read in full: {}", unread.join("; "))));
                    out.comments.push(Comment {
                        thread,
                        lines_changed: node["isOutdated"].as_bool() == Some(true),
                        edited: self.edited_by_other(&node["head"]["nodes"][0]).or(cut),
                    });
                }
            }
            if page["pageInfo"]["hasNextPage"].as_bool() != Some(true) {
                break;
            }
            cursor = page["pageInfo"]["endCursor"].clone();
        }
        Ok(out)
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        crate::CodeHost::may_write(self, who).await
    }
}
