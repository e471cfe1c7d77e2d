//! Secret hygiene: common secrets are masked before any text reaches a provider,
//! and a secret the change adds is reported by a deterministic check.
//!
//! Masking works line by line and replaces only the secret itself, so every line
//! keeps its number and the rest of its text: grounding compares the models'
//! quotes with the masked text they were shown. The report names a secret by its
//! kind and a redacted form (a public prefix such as `ghp_` and its length), never
//! by its value.

use crate::contract::{Lens, Severity};
use crate::finding::Finding;
use crate::review::Published;
use gauntlet_change::{Change, LineKind};
use regex::Regex;
use std::sync::OnceLock;

/// What replaces a masked secret in the text models read.
pub fn placeholder(kind: &str) -> String {
    format!("[masked {kind}]")
}

/// The reviewer name of the deterministic secret check.
pub const REVIEWER: &str = "secrets";

/// Shannon entropy (bits per character) at or above which an assigned value looks
/// like a real secret rather than a placeholder such as `changeme`.
pub const MIN_ENTROPY: f64 = 3.0;

#[derive(Debug, thiserror::Error)]
#[error("secret pattern `{pattern}` is not a valid regular expression: {source}")]
pub struct PatternError {
    pub pattern: String,
    #[source]
    pub source: regex::Error,
}

struct Pattern {
    kind: String,
    re: Regex,
    /// Characters of a match that are a public prefix, safe to show.
    shown_prefix: usize,
    /// Only values of at least [`MIN_ENTROPY`] count.
    entropy: bool,
}

/// One secret found on a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub kind: String,
    /// A public prefix and the length: `ghp_… (40 characters)`.
    pub redacted: String,
}

/// A secret the change adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secret {
    pub path: String,
    /// Head line number.
    pub line: u32,
    /// The head line, masked.
    pub masked_line: String,
    pub hit: Hit,
}

const PRIVATE_KEY_BEGIN: &str = r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";
const PRIVATE_KEY_END: &str = r"-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";

fn builtin() -> Vec<Pattern> {
    let p = |kind: &str, re: &str, shown_prefix: usize, entropy: bool| Pattern {
        kind: kind.into(),
        re: Regex::new(re).expect("built-in secret patterns compile"),
        shown_prefix,
        entropy,
    };
    vec![
        p("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 4, false),
        p("AWS secret key", r#"(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#, 0, false),
        p("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", 4, false),
        p("GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", 11, false),
        p("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}", 6, false),
        p("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 5, false),
        p(
            "password",
            r#"(?i)(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token|client_?secret)["']?\s*[:=]\s*["']([^"'\s]{8,})["']"#,
            0,
            true,
        ),
    ]
}

/// The masking pass, built once per run from the built-in patterns and the
/// configuration's extra ones (a pattern with a capture group masks the group,
/// else the whole match).
pub struct Masker {
    patterns: Vec<Pattern>,
}

fn begin_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(PRIVATE_KEY_BEGIN).expect("compiles"))
}

fn end_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(PRIVATE_KEY_END).expect("compiles"))
}

/// Patterns are counted, not shown: a repository's own may describe its secrets.
impl std::fmt::Debug for Masker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Masker").field("patterns", &self.patterns.len()).finish()
    }
}

impl Masker {
    pub fn new(extra: &[String]) -> Result<Masker, PatternError> {
        let mut patterns = builtin();
        for pattern in extra {
            let re = Regex::new(pattern).map_err(|source| PatternError { pattern: pattern.clone(), source })?;
            patterns.push(Pattern { kind: "configured secret pattern".into(), re, shown_prefix: 0, entropy: false });
        }
        Ok(Masker { patterns })
    }

    /// Mask one line (outside a private-key block). Returns the masked line and
    /// what was masked.
    pub fn line(&self, line: &str) -> (String, Vec<Hit>) {
        let mut out = line.to_string();
        let mut hits = Vec::new();
        for p in &self.patterns {
            // Replace from the end so earlier byte ranges stay valid.
            let mut spans: Vec<(usize, usize)> = Vec::new();
            for caps in p.re.captures_iter(&out) {
                let m = caps.get(1).unwrap_or_else(|| caps.get(0).expect("a match has group 0"));
                if p.entropy && entropy(m.as_str()) < MIN_ENTROPY {
                    continue;
                }
                spans.push((m.start(), m.end()));
            }
            for (start, end) in spans.into_iter().rev() {
                let value = &out[start..end];
                hits.push(Hit { kind: p.kind.clone(), redacted: redact(value, p.shown_prefix) });
                out.replace_range(start..end, &placeholder(&p.kind));
            }
        }
        hits.reverse();
        (out, hits)
    }

    /// Mask every line of a text, private-key blocks included; line breaks are kept.
    /// Returns the masked text and, per line (0-based), what was masked.
    pub fn text(&self, text: &str) -> (String, Vec<(usize, Hit)>) {
        let mut block = false;
        let mut out = String::with_capacity(text.len());
        let mut hits = Vec::new();
        for (i, piece) in text.split_inclusive('\n').enumerate() {
            let (line, nl) = split_newline(piece);
            let (masked, found) = self.block_line(line, &mut block);
            hits.extend(found.into_iter().map(|h| (i, h)));
            out.push_str(&masked);
            out.push_str(nl);
        }
        (out, hits)
    }

    /// One line of a sequence that may hold a private-key block; `block` is true
    /// between its BEGIN and END lines.
    fn block_line(&self, line: &str, block: &mut bool) -> (String, Vec<Hit>) {
        if *block {
            if end_re().is_match(line) {
                *block = false;
            } else {
                return (placeholder("private key"), Vec::new());
            }
            return (line.to_string(), Vec::new());
        }
        if let Some(m) = begin_re().find(line) {
            *block = !end_re().is_match(&line[m.end()..]);
            let hit = Hit { kind: "private key".into(), redacted: "a private-key block".into() };
            // A one-line block (escaped newlines in a string) loses what follows BEGIN.
            let masked = format!("{}{}", &line[..m.end()], if *block { "" } else { " [masked private key]" });
            return (masked, vec![hit]);
        }
        self.line(line)
    }

    /// Mask the change in place (diff lines and head texts) and return the secrets
    /// its added lines hold.
    pub fn change(&self, change: &mut Change) -> Vec<Secret> {
        let mut secrets = Vec::new();
        for file in &mut change.files {
            let path = file.diff.path().to_string();
            for hunk in &mut file.diff.hunks {
                let mut block = false;
                for l in &mut hunk.lines {
                    let (masked, hits) = self.block_line(&l.text, &mut block);
                    if l.kind == LineKind::Added {
                        for hit in hits {
                            let line = l.new.unwrap_or(l.anchor);
                            secrets.push(Secret { path: path.clone(), line, masked_line: masked.clone(), hit });
                        }
                    }
                    l.text = masked;
                }
            }
            if let Some(text) = &file.head_text {
                file.head_text = Some(self.text(text).0);
            }
        }
        secrets
    }
}

fn split_newline(piece: &str) -> (&str, &str) {
    let body = piece.trim_end_matches(['\n', '\r']);
    (body, &piece[body.len()..])
}

/// Shannon entropy of `s` in bits per character.
pub fn entropy(s: &str) -> f64 {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return 0.0;
    }
    let mut counts = std::collections::HashMap::new();
    for c in &chars {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = chars.len() as f64;
    counts.values().map(|&k| k as f64 / n).map(|p| -p * p.log2()).sum()
}

fn redact(value: &str, shown_prefix: usize) -> String {
    let len = value.chars().count();
    let prefix: String = value.chars().take(shown_prefix.min(len / 2)).collect();
    format!("{prefix}… ({len} characters)")
}

/// The deterministic check's findings: one per secret the change adds, high
/// severity, published without a model (the evidence is the masked line).
pub fn findings(secrets: &[Secret]) -> Vec<Published> {
    secrets
        .iter()
        .map(|s| {
            let lens = Lens::BlastRadius;
            Published {
                id: Finding::fingerprint(REVIEWER, &s.path, lens, &format!("{} {}", s.hit.kind, s.masked_line)),
                reviewer: REVIEWER.into(),
                lens,
                location: format!("{}:{}", s.path, s.line),
                inline: true,
                claim: format!(
                    "A {} ({}) is committed here: anyone who can read the repository or its history can use it. \
                     Revoke it, remove it from the history, and load it from the environment or a secret store.",
                    s.hit.kind, s.hit.redacted
                ),
                evidence: s.masked_line.clone(),
                severity: Severity::High,
                confidence: 100,
                validator_evidence: format!(
                    "Deterministic check: the line matches the {} pattern. The value was masked before any model saw it.",
                    s.hit.kind
                ),
                gap: None,
                read: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built at run time so that no secret-shaped literal sits in the source.
    fn github_token() -> String {
        format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")
    }

    #[test]
    fn a_github_token_is_masked_and_named_without_its_value() {
        let token = github_token();
        let (masked, hits) = Masker::new(&[]).unwrap().line(&format!("TOKEN = \"{token}\"  # ci"));
        assert_eq!(masked, "TOKEN = \"[masked GitHub token]\"  # ci");
        assert_eq!(hits, vec![Hit { kind: "GitHub token".into(), redacted: "ghp_… (40 characters)".into() }]);
        assert!(!format!("{hits:?}").contains(&token[4..]));
    }

    #[test]
    fn cloud_and_chat_tokens_are_masked() {
        let m = Masker::new(&[]).unwrap();
        for (line, kind) in [
            (format!("key = {}{}", "AKIA", "IOSFODNN7EXAMPLE"), "AWS access key"),
            (format!("aws_secret_access_key = {}", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY01"), "AWS secret key"),
            (format!("t: {}{}", "glpat-", "xY12abCD34efGH56ijKL"), "GitLab token"),
            (format!("hook {}{}", "xoxb-", "123456789012-abcdefABCDEF"), "Slack token"),
        ] {
            let (masked, hits) = m.line(&line);
            assert_eq!(hits.len(), 1, "{line}");
            assert_eq!(hits[0].kind, kind);
            assert!(masked.contains(&placeholder(kind)), "{masked}");
        }
    }

    #[test]
    fn high_entropy_passwords_are_masked_and_placeholders_are_not() {
        let m = Masker::new(&[]).unwrap();
        let (masked, hits) = m.line(r#"db_password = "q8#Zr2!vLp0wXk""#);
        assert_eq!(masked, r#"db_password = "[masked password]""#);
        assert_eq!(hits.len(), 1);
        assert!(m.line(r#"password = "changeme""#).1.is_empty());
        assert!(m.line(r#"password = "aaaaaaaaaaaa""#).1.is_empty());
    }

    #[test]
    fn a_private_key_block_is_masked_line_for_line() {
        let text = "x = 1\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQ\n-----END RSA PRIVATE KEY-----\ny = 2\n";
        let (masked, hits) = Masker::new(&[]).unwrap().text(text);
        assert_eq!(masked.lines().count(), text.lines().count());
        assert!(!masked.contains("MIIEow") && !masked.contains("AKCAQ"));
        assert!(masked.starts_with("x = 1\n-----BEGIN RSA PRIVATE KEY-----\n[masked private key]\n"));
        assert!(masked.ends_with("-----END RSA PRIVATE KEY-----\ny = 2\n"));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].0, 1);
    }

    #[test]
    fn configured_patterns_mask_their_group() {
        let m = Masker::new(&[r"internal-([0-9a-f]{12})".into()]).unwrap();
        let (masked, hits) = m.line("id internal-0123456789ab end");
        assert_eq!(masked, "id internal-[masked configured secret pattern] end");
        assert_eq!(hits[0].redacted, "… (12 characters)");
        assert!(Masker::new(&["(".into()]).is_err());
    }

    #[test]
    fn findings_are_high_from_the_secrets_reviewer_and_never_echo_the_value() {
        let token = github_token();
        let hit = Hit { kind: "GitHub token".into(), redacted: redact(&token, 4) };
        let secret = Secret { path: "ci.py".into(), line: 3, masked_line: "T = \"[masked GitHub token]\"".into(), hit };
        let f = &findings(&[secret])[0];
        assert_eq!((f.reviewer.as_str(), f.severity, f.location.as_str()), ("secrets", Severity::High, "ci.py:3"));
        let all = format!("{f:?}");
        assert!(!all.contains(&token) && !all.contains(&token[4..]), "{all}");
        assert!(f.claim.contains("ghp_… (40 characters)"));
    }
}
