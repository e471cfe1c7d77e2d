//! Untrusted text for places that show it as plain text: GitHub check-run
//! annotations and GitLab Code Quality descriptions. No markup is read there,
//! so nothing is escaped for Markdown (a backslash would show as one); what is
//! left to guard against is text that can mislead a reader without markup:
//! control characters and the Unicode marks that reorder text on screen, shown
//! here as `\u{..}` escapes, and length, capped with an ellipsis.

/// `s` with control characters (line breaks and tabs kept) and bidirectional
/// marks shown as escapes, cut to at most `max` characters.
pub fn text(s: &str, max: usize) -> String {
    cap(&shown(s.trim()), max)
}

/// `s` for a terminal, whole: control characters other than line breaks and
/// tabs (an escape sequence that clears the screen, hides text or sets the
/// clipboard) and the marks that reorder text are shown as `\u{..}` escapes
/// instead of being obeyed.
pub fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || bidi(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// The first `n` characters of `s`: a commit id's short form, cut where a
/// character ends (a branch name given for a commit may hold any character).
pub fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// [`text`] on one line: line breaks and tabs become single spaces.
pub fn line(s: &str, max: usize) -> String {
    let joined: Vec<&str> = s.split_whitespace().collect();
    text(&joined.join(" "), max)
}

/// The marks that change the order text is shown in (the "Trojan Source" set).
fn bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// At most `max` characters, the last one an ellipsis when anything was cut.
fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_control_sequences_are_shown_not_obeyed_and_lines_stay() {
        let s = shown("Fix it\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\n+ x = 1\t# ok");
        assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s}");
        assert!(s.starts_with("Fix it\\u{1b}[2J") && s.ends_with("\n+ x = 1\t# ok"), "{s}");
    }

    #[test]
    fn a_prefix_ends_on_a_character_boundary() {
        assert_eq!(prefix("0123456789abcdef", 12), "0123456789ab");
        assert_eq!(prefix("feature/xöäü-more", 12), "feature/xöäü");
        assert_eq!(prefix("main", 12), "main");
    }

    #[test]
    fn control_and_reordering_marks_are_shown_not_obeyed() {
        assert_eq!(text("a\u{1b}[31mb", 100), "a\\u{1b}[31mb");
        assert_eq!(text("x\u{202E}y", 100), "x\\u{202e}y");
        assert_eq!(text("one\ntwo", 100), "one\ntwo");
        assert_eq!(line(" one\n two\tthree ", 100), "one two three");
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis_on_a_character_boundary() {
        assert_eq!(text("ééééé", 3), "éé…");
        assert_eq!(text("abc", 3), "abc");
        assert_eq!(line(&"x".repeat(1000), 10).chars().count(), 10);
    }

    #[test]
    fn markup_is_left_as_it_is() {
        assert_eq!(line("<b>`x`</b> [a](b)", 100), "<b>`x`</b> [a](b)");
    }
}
