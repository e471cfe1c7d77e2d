//! The benchmarks of issue 4: critical path, non-model overhead, and prompt caching.
//!
//! Run with `cargo bench -p gauntlet-review --bench pipeline`. Every figure is a
//! median over several runs measured in this same process, and every ratio compares
//! figures from this run only, so the numbers hold on whatever machine runs them.
//!
//! The model is always a fake [`Provider`]: what is measured is gauntlet itself (how
//! well it overlaps model calls, what it costs around them, what it sends).

use gauntlet_change::git::Git;
use gauntlet_change::{Change, Target, acquire, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Turn, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::HeadFiles;
use gauntlet_review::pipeline::{self, Input, Models, Options, RepoHead, RepoRead};
use gauntlet_review::rules::{self, Origin, Reviewer};
use gauntlet_review::secrets::Masker;
use gauntlet_review::{Review, context, gate, guidance, prompt};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// Counts live heap bytes and their peak while switched on (only around the symbol
/// index, so the rest of the review runs at the system allocator's speed but for
/// one relaxed load per call).
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

    pub struct Counting;
    static ON: AtomicBool = AtomicBool::new(false);
    static LIVE: AtomicIsize = AtomicIsize::new(0);
    static PEAK: AtomicIsize = AtomicIsize::new(0);

    // SAFETY: every call is passed on to the system allocator unchanged.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() && ON.load(Ordering::Relaxed) {
                let now = LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed) + layout.size() as isize;
                PEAK.fetch_max(now, Ordering::Relaxed);
            }
            p
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            if ON.load(Ordering::Relaxed) {
                LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
            }
        }
    }

    /// Start counting from zero.
    pub fn start() {
        LIVE.store(0, Ordering::Relaxed);
        PEAK.store(0, Ordering::Relaxed);
        ON.store(true, Ordering::Relaxed);
    }

    /// Stop counting; the peak of bytes allocated and not yet freed since [`start`].
    pub fn stop() -> usize {
        ON.store(false, Ordering::Relaxed);
        PEAK.load(Ordering::Relaxed).max(0) as usize
    }
}

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

/// Files and lines of the in-memory change of benchmarks 1 and 3: large enough that
/// the shared block is well past Anthropic's 4,096-token cache minimum and at least
/// ten times any reviewer's own turn.
const MEMORY_FILES: usize = 8;
const MEMORY_LINES: usize = 100;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    // `cargo bench -p gauntlet-review --bench pipeline -- overhead` runs one section;
    // numbers pick overhead sizes (`-- overhead 1000`).
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let (sizes, only): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a.parse::<usize>().is_ok());
    let sizes: Vec<usize> = sizes.iter().filter_map(|s| s.parse().ok()).collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if wanted("critical") {
        critical_path(&rt);
    }
    if wanted("overhead") {
        overhead(&rt, &sizes);
    }
    if wanted("tokens") {
        tokens(&rt);
    }
}

// ---------------------------------------------------------------------------------
// Shared fixtures
// ---------------------------------------------------------------------------------

/// One line of synthetic code, unique per (file, line) so a quote pins its place.
fn line_text(file: usize, line: usize) -> String {
    format!("    let v{file}_{line} = step({line}, {file}); // synthetic line")
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 { samples[mid] } else { (samples[mid - 1] + samples[mid]) / 2.0 }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A change that adds `files` files of `lines` lines, built through the real patch
/// parser so its hunks look exactly like acquired ones (no git needed).
fn memory_change(files: usize, lines: usize) -> Change {
    let mut patch = String::new();
    let mut texts = Vec::new();
    for f in 0..files {
        let path = format!("src/f{f}.rs");
        patch.push_str(&format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"));
        patch.push_str(&format!("@@ -0,0 +1,{lines} @@\n"));
        let body: String = (1..=lines).map(|l| line_text(f, l) + "\n").collect();
        patch.extend(body.lines().map(|l| format!("+{l}\n")));
        texts.push(body);
    }
    let diffs = parse_patch(&patch).expect("synthetic patch parses");
    assert_eq!(diffs.len(), files, "one diff per synthetic file");
    let files = diffs
        .into_iter()
        .zip(texts)
        .map(|(diff, text)| gauntlet_change::ChangedFile { diff, head_text: Some(text), unreadable: None })
        .collect();
    Change { base: "base".into(), head: "head".into(), snapshot: gauntlet_change::Snapshot::Worktree, files }
}

/// The repository at head for an in-memory change: exactly its files.
struct MemoryHead<'a>(&'a Change);

impl HeadFiles for MemoryHead<'_> {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.text(path).map(|t| t.lines().count() as u32)
    }
}

impl RepoRead for MemoryHead<'_> {
    fn text(&self, path: &str) -> Option<String> {
        self.0.file(path).and_then(|f| f.head_text.clone())
    }
}

/// `count` reviewers with distinct names, parsed from rule files like a repository's own.
fn synthetic_reviewers(count: usize) -> Vec<Reviewer> {
    (0..count)
        .map(|i| {
            let text = format!(
                "+++\nname = \"bench-{i}\"\ndescription = \"Synthetic reviewer {i}\"\nmax_findings = 10\n+++\n\
                 Look for defects of kind {i} in the change.\n"
            );
            Reviewer::parse(&format!("bench-{i}.md"), &text, Origin::Builtin).expect("synthetic rule parses")
        })
        .collect()
}

fn memory_input<'a>(change: &'a Change, head: &'a MemoryHead<'a>, reviewers: Vec<Reviewer>) -> Input<'a> {
    Input {
        change,
        reviewers,
        guidance: Vec::new(),
        head,
        rules_version: "bench".into(),
        fence: Fence::fixed("DATA-bench"),
        intent: None,
    }
}

// ---------------------------------------------------------------------------------
// The fake model
// ---------------------------------------------------------------------------------

/// What the fake model answers.
#[derive(Clone, Copy)]
enum Script {
    /// Three grounded findings per reviewer; validators keep all but one per reviewer,
    /// which they disprove with checkable evidence (so no rubber-stamp re-validation).
    Grounded,
    /// No findings at all: a run is then only gauntlet's own work around four calls.
    Silent,
}

struct Fake {
    latency: Duration,
    /// When set, the fake behaves like a provider whose prompt cache is usable once
    /// an answer has started: a call whose start is awaited reports it after this
    /// long (the prompt read), then takes the rest of `latency` to answer.
    first_byte: Option<Duration>,
    script: Script,
    /// Every request, when asked to keep them (the token benchmark reads their sizes).
    /// Off elsewhere: cloning megabytes of prompt would inflate the overhead figures.
    kept: Option<Mutex<Vec<Request>>>,
}

impl Fake {
    fn new(latency: Duration, script: Script) -> Fake {
        Fake { latency, first_byte: None, script, kept: None }
    }
}

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "bench"
    }
    fn model(&self) -> &str {
        "fake"
    }
    fn caches_after_start(&self) -> bool {
        self.first_byte.is_some()
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        if let Some(kept) = &self.kept {
            kept.lock().expect("kept lock").push(request.clone());
        }
        match self.first_byte {
            Some(first) if gauntlet_model::start_is_awaited() => {
                tokio::time::sleep(first).await;
                gauntlet_model::answer_started();
                tokio::time::sleep(self.latency.saturating_sub(first)).await;
            }
            _ if !self.latency.is_zero() => tokio::time::sleep(self.latency).await,
            _ => {}
        }
        let json = match (self.script, request.step.as_str()) {
            (Script::Silent, _) => json!({ "findings": [] }).to_string(),
            (Script::Grounded, "find") => findings(request),
            (Script::Grounded, _) => verdict(request),
        };
        Ok(Response { json, tool_calls: Vec::new(), usage: Usage { input: 1000, output: 100, ..Usage::default() } })
    }
}

/// Where finding `k` of reviewer `r` points: (file, line). Each reviewer has its own
/// file, so findings of different reviewers never merge.
fn site(r: usize, k: usize) -> (usize, usize) {
    (r % MEMORY_FILES, 10 + 20 * k + r)
}

fn findings(request: &Request) -> String {
    let name = request.reviewer.as_deref().expect("finder requests name their reviewer");
    let r: usize = name.trim_start_matches("bench-").parse().expect("synthetic reviewer name");
    let items: Vec<_> = (0..3)
        .map(|k| {
            let (file, line) = site(r, k);
            json!({
                "lens": "failure_scenario",
                "location": format!("src/f{file}.rs:{line}"),
                // The ids let the validator find this finding's site again.
                "claim": format!("bench-claim {r} {k}: the step can overflow"),
                "evidence": line_text(file, line).trim(),
                "severity": "medium",
            })
        })
        .collect();
    json!({ "findings": items }).to_string()
}

fn verdict(request: &Request) -> String {
    let text = turns_text(request);
    let ids = text.split("bench-claim ").nth(1).expect("validator turn carries the claim");
    let mut ids = ids.split([' ', ':']).map(|n| n.parse::<usize>().expect("claim ids"));
    let (r, k) = (ids.next().expect("reviewer id"), ids.next().expect("finding id"));
    let (file, line) = site(r, k);
    let at = format!("src/f{file}.rs:{line}");
    if k == 0 {
        let evidence = format!("{at} `{}` is bounded", line_text(file, line).trim());
        json!({ "verdict": "disproved", "evidence": evidence, "confidence": 75, "impact": "consequential" }).to_string()
    } else {
        json!({ "verdict": "survives", "evidence": format!("{at} nothing bounds it"), "confidence": 75, "impact": "consequential" }).to_string()
    }
}

fn turns_text(request: &Request) -> String {
    request
        .turns
        .iter()
        .map(|t| match t {
            Turn::User { text } | Turn::Assistant { text, .. } => text.clone(),
            Turn::ToolResults { results } => results.iter().map(|r| r.content.clone()).collect(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// 1. Critical path
// ---------------------------------------------------------------------------------

const LATENCY: Duration = Duration::from_millis(200);
/// Time to the first byte of an answer: the prompt has been read (and cached).
const FIRST_BYTE: Duration = Duration::from_millis(50);
const REVIEWERS: usize = 8;
const RUNS_CRITICAL: usize = 5;

/// Wall time of a whole run when every model call takes 200 ms. The dependency
/// chain is one finder call then one validator call, plus the prompt-cache warm-up:
/// the first finder goes alone and the others start once its answer has begun
/// (50 ms here), so they read the cache it wrote.
///
/// With 8 reviewers, 24 validations and 8 calls in flight, the validations need
/// three rounds whatever the scheduler does, so the chain alone is out of reach at
/// concurrency 8; the figure that shows gauntlet's own delays there is wall time
/// against the bound that concurrency allows. At concurrency 24 the chain is reachable.
fn critical_path(rt: &Runtime) {
    println!(
        "== 1. critical path ({REVIEWERS} reviewers, 3 findings each, {}ms per model call, answers start after {}ms) ==",
        LATENCY.as_millis(),
        FIRST_BYTE.as_millis()
    );
    let change = memory_change(MEMORY_FILES, MEMORY_LINES);
    let head = MemoryHead(&change);
    let fake = Fake { first_byte: Some(FIRST_BYTE), ..Fake::new(LATENCY, Script::Grounded) };
    let models = Models::single(Arc::new(fake));
    let chain = ms(FIRST_BYTE + LATENCY * 2);
    for concurrency in [8, 24] {
        let opts = Options { concurrency, ..Options::default() };
        let mut walls = Vec::new();
        for _ in 0..RUNS_CRITICAL {
            let input = memory_input(&change, &head, synthetic_reviewers(REVIEWERS));
            let started = Instant::now();
            let review = rt.block_on(pipeline::run(&input, &models, &opts));
            walls.push(ms(started.elapsed()));
            check_grounded_run(&review);
        }
        let wall = median(walls);
        let waves = REVIEWERS.div_ceil(concurrency) + (3 * REVIEWERS).div_ceil(concurrency);
        let bound = ms(FIRST_BYTE) + ms(LATENCY) * waves as f64;
        println!(
            "concurrency {concurrency:>2}: wall {wall:.0} ms | chain (warm-up + finder + validator) {chain:.0} ms, \
             wall/chain {:.2} | bound at this concurrency {bound:.0} ms (warm-up + {waves} rounds), \
             wall/bound {:.2} (target <= 1.20)",
            wall / chain,
            wall / bound
        );
    }
}

/// The timing only means something if the run did what the script intends.
fn check_grounded_run(review: &Review) {
    assert!(review.gaps.is_empty(), "gaps: {:?}", review.gaps);
    assert_eq!(review.funnel.grounded, 3 * REVIEWERS, "every finding grounds: {:?}", review.dropped);
    assert_eq!(review.funnel.survived, 2 * REVIEWERS, "one disproof per reviewer");
    assert!(!review.notes.iter().any(|n| n.contains("rubber-stamp")), "no re-validation: {:?}", review.notes);
}

// ---------------------------------------------------------------------------------
// 2. Non-model overhead against `git diff`
// ---------------------------------------------------------------------------------

/// Changed lines per file: every other line of a 200-line file is rewritten, so
/// hunks carry context like real scattered edits do.
const CHANGED_PER_FILE: usize = 100;
const FILE_LINES: usize = 2 * CHANGED_PER_FILE;

/// gauntlet's own work (acquire, input, pipeline with an instant model) against the
/// `git diff` it starts from, at 1k, 10k and 100k changed lines, in a repository of
/// at least 100,000 lines; and, measured on its own in the same run, the symbol
/// index behind related code (its build time and memory), which reads every file
/// at head and so grows with the repository, not with the change.
///
/// The primary figure is CPU time (user + system, of this process and of the git
/// processes it waited for), which is what the issue asks for and which stays put
/// when other work shares the machine; wall time is printed beside it.
fn overhead(rt: &Runtime, sizes: &[usize]) {
    println!("\n== 2. non-model overhead vs git diff (instant fake model, built-in reviewers) ==");
    let models = Models::single(Arc::new(Fake::new(Duration::ZERO, Script::Silent)));
    let mut previous: Option<(f64, f64)> = None;
    for (changed, runs) in [(1_000, 21), (10_000, 11), (100_000, 5)] {
        if !sizes.is_empty() && !sizes.contains(&changed) {
            continue;
        }
        let files = changed / CHANGED_PER_FILE;
        let repo = synthetic_repo(files);
        let root = Git::discover(repo.path()).expect("synthetic repo").root().to_path_buf();
        // Interleaved, so both see the same moments of a noisy machine.
        let (mut diffs, mut splits) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            diffs.push(time_git_diff(repo.path()));
            splits.push(rt.block_on(gauntlet_once(&root, &models)));
        }
        let (diff_cpu, diff_wall) =
            (median(diffs.iter().map(|c| c.cpu).collect()), median(diffs.iter().map(|c| c.wall).collect()));
        let part = |f: fn(&Split) -> f64| median(splits.iter().map(f).collect());
        let cpu = part(|s| s.cpu);
        let wall = part(|s| s.acquire + s.prepare + s.context + s.run);
        println!(
            "{changed:>6} lines ({files:>4} files): CPU git diff {diff_cpu:6.1} ms, gauntlet {cpu:6.1} ms, ratio {:.2} \
             (target <= 2) | wall git diff {diff_wall:6.1} ms, gauntlet {wall:6.1} ms (acquire {:.1}, \
             gate+rules+masking+guidance+head {:.1}, context {:.1}, fence+pipeline::run {:.1}), ratio {:.2}",
            cpu / diff_cpu,
            part(|s| s.acquire),
            part(|s| s.prepare),
            part(|s| s.context),
            part(|s| s.run),
            wall / diff_wall
        );
        let (index_cpu, index_wall) = (part(|s| s.index.cpu), part(|s| s.index.wall));
        println!(
            "        symbol index for related code (cold, {} files at head): CPU {index_cpu:6.1} ms, wall \
             {index_wall:6.1} ms, peak heap {:.1} MiB, {:.0} entries; whole review with it: CPU ratio {:.2}",
            files.max(REPO_FILES),
            part(|s| s.index_peak) / (1024.0 * 1024.0),
            part(|s| s.index_entries),
            (cpu + index_cpu) / diff_cpu,
        );
        if let Some((prev_diff, prev_cpu)) = previous {
            println!(
                "        growth x10 lines (CPU): git diff x{:.1}, gauntlet x{:.1}",
                diff_cpu / prev_diff,
                cpu / prev_cpu
            );
        }
        previous = Some((diff_cpu, cpu));
    }
}

/// CPU time so far of this process and of every child it has waited for, in ms.
fn cpu_now() -> f64 {
    let used = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(who, &mut usage) };
        assert_eq!(rc, 0, "getrusage");
        let tv = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
        tv(usage.ru_utime) + tv(usage.ru_stime)
    };
    used(libc::RUSAGE_SELF) + used(libc::RUSAGE_CHILDREN)
}

/// Wall and CPU milliseconds of one measured piece of work.
struct Cost {
    wall: f64,
    cpu: f64,
}

/// Milliseconds spent in each stage of one review, to say where overhead comes from.
struct Split {
    acquire: f64,
    /// The gate's facts, rule selection, secret masking, guidance and the head reader.
    prepare: f64,
    /// Gathering the context reviewers ask for (history, consumers).
    context: f64,
    /// The fence and `pipeline::run`.
    run: f64,
    /// CPU time of the whole review but the symbol index, git processes included.
    cpu: f64,
    /// The symbol index behind related code, built cold (as in a new process).
    index: Cost,
    /// Peak heap bytes the index needed above what was live before it.
    index_peak: f64,
    /// Related-code entries it produced (within the default budget).
    index_entries: f64,
}

/// One review as `gauntlet review` prepares and runs it (crates/cli/src/commands/
/// review.rs), minus the model: the gate's facts, the rules, secret masking, the
/// context reviewers ask for, the fence and the pipeline.
async fn gauntlet_once(root: &Path, models: &Models) -> Split {
    let cpu = cpu_now();
    let clock = Instant::now();
    // A fresh handle each run: opening the repository in-process is part of the cost.
    let git = &Git::at(root);
    let target = Target::Range { base: "main".into(), head: Some("change".into()) };
    let mut change = acquire(git, &target).expect("acquire");
    let acquire = ms(clock.elapsed());

    let clock = Instant::now();
    let subjects = git.commit_subjects(&change.base, &change.head);
    let attributes = git.read(&change.snapshot, ".gitattributes").expect("attributes");
    let generated = gate::generated_globs(&String::from_utf8_lossy(&attributes.unwrap_or_default()));
    let config = gate::GateConfig::default();
    let (ignored, _) = gate::classify(&change, &generated, &config).expect("gate config");
    let kept = |path: &str| !ignored.iter().any(|(p, _)| p == path);
    let builtins = enabled_builtins();
    let files: Vec<&gauntlet_change::FileDiff> =
        change.files.iter().map(|f| &f.diff).filter(|d| kept(d.path())).collect();
    let selected: Vec<Reviewer> = rules::select(&builtins, &files, &[], &[])
        .into_iter()
        .filter(|(_, s)| matches!(s, rules::Selection::Runs { .. }))
        .map(|(r, _)| r.clone())
        .collect();
    let rules_version = rules::version(&selected.iter().collect::<Vec<_>>());
    let state = git.common_dir().expect("common dir").join("gauntlet").join("reviewed").join(&rules_version);
    let pr = gate::PrMeta::default();
    let input = gate::GateInput {
        change: &change,
        pr: &pr,
        commit_subjects: &subjects,
        generated_globs: &generated,
        already_reviewed: state.exists(),
        force: false,
    };
    assert!(matches!(gate::decide(&input, &config), Ok(gate::Decision::Review { .. })), "the gate lets it through");
    change.files.retain(|f| kept(f.diff.path()));
    let masker = Arc::new(Masker::new(&[]).expect("built-in secret patterns"));
    masker.change(&mut change);
    let change = change;
    let mut guidance = guidance::load(git, &change).expect("guidance");
    for g in &mut guidance {
        g.text = masker.text(&g.text).0;
    }
    let head = RepoHead::new(git, &change).expect("repo head").masking(masker.clone());
    let prepare = ms(clock.elapsed());

    // The context the enabled built-ins ask for (no prior feedback here, so that
    // reviewer sits out, as it does without an export).
    let clock = Instant::now();
    let config = context::Config::default();
    let sources = context::Sources { git, change: &change, head: &head, config: &config };
    let mut prepared = context::prepare(&sources, selected);
    assert!(prepared.failures.is_empty(), "context failures: {:?}", prepared.failures);
    context::mask(&mut prepared.reviewers, &masker);
    let reviewers = prepared.reviewers;
    let context = ms(clock.elapsed());

    let clock = Instant::now();
    let mut untrusted = prompt::untrusted_texts(&change, &guidance);
    untrusted.extend(context::untrusted_texts(&reviewers));
    let fence = Fence::new(&mut rand::rng(), untrusted);
    let input = Input { change: &change, reviewers, guidance, head: &head, rules_version, fence, intent: None };
    // Related code is measured on its own below, so this run leaves it out.
    let without_related = Options { related_tokens: Some(0), ..Options::default() };
    let review = pipeline::run(&input, models, &without_related).await;
    let run = ms(clock.elapsed());
    assert!(review.gaps.is_empty(), "gaps: {:?}", review.gaps);
    drop(review);
    drop(input);
    let cpu = cpu_now() - cpu;

    // The symbol index and related code, as `pipeline::run` builds them with the
    // default budget, from an empty parse cache (a review is one process).
    gauntlet_code::forget_parses();
    let opts = Options::default();
    let (index_cpu, clock) = (cpu_now(), Instant::now());
    heap::start();
    let related = gauntlet_review::related::gather(&change, &head, opts.tools.file_bytes, opts.related_budget());
    let index_peak = heap::stop() as f64;
    let index = Cost { wall: ms(clock.elapsed()), cpu: cpu_now() - index_cpu };
    let index_entries = related.entries.len() as f64;
    drop(related);
    drop(change);
    Split { acquire, prepare, context, run, cpu, index, index_peak, index_entries }
}

/// Wall and CPU time of `git diff main change`, output read in full as gauntlet reads it.
fn time_git_diff(dir: &Path) -> Cost {
    let cpu = cpu_now();
    let started = Instant::now();
    let out = git(dir).args(["diff", "--no-color", "main", "change"]).output().expect("git diff runs");
    assert!(out.status.success() && !out.stdout.is_empty(), "git diff produced the change");
    let wall = ms(started.elapsed());
    drop(out);
    Cost { wall, cpu: cpu_now() - cpu }
}

fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

fn git_ok(dir: &Path, args: &[&str]) {
    let out = git(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Files at head at least (100,000 lines): the index behind related code reads the
/// untouched ones too.
const REPO_FILES: usize = 500;

/// A repository with `files` files (and untouched ones up to [`REPO_FILES`]) on
/// `main`, and a branch `change` that rewrites every other line of the first `files`.
fn synthetic_repo(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    git_ok(root, &["init", "-q", "-b", "main"]);
    write_files(root, files.max(REPO_FILES), false);
    git_ok(root, &["add", "-A"]);
    git_ok(root, &["commit", "-q", "-m", "base"]);
    git_ok(root, &["checkout", "-q", "-b", "change"]);
    write_files(root, files, true);
    git_ok(root, &["commit", "-q", "-a", "-m", "change"]);
    dir
}

fn write_files(root: &Path, files: usize, changed: bool) {
    // Ten files a folder, as code is usually laid out (and guidance is looked up per folder).
    for f in 0..files {
        let folder = root.join(format!("src/m{}", f / 10));
        std::fs::create_dir_all(&folder).expect("folder");
        let text: String =
            (1..=FILE_LINES)
                .map(|l| {
                    if changed && l % 2 == 1 {
                        line_text(f, l).replace("step", "step_checked")
                    } else {
                        line_text(f, l)
                    }
                })
                .map(|l| l + "\n")
                .collect();
        std::fs::write(folder.join(format!("f{f}.rs")), text).expect("write file");
    }
}

// ---------------------------------------------------------------------------------
// 3. Input tokens with and without the shared context cached
// ---------------------------------------------------------------------------------

/// Anthropic prompt caching: a cache write bills 1.25x the input price, a read 0.1x.
const CACHE_WRITE: f64 = 1.25;
const CACHE_READ: f64 = 0.1;

/// Billed input units of one run of the four built-in reviewers, from the requests
/// the pipeline really sends (tokens estimated at four characters each).
fn tokens(rt: &Runtime) {
    println!("\n== 3. input tokens per run, shared context cached vs not (4 built-in reviewers) ==");
    // A test file too, so the `tests` reviewer (which only reads tests) runs as well.
    let mut change = memory_change(MEMORY_FILES, MEMORY_LINES);
    let test = "#[test]\nfn steps_add_up() {\n    assert_eq!(step(1, 2), 3);\n}\n";
    let patch = format!(
        "diff --git a/tests/step_test.rs b/tests/step_test.rs\nnew file mode 100644\n--- /dev/null\n\
         +++ b/tests/step_test.rs\n@@ -0,0 +1,4 @@\n{}",
        test.lines().map(|l| format!("+{l}\n")).collect::<String>()
    );
    let diff = parse_patch(&patch).expect("test file patch parses").remove(0);
    change.files.push(gauntlet_change::ChangedFile { diff, head_text: Some(test.to_string()), unreadable: None });
    let head = MemoryHead(&change);
    let fake = Arc::new(Fake { kept: Some(Mutex::new(Vec::new())), ..Fake::new(Duration::ZERO, Script::Silent) });
    let models = Models::single(fake.clone());
    let input = memory_input(&change, &head, plain_builtins());
    rt.block_on(pipeline::run(&input, &models, &Options::default()));
    let requests = fake.kept.as_ref().expect("kept").lock().expect("kept lock").clone();
    assert_eq!(requests.len(), 4, "one finder call per reviewer, no findings");
    // Caching is only possible if every call starts with the very same bytes.
    assert!(requests.windows(2).all(|w| w[0].shared == w[1].shared), "shared blocks are identical");
    let shared = (requests[0].shared.iter().map(String::len).sum::<usize>() / 4) as f64;
    let turns: Vec<f64> = requests.iter().map(|r| (turns_text(r).len() / 4) as f64).collect();
    let largest = turns.iter().copied().fold(0.0, f64::max);
    let uncached: f64 = turns.iter().map(|t| shared + t).sum();
    let cached: f64 = shared * CACHE_WRITE + turns[0] + turns[1..].iter().map(|t| shared * CACHE_READ + t).sum::<f64>();
    println!(
        "shared block {shared:.0} tokens (>= 4096: {}) | largest reviewer turn {largest:.0} tokens \
         ({:.1}% of shared, <= 10%: {})",
        shared >= 4096.0,
        100.0 * largest / shared,
        largest <= shared / 10.0
    );
    println!(
        "uncached {uncached:.0} units | cached {cached:.0} units | cached/uncached {:.1}% (target <= 50%)",
        100.0 * cached / uncached
    );
    println!(
        "        (the cached figure has one call write the entry and the others read it: on providers that cache \
         once an answer starts, the pipeline sends the first finder alone and the rest after its start; \
         crates/review/tests/warm_up.rs checks that order)"
    );
}

/// The built-in reviewers that need no gathered context and are on by default (the
/// four the figures were first measured with); context reviewers do not run here,
/// as nothing gathers their context.
/// Every built-in reviewer that is on by default, as `review` runs them.
fn enabled_builtins() -> Vec<gauntlet_review::rules::Reviewer> {
    rules::builtin().into_iter().filter(|r| r.enabled).collect()
}

fn plain_builtins() -> Vec<gauntlet_review::rules::Reviewer> {
    rules::builtin().into_iter().filter(|r| r.enabled && r.context.is_empty()).collect()
}
