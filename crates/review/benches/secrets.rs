//! Masking throughput and false alarms, on this repository's own files.
//!
//! Run with `cargo bench -p gauntlet-review --bench secrets`. Every tracked file
//! that is UTF-8 text (the vendored gitleaks rule file left out: it is the rule
//! set, not source) is masked as one text per file, as a review masks head texts;
//! seven rounds, and the median round's MB/s is printed. Every mask made on that
//! source is a false alarm (the repository holds no real secret; its tests build
//! their fake ones at run time), and each is listed by file, line and rule, never
//! by value.

use gauntlet_review::secrets::Masker;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

const ROUNDS: usize = 7;
const VENDORED: &str = "crates/review/src/secrets/gitleaks/";

fn repository_texts() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let listed = Command::new("git").arg("-C").arg(&root).args(["ls-files", "-z"]).output().expect("git ls-files");
    String::from_utf8(listed.stdout)
        .expect("UTF-8 paths")
        .split('\0')
        .filter(|p| !p.is_empty() && !p.starts_with(VENDORED))
        .filter_map(|p| Some((p.to_string(), String::from_utf8(std::fs::read(root.join(p)).ok()?).ok()?)))
        .collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let started = Instant::now();
    let applied = gauntlet_review::secrets::rules::applied();
    let masker = Masker::new(&[]).expect("built-in rules");
    println!(
        "{applied} rules parsed in {:.0} ms (each regex is compiled on its first use)",
        started.elapsed().as_secs_f64() * 1e3
    );

    let texts = repository_texts();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let mut rates = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut masked = 0usize;
        for (_, text) in &texts {
            masked += std::hint::black_box(masker.text(text)).1.len();
        }
        std::hint::black_box(masked);
        rates.push(bytes as f64 / 1e6 / start.elapsed().as_secs_f64());
    }
    println!(
        "masking: {} files, {:.1} MB, median {:.0} MB/s over {ROUNDS} rounds (min {:.0}, max {:.0})",
        texts.len(),
        bytes as f64 / 1e6,
        median(rates.clone()),
        rates.iter().cloned().fold(f64::INFINITY, f64::min),
        rates.iter().cloned().fold(0.0, f64::max),
    );

    let mut alarms = Vec::new();
    for (path, text) in &texts {
        for (line, hit) in masker.text(text).1 {
            alarms.push(format!("{path}:{}  {}", line + 1, hit.kind));
        }
    }
    let in_tests = alarms.iter().filter(|a| a.contains("/tests/") || a.contains("tests.rs")).count();
    println!("false alarms: {} masks on this repository's source ({in_tests} in test files)", alarms.len());
    for a in &alarms {
        println!("  {a}");
    }
}
