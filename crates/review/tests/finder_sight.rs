//! What finders are given beyond the shared block, at the pipeline's level: the
//! author's stated intent in their own turn (never in the shared block, never to a
//! validator), and tools on providers that have them, within the reviewer's budget.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::intent::Intent;
use gauntlet_review::pipeline::{self, Input, Models, Options, RepoRead};
use gauntlet_review::rules::{Origin, Reviewer};
use std::sync::{Arc, Mutex};

/// A provider that records every request; `tools` says whether it has tools (the
/// embedded model and `command` do not).
struct Fake {
    tools: bool,
    seen: Mutex<Vec<Request>>,
}

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn model(&self) -> &str {
        "fake"
    }
    fn supports_tools(&self) -> bool {
        self.tools
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        self.seen.lock().unwrap().push(request.clone());
        let json = if request.step == "find" {
            r#"{"findings": [{"lens": "failure_scenario", "location": "src/a.rs:2", "claim": "The value is never checked.",
                "evidence": "let total = compute(2);", "severity": "high"}]}"#
        } else {
            r#"{"verdict": "survives", "evidence": "src/a.rs:2 `let total = compute(2);`", "confidence": 100, "impact": "consequential"}"#
        };
        Ok(Response { json: json.into(), tool_calls: Vec::new(), usage: Usage::default() })
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
    let body = "let base = 1;\nlet total = compute(2);\n";
    let patch = format!(
        "diff --git a/src/a.rs b/src/a.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.rs\n@@ -0,0 +1,2 @@\n{}",
        body.lines().map(|l| format!("+{l}\n")).collect::<String>()
    );
    let diff = parse_patch(&patch).unwrap().remove(0);
    let files = vec![ChangedFile { diff, head_text: Some(body.into()), unreadable: None }];
    Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
}

fn reviewers() -> Vec<Reviewer> {
    ["first", "second"]
        .iter()
        .map(|n| {
            let text = format!("+++\nname = \"{n}\"\ndescription = \"reviewer {n}\"\n+++\nLook for defects.\n");
            Reviewer::parse(&format!("{n}.md"), &text, Origin::Builtin).unwrap()
        })
        .collect()
}

const CLAIM: &str = "Totals are now computed once per order and never recomputed.";

async fn run(tools: bool, opts: Options) -> Vec<Request> {
    let change = change();
    let head = Head(&change);
    let input = Input {
        change: &change,
        reviewers: reviewers(),
        guidance: Vec::new(),
        head: &head,
        rules_version: "t".into(),
        fence: Fence::fixed("DATA-t"),
        intent: Intent::pull_request(Some("Compute totals once"), Some(CLAIM), None),
    };
    let fake = Arc::new(Fake { tools, seen: Mutex::new(Vec::new()) });
    let review = pipeline::run(&input, &Models::single(fake.clone()), &opts).await;
    assert_eq!(review.funnel.published, 1, "{review:?}");
    fake.seen.lock().unwrap().clone()
}

fn turns(r: &Request) -> String {
    r.turns.iter().filter_map(|t| if let Turn::User { text } = t { Some(text.as_str()) } else { None }).collect()
}

#[tokio::test]
async fn the_stated_intent_is_in_every_finders_turn_and_nowhere_a_validator_reads() {
    let seen = run(false, Options::default()).await;
    let (finders, validators): (Vec<&Request>, Vec<&Request>) = seen.iter().partition(|r| r.step == "find");
    assert_eq!(finders.len(), 2);
    assert!(!validators.is_empty());
    for r in &finders {
        assert!(turns(r).contains(&format!("<<<DATA-t stated intent>>>\nCompute totals once\n\n{CLAIM}\n")));
    }
    for r in &seen {
        assert!(r.shared.iter().all(|s| !s.contains(CLAIM)), "the shared block never holds the intent");
    }
    for r in &validators {
        assert!(!format!("{r:?}").contains(CLAIM), "a validator never gets the intent");
    }
}

#[tokio::test]
async fn reviewers_get_tools_with_their_own_budget_only_where_the_provider_has_tools() {
    let has_tools = |r: &Request| r.tools.iter().any(|t| t.name == "read_file");
    let seen = run(true, Options::default()).await;
    for r in seen.iter().filter(|r| r.step == "find") {
        assert!(has_tools(r), "reviewers read by default");
        assert!(turns(r).contains("3 turns of tool calls"), "the reviewer budget is stated");
    }
    let validate = seen.iter().find(|r| r.step == "validate").unwrap();
    assert!(turns(validate).contains("8 turns of tool calls"), "validators keep their own budget");
    let seen = run(false, Options::default()).await;
    assert!(seen.iter().all(|r| !has_tools(r)), "no tools on a provider without them (embedded, command)");
    let off = Options { reviewer_tools: false, ..Options::default() };
    let seen = run(true, off).await;
    assert!(seen.iter().filter(|r| r.step == "find").all(|r| !has_tools(r)), "reviewer_tools = false");
}
