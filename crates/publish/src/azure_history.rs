//! [`History`] for Azure DevOps: see [`crate::history`] for the fields read.

use super::{Azure, HOST, VERSION, classify};
use crate::PublishError;
use crate::history::{Comment, History, OverviewComment, Pull, PullRecord, touches};
use crate::host::{Existing, Person};
use crate::outcome::PrState;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Pages of pull requests and of threads per pull request are bounded by these.
const PAGE: u64 = 100;

impl Azure {
    /// The repository's API URL (`.../_apis/git/repositories/{id}`).
    fn repository(&self) -> &str {
        self.pr.rsplit_once("/pullRequests/").map_or(&self.pr, |(repo, _)| repo)
    }

    /// Whether `lines` of `path` changed between commits `from` and `to`, by the
    /// FileDiffs API's line blocks over the old side.
    async fn changed(&self, path: &str, lines: (u32, u32), from: &str, to: &str) -> Result<bool, PublishError> {
        if from == to {
            return Ok(false);
        }
        let url = format!("{}/filediffs?{VERSION}", self.repository());
        let body = json!({
            "baseVersionCommit": from,
            "targetVersionCommit": to,
            "fileDiffParams": [{"path": path, "originalPath": path}],
        });
        let answer = self.client.query(&url, &body, "compare a file between iterations").await?;
        let diffs = answer.as_array().or(answer["value"].as_array()).cloned().unwrap_or_default();
        let blocks = diffs.iter().flat_map(|d| d["lineDiffBlocks"].as_array().cloned().unwrap_or_default());
        let number = |b: &Value, k: &str| b[k].as_u64().unwrap_or(0) as u32;
        let changed = blocks
            .filter(|b| !matches!(&b["changeType"], Value::String(s) if s == "none") && b["changeType"] != 0)
            .any(|b| {
                touches(number(&b, "originalLineNumberStart"), number(&b, "originalLinesCount"), lines.0, lines.1)
            });
        Ok(changed)
    }
}

/// The head-side lines a thread was placed on: Azure DevOps keeps the original
/// place in `trackingCriteria` once it has moved the thread after a push.
fn placed_lines(t: &Value) -> (u32, u32) {
    let tracked = &t["pullRequestThreadContext"]["trackingCriteria"];
    let (start, end) = if tracked.is_object() {
        (&tracked["origRightFileStart"], &tracked["origRightFileEnd"])
    } else {
        (&t["threadContext"]["rightFileStart"], &t["threadContext"]["rightFileEnd"])
    };
    let start = start["line"].as_u64().unwrap_or(0) as u32;
    (start, (end["line"].as_u64().unwrap_or(0) as u32).max(start))
}

#[async_trait]
impl History for Azure {
    fn name(&self) -> &'static str {
        HOST
    }

    async fn pulls(&self, page: u32) -> Result<(Vec<Pull>, bool), PublishError> {
        let skip = u64::from(page.saturating_sub(1)) * PAGE;
        let url =
            format!("{}/pullrequests?searchCriteria.status=all&$top={PAGE}&$skip={skip}&{VERSION}", self.repository());
        let (list, _) = self.client.get(&url, "list the repository's pull requests").await?;
        let items = list["value"].as_array().cloned().unwrap_or_default();
        let pulls = items
            .iter()
            .filter_map(|p| {
                let state = match p["status"].as_str()? {
                    "completed" => PrState::Merged,
                    "abandoned" => PrState::Closed,
                    _ => PrState::Open,
                };
                let closed = if state == PrState::Open { "" } else { p["closedDate"].as_str()? };
                // Listed newest created first: creation says nothing about later closes.
                Some(Pull {
                    number: p["pullRequestId"].as_u64()?,
                    state,
                    closed_at: closed.to_string(),
                    listed_at: None,
                })
            })
            .collect();
        Ok((pulls, items.len() as u64 == PAGE))
    }

    async fn record(&self, pull: &Pull) -> Result<PullRecord, PublishError> {
        let me = self.own_id().await?;
        let pr = format!("{}/pullRequests/{}", self.repository(), pull.number);
        let (info, _) = self.client.get(&format!("{pr}?{VERSION}"), "read a pull request").await?;
        let (iterations, _) = self.client.get(&format!("{pr}/iterations?{VERSION}"), "list the iterations").await?;
        let commits: BTreeMap<u64, String> = iterations["value"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| Some((i["id"].as_u64()?, i["sourceRefCommit"]["commitId"].as_str()?.to_string())))
            .collect();
        let last = commits.last_key_value().map(|(_, c)| c.clone()).unwrap_or_default();
        let (threads, _) = self.client.get(&format!("{pr}/threads?{VERSION}"), "list a pull request's threads").await?;
        let mut out = PullRecord { author: super::person(&info["createdBy"]), ..PullRecord::default() };
        for t in threads["value"].as_array().into_iter().flatten() {
            let mut found = Existing::default();
            classify(t, &me, &mut found);
            // Others' comments outside the pipeline's threads, as `ci` reads them.
            out.general.append(&mut found.general);
            if let Some(overview) = found.overview.filter(|_| out.overview.is_none()) {
                // As for finding comments: only its author can edit it.
                out.overview = Some(OverviewComment { body: overview.body, edited: None });
            }
            let Some(thread) = found.threads.pop() else { continue };
            let iteration = t["pullRequestThreadContext"]["iterationContext"]["secondComparingIteration"].as_u64();
            let placed = iteration.and_then(|i| commits.get(&i));
            let path = t["threadContext"]["filePath"].as_str().unwrap_or_default();
            let lines_changed = match placed {
                Some(from) if !last.is_empty() => self.changed(path, placed_lines(t), from, &last).await?,
                _ => false,
            };
            // Azure DevOps lets only a comment's author edit it: no edit history to read.
            out.comments.push(Comment { thread, lines_changed, edited: None });
        }
        Ok(out)
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        crate::CodeHost::may_write(self, who).await
    }
}
