//! Text the pull request's author chose (a file name above all) made inert for a
//! CI log. Runners read their job's output line by line and act on some lines:
//! GitHub Actions on a line that starts with `::` (`::error ...::`, `::add-mask::`),
//! Azure Pipelines on `##vso[...]` anywhere in a line and on `##[...]` at its start.
//! A name holding a line break would start a line of the author's choosing, and
//! such a command can prepend to `PATH`, set variables or forge annotations for
//! the steps that follow.

/// `text` with every control character (line breaks, C0, DEL, C1) and the Unicode
/// line and paragraph separators shown as escapes (`\n`, `\u{1b}`), so it stays
/// on the line it is printed in; and with the runners' command prefixes broken by
/// one escaped character: `##vso[` anywhere, `::` and `##[` at the start.
pub fn log_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let rest = &text[i..];
        let starts_command = rest.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("##vso["))
            || (i == 0 && (rest.starts_with("::") || rest.starts_with("##[")));
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            out.extend(c.escape_default());
        } else if starts_command {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::log_safe;

    /// Whether a runner would act on any line of `log`.
    fn commands(log: &str) -> Vec<&str> {
        log.lines()
            .filter(|l| {
                l.trim_start().starts_with("::") || l.starts_with("##[") || l.to_ascii_lowercase().contains("##vso[")
            })
            .collect()
    }

    #[test]
    fn a_name_cannot_start_a_log_line_or_hold_a_runner_command() {
        for name in [
            ".gauntlet/a\n##vso[task.prependpath]/tmp/pwned\n::error file=src/auth.py::forged\n.md",
            "a\r::add-mask::x",
            "a\u{2028}::error::x\u{2029}b",
            "a\u{85}::warning::x",
            "x ##VSO[task.setvariable variable=PATH]/tmp",
            "::error::forged.py",
            "##[error]forged.py",
        ] {
            let line = format!("gauntlet: not reviewed: {}", log_safe(name));
            assert_eq!(line.lines().count(), 1, "{line:?}");
            assert!(commands(&line).is_empty(), "{line:?}");
            assert!(commands(&log_safe(name)).is_empty(), "printed alone: {:?}", log_safe(name));
        }
    }

    #[test]
    fn escapes_are_readable_and_plain_names_are_left_alone() {
        assert_eq!(log_safe("a\nb\tc\u{1b}[31m\u{7f}"), "a\\nb\\tc\\u{1b}[31m\\u{7f}");
        assert_eq!(log_safe("##vso[x]"), "\\u{23}#vso[x]");
        assert_eq!(log_safe("::error::x"), "\\u{3a}:error::x");
        for name in ["src/auth.py", "docs/a b/ü.md", "x::y.rs", "#1.md", "C#/vso.cs"] {
            assert_eq!(log_safe(name), name);
        }
    }
}
