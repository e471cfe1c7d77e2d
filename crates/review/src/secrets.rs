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

/// The kind of a secret found by one of the repository's own `[secrets] patterns`.
const CONFIGURED: &str = "configured secret pattern";

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
    /// Built-in patterns are compiled on first use: most texts pass [`screen`] and
    /// never need them. Configured ones are compiled at once, to report errors.
    source: String,
    re: OnceLock<Regex>,
    /// Characters of a match that are a public prefix, safe to show.
    shown_prefix: usize,
    /// Only values of at least [`MIN_ENTROPY`] count.
    entropy: bool,
}

/// One secret found on a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub kind: String,
    /// A public prefix and the length: `ghp_…, 40 characters`.
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

/// The built-in patterns: (kind, pattern, characters of public prefix, entropy
/// check). None is anchored, so a match inside a line is a match inside any text
/// holding that line, which is what [`screen`] relies on.
const BUILTIN: [(&str, &str, usize, bool); 7] = [
    ("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 4, false),
    ("AWS secret key", r#"(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#, 0, false),
    ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", 4, false),
    ("GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", 11, false),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}", 6, false),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 5, false),
    (
        "password",
        r#"(?i)(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token|client_?secret)["']?\s*[:=]\s*["']([^"'\s]{8,})["']"#,
        0,
        true,
    ),
];

fn builtin() -> Vec<Pattern> {
    BUILTIN
        .iter()
        .map(|(kind, re, shown_prefix, entropy)| Pattern {
            kind: kind.to_string(),
            source: re.to_string(),
            re: OnceLock::new(),
            shown_prefix: *shown_prefix,
            entropy: *entropy,
        })
        .collect()
}

/// Every built-in pattern and a private-key BEGIN line, in one set: a text none of
/// them matches anywhere has nothing to mask, found in one pass over it instead of
/// one search per pattern per line.
fn screen() -> &'static regex::RegexSet {
    static SET: OnceLock<regex::RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        let patterns = BUILTIN.iter().map(|(_, re, _, _)| *re).chain([PRIVATE_KEY_BEGIN]);
        regex::RegexSet::new(patterns).expect("built-in secret patterns compile")
    })
}

/// The masking pass, built once per run from the built-in patterns and the
/// configuration's extra ones (a pattern with a capture group masks the group,
/// else the whole match).
pub struct Masker {
    patterns: Vec<Pattern>,
    /// Only the built-in patterns: [`screen`] may rule text out. Configured ones may
    /// anchor to a line's start or end, so they are always searched line by line.
    builtin_only: bool,
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
            patterns.push(Pattern {
                kind: CONFIGURED.into(),
                source: pattern.clone(),
                re: OnceLock::from(re),
                shown_prefix: 0,
                entropy: false,
            });
        }
        Ok(Masker { patterns, builtin_only: extra.is_empty() })
    }

    /// Whether `text` certainly holds nothing to mask.
    fn clean(&self, text: &str) -> bool {
        self.builtin_only && !screen().is_match(text)
    }

    /// Mask one line (outside a private-key block). Returns the masked line and
    /// what was masked.
    pub fn line(&self, line: &str) -> (String, Vec<Hit>) {
        let mut out = line.to_string();
        let mut hits = Vec::new();
        for p in &self.patterns {
            // Replace from the end so earlier byte ranges stay valid.
            let mut spans: Vec<(usize, usize)> = Vec::new();
            let re = p.re.get_or_init(|| Regex::new(&p.source).expect("built-in secret patterns compile"));
            for caps in re.captures_iter(&out) {
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
        if self.clean(text) {
            return (text.to_string(), Vec::new());
        }
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
            let hit = Hit { kind: "private key".into(), redacted: "PEM block".into() };
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
            // One pass over the head text, and one over the diff lines it does not
            // already hold (removed lines, mostly): most files hold no secret.
            let head_clean = file.head_text.as_deref().is_some_and(|t| self.clean(t));
            let head_lines: Vec<&str> = match &file.head_text {
                Some(text) if head_clean => text.split('\n').collect(),
                _ => Vec::new(),
            };
            let in_clean_head = |l: &gauntlet_change::DiffLine| {
                l.kind != LineKind::Removed
                    && l.new.and_then(|n| head_lines.get((n as usize).checked_sub(1)?)) == Some(&l.text.as_str())
            };
            let mut joined = String::new();
            for line in file.diff.hunks.iter().flat_map(|h| &h.lines).filter(|l| !in_clean_head(l)) {
                joined.push_str(&line.text);
                joined.push('\n');
            }
            if !self.clean(&joined) {
                for hunk in &mut file.diff.hunks {
                    let mut block = false;
                    for l in &mut hunk.lines {
                        if !block && self.clean(&l.text) {
                            continue;
                        }
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
            }
            if let Some(text) = &file.head_text
                && !head_clean
            {
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
    if prefix.is_empty() { format!("{len} characters") } else { format!("{prefix}…, {len} characters") }
}

/// What the claim calls a secret of `kind`, with its article: "an AWS access key",
/// "a value matching a configured secret pattern".
fn named(kind: &str) -> String {
    if kind == CONFIGURED {
        return format!("a value matching a {kind}");
    }
    let article = if kind.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {kind}")
}

/// The first letter as a capital, for the start of a sentence.
fn sentence_start(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
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
                raised_by: vec![REVIEWER.into()],
                lens,
                location: format!("{}:{}", s.path, s.line),
                inline: true,
                claim: format!(
                    "{} ({}) is committed here: anyone who can read the repository or its history can use it. \
                     Revoke it, remove it from the history, and load it from the environment or a secret store.",
                    sentence_start(&named(&s.hit.kind)),
                    s.hit.redacted
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
                also_at: Vec::new(),
                unvalidated: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of text near and far from every pattern, secrets split across lines
    /// and private-key blocks included.
    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")),
            Just(format!("{}{}", "AKIA", "IOSFODNN7EXAMPLE")),
            Just("password = \"Xy7#kLm9qR2w\"".to_string()),
            Just("password =".to_string()),
            Just(" \"Xy7#kLm9qR2w\"".to_string()),
            Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
            Just("-----END RSA PRIVATE KEY-----".to_string()),
            Just(format!("{}{}", "xoxb-", "123456789012-abc")),
            Just("let step = plan(1, 2);".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just(" ".to_string()),
            "[a-zA-Z0-9_=:'\" ]{0,12}",
        ]
    }

    proptest! {
        #[test]
        fn the_one_pass_screen_never_changes_what_is_masked(pieces in prop::collection::vec(fragment(), 0..24)) {
            let text: String = pieces.concat();
            static MASKERS: OnceLock<(Masker, Masker)> = OnceLock::new();
            let (fast, slow) = MASKERS
                .get_or_init(|| (Masker::new(&[]).unwrap(), Masker { patterns: builtin(), builtin_only: false }));
            prop_assert_eq!(fast.text(&text), slow.text(&text));
            let change = || {
                let kinds = [LineKind::Added, LineKind::Context, LineKind::Removed];
                let lines: Vec<gauntlet_change::DiffLine> = text
                    .lines()
                    .enumerate()
                    .map(|(i, t)| gauntlet_change::DiffLine {
                        kind: kinds[i % 3],
                        old: Some(i as u32 + 1),
                        new: Some(i as u32 + 1),
                        anchor: i as u32 + 1,
                        text: t.to_string(),
                    })
                    .collect();
                let hunk = gauntlet_change::Hunk {
                    old_start: 1,
                    old_lines: 0,
                    new_start: 1,
                    new_lines: 0,
                    header: String::new(),
                    lines,
                };
                let diff = gauntlet_change::FileDiff {
                    old_path: Some("a.txt".into()),
                    new_path: Some("a.txt".into()),
                    status: gauntlet_change::FileStatus::Modified,
                    binary: false,
                    old_mode: None,
                    new_mode: None,
                    hunks: vec![hunk],
                };
                let file = gauntlet_change::ChangedFile { diff, head_text: Some(text.clone()), unreadable: None };
                Change { base: "b".into(), head: "h".into(), snapshot: gauntlet_change::Snapshot::Worktree, files: vec![file] }
            };
            let (mut a, mut b) = (change(), change());
            prop_assert_eq!(fast.change(&mut a), slow.change(&mut b));
            let texts = |c: &Change| {
                let f = &c.files[0];
                (f.head_text.clone(), f.diff.hunks[0].lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>())
            };
            prop_assert_eq!(texts(&a), texts(&b));
            let mut block = (false, false);
            for line in text.lines() {
                let got = if !block.0 && fast.clean(line) {
                    (line.to_string(), Vec::new())
                } else {
                    fast.block_line(line, &mut block.0)
                };
                prop_assert_eq!(got, slow.block_line(line, &mut block.1));
            }
        }
    }

    // Built at run time so that no secret-shaped literal sits in the source.
    fn github_token() -> String {
        format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")
    }

    #[test]
    fn every_built_in_pattern_compiles() {
        for p in builtin() {
            assert!(Regex::new(&p.source).is_ok(), "{}", p.kind);
        }
        assert_eq!(screen().len(), BUILTIN.len() + 1);
    }

    #[test]
    fn a_github_token_is_masked_and_named_without_its_value() {
        let token = github_token();
        let (masked, hits) = Masker::new(&[]).unwrap().line(&format!("TOKEN = \"{token}\"  # ci"));
        assert_eq!(masked, "TOKEN = \"[masked GitHub token]\"  # ci");
        assert_eq!(hits, vec![Hit { kind: "GitHub token".into(), redacted: "ghp_…, 40 characters".into() }]);
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
        assert_eq!(hits[0].redacted, "12 characters");
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
        assert!(f.claim.starts_with("A GitHub token (ghp_…, 40 characters) is committed here"), "{}", f.claim);
    }

    #[test]
    fn claims_read_as_plain_english_whatever_the_kind() {
        let claim = |kind: &str, redacted: &str| {
            let hit = Hit { kind: kind.into(), redacted: redacted.into() };
            let secret = Secret { path: "a.py".into(), line: 1, masked_line: "x".into(), hit };
            findings(&[secret])[0].claim.clone()
        };
        let aws = claim("AWS access key", &redact(&format!("{}{}", "AKIA", "IOSFODNN7EXAMPLE"), 4));
        assert!(aws.starts_with("An AWS access key (AKIA…, 20 characters) is committed here"), "{aws}");
        let configured = claim(CONFIGURED, &redact("0123456789ab", 0));
        assert!(
            configured.starts_with("A value matching a configured secret pattern (12 characters) is"),
            "{configured}"
        );
        assert!(claim("private key", "PEM block").starts_with("A private key (PEM block) is committed"));
        for c in [aws, configured] {
            let nested = c.find('(').is_some_and(|open| c[open + 1..c.find(')').unwrap()].contains('('));
            assert!(!nested, "no parentheses inside parentheses: {c}");
        }
    }
}
