//! The symbol index behind related code: how long it takes to build, what memory it
//! needs, and how much related code a change gets.
//!
//! Run with `cargo bench -p gauntlet-review --bench index`. Two sections:
//!
//! 1. `generated`: a repository of 100,000 lines (500 Rust files of 200 lines in 50
//!    modules; types, fields and functions that call across modules), changed in 10
//!    or 100 files (1,000 or 10,000 changed lines). Timed: [`related::gather`] from
//!    the change to the ranked, budgeted entries (parsing the changed files, one
//!    name-search pass over every other file, parsing those that mention a name,
//!    ranking), cold (empty parse cache, as a first review) and warm (every blob
//!    already parsed, as the next part of a split change or a re-run).
//! 2. `corpus`: the sample corpus's cases, related-code entries and tokens per change.
//!
//! Memory is the growth of this process's peak resident set across the cold run
//! (`getrusage`), an upper bound of what the index and the texts it holds cost.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::pipeline::RepoRead;
use gauntlet_review::related;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

const FILES: usize = 500;
const LINES_PER_FILE: usize = 200;
const BUDGET: usize = 25_000;
const FILE_BYTES: usize = 512 * 1024;

struct Memory(BTreeMap<String, String>);

impl HeadFiles for Memory {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.0.get(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for Memory {
    fn text(&self, path: &str) -> Option<String> {
        self.0.get(path).cloned()
    }
    fn files(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wanted = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    if wanted("generated") {
        generated();
    }
    if wanted("corpus") {
        corpus();
    }
}

/// One module file: a type with fields, functions that use the previous module's
/// type and call its functions, so names cross files as in real code.
fn module_file(f: usize, changed: bool) -> String {
    let prev = (f + FILES - 1) % FILES;
    let mut out = format!("use crate::m{prev}::{{Item{prev}, load_{prev}}};\n\n");
    out.push_str(&format!("pub struct Item{f} {{\n    pub total_{f}: u64,\n    pub label_{f}: String,\n}}\n\n"));
    let mut n = 0;
    while out.lines().count() + 6 <= LINES_PER_FILE {
        let edited = changed && n % 2 == 0;
        let op = if edited { "saturating_add" } else { "wrapping_add" };
        out.push_str(&format!(
            "pub fn step_{f}_{n}(x: &Item{prev}) -> u64 {{\n    let base = load_{prev}(x.total_{prev});\n    \
             base.{op}({n})\n}}\n\n"
        ));
        n += 1;
    }
    out.push_str(&format!("pub fn load_{f}(v: u64) -> u64 {{\n    v\n}}\n"));
    out
}

fn tree(changed_files: usize) -> BTreeMap<String, String> {
    (0..FILES).map(|f| (format!("src/m{}/m{f}.rs", f / 10), module_file(f, f < changed_files))).collect()
}

/// The change between two trees, through the real patch parser.
fn change_of(base: &BTreeMap<String, String>, head: &BTreeMap<String, String>) -> Change {
    let mut files = Vec::new();
    for (path, new) in head {
        let old = base.get(path);
        if old == Some(new) {
            continue;
        }
        let body = diffy::create_patch(old.map_or("", String::as_str), new).to_string();
        let hunks = body.split_once("\n@@").map(|(_, h)| format!("@@{h}")).unwrap_or_default();
        let header = match old {
            Some(_) => format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"),
            None => format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"),
        };
        let diff = parse_patch(&(header + &hunks)).expect("a generated patch parses").remove(0);
        files.push(ChangedFile { diff, head_text: Some(new.clone()), unreadable: None });
    }
    Change { base: "base".into(), head: "head".into(), snapshot: Snapshot::Worktree, files }
}

fn changed_lines(change: &Change) -> usize {
    let lines = change.files.iter().flat_map(|f| &f.diff.hunks).flat_map(|h| &h.lines);
    lines.filter(|l| l.kind != gauntlet_change::LineKind::Context).count()
}

/// Peak resident set of this process so far, in MiB.
fn peak_mib() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) }, 0, "getrusage");
    usage.ru_maxrss as f64 / 1024.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn generated() {
    println!("== generated repository: {FILES} files, {} lines ==", FILES * LINES_PER_FILE);
    let base = tree(0);
    for changed_files in [10, 100] {
        // Distinct texts per size, so the cold run really starts with nothing cached.
        let salt = format!("// size {changed_files}\n");
        let salted = |t: &BTreeMap<String, String>| t.iter().map(|(p, t)| (p.clone(), format!("{salt}{t}"))).collect();
        let repo = Memory(salted(&tree(changed_files)));
        let change = change_of(&salted(&base), &repo.0);
        let lines = changed_lines(&change);
        let before = peak_mib();
        let clock = Instant::now();
        let cold = related::gather(&change, &repo, FILE_BYTES, BUDGET);
        let cold_ms = clock.elapsed().as_secs_f64() * 1000.0;
        let grown = peak_mib() - before;
        let warm: Vec<f64> = (0..5)
            .map(|_| {
                let clock = Instant::now();
                let again = related::gather(&change, &repo, FILE_BYTES, BUDGET);
                assert_eq!(again, cold, "the same change gets the same related code");
                clock.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        println!(
            "{lines:>6} changed lines ({changed_files:>3} files): related code cold {cold_ms:7.1} ms, warm {:7.1} ms \
             (median of 5), peak memory +{grown:.1} MiB; {} entries, {} tokens of {BUDGET}, {} left out",
            median(warm),
            cold.entries.len(),
            cold.tokens(),
            cold.omitted.len()
        );
    }
}

/// Files under `dir`, by path relative to it.
fn read_tree(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        if e.path().is_dir() {
            read_tree(&e.path(), &rel, out);
        } else if let Ok(text) = std::fs::read_to_string(e.path()) {
            out.insert(rel, text);
        }
    }
}

fn corpus() {
    println!("\n== sample corpus: related code per change (budget {BUDGET} tokens) ==");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/src");
    let mut cases: Vec<_> = std::fs::read_dir(&src).expect("corpus/src").flatten().map(|e| e.path()).collect();
    cases.sort();
    for case in cases {
        let base_dir = match std::fs::read_to_string(case.join("same_base_as")) {
            Ok(other) => src.join(other.trim()).join("base"),
            Err(_) => case.join("base"),
        };
        let mut base = BTreeMap::new();
        read_tree(&base_dir, "", &mut base);
        let mut head = base.clone();
        read_tree(&case.join("head"), "", &mut head);
        let change = change_of(&base, &head);
        let repo = Memory(head);
        let clock = Instant::now();
        let related = related::gather(&change, &repo, FILE_BYTES, BUDGET);
        let ms = clock.elapsed().as_secs_f64() * 1000.0;
        let lines: usize = repo.0.values().map(|t| t.lines().count()).sum();
        println!(
            "{:<36} {:>5} lines at head: {:>2} entries, {:>5} tokens, {:>2} left out, {ms:6.1} ms",
            case.file_name().unwrap().to_string_lossy(),
            lines,
            related.entries.len(),
            related.tokens(),
            related.omitted.len()
        );
    }
}
