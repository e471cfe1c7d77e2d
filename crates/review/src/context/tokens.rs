//! Design-token context: the configured token files (CSS custom properties, SCSS
//! variables, a theme object), and the added lines whose literal colour or size
//! equals a token's value, found by code so the reviewer does not have to.

use super::{Block, CodeRange, ContextError, ContextKind, Gathered, Sources};
use crate::listing::numbered;
use gauntlet_change::LineKind;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Lines of a token file shown.
const MAX_TOKEN_LINES: usize = 400;
const MAX_MATCHES: usize = 60;

/// A literal colour or size.
fn literal() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)#[0-9a-f]{8}\b|#[0-9a-f]{6}\b|#[0-9a-f]{3,4}\b|\b(rgba?|hsla?)\([^)]*\)|\b\d+(\.\d+)?(px|rem|em)\b",
        )
        .expect("literal pattern is valid")
    })
}

/// `--name: value`, `$name: value`, `name: "value"` / `"name": "value"`.
fn definition() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"^\s*["']?((--|\$)?[A-Za-z][\w.-]*)["']?\s*[:=]\s*(?:["']([^"'\n]+)["']|([^;"'\n]+?))\s*[;,]?\s*$"#,
        )
        .expect("valid")
    })
}

/// One spelling per value: lowercase, no spaces, `#abc` stays as written.
fn canonical(value: &str) -> String {
    value.trim().to_ascii_lowercase().split_whitespace().collect()
}

/// Token name per canonical literal value, with the file and line that defines it.
pub fn token_values(path: &str, text: &str) -> BTreeMap<String, (String, String, u32)> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some(c) = definition().captures(line) else {
            continue;
        };
        let Some(value) = c.get(3).or(c.get(4)).map(|m| m.as_str().trim()) else {
            continue;
        };
        if let Some(m) = literal().find(value).filter(|m| m.as_str().len() == value.len()) {
            out.entry(canonical(m.as_str())).or_insert((c[1].to_string(), path.to_string(), i as u32 + 1));
        }
    }
    out
}

pub(super) fn gather(src: &Sources<'_>) -> Result<Gathered, ContextError> {
    let files = &src.config.token_files;
    if files.is_empty() {
        return Ok(Gathered::Nothing(
            "no token files are configured (`[context] token_files` in gauntlet.toml)".into(),
        ));
    }
    let mut blocks = Vec::new();
    let mut values = BTreeMap::new();
    for path in files {
        let text = src.head.text(path).ok_or_else(|| ContextError::TokenFile { path: path.clone() })?;
        for (value, def) in token_values(path, &text) {
            values.entry(value).or_insert(def);
        }
        let lines: Vec<String> = text.lines().take(MAX_TOKEN_LINES).map(str::to_string).collect();
        blocks.push(Block {
            kind: ContextKind::Tokens,
            label: format!("token file {path}"),
            text: format!("{path}:\n{}", numbered(1, &lines)),
            about: Vec::new(),
            code: vec![CodeRange { path: path.clone(), start: 1, lines }],
        });
    }
    let mut matches = Vec::new();
    for f in src.change.files.iter().filter(|f| !files.iter().any(|t| t == f.diff.path())) {
        for l in f.diff.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind == LineKind::Added) {
            for m in literal().find_iter(&l.text) {
                if let Some((name, def_path, def_line)) = values.get(&canonical(m.as_str())) {
                    matches.push(format!(
                        "{}:{} `{}` equals token `{name}` ({def_path}:{def_line})",
                        f.diff.path(),
                        l.anchor,
                        m.as_str()
                    ));
                }
            }
        }
    }
    if matches.is_empty() {
        return Ok(Gathered::Nothing("no added line has a literal colour or size that equals a token".into()));
    }
    matches.truncate(MAX_MATCHES);
    blocks.insert(
        0,
        Block {
            kind: ContextKind::Tokens,
            label: "literals equal to a token".into(),
            text: matches.join("\n"),
            about: Vec::new(),
            code: Vec::new(),
        },
    );
    Ok(Gathered::Found(blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_scss_and_theme_definitions_are_read_as_tokens() {
        let css = ":root {\n  --color-primary: #1A73E8;\n  --space-2: 8px;\n  --font: Inter;\n}\n";
        let v = token_values("tokens.css", css);
        assert_eq!(v["#1a73e8"].0, "--color-primary");
        assert_eq!(v["8px"], ("--space-2".into(), "tokens.css".into(), 3));
        assert!(!v.values().any(|(n, ..)| n == "--font"), "non-literal values are not tokens");
        let theme = "export const theme = {\n  primary: '#1a73e8',\n  \"danger\": \"rgb(200, 0, 0)\",\n};\n";
        let v = token_values("theme.ts", theme);
        assert_eq!(v["#1a73e8"].0, "primary");
        assert_eq!(v["rgb(200,0,0)"].0, "danger");
    }
}
