//! Which commits are fixes, read from their messages alone (pure; no git here).
//!
//! Three kinds of evidence, strongest first: a `Fixes: <sha>` trailer (the
//! developer named the commit that introduced the bug), a revert whose message
//! says why, and a subject or trailer matching the configured patterns.

use regex::Regex;

/// Subject patterns that mark a fix unless `[backtest.mine] subject_patterns` says otherwise.
pub const DEFAULT_SUBJECT_PATTERNS: [&str; 3] =
    [r"(?i)\bfix(e[sd]|ing)?\b", r"(?i)\bbug(s|fix)?\b", r"(?i)\b(close[sd]?|resolve[sd]?) #[0-9]+"];
/// Trailer patterns (matched against the whole `Key: value` line).
pub const DEFAULT_TRAILER_PATTERNS: [&str; 1] = [r"(?i)^(fixes|closes|resolves|bug)\s*:"];

/// Subjects of fixes that repair words, not code, or that quiet a linter or
/// formatter, unless `[backtest.mine] exclude_subjects` says otherwise: such a fix
/// is skipped before blame.
pub const DEFAULT_EXCLUDE_SUBJECTS: [&str; 5] = [
    r"(?i)\btypos?\b",
    r"(?i)\b(spelling|misspel\w*|wording|grammar)\b",
    // `docs`, not `doc`: a variable called `doc` is common in code a fix repairs.
    r"(?i)\b(docs|docstrings?|documentation|readme|changelog)\b",
    r"(?i)\b(fix(e[sd])?|correct(ed)?|update[sd]?)\s+(a\s+|the\s+)?(code\s+)?comments?\b",
    // What a linter, a formatter or the compiler's warnings asked for: style,
    // rarely a defect a reviewer misses.
    r"(?i)\b(flake8|pyflakes|pycodestyle|pep ?8|pylint|mypy|black|isort|ruff|clippy|rustfmt|(cargo|run) fmt|eslint|prettier|gofmt|golint|lint(s|er|ers|ing)?|warnings)\b",
];

/// The configured patterns, compiled.
#[derive(Clone, Debug)]
pub struct Patterns {
    subject: Vec<Regex>,
    trailer: Vec<Regex>,
    exclude: Vec<Regex>,
}

impl Patterns {
    /// Compile the patterns; a bad one is an error naming it and its key.
    pub fn new(subject: &[String], trailer: &[String]) -> Result<Patterns, String> {
        let compile = |key: &str, list: &[String]| {
            list.iter()
                .map(|p| Regex::new(p).map_err(|e| format!("[backtest.mine] {key}: bad pattern `{p}`: {e}")))
                .collect::<Result<Vec<_>, _>>()
        };
        let exclude = DEFAULT_EXCLUDE_SUBJECTS.map(String::from);
        Ok(Patterns {
            subject: compile("subject_patterns", subject)?,
            trailer: compile("trailer_patterns", trailer)?,
            exclude: compile("exclude_subjects", &exclude)?,
        })
    }

    /// The same patterns with these subject exclusions instead of the defaults (an
    /// empty list excludes nothing).
    pub fn excluding(self, exclude: &[String]) -> Result<Patterns, String> {
        let exclude = exclude
            .iter()
            .map(|p| Regex::new(p).map_err(|e| format!("[backtest.mine] exclude_subjects: bad pattern `{p}`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Patterns { exclude, ..self })
    }

    /// Whether a fix's subject says it repairs words (a typo, the docs), not code.
    pub fn excluded(&self, subject: &str) -> bool {
        self.exclude.iter().any(|p| p.is_match(subject))
    }

    pub fn defaults() -> Patterns {
        let own = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Patterns::new(&own(&DEFAULT_SUBJECT_PATTERNS), &own(&DEFAULT_TRAILER_PATTERNS)).expect("defaults compile")
    }
}

/// What a commit message says about the commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// `Fixes: <sha>`: the (possibly abbreviated) id it names.
    Trailer(String),
    /// A revert of this commit id, with a reason in the message.
    Revert(String),
    /// A revert (of this commit id) that gives no reason: not proof of a bug, but the
    /// reverted commit is no clean case either.
    BareRevert(String),
    /// The subject or a trailer matched a pattern.
    Pattern,
    /// Not a fix.
    None,
}

/// The trailer lines of a message: the last paragraph, when each of its lines is
/// `Key: value` (a continuation line starting with a space is allowed).
pub fn trailers(message: &str) -> Vec<&str> {
    let body = message.trim_end();
    let Some(last) = body.rsplit("\n\n").next() else { return Vec::new() };
    if !body.contains("\n\n") {
        return Vec::new();
    }
    let key = |l: &str| l.split_once(':').is_some_and(|(k, _)| !k.is_empty() && !k.contains(char::is_whitespace));
    let lines: Vec<&str> = last.lines().collect();
    match lines.iter().all(|l| l.starts_with(' ') || key(l)) {
        true => lines.into_iter().filter(|l| !l.starts_with(' ')).collect(),
        false => Vec::new(),
    }
}

fn hex_id(text: &str) -> Option<&str> {
    let id = text.trim_start().split(|c: char| !c.is_ascii_hexdigit()).next()?;
    (id.len() >= 7).then_some(id)
}

/// The id named by `This reverts commit <sha>` (git's own wording), if any.
fn reverted(message: &str) -> Option<&str> {
    let at = message.find("This reverts commit ")?;
    hex_id(&message[at + "This reverts commit ".len()..])
}

/// Whether a revert's message says why, beyond git's generated lines and trailers.
fn states_reason(message: &str, trailers: &[&str]) -> bool {
    message
        .lines()
        .skip(1)
        .map(str::trim)
        .any(|l| !l.is_empty() && !l.starts_with("This reverts commit ") && !trailers.iter().any(|t| t.trim() == l))
}

/// Classify one commit message.
pub fn classify(message: &str, patterns: &Patterns) -> Evidence {
    let subject = message.lines().next().unwrap_or("");
    let trailers = trailers(message);
    let named = trailers
        .iter()
        .filter_map(|t| t.split_once(':'))
        .filter(|(k, _)| k.eq_ignore_ascii_case("fixes"))
        .find_map(|(_, v)| hex_id(v));
    if let Some(id) = named {
        return Evidence::Trailer(id.to_string());
    }
    if let Some(id) = reverted(message).filter(|_| subject.starts_with("Revert ")) {
        if subject.starts_with("Revert \"Revert ") {
            // A revert of a revert lands the change again: it fixes nothing.
            return Evidence::None;
        }
        return match states_reason(message, &trailers) {
            true => Evidence::Revert(id.to_string()),
            false => Evidence::BareRevert(id.to_string()),
        };
    }
    let by_subject = patterns.subject.iter().any(|p| p.is_match(subject));
    let by_trailer = trailers.iter().any(|t| patterns.trailer.iter().any(|p| p.is_match(t)));
    match by_subject || by_trailer {
        true => Evidence::Pattern,
        false => Evidence::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(message: &str) -> Evidence {
        classify(message, &Patterns::defaults())
    }

    #[test]
    fn a_fixes_trailer_names_the_introducing_commit() {
        let m = "Keep the owner check\n\nThe shortcut let anyone delete.\n\nFixes: 1a2b3c4d5e (\"Simplify\")\nSigned-off-by: A <a@b>\n";
        assert_eq!(class(m), Evidence::Trailer("1a2b3c4d5e".into()));
        assert_eq!(trailers(m), vec!["Fixes: 1a2b3c4d5e (\"Simplify\")", "Signed-off-by: A <a@b>"]);
    }

    #[test]
    fn a_fixes_line_inside_the_body_is_not_a_trailer() {
        let m = "Tidy\n\nFixes: abcdef1 was wrong here, and this paragraph is prose.\nMore prose follows\n\nmore";
        assert_eq!(class(m), Evidence::None);
    }

    #[test]
    fn a_revert_counts_only_when_it_says_why() {
        let bare = "Revert \"Add cache\"\n\nThis reverts commit 0123456789abcdef.\n";
        assert_eq!(class(bare), Evidence::BareRevert("0123456789abcdef".into()));
        let signed = "Revert \"Add cache\"\n\nThis reverts commit 0123456789abcdef.\n\nSigned-off-by: A <a@b>\n";
        assert_eq!(class(signed), Evidence::BareRevert("0123456789abcdef".into()), "a sign-off is not a reason");
        let why = "Revert \"Add cache\"\n\nThis reverts commit 0123456789abcdef.\n\nStale entries are served after a write.\n";
        assert_eq!(class(why), Evidence::Revert("0123456789abcdef".into()));
        let relanded = "Revert \"Revert \\\"Add cache\\\"\"\n\nThis reverts commit 0123456789abcdef.\n\nFixed now.\n";
        assert_eq!(class(relanded), Evidence::None);
    }

    #[test]
    fn subjects_and_trailers_match_the_patterns() {
        assert_eq!(class("Fix the off-by-one in paging"), Evidence::Pattern);
        assert_eq!(class("paging: bugfix for the last page"), Evidence::Pattern);
        assert_eq!(class("Handle empty pages\n\nCloses: #12\n"), Evidence::Pattern);
        assert_eq!(class("Add a prefix option"), Evidence::None);
        assert_eq!(class("Refactor the fixture loader"), Evidence::None, "`fixture` is not `fix`");
        let own = Patterns::new(&["^hotfix:".into()], &[]).unwrap();
        assert_eq!(classify("hotfix: paging", &own), Evidence::Pattern);
        assert_eq!(classify("Fix paging", &own), Evidence::None, "configured patterns replace the defaults");
        let defaults = Patterns::defaults();
        for words in ["Fix typo", "Fixed typo and improved wording in the docs", "fix url in docstring, close #31"] {
            assert!(defaults.excluded(words), "{words}");
        }
        let code = ["Fix the off-by-one in paging", "Fix default salt bug in make_signer", "Fix doc.owner being None"];
        for code in code {
            assert!(!defaults.excluded(code), "{code}");
        }
        let none = Patterns::defaults().excluding(&[]).unwrap();
        assert!(!none.excluded("Fix typo"), "an empty list excludes nothing");
        let err = Patterns::defaults().excluding(&["[".into()]).unwrap_err();
        assert!(err.contains("exclude_subjects") && err.contains("`[`"), "{err}");
        let err = Patterns::new(&["(".into()], &[]).unwrap_err();
        assert!(err.contains("subject_patterns") && err.contains("`(`"), "{err}");
    }
}
