//! The symbol index behind related code: how long it takes to build, what memory it
//! needs, and how much related code a change gets.
//!
//! Run with `cargo bench -p gauntlet-review --bench index`. Two sections:
//!
//! 1. `generated`: a repository of 100,000 lines (500 Rust files of 200 lines in 50
//!    folders; types, fields and functions that call across modules), with about
//!    1,000 and 10,000 changed lines. Timed: [`related::gather`] from
//!    the change to the ranked, budgeted entries (parsing the changed files, one
//!    name-search pass over every other file, parsing those that mention a name,
//!    ranking), cold (empty parse cache, as a first review) and warm (every blob
//!    already parsed, as the next part of a split change or a re-run).
//! 2. `corpus`: the sample corpus's cases, related-code entries and tokens per change.
//!
//! Memory is the peak of live heap bytes during the cold run above what was live
//! before it (a counting allocator), and what stays behind in the parse cache.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_review::related;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Counts live heap bytes and their peak, so the index's memory is measured, not
/// guessed from the process's resident set.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const FILES: usize = 500;
const LINES_PER_FILE: usize = 200;
const BUDGET: usize = 25_000;
const FILE_BYTES: usize = 512 * 1024;

use gauntlet_review::pipeline::Memory;

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

/// One module file: a type with fields, functions that read the previous module's
/// type and call its loader, and a runner that calls the next module's functions,
/// so names cross files as in real code. A changed file rewrites both body lines of
/// every function.
fn module_file(f: usize, changed: bool) -> String {
    let (prev, next) = ((f + FILES - 1) % FILES, (f + 1) % FILES);
    let mut out = format!("use crate::m{prev}::{{Item{prev}, load_{prev}}};\n\n");
    out.push_str(&format!("pub struct Item{f} {{\n    pub total_{f}: u64,\n    pub label_{f}: String,\n}}\n\n"));
    out.push_str(&format!(
        "pub fn run_{f}(x: &Item{f}) -> u64 {{\n    crate::m{next}::step_{next}_0(x) + crate::m{next}::step_{next}_1(x)\n}}\n\n"
    ));
    out.push_str(&format!("pub fn load_{f}(v: u64) -> u64 {{\n    v\n}}\n\n"));
    let mut n = 0;
    while out.lines().count() + 5 <= LINES_PER_FILE {
        let (arg, op) = if changed { (format!(" + {n}"), "saturating_add") } else { (String::new(), "wrapping_add") };
        out.push_str(&format!(
            "pub fn step_{f}_{n}(x: &Item{prev}) -> u64 {{\n    let base = load_{prev}(x.total_{prev}{arg});\n    \
             base.{op}({n})\n}}\n\n"
        ));
        n += 1;
    }
    out
}

/// The repository with `changed_files` files changed, spread evenly (so each has
/// untouched neighbours that call it and that it calls), ten files a folder.
fn tree(changed_files: usize) -> BTreeMap<String, String> {
    let stride = FILES / changed_files.clamp(1, FILES);
    let changed = |f: usize| changed_files > 0 && f.is_multiple_of(stride) && f / stride < changed_files;
    (0..FILES).map(|f| (format!("src/m{}/m{f}.rs", f / 10), module_file(f, changed(f)))).collect()
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

/// Start measuring peak heap use from what is live now.
fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn generated() {
    println!("== generated repository: {FILES} files, {} lines ==", FILES * LINES_PER_FILE);
    let base = tree(0);
    let per_file = changed_lines(&change_of(&tree(0), &tree(1)));
    for target in [1_000usize, 10_000] {
        let changed_files = target.div_ceil(per_file);
        // Distinct texts per size, so the cold run really starts with nothing cached.
        let salt = format!("// size {changed_files}\n");
        let salted = |t: &BTreeMap<String, String>| t.iter().map(|(p, t)| (p.clone(), format!("{salt}{t}"))).collect();
        let repo = Memory(salted(&tree(changed_files)));
        let change = change_of(&salted(&base), &repo.0);
        let lines = changed_lines(&change);
        let before = reset_peak();
        let clock = Instant::now();
        let cold = related::gather(&change, &repo, FILE_BYTES, BUDGET);
        let cold_ms = clock.elapsed().as_secs_f64() * 1000.0;
        let grown = mib(PEAK.load(Ordering::Relaxed) - before);
        let kept = mib(LIVE.load(Ordering::Relaxed).saturating_sub(before));
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
             (median of 5), heap peak +{grown:.1} MiB (parse cache kept: {kept:.1} MiB); {} entries, {} tokens \
             of {BUDGET}, {} left out",
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
