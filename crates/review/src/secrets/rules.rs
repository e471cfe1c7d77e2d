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
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

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

/// What an allowlist's regexes are matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Secret,
    Match,
    Line,
}

/// A reason not to count a match: a placeholder, a known example value, a line
/// shape that is not an assignment of a secret.
pub(crate) struct Allow {
    pub target: Target,
    /// All of the defined parts must hold (gitleaks' `condition = "AND"`), else any.
    pub all: bool,
    pub regexes: Vec<Regex>,
    /// Lowercase words; a secret containing one is not a secret.
    pub stopwords: Vec<String>,
}

impl Allow {
    fn allows(&self, secret: &str, whole: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let lower = secret.to_lowercase();
        let by_regex = (!self.regexes.is_empty()).then(|| self.regexes.iter().any(|r| r.is_match(target)));
        let by_word = (!self.stopwords.is_empty()).then(|| self.stopwords.iter().any(|w| lower.contains(w.as_str())));
        let parts: Vec<bool> = [by_regex, by_word].into_iter().flatten().collect();
        // A list with nothing but file names (which masking does not see) allows nothing.
        !parts.is_empty() && if self.all { parts.iter().all(|b| *b) } else { parts.iter().any(|b| *b) }
    }
}

/// One compiled detection rule.
pub(crate) struct Rule {
    /// gitleaks' rule id (`github-pat`), or gauntlet's own (`url-password`).
    pub id: String,
    /// The pattern, compiled on the rule's first use: most rules never meet
    /// their keyword in a run, and compiling all of them would take seconds.
    pub source: String,
    pub re: OnceLock<Option<Regex>>,
    /// The match's secret is above this Shannon entropy (bits per character).
    pub entropy: Option<f64>,
    pub group: Option<usize>,
    pub allow: Vec<Allow>,
    /// gitleaks' generic rules also require a digit in the secret, a check its
    /// code makes rather than its rule file.
    pub needs_digit: bool,
    /// Lowercase; the rule runs on a line only when one of them occurs in it.
    /// Empty: always runs (a repository's own patterns).
    pub keywords: Vec<String>,
}

impl Rule {
    /// A rule of gauntlet's own or of the configuration, compiled now.
    pub fn compiled(id: &str, re: Regex) -> Rule {
        Rule {
            id: id.into(),
            source: re.as_str().into(),
            re: OnceLock::from(Some(re)),
            entropy: None,
            group: None,
            allow: Vec::new(),
            needs_digit: false,
            keywords: Vec::new(),
        }
    }

    /// The compiled pattern; `None` for one the `regex` crate rejects (a test
    /// checks that no vendored rule is such).
    pub fn regex(&self) -> Option<&Regex> {
        self.re.get_or_init(|| compile(&self.source).ok()).as_ref()
    }

    /// The byte ranges of the secrets this rule finds on `line`.
    pub fn spans(&self, line: &str, global: &Allow) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let Some(re) = self.regex() else { return out };
        for caps in re.captures_iter(line) {
            let whole = caps.get(0).expect("a match has group 0");
            let secret = match self.group {
                Some(g) => caps.get(g),
                None => caps.iter().skip(1).flatten().find(|m| !m.is_empty()),
            }
            .unwrap_or(whole);
            let value = secret.as_str();
            if value.is_empty()
                || self.entropy.is_some_and(|min| super::entropy(value) <= min)
                || (self.needs_digit && !value.bytes().any(|b| b.is_ascii_digit()))
                || global.allows(value, whole.as_str(), line)
                || self.allow.iter().any(|a| a.allows(value, whole.as_str(), line))
            {
                continue;
            }
            out.push((secret.start(), secret.end()));
        }
        out
    }
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

/// A regex that would take more memory than this is not worth its rule.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

pub(crate) fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(&from_re2(pattern)).size_limit(REGEX_SIZE_LIMIT).build()
}

/// A Go (RE2) pattern in the `regex` crate's syntax, with RE2's meaning. Two
/// differences matter for the patterns gitleaks writes: RE2 reads a `{` that does
/// not open a repetition (`{\d+}`, `${VAR}`) as a literal, where `regex` rejects
/// it; and RE2's `\w`, `\d` and `\s` are ASCII classes, where `regex` makes them
/// Unicode ones (which also makes its automata many times larger and slower).
fn from_re2(pattern: &str) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 8);
    let (mut class, mut i) = (false, 0);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' => {
                if let Some(ascii) = bytes.get(i + 1).and_then(|&c| ascii_class(c)) {
                    if class {
                        out.push_str(ascii);
                    } else {
                        out.push_str(&format!("[{ascii}]"));
                    }
                    i += 2;
                    continue;
                }
                // Any other escape and the character it escapes, copied as they are.
                let next = pattern[i + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&pattern[i..i + 1 + next]);
                i += 1 + next;
                continue;
            }
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'{' if !class && !opens_repetition(&pattern[i..]) => {
                out.push_str("\\{");
                i += 1;
                continue;
            }
            _ => {}
        }
        let len = pattern[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&pattern[i..i + len]);
        i += len;
    }
    out
}

/// The members of RE2's ASCII class `\<c>`, as they go inside brackets.
fn ascii_class(c: u8) -> Option<&'static str> {
    match c {
        b'w' => Some("0-9A-Za-z_"),
        b'd' => Some("0-9"),
        b's' => Some("\\t\\n\\x0C\\r "),
        _ => None,
    }
}

/// Whether `rest` (starting at a `{`) is `{n}`, `{n,}` or `{n,m}`.
fn opens_repetition(rest: &str) -> bool {
    let Some(end) = rest.find('}') else { return false };
    let inner = &rest[1..end];
    let mut parts = inner.splitn(2, ',');
    let low = parts.next().unwrap_or("");
    let high = parts.next();
    !low.is_empty()
        && low.bytes().all(|b| b.is_ascii_digit())
        && high.is_none_or(|h| h.bytes().all(|b| b.is_ascii_digit()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brace_that_opens_no_repetition_is_a_literal_as_in_re2() {
        assert_eq!(from_re2(r"^\$(?:x+|{y+})$"), r"^\$(?:x+|\{y+})$");
        assert_eq!(from_re2(r"^\{\{[ \t]*[a ().|]+[ \t]*}}$"), r"^\{\{[ \t]*[a ().|]+[ \t]*}}$");
        assert_eq!(from_re2(r"[{]a{2}b{1,}c{1,3}"), r"[{]a{2}b{1,}c{1,3}");
        assert!(compile(r"^\${(?:[A-Z_]+|[a-z_]+)}$").unwrap().is_match("${DB_PASSWORD}"));
    }

    #[test]
    fn word_digit_and_space_classes_are_ascii_as_in_re2() {
        assert_eq!(from_re2(r"\w+[\w.-]\d\s"), r"[0-9A-Za-z_]+[0-9A-Za-z_.-][0-9][\t\n\x0C\r ]");
        assert_eq!(from_re2(r"\\w"), r"\\w", "an escaped backslash before a w is no class");
        let re = compile(r"^\w+$").unwrap();
        assert!(re.is_match("key_1") && !re.is_match("clé"));
    }
}
