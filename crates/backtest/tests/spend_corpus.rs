//! What running specialists only where they have something to work with saves on
//! the sample corpus, with scripted answers: the same backtest twice, once with
//! the built-in rules and once with every reviewer running on every file it
//! applies to (the rules as they were before `[when]`), side by side. The scripted
//! recall must not move; the calls and the request tokens must fall.

mod support;

use gauntlet_backtest::corpus;
use gauntlet_backtest::report::{Backtest, Meta, summarise};
use gauntlet_backtest::run::run_all;
use gauntlet_review::rules::{BUILTIN, Channel};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use support::{Script, Scripted, finder, setup, verdict};

const RESET: &str = "A rejected batch resets the cursor to zero, so the next pass resends every event.";

/// The answers of `gauntlet backtest`'s end-to-end test: the error-handling
/// reviewer catches the one escape whose code holds `save_cursor(db, 0)`.
fn scripts() -> Vec<Script> {
    let found = json!([{"lens": "failure_scenario", "location": "stocksync/sync.py:29", "claim": RESET,
                        "evidence": "save_cursor(db, 0)", "severity": "high"}]);
    vec![
        finder("error-handling", "save_cursor(db, 0)", found),
        verdict(RESET, "survives", "stocksync/sync.py:29 `save_cursor(db, 0)` runs on every rejected batch", 100),
    ]
}

/// A rule file as it was before `[when]`: the table dropped, so the reviewer runs
/// on every file `applies_to` matches; the tests reviewer read test files only.
fn always_on(text: &str) -> String {
    let Some(start) = text.find("\n[when]") else { return text.to_string() };
    let end = start + text[start..].find("\n+++").expect("the front matter closes");
    let table = &text[start..end];
    let mut out = format!("{}{}", &text[..start], &text[end..]);
    let paths = table.lines().find(|l| l.starts_with("paths = "));
    if let Some(paths) = paths.filter(|_| out.contains("name = \"tests\"")) {
        out = out.replace("applies_to = [\"**\"]", &paths.replacen("paths", "applies_to", 1));
    }
    out
}

/// A channel folder holding the always-on versions of the built-in rules.
fn always_on_channel(dir: &Path) -> Channel {
    let rules = dir.join("rules");
    std::fs::create_dir_all(&rules).unwrap();
    for (name, text) in BUILTIN {
        std::fs::write(rules.join(name), always_on(text)).unwrap();
    }
    Channel { dir: dir.to_path_buf(), tag: "always-on".into() }
}

struct Spent {
    report: Backtest,
    /// Finder calls by reviewer.
    finders: BTreeMap<String, usize>,
    calls: usize,
    /// Request text sent, in estimated tokens (four characters a token).
    tokens: usize,
}

fn run(channel: Option<Channel>) -> Spent {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let cases = corpus::load(&root).expect("the sample corpus loads");
    let provider = Scripted::new(scripts());
    let mut setup = setup(Arc::clone(&provider), false, 3);
    setup.channel = channel;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let results = run_all(&cases, &setup, runtime.handle(), &|_| {});
    let meta = Meta {
        corpus: "corpus".into(),
        provider: "scripted:fixed".into(),
        tolerance: 3,
        max_span: gauntlet_backtest::score::DEFAULT_MAX_SPAN,
        threshold: 75,
        baseline: false,
        shard: None,
        notes: Vec::new(),
    };
    let report = summarise(meta, results);
    let seen = provider.seen.lock().unwrap().clone();
    let mut finders = BTreeMap::new();
    for (step, reviewer) in &seen {
        if step == "find" {
            *finders.entry(reviewer.clone().unwrap_or_default()).or_default() += 1;
        }
    }
    let tokens = provider.texts.lock().unwrap().iter().map(|t| t.len() / 4).sum();
    Spent { report, finders, calls: seen.len(), tokens }
}

#[test]
fn specialists_that_have_nothing_to_work_with_stay_off_and_recall_holds() {
    let dir = tempfile::tempdir().unwrap();
    let before = run(Some(always_on_channel(dir.path())));
    let after = run(None);
    let (b, a) = (&before.report.gauntlet.totals, &after.report.gauntlet.totals);
    for s in [&before, &after] {
        let failed: Vec<String> =
            s.report.cases.iter().filter_map(|c| Some(format!("{}: {}", c.name, c.error.as_ref()?))).collect();
        assert!(failed.is_empty(), "{failed:?}");
    }
    assert_eq!((a.caught, a.defects), (b.caught, b.defects), "the scripted recall holds");
    assert_eq!(a.caught, 1, "the swallowed error of py-sync-cursor-reset is still found");
    let of = |s: &Spent, n: &str| s.finders.get(n).copied().unwrap_or(0);
    for name in ["security-privacy", "error-handling"] {
        assert!(of(&after, name) < of(&before, name), "{name}: {} then {}", of(&before, name), of(&after, name));
    }
    assert!(after.calls < before.calls && after.tokens < before.tokens);
    let pct = |a: usize, b: usize| 100.0 * (b - a) as f64 / b as f64;
    eprintln!(
        "finder calls by reviewer, always on: {:?}\nfinder calls by reviewer, with [when]: {:?}\n\
         calls {} -> {} (-{:.0}%), request tokens {} -> {} (-{:.0}%), recall {}/{} both",
        before.finders,
        after.finders,
        before.calls,
        after.calls,
        pct(after.calls, before.calls),
        before.tokens,
        after.tokens,
        pct(after.tokens, before.tokens),
        a.caught,
        a.defects,
    );
}
