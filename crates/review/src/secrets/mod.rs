//! Secret hygiene: secrets are masked before any text reaches a provider, a
//! recording, a log or a report, model-written text is masked again before it is
//! output or posted, and a secret the change adds is reported by a deterministic
//! check.
//!
//! Detection uses gitleaks' maintained rule file, vendored in `gitleaks/` with its
//! licence and version ([`rules`]), plus a few rules of gauntlet's own for what it
//! leaves out ([`own`]) and the repository's `[secrets] patterns`.
//!
//! Masking works line by line and replaces only the secret itself, so every line
//! keeps its number and the rest of its text: grounding compares the models'
//! quotes with the masked text they were shown. The report names a secret by the
//! rule that found it and its length, never by any part of its value.

mod findings;
mod joined;
mod keys;
mod output;
mod own;
mod provider;
mod rule;
pub mod rules;

pub use findings::{NOT_QUOTED, findings};
pub use provider::Masking;

use gauntlet_change::{Change, LineKind};
use keys::Block;
use regex::Regex;
use rules::{Allow, Rule, Target, builtin};

/// What replaces a masked secret in the text models read.
pub fn placeholder(kind: &str) -> String {
    format!("[masked {kind}]")
}

/// The kind of a secret found by one of the repository's own `[secrets] patterns`.
const CONFIGURED: &str = "configured secret pattern";

/// The kind of a private-key block (the name gitleaks' rule for it has).
const PRIVATE_KEY: &str = "private-key";

/// The reviewer name of the deterministic secret check.
pub const REVIEWER: &str = "secrets";

#[derive(Debug, thiserror::Error)]
#[error("secret pattern `{pattern}` is not a valid regular expression: {source}")]
pub struct PatternError {
    pub pattern: String,
    #[source]
    pub source: regex::Error,
}

/// One secret found on a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The rule that found it: a gitleaks rule id (`github-pat`), one of
    /// gauntlet's own (`url-password`), or a configured pattern.
    pub kind: String,
    /// Its length only (`40 characters`): no part of the value is ever shown.
    pub redacted: String,
}

/// A secret the change adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secret {
    pub path: String,
    /// Head line number.
    pub line: u32,
    /// The head line, masked: only hashed into the finding's fingerprint, never
    /// shown (a rule may miss a second secret on the same line).
    pub masked_line: String,
    pub hit: Hit,
}

/// The masking pass, built once per run from the built-in rules and the
/// configuration's extra patterns (a pattern with a capture group masks the
/// group, else the whole match).
pub struct Masker {
    /// The repository's own patterns: they have no keywords, so they run on
    /// every line.
    configured: Vec<Rule>,
    /// Rule a whole text out in one keyword pass (off only to test that pass).
    screen: bool,
}

/// Patterns are counted, not shown: a repository's own may describe its secrets.
impl std::fmt::Debug for Masker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Masker").field("configured", &self.configured.len()).finish()
    }
}

/// A secret's byte range on a line and the rule that found it.
type Span = (usize, usize, String);

/// Add `span` to `spans`, merging it into any it overlaps: the earlier rule (the
/// more specific) names the merged secret.
fn merge(spans: &mut Vec<Span>, (start, end, kind): Span) {
    let mut merged = (start, end, kind);
    let mut i = 0;
    while i < spans.len() {
        let s = &spans[i];
        if s.0 < merged.1 && merged.0 < s.1 {
            let s = spans.remove(i);
            merged = (s.0.min(merged.0), s.1.max(merged.1), s.2);
        } else {
            i += 1;
        }
    }
    spans.push(merged);
}

impl Masker {
    pub fn new(extra: &[String]) -> Result<Masker, PatternError> {
        let mut configured = Vec::new();
        for pattern in extra {
            let re = Regex::new(pattern).map_err(|source| PatternError { pattern: pattern.clone(), source })?;
            configured.push(Rule::compiled(CONFIGURED, re));
        }
        Ok(Masker { configured, screen: true })
    }

    /// Whether `text` certainly holds nothing to mask: no rule's keyword occurs in
    /// it (a private-key block's BEGIN line holds gitleaks' `-----begin`), nor a
    /// run of base64 as long as a key's body line.
    fn clean(&self, text: &str) -> bool {
        self.screen && self.configured.is_empty() && !builtin().any_keyword(text) && !keys::has_body_run(text)
    }

    /// Mask one line (outside a private-key block). Returns the masked line and
    /// what was masked.
    pub fn line(&self, line: &str) -> (String, Vec<Hit>) {
        let set = builtin();
        if self.clean(line) {
            return (line.to_string(), Vec::new());
        }
        let none = Allow { target: Target::Secret, all: false, regexes: Vec::new(), stopwords: Vec::new() };
        let mut spans: Vec<Span> = Vec::new();
        let triggered = set.triggered(line).into_iter().map(|i| (&set.rules[i], &set.global));
        for (rule, global) in triggered.chain(self.configured.iter().map(|r| (r, &none))) {
            for (start, end) in rule.spans(line, global) {
                merge(&mut spans, (start, end, rule.id.clone()));
            }
        }
        spans.sort_by_key(|s| s.0);
        let mut out = line.to_string();
        let mut hits = Vec::with_capacity(spans.len());
        // Replace from the end so earlier byte ranges stay valid.
        for (start, end, kind) in spans.into_iter().rev() {
            hits.push(Hit { kind: kind.clone(), redacted: redact(&out[start..end]) });
            out.replace_range(start..end, &placeholder(&kind));
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
        let pieces: Vec<(&str, &str)> = text.split_inclusive('\n').map(split_newline).collect();
        let lines: Vec<&str> = pieces.iter().map(|(line, _)| *line).collect();
        let (joined, mut hits) = match joined::mask(self, &lines) {
            Some((masked, hits)) => (Some(masked), hits),
            None => (None, Vec::new()),
        };
        let mut block = Block::Out;
        let mut out = String::with_capacity(text.len());
        for (i, (line, nl)) in pieces.into_iter().enumerate() {
            let line = joined.as_ref().map_or(line, |j| j[i].as_str());
            let (masked, found) = self.block_line(line, &mut block);
            hits.extend(found.into_iter().map(|h| (i, h)));
            out.push_str(&masked);
            out.push_str(nl);
        }
        (out, hits)
    }

    /// One line of a sequence that may hold a private key; `block` carries where
    /// the sequence stands from line to line.
    fn block_line(&self, line: &str, block: &mut Block) -> (String, Vec<Hit>) {
        if let Some(done) = keys::step(line, block) {
            return done;
        }
        let (masked, mut hits) = self.line(line);
        match keys::body_words(&masked) {
            Some((out, found)) => {
                hits.extend(found);
                (out, hits)
            }
            None => (masked, hits),
        }
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
                    secrets.extend(self.joined_in(&path, &mut hunk.lines));
                    let mut block = Block::Out;
                    for l in &mut hunk.lines {
                        if block == Block::Out && self.clean(&l.text) {
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

impl Masker {
    /// Mask literals joined into a secret ([`joined`]) among a hunk's lines, each
    /// side of the diff apart; the secrets its added lines hold.
    fn joined_in(&self, path: &str, lines: &mut [gauntlet_change::DiffLine]) -> Vec<Secret> {
        let mut secrets = Vec::new();
        for side in [LineKind::Added, LineKind::Removed] {
            let at: Vec<usize> =
                (0..lines.len()).filter(|&i| lines[i].kind == side || lines[i].kind == LineKind::Context).collect();
            let texts: Vec<&str> = at.iter().map(|&i| lines[i].text.as_str()).collect();
            let Some((masked, hits)) = joined::mask(self, &texts) else { continue };
            for (n, text) in masked.into_iter().enumerate() {
                lines[at[n]].text = text;
            }
            for (n, hit) in hits {
                let l = &lines[at[n]];
                if l.kind == LineKind::Added {
                    let line = l.new.unwrap_or(l.anchor);
                    secrets.push(Secret { path: path.to_string(), line, masked_line: l.text.clone(), hit });
                }
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

fn redact(value: &str) -> String {
    format!("{} characters", value.chars().count())
}

#[cfg(test)]
mod tests;
