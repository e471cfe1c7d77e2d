//! The loop's two answer contracts, held as strictly as the review's.
//!
//! The adversary answers `{"verdict": "approved" | "needs_work", "issues":
//! [{"category", "description", "severity": "critical" | "major" | "minor"}]}`.
//! The primary answers with its whole work (`patch` or `document`) and how it
//! dealt with each issue of the last review: `{"patch": "...", "addressed":
//! [{"issue": 1, "resolution": "fixed" | "disputed", "note": "..."}]}`.
//!
//! One JSON object, exact literals, no other keys. Anything else is a
//! [`ContractError`] that the caller re-asks once with, then fails loudly on.

use gauntlet_review::contract::ContractError;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const CATEGORY_MAX: usize = 60;
pub const DESCRIPTION_MAX: usize = 500;
pub const NOTE_MAX: usize = 400;
/// Issues one adversary answer may raise: enough for a real review, bounded so a
/// grammar-constrained model cannot ramble.
pub const MAX_ISSUES: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Major,
    Minor,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Major => "major",
            Severity::Minor => "minor",
        }
    }
    /// Critical and major issues are worth another round; minor ones are not.
    pub fn is_substantive(self) -> bool {
        self != Severity::Minor
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    NeedsWork,
}

/// One problem the adversary (or gauntlet itself, for a patch that does not apply)
/// found in the work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub category: String,
    pub description: String,
    pub severity: Severity,
}

/// The adversary's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Critique {
    pub verdict: Verdict,
    pub issues: Vec<Issue>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    Fixed,
    Disputed,
}

/// How the primary dealt with one issue of the previous review (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Addressed {
    pub issue: u32,
    pub resolution: Resolution,
    pub note: String,
}

/// The primary's answer: the whole work as it now stands, and its answers to the
/// last review's issues.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Draft {
    pub work: String,
    pub addressed: Vec<Addressed>,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ContractError {
    ContractError::Invalid { field: field.into(), message: message.into() }
}

fn check_text(field: &str, value: &str, max: usize) -> Result<(), ContractError> {
    if value.trim().is_empty() {
        return Err(invalid(field, "must not be empty"));
    }
    let n = value.chars().count();
    if n > max {
        return Err(invalid(field, format!("{n} characters; the limit is {max}")));
    }
    Ok(())
}

/// Parse and validate an adversary answer. Besides the schema, the verdict must
/// agree with the issues: `needs_work` names at least one, and `approved` cannot
/// stand beside a critical or major issue (which verdict was meant is unknowable,
/// so it is asked again rather than guessed).
pub fn parse_critique(text: &str) -> Result<Critique, ContractError> {
    let c: Critique = serde_json::from_str(text.trim()).map_err(|e| ContractError::NotJson(e.to_string()))?;
    if c.issues.len() > MAX_ISSUES {
        return Err(invalid("issues", format!("{} issues; the limit is {MAX_ISSUES}", c.issues.len())));
    }
    for (i, issue) in c.issues.iter().enumerate() {
        check_text(&format!("issues[{i}].category"), &issue.category, CATEGORY_MAX)?;
        check_text(&format!("issues[{i}].description"), &issue.description, DESCRIPTION_MAX)?;
    }
    match c.verdict {
        Verdict::NeedsWork if c.issues.is_empty() => {
            Err(invalid("verdict", "`needs_work` with no issues: name what needs work, or answer `approved`"))
        }
        Verdict::Approved if c.issues.iter().any(|i| i.severity.is_substantive()) => Err(invalid(
            "verdict",
            "`approved` beside a critical or major issue: answer `needs_work`, or drop the issue if it is not real",
        )),
        _ => Ok(c),
    }
}

/// Parse and validate a primary answer whose work is in `field` (at most `max`
/// characters), answering a review that raised `raised` issues.
pub fn parse_draft(text: &str, field: &str, max: usize, raised: usize) -> Result<Draft, ContractError> {
    let value: Value = serde_json::from_str(text.trim()).map_err(|e| ContractError::NotJson(e.to_string()))?;
    let Value::Object(mut map) = value else {
        return Err(ContractError::NotJson("expected one JSON object".into()));
    };
    if let Some(extra) = map.keys().find(|k| *k != field && *k != "addressed") {
        return Err(invalid(extra.clone(), format!("unknown field; the fields are `{field}` and `addressed`")));
    }
    let work = match map.remove(field) {
        Some(Value::String(s)) => s,
        Some(_) => return Err(invalid(field, "must be a string")),
        None => return Err(invalid(field, "missing")),
    };
    let n = work.chars().count();
    if n > max {
        return Err(invalid(field, format!("{n} characters; the limit is {max}")));
    }
    let addressed: Vec<Addressed> = match map.remove("addressed") {
        Some(v) => serde_json::from_value(v).map_err(|e| invalid("addressed", e.to_string()))?,
        None => return Err(invalid("addressed", "missing (use [] when there is nothing to answer)")),
    };
    for (i, a) in addressed.iter().enumerate() {
        if a.issue == 0 || a.issue as usize > raised {
            let range = if raised == 0 { "no issues were raised yet".to_string() } else { format!("1 to {raised}") };
            return Err(invalid(
                format!("addressed[{i}].issue"),
                format!("{} is not an issue number ({range})", a.issue),
            ));
        }
        check_text(&format!("addressed[{i}].note"), &a.note, NOTE_MAX)?;
    }
    Ok(Draft { work, addressed })
}

/// The adversary schema.
pub fn critique_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["verdict", "issues"],
        "properties": {
            "verdict": {"type": "string", "enum": ["approved", "needs_work"]},
            "issues": {
                "type": "array",
                "maxItems": MAX_ISSUES,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["category", "description", "severity"],
                    "properties": {
                        "category": {"type": "string", "maxLength": CATEGORY_MAX},
                        "description": {"type": "string", "maxLength": DESCRIPTION_MAX},
                        "severity": {"type": "string", "enum": ["critical", "major", "minor"]}
                    }
                }
            }
        }
    })
}

/// The primary schema, with its work in `field` of at most `max` characters,
/// answering a review that raised `raised` issues. The bounds follow the review, so
/// a grammar-constrained model cannot answer issues that were never raised.
pub fn draft_schema(field: &str, max: usize, raised: usize) -> Value {
    let issue = if raised == 0 {
        json!({"type": "integer", "minimum": 1})
    } else {
        json!({"type": "integer", "enum": (1..=raised).collect::<Vec<_>>()})
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": [field, "addressed"],
        "properties": {
            field: {"type": "string", "maxLength": max},
            "addressed": {
                "type": "array",
                "maxItems": raised,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["issue", "resolution", "note"],
                    "properties": {
                        "issue": issue,
                        "resolution": {"type": "string", "enum": ["fixed", "disputed"]},
                        "note": {"type": "string", "maxLength": NOTE_MAX}
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_critique_literals_parse() {
        let c = parse_critique(
            r#"{"verdict":"needs_work","issues":[{"category":"correctness","description":"off by one","severity":"major"}]}"#,
        )
        .unwrap();
        assert_eq!(c.verdict, Verdict::NeedsWork);
        assert_eq!(c.issues[0].severity, Severity::Major);
        assert_eq!(parse_critique(r#"{"verdict":"approved","issues":[]}"#).unwrap().verdict, Verdict::Approved);
    }

    #[test]
    fn near_miss_literals_are_violations() {
        for text in [
            r#"{"verdict":"Approved","issues":[]}"#,
            r#"{"verdict":"needs work","issues":[{"category":"c","description":"d","severity":"major"}]}"#,
            r#"{"verdict":"needs_work","issues":[{"category":"c","description":"d","severity":"high"}]}"#,
            r#"{"verdict":"needs_work","issues":[{"category":"c","description":"d","severity":"Major"}]}"#,
        ] {
            assert!(parse_critique(text).is_err(), "{text}");
        }
    }

    #[test]
    fn prose_or_extra_keys_are_violations() {
        assert!(matches!(
            parse_critique("Sure:\n{\"verdict\":\"approved\",\"issues\":[]}"),
            Err(ContractError::NotJson(_))
        ));
        assert!(parse_critique(r#"{"verdict":"approved","issues":[],"summary":"fine"}"#).is_err());
    }

    #[test]
    fn a_verdict_that_contradicts_its_issues_is_a_violation() {
        let approved_major =
            r#"{"verdict":"approved","issues":[{"category":"c","description":"d","severity":"major"}]}"#;
        assert!(parse_critique(approved_major).unwrap_err().to_string().contains("needs_work"));
        assert!(parse_critique(r#"{"verdict":"needs_work","issues":[]}"#).is_err());
        let approved_minor =
            r#"{"verdict":"approved","issues":[{"category":"style","description":"name","severity":"minor"}]}"#;
        assert!(parse_critique(approved_minor).is_ok(), "minor remarks may accompany an approval");
    }

    #[test]
    fn draft_needs_exactly_its_work_field_and_addressed() {
        let d = parse_draft(r#"{"patch":"diff","addressed":[]}"#, "patch", 100, 0).unwrap();
        assert_eq!(d.work, "diff");
        assert!(parse_draft(r#"{"document":"x","addressed":[]}"#, "patch", 100, 0).is_err());
        assert!(parse_draft(r#"{"patch":"x"}"#, "patch", 100, 0).is_err());
        assert!(parse_draft(r#"{"patch":"x","addressed":[],"why":"y"}"#, "patch", 100, 0).is_err());
        assert!(parse_draft(r#"{"patch":"xxxx","addressed":[]}"#, "patch", 3, 0).is_err());
    }

    #[test]
    fn the_draft_schema_allows_answers_only_to_raised_issues() {
        let first = draft_schema("patch", 100, 0);
        assert_eq!(first["properties"]["addressed"]["maxItems"], 0);
        let later = draft_schema("patch", 100, 3);
        assert_eq!(later["properties"]["addressed"]["maxItems"], 3);
        assert_eq!(later["properties"]["addressed"]["items"]["properties"]["issue"]["enum"], json!([1, 2, 3]));
    }

    #[test]
    fn an_overlong_field_is_named_with_its_length_and_its_limit() {
        let issue = |category: &str, description: &str| {
            format!(
                r#"{{"verdict":"needs_work","issues":[{{"category":"{category}","description":"{description}","severity":"major"}}]}}"#
            )
        };
        let long = |n: usize| "ü".repeat(n); // characters, not bytes
        let error = parse_critique(&issue(&long(CATEGORY_MAX + 1), "d")).unwrap_err().to_string();
        assert_eq!(error, format!("issues[0].category: {} characters; the limit is {CATEGORY_MAX}", CATEGORY_MAX + 1));
        let error = parse_critique(&issue("c", &long(DESCRIPTION_MAX + 2))).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("issues[0].description: {} characters; the limit is {DESCRIPTION_MAX}", DESCRIPTION_MAX + 2)
        );
        let note = format!(
            r#"{{"patch":"d","addressed":[{{"issue":1,"resolution":"fixed","note":"{}"}}]}}"#,
            long(NOTE_MAX + 1)
        );
        let error = parse_draft(&note, "patch", 100, 1).unwrap_err().to_string();
        assert_eq!(error, format!("addressed[0].note: {} characters; the limit is {NOTE_MAX}", NOTE_MAX + 1));
        let error = parse_draft(r#"{"patch":"xxxx","addressed":[]}"#, "patch", 3, 0).unwrap_err().to_string();
        assert_eq!(error, "patch: 4 characters; the limit is 3");
        let many: Vec<String> = (0..=MAX_ISSUES)
            .map(|i| format!(r#"{{"category":"c","description":"d{i}","severity":"minor"}}"#))
            .collect();
        let text = format!(r#"{{"verdict":"approved","issues":[{}]}}"#, many.join(","));
        let error = parse_critique(&text).unwrap_err().to_string();
        assert_eq!(error, format!("issues: {} issues; the limit is {MAX_ISSUES}", MAX_ISSUES + 1));
    }

    #[test]
    fn addressed_must_name_an_issue_that_was_raised() {
        let ok = r#"{"patch":"d","addressed":[{"issue":2,"resolution":"fixed","note":"checked the bound"}]}"#;
        assert_eq!(parse_draft(ok, "patch", 100, 2).unwrap().addressed[0].resolution, Resolution::Fixed);
        assert!(parse_draft(ok, "patch", 100, 1).unwrap_err().to_string().contains("1 to 1"));
        let bad = r#"{"patch":"d","addressed":[{"issue":1,"resolution":"wontfix","note":"n"}]}"#;
        assert!(parse_draft(bad, "patch", 100, 1).is_err());
    }
}
