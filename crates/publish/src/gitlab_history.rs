//! [`History`] for GitLab: see [`crate::history`] for the fields read.

use super::{GitLab, HOST, classify};
use crate::PublishError;
use crate::history::{Comment, History, LeftOut, OverviewComment, Pull, PullRecord};
use crate::host::{Existing, Person};
use crate::http::string;
use crate::outcome::PrState;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const EDITORS: &str = "query($path:ID!,$iid:String!,$cursor:String){project(fullPath:$path){mergeRequest(iid:$iid){notes(first:100,after:$cursor){pageInfo{hasNextPage endCursor} nodes{id lastEditedBy{id}}}}}}";

/// Pages read per merge request, of discussions and of notes (100 a page).
const MAX_PAGES: usize = 20;

/// Who besides the pipeline (user `me`) last edited note `note`, by `editors`, or
/// why that is not known; `None` when nobody else did.
fn edited_by_other(editors: &BTreeMap<String, Option<String>>, note: &str, me: &str) -> Option<LeftOut> {
    match editors.get(note) {
        None => Some(LeftOut::Unlisted("GitLab did not list the note's edits".to_string())),
        Some(Some(editor)) if editor != me => Some(LeftOut::EditedBy(format!("user {editor}"))),
        Some(_) => None,
    }
}

/// The number at the end of a GraphQL global id (`gid://gitlab/DiffNote/12` -> `12`).
fn tail(gid: &str) -> String {
    gid.rsplit('/').next().unwrap_or_default().to_string()
}

impl GitLab {
    /// The last editor of each note of merge request `iid` that was edited, by note id.
    async fn editors(&self, iid: u64) -> Result<BTreeMap<String, Option<String>>, PublishError> {
        let known = self.project_path.lock().expect("project path lock").clone();
        let path = match known {
            Some(path) => path,
            None => {
                let (project, _) = self.client.get(&self.project, "read the project").await?;
                let path = string(&project, "/path_with_namespace", HOST, "read the project's path")?;
                *self.project_path.lock().expect("project path lock") = Some(path.clone());
                path
            }
        };
        let url = format!("{}/graphql", self.api.trim_end_matches("/v4"));
        let mut out = BTreeMap::new();
        let mut cursor = Value::Null;
        for _ in 0..MAX_PAGES {
            let body = json!({"query": EDITORS, "variables": {"path": path, "iid": iid.to_string(), "cursor": cursor}});
            let answer = self.client.query(&url, &body, "read who edited the merge request's notes").await?;
            if let Some(errors) = answer.get("errors").filter(|e| e.as_array().is_some_and(|a| !a.is_empty())) {
                let message = errors.to_string().chars().take(300).collect();
                return Err(PublishError::Response { host: HOST, what: "read note edits".into(), message });
            }
            let notes = &answer["data"]["project"]["mergeRequest"]["notes"];
            for n in notes["nodes"].as_array().into_iter().flatten() {
                let editor = n["lastEditedBy"]["id"].as_str().map(tail);
                out.insert(tail(n["id"].as_str().unwrap_or_default()), editor);
            }
            if notes["pageInfo"]["hasNextPage"].as_bool() != Some(true) {
                break;
            }
            cursor = notes["pageInfo"]["endCursor"].clone();
        }
        Ok(out)
    }
}

impl GitLab {
    /// Who besides the pipeline (user `me`) last edited this merge request's
    /// overview note `note`, or why GitLab's answer does not say; `None` when
    /// nobody else did. A refusal (a GraphQL error, or 401, 403 or 404 from an
    /// instance or proxy that does not serve GraphQL to this token) is a reason:
    /// `ci` then only stops carrying over what the note remembers, and still
    /// posts. A failure that may pass (the network, a 5xx after retries) fails
    /// the run instead, as any other read does: a re-run then loses nothing,
    /// where carrying nothing over would lose the overview's record for good.
    pub(super) async fn overview_edited(&self, note: &str, me: &str) -> Result<Option<String>, PublishError> {
        match self.editors(self.iid).await {
            Ok(editors) => Ok(edited_by_other(&editors, note, me).map(|why| why.to_string())),
            Err(e @ (PublishError::Response { .. } | PublishError::Denied { .. })) => {
                Ok(Some(format!("GitLab did not say who last edited it ({e})")))
            }
            Err(e @ PublishError::Http { status: 404, .. }) => {
                Ok(Some(format!("GitLab did not say who last edited it ({e})")))
            }
            Err(e) => Err(e),
        }
    }
}

#[async_trait]
impl History for GitLab {
    fn name(&self) -> &'static str {
        HOST
    }

    async fn pulls(&self, page: u32) -> Result<(Vec<Pull>, bool), PublishError> {
        let url =
            format!("{}/merge_requests?state=all&order_by=updated_at&sort=desc&per_page=100&page={page}", self.project);
        let (list, headers) = self.client.get(&url, "list the project's merge requests").await?;
        let more = headers.get("x-next-page").and_then(|v| v.to_str().ok()).is_some_and(|v| !v.is_empty());
        let pulls = list
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| {
                let (state, closed) = match m["state"].as_str()? {
                    "merged" => (PrState::Merged, m["merged_at"].as_str().or(m["closed_at"].as_str())),
                    "closed" => (PrState::Closed, m["closed_at"].as_str()),
                    _ => (PrState::Open, Some("")),
                };
                Some(Pull {
                    number: m["iid"].as_u64()?,
                    state,
                    closed_at: closed.unwrap_or_default().to_string(),
                    listed_at: m["updated_at"].as_str().map(str::to_string),
                })
            })
            .collect();
        Ok((pulls, more))
    }

    async fn record(&self, pull: &Pull) -> Result<PullRecord, PublishError> {
        let me = self.own_id().await?;
        let mr = format!("{}/merge_requests/{}", self.project, pull.number);
        let (info, _) = self.client.get(&mr, "read a merge request").await?;
        let mut out = PullRecord { author: super::person(&info["author"]), ..PullRecord::default() };
        let editors = self.editors(pull.number).await?;
        let mut page = "1".to_string();
        for _ in 0..MAX_PAGES {
            let url = format!("{mr}/discussions?per_page=100&page={page}");
            let (list, headers) = self.client.get(&url, "list a merge request's discussions").await?;
            for d in list.as_array().into_iter().flatten() {
                let mut found = Existing::default();
                classify(d, &me, &mut found);
                // Others' notes outside the pipeline's discussions, as `ci` reads them.
                out.general.append(&mut found.general);
                if let Some(overview) = found.overview.filter(|_| out.overview.is_none()) {
                    let edited = edited_by_other(&editors, &overview.handle.comment, &me);
                    out.overview = Some(OverviewComment { body: overview.body, edited });
                }
                let Some(mut thread) = found.threads.pop() else { continue };
                let notes = d["notes"].as_array().into_iter().flatten();
                let lines_changed = notes.filter(|n| n["system"] == true).any(|n| {
                    n["body"].as_str().is_some_and(|b| b.trim_start().to_lowercase().starts_with("changed this line"))
                });
                thread.thumbs_down = self.awards(&mr, &thread.handle.comment).await?;
                let edited = edited_by_other(&editors, &thread.handle.comment, &me);
                out.comments.push(Comment { thread, lines_changed, edited });
            }
            match headers.get("x-next-page").and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty()) {
                Some(next) => page = next.to_string(),
                None => break,
            }
        }
        Ok(out)
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        crate::CodeHost::may_write(self, who).await
    }
}

impl GitLab {
    /// Who gave note `note` of merge request `mr` a `thumbsdown` award.
    async fn awards(&self, mr: &str, note: &str) -> Result<Vec<Person>, PublishError> {
        let mut people = Vec::new();
        for page in 1..=10 {
            let url = format!("{mr}/notes/{note}/award_emoji?per_page=100&page={page}");
            let (list, _) = self.client.get(&url, "list a note's award emoji").await?;
            let items = list.as_array().cloned().unwrap_or_default();
            people.extend(items.iter().filter(|a| a["name"] == "thumbsdown").filter_map(|a| super::person(&a["user"])));
            if items.len() < 100 {
                break;
            }
        }
        Ok(people)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_gitlab_did_not_list_is_unlisted_and_one_another_user_edited_is_edited() {
        let editors = BTreeMap::from([("1".to_string(), None), ("2".to_string(), Some("77".to_string()))]);
        assert_eq!(edited_by_other(&editors, "1", "5"), None, "never edited");
        assert_eq!(edited_by_other(&editors, "2", "77"), None, "edited by the pipeline itself");
        assert_eq!(edited_by_other(&editors, "2", "5"), Some(LeftOut::EditedBy("user 77".into())));
        let unlisted = edited_by_other(&editors, "3", "5").unwrap();
        assert!(matches!(unlisted, LeftOut::Unlisted(_)), "{unlisted:?}");
        assert_eq!(unlisted.to_string(), "GitLab did not list the note's edits");
    }
}
