//! `gauntlet fix`: one loop per published finding (a work item), each producing a
//! patch against the reviewed head that survived a fresh adversary every round.
//!
//! Items run in parallel up to a bound, each in its own temporary worktree
//! ([`sandbox`]). An item that does not converge keeps its best patch, marked as
//! such: partial progress on some items and success on the others beats nothing.

pub mod sandbox;
pub mod summary;

use crate::converge::ExitReason;
use crate::engine::{Inspection, Kind, Outcome, Settings, Task, run};
use crate::meter::{Meter, Spent};
use gauntlet_review::contract::Location;
use gauntlet_review::fence::Fence;
use gauntlet_review::review::Published;
use sandbox::{Check, Sandbox};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A published finding to fix, as the review (or its JSON report) states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkItem {
    pub id: String,
    pub reviewer: String,
    pub location: String,
    pub claim: String,
    pub evidence: String,
    pub severity: String,
    #[serde(default)]
    pub validator_evidence: String,
}

impl From<&Published> for WorkItem {
    fn from(p: &Published) -> WorkItem {
        WorkItem {
            id: p.id.clone(),
            reviewer: p.reviewer.clone(),
            location: p.location.clone(),
            claim: p.claim.clone(),
            evidence: p.evidence.clone(),
            severity: p.severity.as_str().to_string(),
            validator_evidence: p.validator_evidence.clone(),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReportError {
    #[error(
        "{path} is not a gauntlet JSON report ({message}); write one with `gauntlet review --format json > report.json`"
    )]
    NotAReport { path: String, message: String },
    #[error("{path} has schema_version {found}; this gauntlet reads version {expected}: re-run the review with it")]
    Version { path: String, found: u32, expected: u32 },
}

#[derive(Deserialize)]
struct ReportFile {
    schema_version: u32,
    head: String,
    published: Vec<WorkItem>,
}

/// The reviewed head and the published findings of a JSON report; `path` only
/// names the file in errors.
pub fn parse_report(text: &str, path: &str) -> Result<(String, Vec<WorkItem>), ReportError> {
    let report: ReportFile = serde_json::from_str(text)
        .map_err(|e| ReportError::NotAReport { path: path.to_string(), message: e.to_string() })?;
    let expected = gauntlet_review::review::SCHEMA_VERSION;
    if report.schema_version != expected {
        return Err(ReportError::Version { path: path.to_string(), found: report.schema_version, expected });
    }
    Ok((report.head, report.published))
}

/// One finding, its file at head and its worktree.
pub struct Fix {
    fence: Fence,
    shared: String,
    sandbox: Sandbox,
}

impl Fix {
    pub fn new(item: &WorkItem, sandbox: Sandbox, masker: Option<&gauntlet_review::secrets::Masker>) -> Fix {
        let path = Location::parse(&item.location).map_or_else(|| item.location.clone(), |l| l.path);
        // Read from the checkout, which is the head: the user's files may differ.
        let text = std::fs::read(sandbox.root().join(&path)).ok().and_then(|b| String::from_utf8(b).ok());
        // Secrets are masked as in the review; a patch that writes a placeholder back
        // into the code is refused by the sandbox.
        let text = match (text, masker) {
            (Some(t), Some(m)) => Some(m.text(&t).0),
            (text, _) => text,
        };
        let numbered = text.as_deref().map(|t| gauntlet_review::prompt::numbered(1, t.lines()));
        let untrusted = [text.as_deref().unwrap_or(""), &item.claim, &item.evidence, &item.validator_evidence];
        let fence = Fence::new(&mut rand::rng(), untrusted);
        let context = crate::prompt::FixContext {
            location: &item.location,
            severity: &item.severity,
            claim: &item.claim,
            evidence: &item.evidence,
            validator_evidence: &item.validator_evidence,
            path: &path,
            numbered_file: numbered.as_deref(),
        };
        let shared = crate::prompt::fix_shared(&context, &fence);
        Fix { fence, shared, sandbox }
    }
}

#[async_trait::async_trait]
impl Task for Fix {
    fn kind(&self) -> Kind {
        Kind::Patch
    }
    fn shared(&self) -> Vec<String> {
        vec![self.shared.clone()]
    }
    fn brief(&self) -> String {
        crate::prompt::fix_primary()
    }
    /// The head itself: no patch yet.
    fn start(&self) -> String {
        String::new()
    }
    fn fence(&self) -> &Fence {
        &self.fence
    }
    async fn inspect(&self, work: &str) -> Inspection {
        self.sandbox.inspect(work).await
    }
}

/// Where and how the items are fixed.
#[derive(Clone, Debug)]
pub struct FixRun {
    pub repo: PathBuf,
    /// The reviewed head commit; every patch is against it.
    pub head: String,
    pub check: Option<Check>,
    pub settings: Settings,
    /// Items in flight at once.
    pub jobs: usize,
    /// Masks secrets in the file text the models read (`None`: `[secrets] mask = false`).
    pub masker: Option<std::sync::Arc<gauntlet_review::secrets::Masker>>,
}

/// One item's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ItemResult {
    pub item: WorkItem,
    pub outcome: Outcome,
}

impl ItemResult {
    /// The kept patch, if it changes anything.
    pub fn patch(&self) -> Option<&str> {
        self.outcome.work().filter(|p| !p.trim().is_empty())
    }
}

/// The step a meter's progress hears of while findings are fixed.
pub const FIX_STEP: &str = "fix";

/// Fix every item, `run.jobs` at a time; results in the order of `items`. Each
/// item that ends is reported to the meter's progress.
pub async fn fix_all(items: &[WorkItem], run: &FixRun, meter: &Meter) -> Vec<ItemResult> {
    use futures::StreamExt;
    use gauntlet_review::progress::Event;
    let (progress, total, done) = (meter.progress(), items.len(), std::sync::atomic::AtomicUsize::new(0));
    progress.event(&Event::StepStarted { step: FIX_STEP, total });
    let results = futures::stream::iter(items.iter().map(|item| async {
        let result = fix_one(item, run, meter).await;
        let done = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let ok = result.outcome.exit != ExitReason::Failed;
        progress.event(&Event::UnitDone { step: FIX_STEP, done, total, ok });
        result
    }))
    .buffered(run.jobs.max(1))
    .collect()
    .await;
    progress.event(&Event::StepFinished { step: FIX_STEP });
    results
}

async fn fix_one(item: &WorkItem, fix_run: &FixRun, meter: &Meter) -> ItemResult {
    let (repo, head, check) = (fix_run.repo.clone(), fix_run.head.clone(), fix_run.check.clone());
    let created = tokio::task::spawn_blocking(move || Sandbox::create(&repo, &head, check)).await;
    let outcome = match created {
        Ok(Ok(sandbox)) => {
            let task = Fix::new(item, sandbox, fix_run.masker.as_deref());
            run(&task, &fix_run.settings, meter, None).await
        }
        Ok(Err(e)) => failed(e.to_string()),
        Err(e) => failed(format!("the worktree task panicked: {e}")),
    };
    ItemResult { item: item.clone(), outcome }
}

fn failed(message: String) -> Outcome {
    Outcome { exit: ExitReason::Failed, message: Some(message), rounds: Vec::new(), kept: None, spent: Spent::zero() }
}

/// Whether `rev` names a commit (a patch needs one to apply to).
pub fn is_commit(rev: &str) -> bool {
    rev.len() >= 40 && rev.chars().all(|c| c.is_ascii_hexdigit())
}

/// Apply a kept patch to the user's working tree (`--apply`): checked first, so a
/// patch that would not apply cleanly changes nothing.
pub fn apply_to(repo: &Path, patch: &str) -> Result<(), String> {
    use std::io::Write;
    for check_only in [true, false] {
        let mut cmd = std::process::Command::new("git");
        cmd.arg("-C").arg(repo).args(["apply", "--whitespace=nowarn"]).env("LC_ALL", "C");
        if check_only {
            cmd.arg("--check");
        }
        let mut child = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run git: {e}"))?;
        child.stdin.take().expect("piped").write_all(patch.as_bytes()).map_err(|e| e.to_string())?;
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
    }
    Ok(())
}
