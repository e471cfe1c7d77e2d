//! The tools a model session may call to read more of the repository:
//! `read_file`, `search` and `list_dir`, all through the [`Sandbox`].
//!
//! Every line of file text a tool returns is added to the session's [`Shown`]
//! record, so a disproof that rests on code the validator read can be checked like
//! one that rests on code it was shown. File text is fenced like every other
//! untrusted text. Each call and each session has a byte allowance; a call over it
//! is cut at a line boundary and says so, a session over it gets an error telling
//! the model to answer with what it has.

use crate::fence::Fence;
use crate::sandbox::{Limits, Sandbox};
use crate::shown::Shown;
use gauntlet_model::{Tool, ToolCall, ToolResult, Turn};
use serde_json::{Value, json};
use std::collections::BTreeSet;

pub const READ_FILE: &str = "read_file";
pub const SEARCH: &str = "search";
pub const LIST_DIR: &str = "list_dir";

/// Longest line a search hit shows.
const HIT_CHARS: usize = 240;
/// Hits one search returns at most.
const MAX_HITS: usize = 100;
/// Files read per batch while searching.
const SEARCH_BATCH: usize = 256;

/// The tools as offered to the model.
pub fn definitions() -> Vec<Tool> {
    vec![
        Tool {
            name: READ_FILE.into(),
            description: "Read lines of a file of the repository at the reviewed head. Lines come numbered; \
                          cite them as path:LINE."
                .into(),
            input_schema: json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "relative to the repository root"},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1}},
                "required": ["path"]}),
        },
        Tool {
            name: SEARCH.into(),
            description: "Search the repository at the reviewed head for a regular expression; answers \
                          path:LINE: text for each matching line."
                .into(),
            input_schema: json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "a regular expression (Rust regex syntax)"},
                "glob": {"type": "string", "description": "only files matching this glob, e.g. src/**/*.py"}},
                "required": ["pattern"]}),
        },
        Tool {
            name: LIST_DIR.into(),
            description: "List the files and folders (ending in /) of a folder of the repository at the reviewed head."
                .into(),
            input_schema: json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "relative to the repository root; empty for the root"}}}),
        },
    ]
}

/// What one session read through its tools.
#[derive(Clone, Debug, Default)]
pub struct Reads {
    /// The file text the tools returned.
    pub shown: Shown,
    /// Files whose text was returned, by resolved path.
    pub files: BTreeSet<String>,
    /// Tool-result text returned so far.
    pub bytes: usize,
    /// Model turns that called tools.
    pub steps: u32,
    /// Whether the session asked for tools after its last allowed step.
    pub limit_hit: bool,
}

/// A session's tools: the sandbox and what has been read.
pub struct Toolbox<'a> {
    sandbox: Sandbox<'a>,
    fence: &'a Fence,
    pub reads: Reads,
}

impl<'a> Toolbox<'a> {
    pub fn new(sandbox: Sandbox<'a>, fence: &'a Fence) -> Toolbox<'a> {
        Toolbox { sandbox, fence, reads: Reads::default() }
    }

    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Run one call. Refusals and bad input come back as error results.
    pub fn run(&mut self, call: &ToolCall) -> ToolResult {
        let left = self.limits().session_bytes.saturating_sub(self.reads.bytes);
        let outcome = if left == 0 {
            Err(format!(
                "this session has used its {}-byte reading allowance; answer with what you have read",
                self.limits().session_bytes
            ))
        } else {
            let cap = left.min(self.limits().call_bytes);
            match call.name.as_str() {
                READ_FILE => self.read_file(&call.input, cap),
                SEARCH => self.search(&call.input, cap),
                LIST_DIR => self.list_dir(&call.input, cap),
                other => Err(format!("unknown tool `{other}`; the tools are read_file, search and list_dir")),
            }
        };
        let (content, is_error) = match outcome {
            Ok(text) => (text, false),
            Err(message) => (message, true),
        };
        self.reads.bytes += content.len();
        ToolResult { id: call.id.clone(), content, is_error }
    }

    fn read_file(&mut self, input: &Value, cap: usize) -> Result<String, String> {
        let path = string_arg(input, "path")?;
        let (resolved, text) = self.sandbox.read(&path)?;
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len() as u64;
        if total == 0 {
            return Ok(format!("{resolved} is empty"));
        }
        let start = line_arg(input, "start_line")?.unwrap_or(1).max(1);
        let end = line_arg(input, "end_line")?.unwrap_or(total).min(total);
        if start > total || start > end {
            return Err(format!("{resolved} has {total} lines; lines {start}-{end} do not exist"));
        }
        let mut body = String::new();
        let mut shown = 0usize;
        for (i, line) in lines.iter().enumerate().take(end as usize).skip(start as usize - 1) {
            let row = format!("{:>5} | {line}\n", i + 1);
            if body.len() + row.len() > cap && shown > 0 {
                break;
            }
            body.push_str(&row);
            shown += 1;
        }
        let first = start as u32;
        let last = first + shown as u32 - 1;
        self.reads.shown.add_range(&resolved, first, &lines[first as usize - 1..last as usize]);
        self.reads.files.insert(resolved.clone());
        let alias = if resolved == path.trim() { String::new() } else { format!(" (via {})", path.trim()) };
        let mut out = format!("{resolved}{alias}, lines {first}-{last} of {total}:\n");
        out.push_str(&self.fence.wrap(&format!("file {resolved}"), &body));
        if u64::from(last) < end {
            out.push_str(&format!("(cut at line {last} by the per-call limit; read on from line {})\n", last + 1));
        }
        Ok(out)
    }

    fn search(&mut self, input: &Value, cap: usize) -> Result<String, String> {
        let pattern = string_arg(input, "pattern")?;
        let regex = regex::RegexBuilder::new(&pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("the pattern is not a valid regular expression: {e}"))?;
        let glob = match input.get("glob").and_then(Value::as_str).filter(|g| !g.trim().is_empty()) {
            Some(g) => {
                Some(globset::Glob::new(g.trim()).map_err(|e| format!("bad glob `{g}`: {e}"))?.compile_matcher())
            }
            None => None,
        };
        let repo = self.sandbox.repo();
        let candidates: Vec<&str> = repo
            .files()
            .into_iter()
            .filter(|p| glob.as_ref().is_none_or(|g| g.is_match(p)))
            .filter(|p| repo.link_target(p).is_none() && self.sandbox.resolve(p).is_ok())
            .collect();
        let mut hits = Hits::default();
        'files: for batch in candidates.chunks(SEARCH_BATCH) {
            for (path, text) in batch.iter().zip(repo.texts(batch)) {
                let Some(text) = text.filter(|t| t.len() <= self.limits().file_bytes) else {
                    continue;
                };
                for (i, line) in text.lines().enumerate() {
                    if regex.is_match(line) && !hits.push(path, i as u32 + 1, line, cap) {
                        break 'files;
                    }
                }
            }
        }
        if hits.rows.is_empty() {
            return Ok(format!("no line matches `{pattern}`"));
        }
        for (path, line, text) in &hits.rows {
            self.reads.shown.add_range(path, *line, &[text.as_str()]);
            self.reads.files.insert(path.to_string());
        }
        let body: String = hits.rows.iter().map(|(p, l, t)| format!("{p}:{l}: {t}\n")).collect();
        let mut out = self.fence.wrap("search results", &body);
        if hits.cut {
            out.push_str("(more matches not shown; narrow the pattern or the glob)\n");
        }
        Ok(out)
    }

    fn list_dir(&mut self, input: &Value, cap: usize) -> Result<String, String> {
        let path = input.get("path").and_then(Value::as_str).unwrap_or("");
        let dir = self.sandbox.resolve(path)?;
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let mut entries = BTreeSet::new();
        for file in self.sandbox.repo().files() {
            if let Some(rest) = file.strip_prefix(&prefix) {
                entries.insert(match rest.split_once('/') {
                    Some((folder, _)) => format!("{folder}/"),
                    None => rest.to_string(),
                });
            }
        }
        if entries.is_empty() {
            return Err(format!("no folder {dir} at the reviewed head"));
        }
        let mut body = String::new();
        for entry in &entries {
            if body.len() + entry.len() + 1 > cap {
                body.push_str("(more entries not shown)\n");
                break;
            }
            body.push_str(entry);
            body.push('\n');
        }
        let shown = if dir.is_empty() { "the repository root" } else { dir.as_str() };
        Ok(format!("{shown}:\n{}", self.fence.wrap("listing", &body)))
    }
}

/// Search hits gathered under a byte cap.
#[derive(Default)]
struct Hits<'p> {
    rows: Vec<(&'p str, u32, String)>,
    bytes: usize,
    cut: bool,
}

impl<'p> Hits<'p> {
    /// Add a hit; false once the cap or the hit limit is reached.
    fn push(&mut self, path: &'p str, line: u32, text: &str, cap: usize) -> bool {
        let text: String = text.chars().take(HIT_CHARS).collect();
        let size = path.len() + text.len() + 16;
        if self.rows.len() >= MAX_HITS || self.bytes + size > cap {
            self.cut = true;
            return false;
        }
        self.bytes += size;
        self.rows.push((path, line, text));
        true
    }
}

fn string_arg(input: &Value, name: &str) -> Result<String, String> {
    input
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("`{name}` is required and must be a string"))
}

fn line_arg(input: &Value, name: &str) -> Result<Option<u64>, String> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| format!("`{name}` must be a positive whole number")),
    }
}

/// The conversation as plain text turns (tool calls and results written out), so a
/// last call can go without tools and be made to answer.
pub fn flatten(turns: &[Turn], closing: &str) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    for turn in turns {
        let (user, text) = match turn {
            Turn::User { text } => (true, text.clone()),
            Turn::Assistant { text, tool_calls } => {
                let calls: Vec<String> =
                    tool_calls.iter().map(|c| format!("[called {} {}]", c.name, c.input)).collect();
                (
                    false,
                    [text.as_str()]
                        .into_iter()
                        .chain(calls.iter().map(String::as_str))
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join("\n"),
                )
            }
            Turn::ToolResults { results } => (
                true,
                results
                    .iter()
                    .map(|r| {
                        format!("[{} {}]\n{}", if r.is_error { "tool error" } else { "tool result" }, r.id, r.content)
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        };
        push_merged(&mut out, user, text);
    }
    push_merged(&mut out, true, closing.to_string());
    out
}

/// Append a turn, joining it to the previous one when both come from the same side.
fn push_merged(out: &mut Vec<Turn>, user: bool, text: String) {
    match (out.last_mut(), user) {
        (Some(Turn::User { text: prev }), true) | (Some(Turn::Assistant { text: prev, .. }), false) => {
            prev.push_str("\n\n");
            prev.push_str(&text);
        }
        _ => out.push(if user { Turn::user(text) } else { Turn::assistant(text) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::HeadFiles;
    use crate::repo::RepoRead;
    use std::collections::BTreeMap;

    struct Repo(BTreeMap<String, String>);

    impl HeadFiles for Repo {
        fn line_count(&self, path: &str) -> Option<u32> {
            self.text(path).map(|t| t.lines().count() as u32)
        }
    }

    impl RepoRead for Repo {
        fn text(&self, path: &str) -> Option<String> {
            self.0.get(path).cloned()
        }
        fn files(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
    }

    fn repo() -> Repo {
        let long: String = (1..=200).map(|i| format!("line number {i}\n")).collect();
        Repo(BTreeMap::from([
            ("src/a.py".to_string(), "def f():\n    return check(x)\n".to_string()),
            ("src/long.txt".to_string(), long),
            ("docs/guide.md".to_string(), "call check first\n".to_string()),
        ]))
    }

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall { id: "c1".into(), name: name.into(), input }
    }

    #[test]
    fn a_read_is_cut_at_a_line_and_only_the_lines_returned_count_as_read() {
        let (r, fence) = (repo(), Fence::fixed("DATA-0"));
        let limits = Limits { call_bytes: 300, ..Limits::default() };
        let mut tb = Toolbox::new(Sandbox::new(&r, limits), &fence);
        let out = tb.run(&call(READ_FILE, json!({"path": "src/long.txt"})));
        assert!(!out.is_error);
        assert!(out.content.contains("read on from line"), "{}", out.content);
        let last = tb.reads.shown.blocks[0].lines.last().unwrap().line;
        assert!(last > 5 && last < 200);
        assert!(tb.reads.shown.covers("src/long.txt", last, last));
        assert!(!tb.reads.shown.covers("src/long.txt", last + 1, 200));
    }

    #[test]
    fn a_spent_session_allowance_refuses_further_reads() {
        let (r, fence) = (repo(), Fence::fixed("DATA-0"));
        let limits = Limits { session_bytes: 200, ..Limits::default() };
        let mut tb = Toolbox::new(Sandbox::new(&r, limits), &fence);
        assert!(!tb.run(&call(READ_FILE, json!({"path": "src/long.txt"}))).is_error);
        let refused = tb.run(&call(READ_FILE, json!({"path": "src/a.py"})));
        assert!(refused.is_error && refused.content.contains("allowance"), "{}", refused.content);
    }

    #[test]
    fn search_hits_are_recorded_at_their_lines_and_filtered_by_glob() {
        let (r, fence) = (repo(), Fence::fixed("DATA-0"));
        let mut tb = Toolbox::new(Sandbox::new(&r, Limits::default()), &fence);
        let out = tb.run(&call(SEARCH, json!({"pattern": "check", "glob": "src/**"})));
        assert!(out.content.contains("src/a.py:2:     return check(x)"), "{}", out.content);
        assert!(!out.content.contains("docs/guide.md"));
        assert!(tb.reads.shown.contains_near("src/a.py", 2, 2, 0, "return check(x)"));
        assert_eq!(tb.reads.files.iter().collect::<Vec<_>>(), ["src/a.py"]);
        assert!(tb.run(&call(SEARCH, json!({"pattern": "("}))).is_error, "a bad regex is the model's error");
    }

    #[test]
    fn listing_shows_files_and_folders_and_reads_nothing() {
        let (r, fence) = (repo(), Fence::fixed("DATA-0"));
        let mut tb = Toolbox::new(Sandbox::new(&r, Limits::default()), &fence);
        let out = tb.run(&call(LIST_DIR, json!({})));
        assert!(out.content.contains("docs/\nsrc/\n"), "{}", out.content);
        assert!(tb.run(&call(LIST_DIR, json!({"path": "nope"}))).is_error);
        assert!(tb.reads.files.is_empty() && tb.reads.shown.blocks.is_empty());
        assert!(tb.run(&call("write_file", json!({}))).is_error, "only the three tools exist");
    }

    #[test]
    fn flattened_conversations_alternate_and_end_with_the_closing_turn() {
        let turns = vec![
            Turn::user("validate"),
            Turn::Assistant { text: String::new(), tool_calls: vec![call(LIST_DIR, json!({}))] },
            Turn::ToolResults {
                results: vec![ToolResult { id: "c1".into(), content: "src/".into(), is_error: false }],
            },
        ];
        let flat = flatten(&turns, "answer now");
        assert_eq!(flat.len(), 3);
        assert!(matches!(&flat[2], Turn::User { text } if text.contains("src/") && text.ends_with("answer now")));
    }
}
