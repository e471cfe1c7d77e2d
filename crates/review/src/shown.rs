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
    /// Lines of the base side of a hunk (context and removed lines at their
    /// anchors): their numbers are not head lines, so they never join head text.
    pub old_side: bool,
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
        self.blocks.push(ShownBlock { path: path.to_string(), lines, old_side: false });
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
            for (lines, old_side) in [(head, false), (old, true)] {
                if !lines.is_empty() {
                    self.blocks.push(ShownBlock { path: path.to_string(), lines, old_side });
                }
            }
        }
    }

    /// Whether any block of `path` covers some line in `start..=end`.
    pub fn covers(&self, path: &str, start: u32, end: u32) -> bool {
        covers(&[self], path, start, end)
    }

    /// Whether `quote` (whitespace-normalised; also tried with leading diff markers
    /// `+`/`-` stripped from each line) occurs in what was shown of `path`, using
    /// only lines within `start - slack ..= end + slack`. Head lines shown by
    /// different blocks (a whole file, ranges read in any turn, search hits) count
    /// together, so a quote may run across two reads of adjacent lines; a hunk's
    /// base side is matched on its own.
    pub fn contains_near(&self, path: &str, start: u32, end: u32, slack: u32, quote: &str) -> bool {
        contains_near(&[self], path, start, end, slack, quote)
    }

    pub fn paths(&self) -> std::collections::BTreeSet<&str> {
        self.blocks.iter().map(|b| b.path.as_str()).collect()
    }
}

/// [`Shown::covers`] over several records of one session (what it was shown
/// before its turn, its own region, what it read).
pub fn covers(records: &[&Shown], path: &str, start: u32, end: u32) -> bool {
    blocks_of(records, path).flat_map(|b| &b.lines).any(|l| (start..=end).contains(&l.line))
}

/// [`Shown::contains_near`] over several records of one session.
pub fn contains_near(records: &[&Shown], path: &str, start: u32, end: u32, slack: u32, quote: &str) -> bool {
    near(records, path, start, end, slack, quote, true)
}

/// [`contains_near`] in code that exists at head only: a hunk's base side (lines
/// the change removed) does not count. A disproof must rest on code that is there.
pub fn contains_near_at_head(records: &[&Shown], path: &str, start: u32, end: u32, slack: u32, quote: &str) -> bool {
    near(records, path, start, end, slack, quote, false)
}

fn near(records: &[&Shown], path: &str, start: u32, end: u32, slack: u32, quote: &str, base_side: bool) -> bool {
    let variants = quote_variants(quote);
    if variants.is_empty() {
        return false;
    }
    let lo = start.saturating_sub(slack).max(1);
    let hi = end.saturating_add(slack);
    let found = |runs: Vec<String>| runs.iter().any(|run| variants.iter().any(|q| run.contains(q.as_str())));
    let mut blocks = blocks_of(records, path).filter(|b| base_side || !b.old_side);
    if blocks.any(|block| found(window_runs(block.lines.iter(), lo, hi))) {
        return true;
    }
    // Not inside one block: join the head lines every block showed of the window.
    let mut head: std::collections::BTreeMap<u32, &str> = std::collections::BTreeMap::new();
    for l in blocks_of(records, path).filter(|b| !b.old_side).flat_map(|b| &b.lines) {
        if (lo..=hi).contains(&l.line) {
            // A search hit shows a line cut short; the longest text of a line is the line.
            let text = head.entry(l.line).or_insert(&l.text);
            if l.text.len() > text.len() {
                *text = &l.text;
            }
        }
    }
    found(joined_runs(&head))
}

fn blocks_of<'a>(records: &'a [&'a Shown], path: &'a str) -> impl Iterator<Item = &'a ShownBlock> + 'a {
    records.iter().flat_map(|r| &r.blocks).filter(move |b| b.path == path)
}

/// The normalised texts of the runs of consecutive line numbers in `lines`.
fn joined_runs(lines: &std::collections::BTreeMap<u32, &str>) -> Vec<String> {
    let mut runs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut last = None;
    for (&n, &text) in lines {
        if last.is_some_and(|l: u32| l + 1 != n) && !current.is_empty() {
            runs.push(normalize(&current.join(" ")));
            current.clear();
        }
        current.push(text);
        last = Some(n);
    }
    if !current.is_empty() {
        runs.push(normalize(&current.join(" ")));
    }
    runs
}

/// The normalised texts of the maximal runs of consecutive lines of a block whose
/// line numbers all lie in `lo..=hi`. A quote occurs in some run of such lines iff
/// it occurs in one of these maximal runs.
fn window_runs<'a>(block: impl Iterator<Item = &'a ShownLine>, lo: u32, hi: u32) -> Vec<String> {
    let mut runs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for l in block {
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
