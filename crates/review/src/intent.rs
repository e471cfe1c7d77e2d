//! The author's stated intent: what the pull request's title and description (or,
//! without a pull request, the commit messages) say the change does.
//!
//! It goes to finders only, fenced as untrusted data: a finder checks the code
//! against the claim, and code that does not do what its author says is a finding.
//! Validators never receive it: a disproof rests on code, and a hostile description
//! must not talk a validator out of a real defect. The text is masked for secrets
//! like every other text and capped at [`INTENT_MAX_BYTES`].

use crate::secrets::Masker;

/// The most of the author's text a finder is shown.
pub const INTENT_MAX_BYTES: usize = 4096;

/// Where the stated intent came from, as the prompt names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The pull request's title and description, from the code host or flags.
    PullRequest,
    /// The messages of the commits under review.
    Commits,
}

/// The author's description of the change, masked and capped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    pub source: Source,
    /// The text as a finder sees it (inside the fence).
    pub text: String,
    /// Whether the text was cut at [`INTENT_MAX_BYTES`].
    pub cut: bool,
}

impl Intent {
    /// A pull request's title and description; `None` when both are empty.
    pub fn pull_request(title: Option<&str>, description: Option<&str>, masker: Option<&Masker>) -> Option<Intent> {
        let parts: Vec<&str> = [title, description].into_iter().flatten().map(str::trim).collect();
        Intent::new(Source::PullRequest, &parts, masker)
    }

    /// The commit messages of the reviewed range, newest first; `None` when there
    /// are none.
    pub fn commits(messages: &[String], masker: Option<&Masker>) -> Option<Intent> {
        let parts: Vec<&str> = messages.iter().map(|m| m.trim()).collect();
        Intent::new(Source::Commits, &parts, masker)
    }

    fn new(source: Source, parts: &[&str], masker: Option<&Masker>) -> Option<Intent> {
        let joined = parts.iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("\n\n");
        if joined.is_empty() {
            return None;
        }
        let masked = match masker {
            Some(m) => m.text(&joined).0,
            None => joined,
        };
        let (text, cut) = cap(&masked, INTENT_MAX_BYTES);
        Some(Intent { source, text: text.to_string(), cut })
    }
}

/// `text` cut to at most `max` bytes, at the last line break that fits when there
/// is one in the second half, else at a character boundary.
fn cap(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind('\n') {
        Some(at) if at >= max / 2 => (&head[..at], true),
        _ => (head, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_description_are_joined_and_blank_ones_left_out() {
        let i = Intent::pull_request(Some(" Add retries "), Some("Three attempts.\n"), None).unwrap();
        assert_eq!((i.text.as_str(), i.source, i.cut), ("Add retries\n\nThree attempts.", Source::PullRequest, false));
        assert_eq!(Intent::pull_request(Some("Only a title"), Some("  "), None).unwrap().text, "Only a title");
        assert_eq!(Intent::pull_request(None, Some(" \n"), None), None);
        assert_eq!(Intent::commits(&[], None), None);
    }

    #[test]
    fn a_long_description_is_capped_at_4_kib_on_a_character_boundary() {
        let long = "é".repeat(5000);
        let i = Intent::pull_request(Some("t"), Some(&long), None).unwrap();
        assert!(i.cut && i.text.len() <= INTENT_MAX_BYTES && i.text.len() > INTENT_MAX_BYTES - 4, "{}", i.text.len());
        let lines: String = (0..600).map(|n| format!("line {n}\n")).collect();
        let i = Intent::commits(&[lines], None).unwrap();
        assert!(i.cut && i.text.len() <= INTENT_MAX_BYTES);
        assert!(
            i.text.ends_with(|c: char| c.is_ascii_digit()),
            "cut at a line break: {:?}",
            &i.text[i.text.len() - 9..]
        );
    }

    #[test]
    fn secrets_in_the_description_are_masked() {
        let masker = Masker::new(&[]).unwrap();
        let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
        let i =
            Intent::pull_request(Some("Rotate the key"), Some(&format!("old token {token}")), Some(&masker)).unwrap();
        assert!(!i.text.contains(&token), "{}", i.text);
        assert!(i.text.contains("[masked"), "{}", i.text);
    }
}
