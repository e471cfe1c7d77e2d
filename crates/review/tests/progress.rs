//! The progress a run reports: steps in order, finder and validation counts that
//! match what the run did, and usage that adds up to the report's.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::pipeline::{self, Input, Models, Options, RepoRead};
use gauntlet_review::progress::{Event, Observer, Progress};
use gauntlet_review::rules::{Origin, Reviewer};
use std::sync::{Arc, Mutex};

/// An event with its borrowed names made owned, to keep.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Started(String, usize),
    Finder {
        done: usize,
        total: usize,
        answered: bool,
    },
    Validation {
        done: usize,
        total: usize,
        judged: bool,
    },
    Usage(u64, Option<f64>),
    Finished(String),
    /// Units of work outside the pipeline; a review must never report one.
    Other(String),
}

#[derive(Default)]
struct Recorder(Mutex<Vec<Seen>>);

impl Progress for Recorder {
    fn event(&self, event: &Event<'_>) {
        let seen = match event {
            Event::StepStarted { step, total } => Seen::Started(step.to_string(), *total),
            Event::FinderDone { done, total, answered, .. } => {
                Seen::Finder { done: *done, total: *total, answered: *answered }
            }
            Event::ValidationDone { done, total, judged } => {
                Seen::Validation { done: *done, total: *total, judged: *judged }
            }
            Event::Usage { tokens, cost } => Seen::Usage(*tokens, *cost),
            Event::StepFinished { step } => Seen::Finished(step.to_string()),
            Event::UnitDone { step, .. } => Seen::Other(step.to_string()),
        };
        self.0.lock().unwrap().push(seen);
    }
}

/// `r0` and `r1` each report one grounded finding, `r2` fails; the validator
/// upholds `r0`'s finding and answers `r1`'s with text that is not a verdict.
struct Fake;

const USAGE: Usage = Usage { input: 100, output: 10, cache_read: 5, cache_write: 0 };

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn model(&self) -> &str {
        "m"
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let reviewer = request.reviewer.clone().unwrap_or_default();
        let json = match (request.step.as_str(), reviewer.as_str()) {
            ("find", "r2") => {
                return Err(ModelError::Http {
                    provider: "fake".into(),
                    status: 400,
                    message: "bad".into(),
                    retry_after: None,
                });
            }
            ("find", r) => {
                let line = if r == "r0" { 2 } else { 4 };
                let finding = serde_json::json!({"lens": "failure_scenario", "location": format!("src/a.rs:{line}"),
                    "claim": format!("{r} found value_{} wrong", line - 1), "evidence": format!("let value_{} = compute({});", line - 1, line - 1),
                    "severity": "high"});
                serde_json::json!({ "findings": [finding] }).to_string()
            }
            (_, "r0") => {
                r#"{"verdict": "survives", "evidence": "src/a.rs:2 `let value_1 = compute(1);`", "confidence": 75, "impact": "consequential"}"#
                    .into()
            }
            _ => "not a verdict".into(),
        };
        Ok(Response { json, tool_calls: Vec::new(), usage: USAGE })
    }
}

struct Head<'a>(&'a Change);

impl HeadFiles for Head<'_> {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.text(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for Head<'_> {
    fn text(&self, path: &str) -> Option<String> {
        self.0.file(path).and_then(|f| f.head_text.clone())
    }
}

fn change() -> Change {
    let body: String = (0..6).map(|i| format!("let value_{i} = compute({i});\n")).collect();
    let mut patch =
        "diff --git a/src/a.rs b/src/a.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.rs\n".to_string();
    patch.push_str(&format!("@@ -0,0 +1,{} @@\n", body.lines().count()));
    patch.extend(body.lines().map(|l| format!("+{l}\n")));
    let diff = parse_patch(&patch).unwrap().remove(0);
    let files = vec![ChangedFile { diff, head_text: Some(body), unreadable: None }];
    Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
}

fn reviewers() -> Vec<Reviewer> {
    (0..3)
        .map(|i| {
            let text = format!(
                "+++\nname = \"r{i}\"\ndescription = \"reviewer {i}\"\ntier = \"standard\"\n+++\nLook for defects.\n"
            );
            Reviewer::parse(&format!("r{i}.md"), &text, Origin::Builtin).unwrap()
        })
        .collect()
}

async fn run(recorder: Arc<Recorder>) -> gauntlet_review::Review {
    let change = change();
    let head = Head(&change);
    let input = Input {
        change: &change,
        reviewers: reviewers(),
        guidance: Vec::new(),
        head: &head,
        rules_version: "t".into(),
        fence: Fence::fixed("DATA-t"),
        intent: None,
    };
    let opts = Options { progress: Observer::new(recorder), ..Options::default() };
    pipeline::run(&input, &Models::single(Arc::new(Fake)), &opts).await
}

#[tokio::test]
async fn steps_come_in_order_with_unit_counts_that_match_the_run() {
    let recorder = Arc::new(Recorder::default());
    let review = run(recorder.clone()).await;
    let seen = recorder.0.lock().unwrap().clone();
    assert!(!seen.iter().any(|s| matches!(s, Seen::Other(_))), "{seen:?}");
    let steps: Vec<&Seen> = seen.iter().filter(|s| matches!(s, Seen::Started(..) | Seen::Finished(_))).collect();
    assert_eq!(
        steps,
        [
            &Seen::Started("find".into(), review.find_units),
            &Seen::Finished("find".into()),
            &Seen::Started("validate".into(), review.funnel.grounded),
            &Seen::Finished("validate".into()),
        ]
    );
    assert_eq!(review.find_units, 3);
    assert_eq!(review.funnel.grounded, 2, "{:?}", review.dropped);

    let finders: Vec<_> = seen
        .iter()
        .filter_map(|s| {
            if let Seen::Finder { done, total, answered } = s { Some((*done, *total, *answered)) } else { None }
        })
        .collect();
    let dones: Vec<usize> = finders.iter().map(|f| f.0).collect();
    assert_eq!(dones, [1, 2, 3], "each finder counted once, in the order they ended");
    assert!(finders.iter().all(|f| f.1 == 3));
    let failed_finders = finders.iter().filter(|f| !f.2).count();
    assert_eq!(failed_finders, review.gaps.iter().filter(|g| g.step == "find").count());
    assert_eq!(failed_finders, 1);

    let validations: Vec<_> = seen
        .iter()
        .filter_map(|s| {
            if let Seen::Validation { done, total, judged } = s { Some((*done, *total, *judged)) } else { None }
        })
        .collect();
    assert_eq!(validations.iter().map(|v| v.0).collect::<Vec<_>>(), [1, 2]);
    assert!(validations.iter().all(|v| v.1 == 2));
    let unjudged = validations.iter().filter(|v| !v.2).count();
    assert_eq!(unjudged, review.gaps.iter().filter(|g| g.step == "validate").count());
    assert_eq!(unjudged, 1);

    // Every unit of a step is reported between its start and its finish.
    let position = |wanted: &Seen| seen.iter().position(|s| s == wanted).unwrap();
    let find_end = position(&Seen::Finished("find".into()));
    let validate_start = position(&Seen::Started("validate".into(), 2));
    assert!(seen.iter().enumerate().all(|(i, s)| !matches!(s, Seen::Finder { .. }) || i < find_end));
    assert!(seen.iter().enumerate().all(|(i, s)| !matches!(s, Seen::Validation { .. }) || i > validate_start));
}

#[tokio::test]
async fn usage_events_add_up_to_the_report_usage() {
    let recorder = Arc::new(Recorder::default());
    let review = run(recorder.clone()).await;
    let seen = recorder.0.lock().unwrap().clone();
    let reported: u64 = seen.iter().filter_map(|s| if let Seen::Usage(t, _) = s { Some(*t) } else { None }).sum();
    let calls: u32 = review.usage.iter().map(|u| u.calls).sum();
    let total: u64 = review.usage.iter().map(|u| u.input + u.output).sum();
    assert_eq!(reported, total);
    // Two finders and three validator calls (one upheld, one re-asked after a broken answer).
    assert_eq!(calls, 5, "{:?}", review.usage);
    assert_eq!(reported, 5 * (USAGE.input + USAGE.output + USAGE.cache_read));
    assert!(seen.iter().all(|s| !matches!(s, Seen::Usage(_, Some(_)))), "no price is known for the fake model");
}
