//! The pull request most `ci` tests review: `can_delete` loses its ownership
//! check, and one high finding says so, which the validator confirms.

use super::{Script, finder, verdict};
use serde_json::{Value, json};

pub const BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";
pub const HEAD: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
pub const REAL: &str = "Any user can delete any document because the ownership check was removed.";

/// The finding `correctness` raises on `src/auth.py`.
pub fn finding() -> Value {
    json!({"lens": "failure_scenario", "location": "src/auth.py:4", "claim": REAL, "evidence": "    return True", "severity": "high"})
}

/// `correctness` raises [`finding`]; the validator confirms it at 100, consequential.
pub fn scripts() -> Vec<Script> {
    let survives = json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"});
    vec![finder("correctness", json!([finding()])), verdict("validate", REAL, &[survives])]
}
