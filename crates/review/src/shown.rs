//! The *shown* record: every block of text a model session was given or read,
//! as (path, line, text), so that grounding can check a quote against what the
//! model actually saw.

use gauntlet_change::{ChangedFile, LineKind};

/// One line a session saw, at a head line (removed lines sit at their anchor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownLine {
    pub line: u32,
    pub text: String,
}

/// A contiguous block of lines of one file, in the order shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownBlock {
    pub path: String,
    pub lines: Vec<ShownLine>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    pub blocks: Vec<ShownBlock>,
}

impl Shown {
    /// Record a whole file text (lines numbered from 1).
    pub fn add_file(&mut self, path: &str, text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        self.add_range(path, 1, &lines);
    }

    /// Record `lines` of a file starting at head line `start`.
    pub fn add_range(&mut self, path: &str, start: u32, lines: &[&str]) {
        let start = start.max(1);
        let lines =
            lines.iter().zip(start..).map(|(text, line)| ShownLine { line, text: (*text).to_string() }).collect();
        self.blocks.push(ShownBlock { path: path.to_string(), lines });
    }

    /// Record a changed file's hunks: per hunk one head-side block (context + added,
    /// at new line numbers) and one old-side block (context + removed, at anchors).
    pub fn add_hunks(&mut self, file: &ChangedFile) {
        let path = file.diff.path();
        for hunk in &file.diff.hunks {
            let mut head = Vec::new();
            let mut old = Vec::new();
            for l in &hunk.lines {
                let at_new = l.new.unwrap_or(l.anchor);
                let shown = |line| ShownLine { line, text: l.text.clone() };
                match l.kind {
                    LineKind::Context => {
                        head.push(shown(at_new));
                        old.push(shown(at_new));
                    }
                    LineKind::Added => head.push(shown(at_new)),
                    LineKind::Removed => old.push(shown(l.anchor)),
                }
            }
            for lines in [head, old] {
                if !lines.is_empty() {
                    self.blocks.push(ShownBlock { path: path.to_string(), lines });
                }
            }
        }
    }

    /// Whether any block of `path` covers some line in `start..=end`.
    pub fn covers(&self, path: &str, start: u32, end: u32) -> bool {
        self.blocks_of(path).flat_map(|b| &b.lines).any(|l| (start..=end).contains(&l.line))
    }

    /// Whether `quote` (whitespace-normalised; also tried with leading diff markers
    /// `+`/`-` stripped from each line) occurs in a block of `path` using only lines
    /// within `start - slack ..= end + slack`.
    pub fn contains_near(&self, path: &str, start: u32, end: u32, slack: u32, quote: &str) -> bool {
        let variants = quote_variants(quote);
        if variants.is_empty() {
            return false;
        }
        let lo = start.saturating_sub(slack).max(1);
        let hi = end.saturating_add(slack);
        self.blocks_of(path)
            .any(|block| window_runs(block, lo, hi).iter().any(|run| variants.iter().any(|q| run.contains(q.as_str()))))
    }

    pub fn paths(&self) -> std::collections::BTreeSet<&str> {
        self.blocks.iter().map(|b| b.path.as_str()).collect()
    }

    fn blocks_of<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a ShownBlock> + 'a {
        self.blocks.iter().filter(move |b| b.path == path)
    }
}

/// The normalised texts of the maximal runs of consecutive lines of `block` whose
/// line numbers all lie in `lo..=hi`. A quote occurs in some run of such lines iff
/// it occurs in one of these maximal runs.
fn window_runs(block: &ShownBlock, lo: u32, hi: u32) -> Vec<String> {
    let mut runs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for l in &block.lines {
        if (lo..=hi).contains(&l.line) {
            current.push(&l.text);
        } else if !current.is_empty() {
            runs.push(normalize(&current.join(" ")));
            current.clear();
        }
    }
    if !current.is_empty() {
        runs.push(normalize(&current.join(" ")));
    }
    runs
}

/// The normalised forms a quote is tried in: as is, and with one leading diff
/// marker (`+`, `-`, ` `) stripped from each line. Empty forms are left out.
fn quote_variants(quote: &str) -> Vec<String> {
    let as_is = normalize(quote);
    let stripped =
        normalize(&quote.lines().map(|l| l.strip_prefix(['+', '-', ' ']).unwrap_or(l)).collect::<Vec<_>>().join("\n"));
    let mut variants = vec![as_is];
    if stripped != variants[0] {
        variants.push(stripped);
    }
    variants.retain(|v| !v.is_empty());
    variants
}

/// Collapse every whitespace run to one space and trim.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
