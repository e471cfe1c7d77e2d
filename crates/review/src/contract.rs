//! The two model contracts, exactly as the design specifies them: the finder's
//! `{"findings": [...]}` and the validator's `{"verdict", "evidence", "confidence",
//! "impact"}`.
//!
//! Parsing is strict: the answer must be one JSON object and nothing else, with the
//! exact literals of the schema. Anything else is a [`ContractError`] that the caller
//! re-asks once with, then reports as a coverage gap.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Bounds every provider's output is held to (and the local grammar is derived from).
pub const LOCATION_MAX: usize = 200;
pub const CLAIM_MAX: usize = 300;
pub const EVIDENCE_MAX: usize = 600;
/// A verdict may cite several places (a guard in one file, the caller in another),
/// each with a location and a quote: room for three or four of them and the reasoning.
pub const VERDICT_EVIDENCE_MAX: usize = 1000;
/// What a finding's location looks like, for providers that constrain generation
/// with it (code validation uses [`Location::parse`]). Bounded so any match also fits
/// `LOCATION_MAX` and a line fits a u32.
pub const LOCATION_PATTERN: &str = r"^[^:\s]{1,180}:[1-9][0-9]{0,6}(-[1-9][0-9]{0,6})?$";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lens {
    HiddenAssumption,
    FailureScenario,
    BlastRadius,
}

impl Lens {
    pub fn as_str(self) -> &'static str {
        match self {
            Lens::HiddenAssumption => "hidden_assumption",
            Lens::FailureScenario => "failure_scenario",
            Lens::BlastRadius => "blast_radius",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    High,
    Medium,
    Low,
}

impl Severity {
    /// Ranking weight: high 3, medium 2, low 1.
    pub fn weight(self) -> u32 {
        match self {
            Severity::High => 3,
            Severity::Medium => 2,
            Severity::Low => 1,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

impl PartialOrd for Severity {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Severity {
    /// Ordered by weight, so `High > Low`.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.weight().cmp(&other.weight())
    }
}

/// One finding as the finder wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFinding {
    pub lens: Lens,
    pub location: String,
    pub claim: String,
    pub evidence: String,
    pub severity: Severity,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Findings {
    findings: Vec<RawFinding>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictKind {
    Survives,
    Disproved,
}

/// Whether a finding matters, a question apart from whether it is true: the
/// confidence says how sure the validator is, this says what follows if it is right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Wrong behaviour, a crash, a build break, security, data loss, a broken contract.
    Consequential,
    /// Cosmetic, wording, style, or a hypothetical.
    Minor,
}

impl Impact {
    pub fn as_str(self) -> &'static str {
        match self {
            Impact::Consequential => "consequential",
            Impact::Minor => "minor",
        }
    }
}

/// The validator's answer about one finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    pub verdict: VerdictKind,
    pub evidence: String,
    pub confidence: u8,
    pub impact: Impact,
}

/// The confidence rubric's levels.
pub const CONFIDENCE_LEVELS: [u8; 5] = [0, 25, 50, 75, 100];

/// A `path:LINE` or `path:START-END` location (head lines, 1-based, inclusive).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    pub path: String,
    pub start: u32,
    pub end: u32,
}

impl Location {
    /// Parse `path:LINE` / `path:START-END`. The path may itself contain `:`; the
    /// line part is what follows the last one.
    pub fn parse(text: &str) -> Option<Location> {
        let text = text.trim();
        let (path, lines) = text.rsplit_once(':')?;
        // Strip `./` and the blanks around it until neither is left, so the path
        // reads the same when the location is written out and parsed again.
        let mut path = path.trim();
        while let Some(rest) = path.strip_prefix("./") {
            path = rest.trim_start();
        }
        if path.is_empty() {
            return None;
        }
        let (start, end) = match lines.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let n = lines.trim().parse().ok()?;
                (n, n)
            }
        };
        if start == 0 || end < start {
            return None;
        }
        Some(Location { path: path.to_string(), start, end })
    }

    /// Parse a location at the start of a text (`path:LINE rest...`), returning the
    /// location and the rest. Used for verdict evidence and cross-file finding evidence.
    pub fn parse_prefix(text: &str) -> Option<(Location, &str)> {
        let text = text.trim_start();
        let token_end = text.find(char::is_whitespace).unwrap_or(text.len());
        let token = text[..token_end].trim_end_matches([',', ';', ':', '.', ')']);
        let token = token.trim_start_matches(['`', '(']).trim_end_matches('`');
        Location::parse(token).map(|loc| (loc, &text[token_end..]))
    }

    pub fn overlaps(&self, other: &Location) -> bool {
        self.path == other.path && self.start <= other.end && other.start <= self.end
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start == self.end {
            write!(f, "{}:{}", self.path, self.start)
        } else {
            write!(f, "{}:{}-{}", self.path, self.start, self.end)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContractError {
    #[error("the answer is not one JSON object matching the schema: {0}")]
    NotJson(String),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ContractError {
    ContractError::Invalid { field: field.into(), message: message.into() }
}

/// Parse and validate a finder answer. More than `max_findings` is not a violation:
/// the caller keeps the most severe (see [`cap_findings`]).
pub fn parse_findings(text: &str) -> Result<Vec<RawFinding>, ContractError> {
    let parsed: Findings = serde_json::from_str(text.trim()).map_err(|e| ContractError::NotJson(e.to_string()))?;
    for (i, f) in parsed.findings.iter().enumerate() {
        let at = |field: &str| format!("findings[{i}].{field}");
        if Location::parse(&f.location).is_none() {
            return Err(invalid(at("location"), format!("`{}` is not path:LINE or path:START-END", f.location)));
        }
        check_len(&at("location"), &f.location, LOCATION_MAX)?;
        check_text(&at("claim"), &f.claim, CLAIM_MAX)?;
        check_text(&at("evidence"), &f.evidence, EVIDENCE_MAX)?;
    }
    Ok(parsed.findings)
}

/// Parse and validate a validator answer.
pub fn parse_verdict(text: &str) -> Result<Verdict, ContractError> {
    let v: Verdict = serde_json::from_str(text.trim())
        .map_err(|e| impact_error(text).unwrap_or_else(|| ContractError::NotJson(e.to_string())))?;
    if !CONFIDENCE_LEVELS.contains(&v.confidence) {
        return Err(invalid("confidence", format!("{} is not one of 0, 25, 50, 75, 100", v.confidence)));
    }
    check_text("evidence", &v.evidence, VERDICT_EVIDENCE_MAX)?;
    Ok(v)
}

/// `impact` by name when it is what broke an otherwise well-formed verdict: the
/// re-ask then says which field to fix, not a column number.
fn impact_error(text: &str) -> Option<ContractError> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let expected = r#"answer "consequential" or "minor""#;
    match value.as_object()?.get("impact") {
        None => Some(invalid("impact", format!("missing; {expected}"))),
        Some(Value::String(s)) if s == "consequential" || s == "minor" => None,
        Some(other) => Some(invalid("impact", format!("{other} is not one of the literals; {expected}"))),
    }
}

fn check_text(field: &str, value: &str, max: usize) -> Result<(), ContractError> {
    if value.trim().is_empty() {
        return Err(invalid(field, "must not be empty"));
    }
    check_len(field, value, max)
}

fn check_len(field: &str, value: &str, max: usize) -> Result<(), ContractError> {
    let n = value.chars().count();
    if n > max {
        return Err(invalid(field, format!("{n} characters; the limit is {max}")));
    }
    Ok(())
}

/// Keep at most `max` findings, the most severe first; ties keep the model's order.
pub fn cap_findings(mut findings: Vec<RawFinding>, max: usize) -> Vec<RawFinding> {
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity)); // stable
    findings.truncate(max);
    findings
}

/// The finder schema, with `maxItems` = the reviewer's cap.
pub fn findings_schema(max_findings: usize) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["findings"],
        "properties": {
            "findings": {
                "type": "array",
                "maxItems": max_findings,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["lens", "location", "claim", "evidence", "severity"],
                    "properties": {
                        "lens": {"type": "string", "enum": ["hidden_assumption", "failure_scenario", "blast_radius"]},
                        "location": {"type": "string", "maxLength": LOCATION_MAX, "pattern": LOCATION_PATTERN},
                        "claim": {"type": "string", "maxLength": CLAIM_MAX},
                        "evidence": {"type": "string", "maxLength": EVIDENCE_MAX},
                        "severity": {"type": "string", "enum": ["high", "medium", "low"]}
                    }
                }
            }
        }
    })
}

/// The validator schema.
pub fn verdict_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["verdict", "evidence", "confidence", "impact"],
        "properties": {
            "verdict": {"type": "string", "enum": ["survives", "disproved"]},
            "evidence": {"type": "string", "maxLength": VERDICT_EVIDENCE_MAX},
            "confidence": {"type": "integer", "enum": [0, 25, 50, 75, 100]},
            "impact": {"type": "string", "enum": ["consequential", "minor"]}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_finding_literals_parse() {
        let text = r#"{"findings":[{"lens":"failure_scenario","location":"src/a.rs:3-5","claim":"x","evidence":"y","severity":"high"}]}"#;
        let f = parse_findings(text).unwrap();
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(Location::parse(&f[0].location).unwrap(), Location { path: "src/a.rs".into(), start: 3, end: 5 });
    }

    #[test]
    fn capitalised_severity_is_a_violation() {
        let text = r#"{"findings":[{"lens":"failure_scenario","location":"a.rs:3","claim":"x","evidence":"y","severity":"High"}]}"#;
        assert!(parse_findings(text).is_err());
    }

    #[test]
    fn prose_around_json_is_a_violation() {
        let text = "Here you go:\n{\"findings\": []}";
        assert!(matches!(parse_findings(text), Err(ContractError::NotJson(_))));
    }

    #[test]
    fn unknown_field_is_a_violation() {
        assert!(parse_findings(r#"{"findings":[],"summary":"ok"}"#).is_err());
    }

    #[test]
    fn false_positive_verdict_literal_is_a_violation() {
        let text = r#"{"verdict":"false_positive","evidence":"a.rs:1 `x`","confidence":75,"impact":"minor"}"#;
        assert!(parse_verdict(text).is_err());
    }

    #[test]
    fn off_rubric_confidence_is_a_violation() {
        let text = r#"{"verdict":"survives","evidence":"a.rs:1 `x`","confidence":80,"impact":"minor"}"#;
        assert!(parse_verdict(text).is_err());
    }

    #[test]
    fn impact_is_one_of_two_exact_literals_and_never_optional() {
        let with =
            |impact: &str| format!(r#"{{"verdict":"survives","evidence":"a.rs:1 `x`","confidence":75{impact}}}"#);
        assert_eq!(parse_verdict(&with(r#","impact":"minor""#)).unwrap().impact, Impact::Minor);
        assert_eq!(parse_verdict(&with(r#","impact":"consequential""#)).unwrap().impact, Impact::Consequential);
        for wrong in ["", r#","impact":"Minor""#, r#","impact":"major""#, r#","impact":"low""#, r#","impact":null"#] {
            let error = parse_verdict(&with(wrong)).unwrap_err().to_string();
            assert!(error.starts_with("impact: "), "{wrong}: {error}");
        }
    }

    #[test]
    fn the_verdict_schema_requires_impact_with_its_two_literals() {
        let schema = verdict_schema();
        assert!(schema["required"].as_array().unwrap().contains(&json!("impact")));
        assert_eq!(schema["properties"]["impact"]["enum"], json!(["consequential", "minor"]));
    }

    #[test]
    fn overlong_claim_is_a_violation() {
        let claim = "a".repeat(CLAIM_MAX + 1);
        let text = format!(
            r#"{{"findings":[{{"lens":"blast_radius","location":"a.rs:1","claim":"{claim}","evidence":"y","severity":"low"}}]}}"#
        );
        assert!(parse_findings(&text).is_err());
    }

    #[test]
    fn an_overlong_field_is_named_with_its_length_and_its_limit_in_the_reask() {
        let long = |n: usize| "é".repeat(n); // characters, not bytes
        let finding = |claim: &str, evidence: &str| {
            format!(
                r#"{{"findings":[{{"lens":"blast_radius","location":"a.rs:1","claim":"c","evidence":"e","severity":"low"}},{{"lens":"blast_radius","location":"a.rs:2","claim":"{claim}","evidence":"{evidence}","severity":"low"}}]}}"#
            )
        };
        let error = parse_findings(&finding(&long(CLAIM_MAX + 1), "y")).unwrap_err().to_string();
        assert_eq!(error, format!("findings[1].claim: {} characters; the limit is {CLAIM_MAX}", CLAIM_MAX + 1));
        let error = parse_findings(&finding("x", &long(EVIDENCE_MAX + 7))).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("findings[1].evidence: {} characters; the limit is {EVIDENCE_MAX}", EVIDENCE_MAX + 7)
        );
        let verdict = format!(
            r#"{{"verdict":"survives","evidence":"{}","confidence":75,"impact":"minor"}}"#,
            long(VERDICT_EVIDENCE_MAX + 1)
        );
        let error = parse_verdict(&verdict).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("evidence: {} characters; the limit is {VERDICT_EVIDENCE_MAX}", VERDICT_EVIDENCE_MAX + 1)
        );
        // The re-ask turn carries the message whole.
        let reask = crate::prompt::reask(&error, true);
        assert!(
            reask.starts_with(&format!(
                "Your previous answer was rejected: evidence: {} characters; the limit is {VERDICT_EVIDENCE_MAX}.",
                VERDICT_EVIDENCE_MAX + 1
            )),
            "{reask}"
        );
        // At the limit exactly is fine.
        assert!(parse_findings(&finding(&long(CLAIM_MAX), "y")).is_ok());
    }

    #[test]
    fn location_prefix_parses_before_reasoning() {
        let (loc, rest) = Location::parse_prefix("src/lib.rs:10-12 the guard `if x` rules it out").unwrap();
        assert_eq!(loc.to_string(), "src/lib.rs:10-12");
        assert!(rest.contains("guard"));
        assert!(Location::parse_prefix("the guard at line 3").is_none());
        let (loc, _) = Location::parse_prefix("src/b.rs:5: the caller checks").unwrap();
        assert_eq!(loc.to_string(), "src/b.rs:5");
    }

    #[test]
    fn a_location_reads_the_same_after_being_written_out() {
        // Found by the `contract` fuzz target: the blank after `./` stayed in the path.
        for text in ["  ./ b.rs:7  ", "./ ./src/a.rs:3-4", "././x.rs:1"] {
            let loc = Location::parse(text).unwrap();
            assert!(!loc.path.starts_with([' ', '.']), "{loc:?}");
            assert_eq!(Location::parse(&loc.to_string()), Some(loc));
        }
        assert_eq!(Location::parse("./ :3"), None);
    }

    #[test]
    fn cap_keeps_the_most_severe() {
        let mk = |s| RawFinding {
            lens: Lens::BlastRadius,
            location: "a:1".into(),
            claim: "c".into(),
            evidence: "e".into(),
            severity: s,
        };
        let kept = cap_findings(vec![mk(Severity::Low), mk(Severity::High), mk(Severity::Medium)], 2);
        assert_eq!(kept.iter().map(|f| f.severity).collect::<Vec<_>>(), vec![Severity::High, Severity::Medium]);
    }
}
