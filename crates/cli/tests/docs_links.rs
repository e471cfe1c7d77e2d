//! Every relative link and `#anchor` in the manual (docs/src) and in README.md leads
//! somewhere: the file exists, the heading exists, and a page of the book links only
//! inside the book (mdbook renders docs/src alone, so a link to `../../ci/x.yml` would
//! be dead in the HTML; such files are shown through a page under docs/src/files/).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// Lines outside fenced code blocks, with inline code spans blanked, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut fence: Option<String> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
        if marker.len() >= 3 {
            match &fence {
                None => fence = Some(marker),
                Some(open) if marker.starts_with(open.as_str()) && t.trim() == marker => fence = None,
                Some(_) => {}
            }
            continue;
        }
        if fence.is_none() {
            out.push((i + 1, blank_code_spans(line)));
        }
    }
    out
}

/// `a `[x](y)` b` → the span's text replaced by spaces, so links inside code are not links.
fn blank_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let open = &rest[start..start + ticks];
        let after = &rest[start + ticks..];
        match after.find(open) {
            Some(end) => {
                out.push_str(&rest[..start]);
                out.push_str(&" ".repeat(ticks * 2 + end));
                rest = &after[end + ticks..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// The targets of inline links and images on a line: `[text](target)`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("").trim_matches(['<', '>']);
        if !target.is_empty() {
            out.push(target.to_string());
        }
        rest = &after[end..];
    }
    out
}

/// The id mdbook (and GitHub) gives a heading: its text, lower case, spaces as `-`,
/// everything but letters, digits, `-` and `_` left out.
fn heading_id(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link in a heading shows its text only.
    while let Some(i) = rest.find('[') {
        text.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("](").zip(after.find(')')) {
            Some((mid, end)) if mid < end => {
                text.push_str(&after[..mid]);
                rest = &after[end + 1..];
            }
            _ => {
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The text of `file` with `{{#include path}}` lines replaced by what they include.
fn expanded(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut out = String::new();
    for line in text.lines() {
        match include_target(line) {
            Some(target) => {
                out.push_str(&std::fs::read_to_string(file.parent().unwrap().join(target)).unwrap_or_default())
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// `{{#include ../x.yml}}` → `../x.yml` (a `:anchor` or line range after it dropped).
fn include_target(line: &str) -> Option<&str> {
    let inner = line.trim().strip_prefix("{{#include ")?.strip_suffix("}}")?.trim();
    Some(inner.split(':').next().unwrap_or(inner))
}

/// Every anchor a Markdown file offers: its headings' ids (repeats numbered as
/// mdbook and GitHub number them) and explicit `id="..."` attributes.
fn anchors(file: &Path) -> BTreeSet<String> {
    let text = expanded(file);
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(&text) {
        if let Some(i) = line.find("id=\"") {
            let rest = &line[i + 4..];
            if let Some(end) = rest.find('"') {
                seen.insert(rest[..end].to_string());
            }
        }
    }
    // Headings are read from the original text (code spans keep their words).
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fence = !fence;
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fence || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = heading_id(&line[hashes..]);
        let mut id = base.clone();
        let mut n = 1;
        while seen.contains(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        seen.insert(id);
    }
    seen
}

/// What is wrong with each link of `file`, as `path:LINE: ...`.
fn dead_links(root: &Path, file: &Path) -> Vec<String> {
    let book = root.join("docs/src");
    let shown = file.strip_prefix(root).unwrap_or(file).display().to_string();
    let text = std::fs::read_to_string(file).unwrap();
    let mut problems = Vec::new();
    for (n, line) in prose_lines(&text) {
        if let Some(target) = include_target(&line)
            && !file.parent().unwrap().join(target).is_file()
        {
            problems.push(format!("{shown}:{n}: {{{{#include {target}}}}} names no file"));
        }
        for target in link_targets(&line) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let dest = if path.is_empty() { file.to_path_buf() } else { file.parent().unwrap().join(path) };
            let Ok(dest) = dest.canonicalize() else {
                problems.push(format!("{shown}:{n}: link to {target}: no such file"));
                continue;
            };
            if file.starts_with(&book) && !dest.starts_with(&book) {
                problems.push(format!(
                    "{shown}:{n}: link to {target} leaves the book, so it is dead in the rendered HTML; \
                     show the file through a page under docs/src/files/ and link to that"
                ));
                continue;
            }
            if !anchor.is_empty() && dest.extension().is_some_and(|e| e == "md") && !anchors(&dest).contains(anchor) {
                problems.push(format!("{shown}:{n}: link to {target}: no heading with the id #{anchor}"));
            }
        }
    }
    problems
}

#[test]
fn every_link_in_the_manual_and_the_readme_resolves() {
    let root = root();
    let mut files = vec![root.join("README.md")];
    markdown_files(&root.join("docs/src"), &mut files);
    assert!(files.len() > 20, "the manual's pages were not found under docs/src");
    let problems: Vec<String> = files.iter().flat_map(|f| dead_links(&root, f)).collect();
    assert!(problems.is_empty(), "dead links:\n{}", problems.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let root = root();
    let src = root.join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = prose_lines(&summary).iter().flat_map(|(_, l)| link_targets(l)).collect();
    let mut files = Vec::new();
    markdown_files(&src, &mut files);
    let unlisted: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&src).unwrap().display().to_string())
        .filter(|p| p != "SUMMARY.md" && !listed.contains(p))
        .collect();
    assert!(unlisted.is_empty(), "pages under docs/src missing from SUMMARY.md (mdbook skips them): {unlisted:?}");
}

#[test]
fn the_checker_finds_a_dead_file_a_dead_anchor_and_a_link_out_of_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let src = root.join("docs/src");
    std::fs::create_dir_all(src.join("ci")).unwrap();
    std::fs::write(root.join("action.yml"), "name: x\n").unwrap();
    std::fs::write(src.join("ci/github.md"), "# GitHub Actions\n\n## The `gauntlet` check run\n").unwrap();
    let page = src.join("intro.md");
    std::fs::write(
        &page,
        "# Intro\n\nSee [the check](ci/github.md#the-gauntlet-check-run), [ok](#intro),\n\
         [gone](ci/gitlab.md), [no anchor](ci/github.md#the-check),\n\
         [out](../../action.yml) and `[code](not/a/link.md)`.\n\n```md\n[fenced](nope.md)\n```\n",
    )
    .unwrap();
    let problems = dead_links(&root, &page);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("docs/src/intro.md:4: link to ci/gitlab.md: no such file"), "{}", problems[0]);
    assert!(problems[1].contains("no heading with the id #the-check"), "{}", problems[1]);
    assert!(
        problems[2].starts_with("docs/src/intro.md:5: link to ../../action.yml leaves the book"),
        "{}",
        problems[2]
    );
}

#[test]
fn heading_ids_follow_mdbook() {
    assert_eq!(heading_id(" Progress on stderr, and `--quiet`"), "progress-on-stderr-and---quiet");
    assert_eq!(heading_id(" `[backtest.mine]`"), "backtestmine");
    assert_eq!(
        heading_id(" JSON report (`--format json`, `schema_version` 1)"),
        "json-report---format-json-schema_version-1"
    );
    assert_eq!(heading_id(" See [the docs](x.md) here"), "see-the-docs-here");
}
