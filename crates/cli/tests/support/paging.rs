//! The defect the mined test history holds (`history::build`): the page slice
//! takes one item too many. One finding says so and the validator confirms it.

use super::{Script, finder, verdict};
use serde_json::json;

pub const OFF_BY_ONE: &str = "The slice ends one item past the page, so every page repeats the next page's first item.";

/// `correctness` raises the off-by-one on `src/paging.py:3`; it survives at 100.
pub fn scripts() -> Vec<Script> {
    let mut found = finder(
        "correctness",
        json!([{"lens": "failure_scenario", "location": "src/paging.py:3", "claim": OFF_BY_ONE,
                "evidence": "return items[start:start+size+1]", "severity": "high"}]),
    );
    found.claim = Some("start+size+1]");
    let holds = json!({"verdict": "survives", "confidence": 100, "impact": "consequential",
                       "evidence": "src/paging.py:3 `return items[start:start+size+1]` takes size + 1 items"});
    vec![found, verdict("validate", OFF_BY_ONE, &[holds])]
}
