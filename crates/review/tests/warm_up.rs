//! Prompt-cache warm-up: on a provider that caches a prefix only once a call has
//! started answering, the first finder goes alone and the others follow its start.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::pipeline::{self, Input, Models, Options, RepoRead};
use gauntlet_review::rules::{Origin, Reviewer};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake saw of one request.
#[derive(Debug)]
struct Seen {
    reviewer: String,
    /// The request ran under a start hook (it is the one the others wait for).
    awaited: bool,
    /// The leader's answer had started when this request arrived.
    after_start: bool,
    /// Some leader's answer, on any model of the run, had started by then.
    after_any_start: bool,
}

struct Fake {
    model: &'static str,
    caches: bool,
    /// The leader fails without ever starting an answer.
    leader_fails: bool,
    started: AtomicBool,
    /// Shared by the fakes of one run.
    anyone_started: Arc<AtomicBool>,
    seen: Mutex<Vec<Seen>>,
}

impl Fake {
    fn new(caches: bool, leader_fails: bool) -> Fake {
        Fake::of("fake", caches, leader_fails, Arc::default())
    }

    fn of(model: &'static str, caches: bool, leader_fails: bool, anyone_started: Arc<AtomicBool>) -> Fake {
        Fake {
            model,
            caches,
            leader_fails,
            started: AtomicBool::new(false),
            anyone_started,
            seen: Mutex::new(Vec::new()),
        }
    }
}

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn model(&self) -> &str {
        self.model
    }
    fn caches_after_start(&self) -> bool {
        self.caches
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        let awaited = gauntlet_model::start_is_awaited();
        self.seen.lock().unwrap().push(Seen {
            reviewer: request.reviewer.clone().unwrap_or_default(),
            awaited,
            after_start: self.started.load(Ordering::SeqCst),
            after_any_start: self.anyone_started.load(Ordering::SeqCst),
        });
        if awaited {
            tokio::time::sleep(Duration::from_millis(30)).await;
            if self.leader_fails {
                return Err(ModelError::Http {
                    provider: "fake".into(),
                    status: 400,
                    message: "bad".into(),
                    retry_after: None,
                });
            }
            self.started.store(true, Ordering::SeqCst);
            self.anyone_started.store(true, Ordering::SeqCst);
            gauntlet_model::answer_started();
            // The rest of the leader's answer takes a while; the others go meanwhile.
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        Ok(Response { json: r#"{"findings": []}"#.into(), tool_calls: Vec::new(), usage: Usage::default() })
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

/// A new file long enough that the shared block is worth caching.
fn change() -> Change {
    let body: String = (0..400).map(|i| format!("let value_{i} = compute({i});\n")).collect();
    let mut patch =
        "diff --git a/src/a.rs b/src/a.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.rs\n".to_string();
    patch.push_str(&format!("@@ -0,0 +1,{} @@\n", body.lines().count()));
    patch.extend(body.lines().map(|l| format!("+{l}\n")));
    let diff = parse_patch(&patch).unwrap().remove(0);
    let files = vec![ChangedFile { diff, head_text: Some(body), unreadable: None }];
    Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
}

fn reviewers(n: usize) -> Vec<Reviewer> {
    tiered(&vec!["standard"; n])
}

/// One reviewer per tier named, `r0`, `r1`, ...
fn tiered(tiers: &[&str]) -> Vec<Reviewer> {
    (0..tiers.len())
        .map(|i| {
            let tier = tiers[i];
            let text = format!(
                "+++\nname = \"r{i}\"\ndescription = \"reviewer {i}\"\ntier = \"{tier}\"\n+++\nLook for defects.\n"
            );
            Reviewer::parse(&format!("r{i}.md"), &text, Origin::Builtin).unwrap()
        })
        .collect()
}

async fn run(fake: std::sync::Arc<Fake>) -> gauntlet_review::Review {
    run_on(Models::single(fake), reviewers(4)).await
}

async fn run_on(models: Models, reviewers: Vec<Reviewer>) -> gauntlet_review::Review {
    let change = change();
    let head = Head(&change);
    let input = Input {
        change: &change,
        reviewers,
        guidance: Vec::new(),
        head: &head,
        rules_version: "t".into(),
        fence: Fence::fixed("DATA-t"),
        intent: None,
    };
    pipeline::run(&input, &models, &Options::default()).await
}

#[tokio::test]
async fn the_first_finder_goes_alone_and_the_rest_follow_once_its_answer_started() {
    let fake = std::sync::Arc::new(Fake::new(true, false));
    let review = run(fake.clone()).await;
    assert!(review.gaps.is_empty(), "{:?}", review.gaps);
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen.iter().filter(|s| s.awaited).count(), 1, "one leader: {seen:?}");
    assert!(seen[0].awaited && seen[0].reviewer == "r0", "the first reviewer leads: {seen:?}");
    assert!(seen.iter().filter(|s| !s.awaited).all(|s| s.after_start), "nobody overtook the leader's start: {seen:?}");
}

#[tokio::test]
async fn a_leader_that_fails_before_starting_does_not_hold_the_others_back() {
    let fake = std::sync::Arc::new(Fake::new(true, true));
    let review = run(fake.clone()).await;
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "every reviewer still ran: {seen:?}");
    assert_eq!(review.gaps.len(), 1, "only the leader's failure is a gap: {:?}", review.gaps);
    assert_eq!(review.gaps[0].reviewer.as_deref(), Some("r0"));
}

#[tokio::test]
async fn providers_without_that_cache_behaviour_fan_out_at_once() {
    let fake = std::sync::Arc::new(Fake::new(false, false));
    run(fake.clone()).await;
    let seen = fake.seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|s| !s.awaited), "no warm-up wait: {seen:?}");
}

#[tokio::test]
async fn each_model_has_its_own_leader_and_nobody_waits_for_another_model() {
    let anyone = Arc::new(AtomicBool::new(false));
    let fast = Arc::new(Fake::of("small", true, false, anyone.clone()));
    let standard = Arc::new(Fake::of("large", true, false, anyone));
    let models = Models::new(fast.clone(), standard.clone(), standard.clone());
    let review = run_on(models, tiered(&["fast", "standard", "fast", "standard", "standard"])).await;
    assert!(review.gaps.is_empty(), "{:?}", review.gaps);
    for (fake, names) in [(&fast, ["r0", "r2"].as_slice()), (&standard, ["r1", "r3", "r4"].as_slice())] {
        let seen = fake.seen.lock().unwrap();
        let mut got: Vec<&str> = seen.iter().map(|s| s.reviewer.as_str()).collect();
        got.sort();
        assert_eq!(got, names, "each reviewer ran on its tier's model");
        let leaders: Vec<&Seen> = seen.iter().filter(|s| s.awaited).collect();
        assert_eq!(leaders.len(), 1, "one leader per model: {seen:?}");
        assert!(!leaders[0].after_any_start, "a leader waits for no other model's answer: {seen:?}");
        assert!(seen.iter().filter(|s| !s.awaited).all(|s| s.after_start), "followers wait for their model: {seen:?}");
    }
}
