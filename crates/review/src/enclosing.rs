//! The function or class around a line, found by indentation alone, so validators
//! without tools see the whole definition a finding sits in rather than a fixed
//! window that may stop mid-function.
//!
//! The heuristic: walk up from the finding to the nearest less-indented line that
//! starts a definition (`def`, `fn`, `class`, `function`, ...), then down to the
//! first line indented no deeper than that header; a closing bracket or `end` at
//! the header's indentation belongs to the block. Decorators and attributes right
//! above the header are included. Nothing is found for top-level code, and blocks
//! longer than the caller's limit are left to the plain window.

use gauntlet_code::{block_end, indent};
use regex::Regex;
use std::sync::OnceLock;

fn definition() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^\s*(?:(?:export|default|pub(?:\([^)]*\))?|async|static|public|private|protected|internal|final|abstract|override|unsafe|const|extern|inline|virtual|open|suspend)\s+)*(?:def|class|fn|function|func|fun|impl|struct|enum|trait|interface|module|object|record|sub|procedure|void|macro_rules!)\b",
        )
        .expect("the definition pattern compiles")
    })
}

/// Whether `line` starts a definition (`def`, `fn`, `class`, `func`, ...): the
/// header of a region this heuristic finds.
pub fn starts_definition(line: &str) -> bool {
    definition().is_match(line)
}

/// The 1-based line range of the definition enclosing `start..=end`, if one is found
/// within `max_lines` lines.
pub fn enclosing(lines: &[&str], start: u32, end: u32, max_lines: u32) -> Option<(u32, u32)> {
    let (s, e) = ((start.max(1) - 1) as usize, (end.max(start) as usize).min(lines.len()));
    let mut level = lines.get(s..e)?.iter().filter_map(|l| indent(l)).min()?;
    let mut header = None;
    for i in (0..s).rev() {
        let Some(ind) = indent(lines[i]) else { continue };
        if ind >= level {
            continue;
        }
        if definition().is_match(lines[i]) {
            header = Some((i, ind));
            break;
        }
        if ind == 0 {
            return None;
        }
        level = ind;
    }
    let (head, head_indent) = header?;
    let mut top = head;
    while top > 0 && indent(lines[top - 1]) == Some(head_indent) && lines[top - 1].trim_start().starts_with(['@', '#'])
    {
        top -= 1;
    }
    let last = match block_end(lines, head, head_indent) {
        // No line below the header belongs to it: the block ends where the lines asked about do.
        end if end == head => e.max(head + 1) - 1,
        end => end,
    };
    let (from, to) = (top as u32 + 1, last as u32 + 1);
    (to - from < max_lines).then_some((from, to.max(end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn python_function_is_found_from_a_nested_line() {
        let src = "import os\n\n@cached\ndef load(path):\n    if path:\n        return open(path)\n    return None\n\n\ndef other():\n    pass\n";
        assert_eq!(enclosing(&lines(src), 6, 6, 100), Some((3, 7)));
    }

    #[test]
    fn brace_function_includes_its_closing_brace() {
        let src = "use x;\n\npub fn run(a: u32) -> u32 {\n    let b = a + 1;\n    b * 2\n}\n\nfn next() {}\n";
        assert_eq!(enclosing(&lines(src), 4, 4, 100), Some((3, 6)));
    }

    #[test]
    fn method_inside_a_class_stops_at_the_method() {
        let src = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
        assert_eq!(enclosing(&lines(src), 6, 6, 100), Some((5, 6)));
    }

    #[test]
    fn top_level_code_and_oversized_blocks_find_nothing() {
        let src = "x = 1\nif x:\n    y = 2\n";
        assert_eq!(enclosing(&lines(src), 3, 3, 100), None);
        let long = format!("def f():\n{}", "    a = 1\n".repeat(50));
        assert_eq!(enclosing(&lines(&long), 10, 10, 20), None);
    }
}
