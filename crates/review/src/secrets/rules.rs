//! The detection rules: gitleaks' maintained rule file, vendored in `gitleaks/`,
//! and the few rules of gauntlet's own for what it does not cover (see
//! [`super::own`]). Everything is parsed and compiled once per process.
//!
//! A rule applies the way gitleaks applies it: only to text holding one of its
//! keywords (case-insensitively), then its regex; the secret is the rule's secret
//! group, else the first group that matched, else the whole match; it must exceed
//! the rule's entropy, and no allowlist may claim it. The keywords of every rule
//! sit in one Aho-Corasick automaton, so a text none of them occurs in is known
//! clean after a single pass, which is what keeps masking fast.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::Deserialize;
use std::sync::OnceLock;

pub(crate) use super::rule::{Allow, Rule, Target, compile};

/// gitleaks v8.30.1 `config/gitleaks.toml` (MIT; see `gitleaks/SOURCE.md`).
const GITLEAKS: &str = include_str!("gitleaks/gitleaks.toml");

#[derive(Deserialize)]
struct RawFile {
    allowlist: RawAllow,
    rules: Vec<RawRule>,
}

#[derive(Default, Deserialize)]
struct RawAllow {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default, rename = "regexTarget")]
    regex_target: Option<String>,
    #[serde(default)]
    condition: Option<String>,
}

#[derive(Deserialize)]
struct RawRule {
    id: String,
    regex: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    path: Option<String>,
    #[serde(rename = "secretGroup")]
    secret_group: Option<usize>,
    #[serde(default)]
    allowlists: Vec<RawAllow>,
}

/// A rule of the vendored file that gauntlet does not apply, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub id: String,
    pub why: String,
}

/// Every built-in rule, with the keyword automaton over them.
pub(crate) struct RuleSet {
    pub rules: Vec<Rule>,
    pub global: Allow,
    /// Keyword `i` of the automaton belongs to rules `owners[i]`.
    automaton: AhoCorasick,
    owners: Vec<Vec<usize>>,
    pub skipped: Vec<Skipped>,
}

fn allow_of(raw: &RawAllow) -> Result<Option<Allow>, regex::Error> {
    let target = match raw.regex_target.as_deref() {
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        _ => Target::Secret,
    };
    let all = raw.condition.as_deref().is_some_and(|c| c.eq_ignore_ascii_case("AND"));
    // Masking sees text without a file name; an allowlist that needs one to hold
    // never holds, and its path part alone never allows anything.
    if all && !raw.paths.is_empty() {
        return Ok(None);
    }
    let regexes = raw.regexes.iter().map(|r| compile(r)).collect::<Result<Vec<_>, _>>()?;
    let stopwords = raw.stopwords.iter().map(|w| w.to_lowercase()).collect();
    Ok(Some(Allow { target, all, regexes, stopwords }))
}

/// A vendored rule as gauntlet applies it, or why it cannot. Its regex is
/// compiled on first use; its allowlists (small) now.
fn rule_of(raw: &RawRule) -> Result<Rule, String> {
    let Some(pattern) = &raw.regex else {
        return Err(format!("matches file names only ({})", raw.path.as_deref().unwrap_or("no regex")));
    };
    // Masking sees text without its file's name. Such a rule applied everywhere
    // takes `password = "changeme"` (a Terraform rule) for a secret; gauntlet's
    // own `credential-assignment` covers those forms with a stricter entropy.
    if let Some(path) = &raw.path {
        return Err(format!("scoped to file names ({path})"));
    }
    let mut allow = Vec::new();
    for a in &raw.allowlists {
        allow.extend(allow_of(a).map_err(|e| format!("allowlist regex not accepted: {e}"))?);
    }
    Ok(Rule {
        id: raw.id.clone(),
        source: pattern.clone(),
        re: OnceLock::new(),
        entropy: raw.entropy.filter(|e| *e > 0.0),
        group: raw.secret_group.filter(|g| *g > 0),
        allow,
        needs_digit: raw.id.starts_with("generic"),
        keywords: raw.keywords.iter().map(|k| k.to_lowercase()).collect(),
    })
}

impl RuleSet {
    /// The vendored file's rules that apply to any text, and gauntlet's own.
    fn load() -> RuleSet {
        let raw: RawFile = toml::from_str(GITLEAKS).expect("the vendored gitleaks.toml parses");
        let global = allow_of(&raw.allowlist).expect("gitleaks' global allowlist compiles").expect("an OR list");
        let mut rules = Vec::new();
        let mut skipped = Vec::new();
        for r in &raw.rules {
            match rule_of(r) {
                Ok(rule) => rules.push(rule),
                Err(why) => skipped.push(Skipped { id: r.id.clone(), why }),
            }
        }
        // gitleaks' generic rule and gauntlet's own come last: where a specific
        // rule covers the same text, the secret is named after the specific one.
        rules.sort_by_key(|r| r.id.starts_with("generic"));
        rules.extend(super::own::rules());
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut words: Vec<String> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for k in &rule.keywords {
                match words.iter().position(|w| w == k) {
                    Some(at) => owners[at].push(i),
                    None => {
                        words.push(k.clone());
                        owners.push(vec![i]);
                    }
                }
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .expect("the keyword automaton builds");
        RuleSet { rules, global, automaton, owners, skipped }
    }

    /// Whether any rule's keyword occurs in `text`.
    pub fn any_keyword(&self, text: &str) -> bool {
        self.automaton.is_match(text)
    }

    /// The rules whose keywords occur in `line`, in rule order.
    pub fn triggered(&self, line: &str) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        for m in self.automaton.find_overlapping_iter(line) {
            for &r in &self.owners[m.pattern().as_usize()] {
                hit[r] = true;
            }
        }
        hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i).collect()
    }
}

/// The built-in rule set, loaded on first use.
pub(crate) fn builtin() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(RuleSet::load)
}

/// The vendored rules gauntlet does not apply, and why (for tests and docs).
pub fn skipped() -> &'static [Skipped] {
    &builtin().skipped
}

/// The applied rules whose regex the `regex` crate rejects, with its error
/// (compiles every rule: for tests).
pub fn rejected() -> Vec<(String, String)> {
    builtin().rules.iter().filter_map(|r| compile(&r.source).err().map(|e| (r.id.clone(), e.to_string()))).collect()
}

/// How many rules are applied: the vendored file's and gauntlet's own.
pub fn applied() -> usize {
    builtin().rules.len()
}
