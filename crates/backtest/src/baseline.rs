//! The naive alternative the pipeline is measured against: the same model, one
//! prompt ("review this diff, list the bugs"), its answer taken as it is. No hostile
//! roles, no grounding, no validator, no adjudication, no re-ask.
//!
//! The answer is read leniently, so the baseline is not penalised for form: any
//! finding with a location counts as published, and a location that does not parse
//! is published all the same (it cannot match a known defect, so it scores as a
//! false positive).

use crate::score::Reported;
use gauntlet_change::Change;
use gauntlet_model::{Provider, Request, Schema, Tier, Turn, Usage};
use gauntlet_review::contract::findings_schema;
use gauntlet_review::cost::Prices;
use gauntlet_review::fence::Fence;
use gauntlet_review::intent::Intent;
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// The step name baseline calls carry (providers and recordings see it).
pub const STEP: &str = "baseline";
/// How many findings the baseline may list: generous, as a naive reviewer would be.
const MAX_FINDINGS: usize = 20;
/// Reviewer name its findings are reported under.
pub const REVIEWER: &str = "baseline";

const PROMPT: &str = include_str!("../prompts/baseline.md.j2");

/// What the single pass produced on one case.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BaselineRun {
    pub published: Vec<Reported>,
    pub usage: Usage,
    /// USD; `None` when the model's price is unknown.
    pub cost: Option<f64>,
    pub wall_ms: u64,
    /// Why nothing could be read from the answer, when nothing could.
    pub error: Option<String>,
}

/// The request: the change and its related code as the pipeline's sessions see
/// them (so the comparison is between reviewing methods, not between views), then
/// the naive ask, with the author's stated intent when the pipeline's finders had
/// it too.
pub fn request(change: &Change, related: Option<&str>, fence: &Fence, tier: Tier, intent: Option<&Intent>) -> Request {
    let schema = findings_schema(MAX_FINDINGS);
    // Every bound the answer's schema carries, in words beside the answer format,
    // as the pipeline's finders are told (a strict schema mode drops them).
    let mut ask = format!("{PROMPT}\nLimits of the answer:\n{}", gauntlet_review::limits::as_list(&schema));
    if let Some(intent) = intent {
        ask.push_str(&gauntlet_review::prompt::intent(intent, fence));
    }
    let mut shared = vec![gauntlet_review::prompt::change_listing(change, fence)];
    shared.extend(related.map(str::to_string));
    Request {
        shared: shared.into(),
        turns: vec![Turn::user(ask)],
        schema: Some(Schema { name: "report_findings".into(), json: schema }),
        tools: Vec::new(),
        max_tokens: 8_000,
        tier,
        step: STEP.into(),
        reviewer: None,
    }
}

/// Run the single pass on `change` with `provider`. `Err` when the model could not
/// be called at all (that says nothing about the baseline, so the case cannot be
/// compared); an answer that cannot be read counts as publishing nothing.
pub async fn run(
    change: &Change,
    related: Option<&str>,
    fence: &Fence,
    intent: Option<&Intent>,
    provider: &Arc<dyn Provider>,
    tier: Tier,
    prices: &Prices,
) -> Result<BaselineRun, String> {
    let started = Instant::now();
    let resp = provider
        .complete(&request(change, related, fence, tier, intent))
        .await
        .map_err(|e| format!("model call failed: {e}"))?;
    let wall_ms = started.elapsed().as_millis() as u64;
    let cost = prices.get(provider.name(), provider.model()).map(|p| p.cost(&resp.usage));
    let (published, error) = match read_findings(&resp.json) {
        Ok(found) => (found, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    Ok(BaselineRun { published, usage: resp.usage, cost, wall_ms, error })
}

/// Read findings from an answer without holding it to the contract's literals.
pub fn read_findings(text: &str) -> Result<Vec<Reported>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("the single-pass answer is not a JSON object: {e}"))?;
    let list =
        value.get("findings").and_then(|f| f.as_array()).ok_or("the single-pass answer has no `findings` list")?;
    let text_of = |f: &serde_json::Value, key: &str| f.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
    Ok(list
        .iter()
        .map(|f| Reported {
            reviewer: REVIEWER.into(),
            location: text_of(f, "location"),
            claim: text_of(f, "claim"),
            ..Reported::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_findings_are_read_without_the_contract_literals() {
        let text = r#"{"findings":[{"location":"a.py:3","claim":"x","severity":"High"},{"claim":"no place"}]}"#;
        let found = read_findings(text).unwrap();
        assert_eq!(found.len(), 2, "a wrong literal or a missing location still counts as published");
        assert_eq!(found[0].location, "a.py:3");
        assert_eq!(found[1].location, "");
    }

    #[test]
    fn the_baseline_gets_the_related_code_after_the_change() {
        let patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
        let diff = gauntlet_change::parse_patch(patch).unwrap().remove(0);
        let file = gauntlet_change::ChangedFile { diff, head_text: Some("x = 2\n".into()), unreadable: None };
        let change = Change {
            base: "b".into(),
            head: "h".into(),
            snapshot: gauntlet_change::Snapshot::Worktree,
            files: vec![file],
        };
        let fence = Fence::fixed("DATA-0");
        let with = request(&change, Some("## Related code\n"), &fence, Tier::Standard, None);
        assert_eq!(with.shared.len(), 2);
        assert_eq!(with.shared[0], gauntlet_review::prompt::change_listing(&change, &fence));
        assert_eq!(with.shared[1], "## Related code\n");
        assert_eq!(request(&change, None, &fence, Tier::Standard, None).shared.len(), 1, "no related code, no block");
    }

    #[test]
    fn the_baseline_ask_states_every_limit_of_its_schema() {
        let change = Change {
            base: "b".into(),
            head: "h".into(),
            snapshot: gauntlet_change::Snapshot::Worktree,
            files: Vec::new(),
        };
        let req = request(&change, None, &Fence::fixed("DATA-0"), Tier::Standard, None);
        let Some(Turn::User { text }) = req.turns.first() else { panic!("one user turn") };
        let limits = gauntlet_review::limits::in_words(&req.schema.as_ref().unwrap().json);
        assert!(limits.iter().any(|l| l.contains("20")), "the count of findings is a limit: {limits:?}");
        for limit in limits {
            assert!(text.contains(&limit), "the ask states `{limit}`:\n{text}");
        }
    }

    #[test]
    fn an_answer_that_is_not_json_is_an_error_not_silence() {
        assert!(read_findings("I found no bugs.").unwrap_err().contains("not a JSON object"));
    }
}
