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

    /// The old-side line blocks the FileDiffs API reports changed in each of
    /// `paths` between commits `from` and `to`, by path: one request for up to
    /// [`DIFFS_PER_REQUEST`] files.
    async fn changed_blocks(
        &self,
        paths: &[&str],
        from: &str,
        to: &str,
    ) -> Result<BTreeMap<String, Vec<(u32, u32)>>, PublishError> {
        let url = format!("{}/filediffs?{VERSION}", self.repository());
        let mut out: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        for chunk in paths.chunks(DIFFS_PER_REQUEST) {
            let params: Vec<Value> = chunk.iter().map(|p| json!({"path": p, "originalPath": p})).collect();
            let body = json!({"baseVersionCommit": from, "targetVersionCommit": to, "fileDiffParams": params});
            let answer = self.client.query(&url, &body, "compare files between iterations").await?;
            let diffs = answer.as_array().or(answer["value"].as_array()).cloned().unwrap_or_default();
            // The answer names each file; should it name one in another form than
            // asked (no leading slash), it still answers the files in the order asked.
            let asked = |d: &Value, i: usize| {
                let named = d["path"].as_str().or(d["originalPath"].as_str()).map(|p| p.trim_start_matches('/'));
                let by_name = named.and_then(|n| chunk.iter().find(|p| p.trim_start_matches('/') == n));
                by_name.or_else(|| (diffs.len() == chunk.len()).then(|| &chunk[i])).map(|p| p.to_string())
            };
            for (i, d) in diffs.iter().enumerate() {
                let Some(path) = asked(d, i) else { continue };
                let number = |b: &Value, k: &str| b[k].as_u64().unwrap_or(0) as u32;
                let blocks = d["lineDiffBlocks"].as_array().cloned().unwrap_or_default();
                let changed = blocks
                    .iter()
                    .filter(|b| !matches!(&b["changeType"], Value::String(s) if s == "none") && b["changeType"] != 0)
                    .map(|b| (number(b, "originalLineNumberStart"), number(b, "originalLinesCount")));
                out.entry(path).or_default().extend(changed);
            }
        }
        Ok(out)
    }
}

/// Files compared per FileDiffs request.
const DIFFS_PER_REQUEST: usize = 50;

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
        // The pipeline's threads, each with its file, lines and the commit it was
        // placed on; compared with the last iteration below, one request per commit.
        let mut placed_on: Vec<(crate::host::Thread, String, (u32, u32), Option<String>)> = Vec::new();
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
            let placed = iteration.and_then(|i| commits.get(&i)).filter(|c| !last.is_empty() && **c != last);
            let path = t["threadContext"]["filePath"].as_str().unwrap_or_default().to_string();
            placed_on.push((thread, path, placed_lines(t), placed.cloned()));
        }
        let mut blocks: BTreeMap<&str, BTreeMap<String, Vec<(u32, u32)>>> = BTreeMap::new();
        for from in placed_on.iter().filter_map(|(_, _, _, from)| from.as_deref()) {
            if blocks.contains_key(from) {
                continue;
            }
            let mut paths: Vec<&str> = placed_on
                .iter()
                .filter(|(_, _, _, f)| f.as_deref() == Some(from))
                .map(|(_, path, _, _)| path.as_str())
                .collect();
            paths.sort_unstable();
            paths.dedup();
            blocks.insert(from, self.changed_blocks(&paths, from, &last).await?);
        }
        for (thread, path, (first, end), from) in &placed_on {
            let changed = from.as_deref().and_then(|f| blocks.get(f)?.get(path.as_str()));
            let lines_changed =
                changed.is_some_and(|list| list.iter().any(|&(start, count)| touches(start, count, *first, *end)));
            // Azure DevOps lets only a comment's author edit it: no edit history to read.
            out.comments.push(Comment { thread: thread.clone(), lines_changed, edited: None });
        }
        Ok(out)
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        crate::CodeHost::may_write(self, who).await
    }
}
