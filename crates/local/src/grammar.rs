//! JSON schema → GBNF grammar for llama.cpp's grammar sampler, plus the grammar's
//! worst-case output length.
//!
//! Only the subset gauntlet's contracts use is supported, and everything must be
//! bounded: objects (their `required` properties, in that order), strings with
//! `maxLength` (or an `enum`; a `pattern` is enforced too, see [`crate::pattern`]), integers (optionally an `enum`), booleans, arrays with
//! `maxItems`. Anything else is a [`GrammarError`] rather than a silently looser
//! grammar, because the point is that a local model's answer always fits the schema.
//!
//! Why not llama.cpp's own converter: its strings allow `\uXXXX` escapes and its
//! whitespace rule allows up to 22 bytes between tokens, so its worst case is several
//! times longer than ours, and the token limit must cover the worst case or a JSON
//! answer can be cut off. Here the output is compact JSON and strings are printable
//! ASCII with the escapes `\"`, `\\`, `\n`, `\t` (at most 2 bytes per character).
//! Every token the grammar admits emits at least one byte, so the worst case in bytes
//! bounds the tokens needed.

use serde_json::Value;

/// A grammar and the most bytes an answer under it can take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grammar {
    /// GBNF text with root rule `root`.
    pub gbnf: String,
    /// Longest possible answer in bytes (so also in tokens).
    pub max_bytes: usize,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GrammarError {
    #[error(
        "schema at {path}: {message} (the local grammar supports bounded objects, strings, integers, booleans and arrays)"
    )]
    Unsupported { path: String, message: String },
}

/// One printable ASCII character inside a JSON string, or a short escape.
const CHAR_RULE: &str = r#"char ::= [ !#-[\]-~] | "\\" ["\\nt]"#;
const CHAR_MAX_BYTES: usize = 2;

/// Build the grammar for `schema`.
pub fn from_schema(schema: &Value) -> Result<Grammar, GrammarError> {
    let mut b = Builder { rules: Vec::new() };
    let (root, max_bytes) = b.node(schema, "$")?;
    let mut gbnf = format!("root ::= {root}\n");
    for (name, body) in &b.rules {
        gbnf.push_str(&format!("{name} ::= {body}\n"));
    }
    gbnf.push_str(CHAR_RULE);
    gbnf.push('\n');
    Ok(Grammar { gbnf, max_bytes })
}

struct Builder {
    rules: Vec<(String, String)>,
}

fn unsupported(path: &str, message: impl Into<String>) -> GrammarError {
    GrammarError::Unsupported { path: path.to_string(), message: message.into() }
}

/// A GBNF string literal for `text` (which is emitted verbatim).
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn usize_field(schema: &Value, key: &str) -> Option<usize> {
    schema.get(key).and_then(Value::as_u64).map(|n| n as usize)
}

impl Builder {
    /// Name a rule and return the name to reference it by.
    fn rule(&mut self, body: String) -> String {
        let name = format!("r{}", self.rules.len());
        self.rules.push((name.clone(), body));
        name
    }

    /// The expression for one schema node and its worst-case bytes.
    fn node(&mut self, schema: &Value, path: &str) -> Result<(String, usize), GrammarError> {
        if let Some(values) = schema.get("enum") {
            return enumeration(values, path);
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => self.object(schema, path),
            Some("array") => self.array(schema, path),
            Some("string") => string(schema, path),
            Some("integer") => Ok(("\"-\"? [0-9]{1,18}".into(), 19)),
            Some("boolean") => Ok(("(\"true\" | \"false\")".into(), 5)),
            other => Err(unsupported(path, format!("type {other:?}"))),
        }
    }

    fn object(&mut self, schema: &Value, path: &str) -> Result<(String, usize), GrammarError> {
        let props = schema.get("properties").and_then(Value::as_object);
        let required = schema.get("required").and_then(Value::as_array);
        let (Some(props), Some(required)) = (props, required) else {
            return Err(unsupported(path, "an object needs `properties` and `required`"));
        };
        // Only required properties are generated: the schema allows leaving out
        // the others, and a fixed order keeps the grammar small.
        let mut parts = Vec::new();
        let mut max = 2 + required.len().saturating_sub(1);
        for key in required {
            let key = key.as_str().ok_or_else(|| unsupported(path, "`required` holds a non-string"))?;
            let sub = props.get(key).ok_or_else(|| unsupported(path, format!("required `{key}` has no schema")))?;
            let (expr, bytes) = self.node(sub, &format!("{path}.{key}"))?;
            let quoted_key = serde_json::to_string(key).expect("a string serialises");
            parts.push(format!("{} {expr}", literal(&format!("{quoted_key}:"))));
            max += quoted_key.len() + 1 + bytes;
        }
        let body = format!("\"{{\" {} \"}}\"", parts.join(" \",\" "));
        Ok((self.rule(body), max))
    }

    fn array(&mut self, schema: &Value, path: &str) -> Result<(String, usize), GrammarError> {
        let max_items =
            usize_field(schema, "maxItems").ok_or_else(|| unsupported(path, "an array needs `maxItems`"))?;
        let min_items = usize_field(schema, "minItems").unwrap_or(0);
        if min_items > max_items {
            return Err(unsupported(path, "minItems > maxItems"));
        }
        let items = schema.get("items").ok_or_else(|| unsupported(path, "an array needs `items`"))?;
        if max_items == 0 {
            return Ok(("\"[]\"".into(), 2));
        }
        let (item, item_bytes) = self.node(items, &format!("{path}[]"))?;
        let rest = format!("(\",\" {item}){{{},{}}}", min_items.saturating_sub(1), max_items - 1);
        let body =
            if min_items == 0 { format!("\"[\" ({item} {rest})? \"]\"") } else { format!("\"[\" {item} {rest} \"]\"") };
        Ok((self.rule(body), 2 + max_items * item_bytes + (max_items - 1)))
    }
}

fn string(schema: &Value, path: &str) -> Result<(String, usize), GrammarError> {
    let max = usize_field(schema, "maxLength").ok_or_else(|| unsupported(path, "a string needs `maxLength`"))?;
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        let (expr, bytes) = crate::pattern::to_gbnf(pattern, max).map_err(|m| unsupported(path, m))?;
        return Ok((format!("\"\\\"\" {expr} \"\\\"\""), 2 + bytes));
    }
    // Every string in gauntlet's contracts must be non-empty (validation rejects
    // empty claims, evidence and locations), so an empty string is never useful:
    // require one character unless the schema says otherwise.
    let min = usize_field(schema, "minLength").unwrap_or(1).min(max);
    Ok((format!("\"\\\"\" char{{{min},{max}}} \"\\\"\""), 2 + CHAR_MAX_BYTES * max))
}

fn enumeration(values: &Value, path: &str) -> Result<(String, usize), GrammarError> {
    let values = values.as_array().filter(|v| !v.is_empty()).ok_or_else(|| unsupported(path, "empty `enum`"))?;
    let mut alternatives = Vec::new();
    let mut max = 0;
    for v in values {
        if !(v.is_string() || v.is_i64() || v.is_u64() || v.is_boolean()) {
            return Err(unsupported(path, format!("enum value {v}")));
        }
        let text = v.to_string(); // the JSON text, quotes included for strings
        max = max.max(text.len());
        alternatives.push(literal(&text));
    }
    Ok((format!("({})", alternatives.join(" | ")), max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verdict_like_schema_has_enums_and_a_bounded_string() {
        let g = from_schema(&json!({
            "type": "object",
            "required": ["verdict", "evidence", "confidence"],
            "properties": {
                "verdict": {"type": "string", "enum": ["survives", "disproved"]},
                "evidence": {"type": "string", "maxLength": 600},
                "confidence": {"type": "integer", "enum": [0, 25, 50, 75, 100]}
            }
        }))
        .unwrap();
        assert!(g.gbnf.contains(r#"("\"survives\"" | "\"disproved\"")"#), "{}", g.gbnf);
        assert!(g.gbnf.contains("char{1,600}"), "{}", g.gbnf);
        assert!(g.gbnf.contains(r#"("0" | "25" | "50" | "75" | "100")"#), "{}", g.gbnf);
        // {"verdict":"disproved","evidence":"<1200>","confidence":100}
        assert_eq!(g.max_bytes, 2 + 2 + 10 + 11 + 11 + 2 + 1200 + 13 + 3);
    }

    #[test]
    fn arrays_are_bounded_by_max_items() {
        let g = from_schema(&json!({"type": "array", "maxItems": 2, "items": {"type": "boolean"}})).unwrap();
        assert!(g.gbnf.contains(r#""[" (("true" | "false") ("," ("true" | "false")){0,1})? "]""#), "{}", g.gbnf);
        assert_eq!(g.max_bytes, 2 + 5 + 1 + 5);
    }

    #[test]
    fn unbounded_schemas_are_refused() {
        let e = from_schema(&json!({"type": "string"})).unwrap_err();
        assert!(e.to_string().contains("maxLength"), "{e}");
        let e = from_schema(&json!({"type": "array", "items": {"type": "boolean"}})).unwrap_err();
        assert!(e.to_string().contains("maxItems"), "{e}");
        assert!(from_schema(&json!({"type": "number"})).is_err());
    }
}
