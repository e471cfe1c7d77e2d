//! Telling prose from code: files that are written for people (licences,
//! changelogs, READMEs, plain text and markup documents), comment lines, and
//! names that are also ordinary words. Prose mentions a name without depending on
//! it, so related code and reviewer triggers look only at code.

/// Extensions of documents written for people.
const PROSE_EXTENSIONS: [&str; 9] = ["md", "markdown", "mdx", "rst", "txt", "adoc", "asciidoc", "org", "rtf"];

/// File names (without extension, any case) that hold prose whatever their
/// extension: `LICENSE`, `LICENSE.md`, `COPYING.txt`, `CHANGELOG`, `NOTICE`, ...
const PROSE_STEMS: [&str; 13] = [
    "license",
    "licence",
    "copying",
    "copyright",
    "notice",
    "changelog",
    "changes",
    "history",
    "news",
    "readme",
    "authors",
    "contributing",
    "code_of_conduct",
];

/// Whether `path` is a document for people rather than source: by its extension,
/// or by a name such as `LICENSE` or `CHANGELOG` (with or without extension).
pub fn is_prose_path(path: &str) -> bool {
    let written = path.rsplit('/').next().unwrap_or(path);
    let name = written.to_ascii_lowercase();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext)),
        _ => (name.as_str(), None),
    };
    if ext.is_some_and(|e| PROSE_EXTENSIONS.contains(&e)) {
        return true;
    }
    // `LICENSE`, `LICENSE-MIT`, `NOTICE.APACHE`: the name's first word decides, when
    // there is no extension or the name is written in capitals (`history.sql` is code).
    let first = stem.split(['-', '.']).next().unwrap_or(stem);
    let shouted = written.split('.').next().is_some_and(|s| !s.bytes().any(|b| b.is_ascii_lowercase()));
    PROSE_STEMS.contains(&first) && (ext.is_none() || shouted)
}

/// Whether a line holds only a comment (or the inside of a block comment), in
/// the common comment syntaxes: `//`, `/*`, `*`, `#` (not `#[`, `#!`, `#include`),
/// `--`, `;;`, `<!--`, `"""`.
pub fn is_comment_line(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with('#') {
        return !(t.starts_with("#[") || t.starts_with("#!") || t.starts_with("#include") || t.starts_with("#define"));
    }
    ["//", "/*", "*/", "--", ";;", "<!--", "\"\"\"", "'''"].iter().any(|p| t.starts_with(p))
        || (t.starts_with('*') && !t.starts_with("*="))
}

/// Whether `name` is also an ordinary word: one run of lowercase letters
/// (`apply`, `status`, `total`), which prose uses without meaning the code.
pub fn is_plain_word(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licences_changelogs_readmes_and_text_are_prose_and_source_is_not() {
        for p in [
            "LICENSE",
            "LICENSE.md",
            "docs/COPYING.txt",
            "CHANGELOG",
            "README.rst",
            "notes.txt",
            "LICENSE-MIT",
            "NOTICE.APACHE",
        ] {
            assert!(is_prose_path(p), "{p}");
        }
        for p in ["src/lib.rs", "changes.py", "src/history.rs", "web/readme.ts", "Makefile", "history.sql"] {
            assert!(!is_prose_path(p), "{p}");
        }
    }

    #[test]
    fn comment_lines_are_told_from_code_lines() {
        for l in ["  // apply the patch", "# apply it", " * apply", "-- apply", "/* apply */"] {
            assert!(is_comment_line(l), "{l}");
        }
        for l in ["apply(x)", "#[derive(Debug)]", "  x = apply(y) # twice", "#include <x.h>"] {
            assert!(!is_comment_line(l), "{l}");
        }
        assert!(is_plain_word("apply") && !is_plain_word("apply_all") && !is_plain_word("Apply"));
    }
}
