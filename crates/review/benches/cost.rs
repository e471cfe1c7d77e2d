//! What a review costs in input tokens against the single-pass baseline, when every
//! reviewer reports the same defects in its own words (as capable models do).
//!
//! Run with `cargo bench -p gauntlet-review --bench cost` (token counts do not
//! depend on the build profile, so `--profile dev` gives the same figures faster).
//! Tokens are estimated as bytes / 4 of every request the fake model receives, raw
//! and as billed with a prompt cache that writes the shared block once (1.25x) and
//! reads it on every later call (0.1x), Anthropic's published multipliers. The
//! baseline is one request: the same listing of the change and the same related code
//! (the callee the changed lines use, defined in an untouched file), then a short
//! ask; it has no earlier call to reuse a cache from.

use gauntlet_change::{Change, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::pipeline::{self, Input, Models, Options, RepoRead};
use gauntlet_review::prompt;
use gauntlet_review::rules::{Origin, Reviewer};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Input tokens a review may bill, as a multiple of the single-pass baseline on the
/// same change (both see the same shared block): several finders and one validator
/// per cluster cost more than one call, and the cache keeps that under three calls' worth.
const BILLED_TARGET: f64 = 3.0;
const CACHE_WRITE: f64 = 1.25;
const CACHE_READ: f64 = 0.1;
const REVIEWERS: usize = 4;
const BASELINE_ASK: &str = include_str!("../../backtest/prompts/baseline.md.j2");

fn line_text(file: usize, line: usize) -> String {
    format!("    let total_{file}_{line} = add_step(count_{line}, {file}); // synthetic line")
}

fn change() -> Change {
    let mut patch = String::new();
    let mut texts = Vec::new();
    for f in 0..4 {
        let path = format!("src/f{f}.rs");
        patch.push_str(&format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"));
        patch.push_str("@@ -0,0 +1,100 @@\n");
        let body: String = (1..=100).map(|l| line_text(f, l) + "\n").collect();
        patch.extend(body.lines().map(|l| format!("+{l}\n")));
        texts.push(body);
    }
    let files = parse_patch(&patch)
        .expect("synthetic patch parses")
        .into_iter()
        .zip(texts)
        .map(|(diff, text)| gauntlet_change::ChangedFile { diff, head_text: Some(text), unreadable: None })
        .collect();
    Change { base: "base".into(), head: "head".into(), snapshot: gauntlet_change::Snapshot::Worktree, files }
}

/// Untouched files at head: the definition the changed lines call (related code
/// shows it to every session), and files that only share words with the change.
fn untouched() -> Vec<(String, String)> {
    let body: String = (1..=30).map(|l| format!("    let step_{l} = count.wrapping_add({l});\n")).collect();
    let mut out = vec![(
        "src/steps.rs".to_string(),
        format!("pub fn add_step(count: u64, file: usize) -> u64 {{\n{body}    count + file as u64\n}}\n"),
    )];
    for d in 0..6 {
        let text: String = (1..=80).map(|l| format!("// totals and counts of report {d}, line {l}\n")).collect();
        out.push((format!("docs/report_{d}.rs"), text));
    }
    out
}

struct Head<'a> {
    change: &'a Change,
    others: Vec<(String, String)>,
}

impl HeadFiles for Head<'_> {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.text(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for Head<'_> {
    fn text(&self, path: &str) -> Option<String> {
        let other = || self.others.iter().find(|(p, _)| p == path).map(|(_, t)| t.clone());
        self.change.file(path).and_then(|f| f.head_text.clone()).or_else(other)
    }

    fn files(&self) -> Vec<&str> {
        let changed = self.change.files.iter().map(|f| f.diff.path());
        changed.chain(self.others.iter().map(|(p, _)| p.as_str())).collect()
    }
}

/// Every reviewer reports the same two defects, worded its own way, at its own range.
struct Paraphrasing {
    kept: Mutex<Vec<Request>>,
}

const WORDINGS: [&str; REVIEWERS] = [
    "`total_{F}_{L}` overflows once `count_{L}` is large.",
    "Nothing checks the result of `add_step` before `total_{F}_{L}` is used, so it wraps silently.",
    "A caller controlling `count_{L}` can make `total_{F}_{L}` wrap around.",
    "`total_{F}_{L}` is computed without the bound the rest of the file keeps.",
];
const DEFECTS: [(usize, usize); 2] = [(0, 10), (1, 40)];

#[async_trait::async_trait]
impl Provider for Paraphrasing {
    fn name(&self) -> &str {
        "bench"
    }
    fn model(&self) -> &str {
        "fake"
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        self.kept.lock().expect("kept lock").push(request.clone());
        let json = if request.step == "find" {
            let r: usize = request.reviewer.as_deref().and_then(|n| n.strip_prefix("cost-")?.parse().ok()).unwrap_or(0);
            let findings: Vec<_> = DEFECTS
                .iter()
                .map(|&(f, l)| {
                    let claim = WORDINGS[r].replace("{F}", &f.to_string()).replace("{L}", &l.to_string());
                    json!({"lens": "failure_scenario", "location": format!("src/f{f}.rs:{}-{}", l, l + r % 2),
                           "claim": claim, "evidence": line_text(f, l).trim(), "severity": "high"})
                })
                .collect();
            json!({ "findings": findings }).to_string()
        } else {
            json!({"verdict": "survives", "evidence": "src/f0.rs:10 nothing bounds it", "confidence": 100, "impact": "consequential"}).to_string()
        };
        Ok(Response { json, tool_calls: Vec::new(), usage: Usage { input: 1000, output: 100, ..Usage::default() } })
    }
}

fn reviewers() -> Vec<Reviewer> {
    (0..REVIEWERS)
        .map(|i| {
            let text = format!(
                "+++\nname = \"cost-{i}\"\ndescription = \"Reviewer {i}\"\nmax_findings = 10\n+++\nFind defects.\n"
            );
            Reviewer::parse(&format!("cost-{i}.md"), &text, Origin::Builtin).expect("rule parses")
        })
        .collect()
}

fn tokens(text: &str) -> f64 {
    text.len() as f64 / 4.0
}

fn turns(r: &Request) -> f64 {
    r.turns
        .iter()
        .map(|t| match t {
            Turn::User { text } | Turn::Assistant { text, .. } => tokens(text),
            Turn::ToolResults { results } => results.iter().map(|x| tokens(&x.content)).sum(),
        })
        .sum()
}

fn main() {
    let change = change();
    let head = Head { change: &change, others: untouched() };
    let fence = Fence::fixed("DATA-cost");
    let fake = Arc::new(Paraphrasing { kept: Mutex::new(Vec::new()) });
    let input = Input {
        change: &change,
        reviewers: reviewers(),
        guidance: Vec::new(),
        head: &head,
        rules_version: "bench".into(),
        fence: fence.clone(),
        intent: None,
    };
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let review = rt.block_on(pipeline::run(&input, &Models::single(fake.clone()), &Options::default()));
    assert_eq!(review.published.len(), DEFECTS.len(), "one comment per defect: {:?}", review.dropped);
    let requests = fake.kept.lock().expect("kept lock").clone();
    let validations = requests.iter().filter(|r| r.step != "find").count();
    let shared = tokens(&requests[0].shared.join(""));
    let raw: f64 = requests.iter().map(|r| shared + turns(r)).sum();
    let billed: f64 = shared * CACHE_WRITE
        + requests.iter().map(turns).sum::<f64>()
        + shared * CACHE_READ * (requests.len() - 1) as f64;
    // The baseline sees the same related code as the pipeline's sessions (as the
    // backtest's baseline does), so the ratio compares reviewing methods.
    let opts = Options::default();
    let related = gauntlet_review::related::gather(&change, &head, opts.tools.file_bytes, opts.related_budget());
    assert!(!related.is_empty(), "the change's callee is related code");
    let related_block = prompt::related(&related, &fence).unwrap_or_default();
    assert!(requests[0].shared.iter().any(|s| s == &related_block), "every session got the same related block");
    let baseline = tokens(&prompt::change_listing(&change, &fence)) + tokens(&related_block) + tokens(BASELINE_ASK);
    println!("== cost: {REVIEWERS} reviewers, each reporting the same {} defects in its own words ==", DEFECTS.len());
    println!(
        "related code in every session's shared block and in the baseline's: {} entries, {:.0} tokens",
        related.entries.len(),
        tokens(&related_block)
    );
    println!(
        "published {} | validator sessions {} ({:.2} per caught defect; {} saved by clustering, target <= 1.5 per defect)",
        review.published.len(),
        validations,
        validations as f64 / DEFECTS.len() as f64,
        review.validator_sessions.saved
    );
    println!(
        "input tokens per review: {raw:.0} raw, {billed:.0} billed with the cache | single-pass baseline {baseline:.0} \
         | raw {:.1}x, billed {:.1}x the baseline (target <= {BILLED_TARGET:.1}x billed: {})",
        raw / baseline,
        billed / baseline,
        if billed / baseline <= BILLED_TARGET { "met" } else { "MISSED" }
    );
}
