//! One detection rule as gauntlet applies it, whichever file it comes from: the
//! vendored gitleaks rules ([`super::rules`]) and gauntlet's own ([`super::own`])
//! are both made of these.

use regex::Regex;
use std::sync::OnceLock;

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
