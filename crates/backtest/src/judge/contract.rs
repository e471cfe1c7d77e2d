//! The judge's answer contract: `{"verdict", "impact", "evidence"}` with exact
//! literals, parsed as strictly as the validator's verdict. A violation is
//! re-asked once and then recorded as a gap, never read as an answer.

use gauntlet_review::contract::{ContractError, Impact};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The name of the answer's schema (and of the step's forced tool).
pub const SCHEMA_NAME: &str = "report_judgement";
/// Room for a few cited places, a quote from each, and the reasoning.
pub const EVIDENCE_MAX: usize = 1000;

/// Whether the claim holds of the code at head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Truth {
    True,
    False,
    /// The code the judge could read settles it neither way.
    Unclear,
}

impl Truth {
    pub fn as_str(self) -> &'static str {
        match self {
            Truth::True => "true",
            Truth::False => "false",
            Truth::Unclear => "unclear",
        }
    }
}

/// The judge's answer about one claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    pub verdict: Truth,
    pub impact: Impact,
    pub evidence: String,
}

/// The schema providers constrain the answer with.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["verdict", "impact", "evidence"],
        "properties": {
            "verdict": {"type": "string", "enum": ["true", "false", "unclear"]},
            "impact": {"type": "string", "enum": ["consequential", "minor"]},
            "evidence": {"type": "string", "maxLength": EVIDENCE_MAX}
        }
    })
}

/// Parse one answer: one JSON object, the schema's literals exactly, a non-empty
/// evidence within its limit.
pub fn parse(text: &str) -> Result<Judgement, ContractError> {
    let j: Judgement = serde_json::from_str(text.trim())
        .map_err(|e| literal_error(text).unwrap_or_else(|| ContractError::NotJson(e.to_string())))?;
    let n = j.evidence.chars().count();
    if j.evidence.trim().is_empty() {
        return Err(invalid("evidence", "must not be empty; cite the path:LINE the answer rests on".into()));
    }
    if n > EVIDENCE_MAX {
        return Err(invalid("evidence", format!("{n} characters; the limit is {EVIDENCE_MAX}")));
    }
    Ok(j)
}

fn invalid(field: &str, message: String) -> ContractError {
    ContractError::Invalid { field: field.into(), message }
}

/// Name the field whose literal broke an otherwise well-formed object, so the
/// re-ask says what to fix rather than a column number.
fn literal_error(text: &str) -> Option<ContractError> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let object = value.as_object()?;
    let fields: [(&str, &[&str]); 2] =
        [("verdict", &["true", "false", "unclear"]), ("impact", &["consequential", "minor"])];
    for (field, literals) in fields {
        let expected = literals.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ");
        match object.get(field) {
            None => return Some(invalid(field, format!("missing; answer one of {expected}"))),
            Some(Value::String(s)) if literals.contains(&s.as_str()) => {}
            Some(other) => return Some(invalid(field, format!("{other} is not one of {expected}"))),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_literals_parse() {
        let j = parse(r#"{"verdict":"true","impact":"minor","evidence":"a.py:3 `x = 1`"}"#).unwrap();
        assert_eq!((j.verdict, j.impact), (Truth::True, Impact::Minor));
        let j = parse(r#"{"verdict":"unclear","impact":"consequential","evidence":"a.py:3"}"#).unwrap();
        assert_eq!(j.verdict, Truth::Unclear);
    }

    #[test]
    fn near_misses_of_the_literals_are_violations_that_name_the_field() {
        for (answer, field) in [
            (r#"{"verdict":"True","impact":"minor","evidence":"a.py:3"}"#, "verdict: "),
            (r#"{"verdict":true,"impact":"minor","evidence":"a.py:3"}"#, "verdict: "),
            (r#"{"verdict":"likely","impact":"minor","evidence":"a.py:3"}"#, "verdict: "),
            (r#"{"verdict":"true","evidence":"a.py:3"}"#, "impact: "),
            (r#"{"verdict":"true","impact":"major","evidence":"a.py:3"}"#, "impact: "),
            (r#"{"verdict":"true","impact":"minor","evidence":"  "}"#, "evidence: "),
        ] {
            let error = parse(answer).unwrap_err().to_string();
            assert!(error.starts_with(field), "{answer}: {error}");
        }
    }

    #[test]
    fn prose_around_the_object_and_unknown_keys_are_violations() {
        assert!(parse("Verdict: true").is_err());
        assert!(parse(r#"Sure: {"verdict":"true","impact":"minor","evidence":"a.py:3"}"#).is_err());
        assert!(parse(r#"{"verdict":"true","impact":"minor","evidence":"a.py:3","system":"gauntlet"}"#).is_err());
    }

    #[test]
    fn the_schema_holds_the_same_literals_the_parser_accepts() {
        let s = schema();
        assert_eq!(s["properties"]["verdict"]["enum"], json!(["true", "false", "unclear"]));
        assert_eq!(s["properties"]["impact"]["enum"], json!(["consequential", "minor"]));
        assert_eq!(s["required"], json!(["verdict", "impact", "evidence"]));
        let long = format!(r#"{{"verdict":"false","impact":"minor","evidence":"{}"}}"#, "é".repeat(EVIDENCE_MAX + 1));
        assert!(parse(&long).unwrap_err().to_string().contains(&EVIDENCE_MAX.to_string()));
    }
}
