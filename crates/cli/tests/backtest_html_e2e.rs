//! `gauntlet backtest CORPUS --format html`, loaded in a real headless Chromium
//! (Debian's `chromium`, installed by scripts/deps): the sample corpus, with one
//! published claim carrying hostile HTML. The test reads the DOM the browser built
//! and saves a screenshot as an artifact (looked at by people, never compared).

mod support;

use serde_json::json;
use std::path::PathBuf;
use support::{Fake, Wire, artifacts, chromium, finder, gauntlet, verdict};

const HOSTILE: &str = "Cursor reset <img src=x onerror=alert(1)><script>document.title=1</script><b id=injected>x</b> resets the cursor to zero";

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_renders_in_chromium_with_every_case_and_no_injected_element() {
    let dir = tempfile::tempdir().unwrap();
    let mut found = finder(
        "error-handling",
        json!([{"lens": "failure_scenario", "location": "stocksync/sync.py:29", "claim": HOSTILE,
                "evidence": "save_cursor(db, 0)", "severity": "high"}]),
    );
    found.claim = Some("save_cursor(db, 0)");
    let holds = json!({"verdict": "survives", "confidence": 100, "impact": "consequential",
                       "evidence": "stocksync/sync.py:29 `save_cursor(db, 0)` runs on every rejected batch"});
    let (server, _fake) =
        Fake::start(Wire::Anthropic, vec![found, verdict("validate", "resets the cursor to zero", &[holds])]).await;
    let corpus_arg = corpus().display().to_string();
    let (code, html, stderr) =
        gauntlet(dir.path(), Wire::Anthropic, &server, &["backtest", &corpus_arg, "--baseline", "--format", "html"])
            .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "the hostile claim is published, escaped");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).unwrap();

    let (dom, _) = chromium(&page, &dir.path().join("profile-dom"), &["--dump-dom"]).await;
    assert!(dom.contains("<table id=\"totals\">") && dom.contains("<th>precision</th>"), "totals: {dom}");
    assert!(dom.contains("<th>gauntlet</th><th>single-pass baseline</th>"), "side by side with the baseline");
    for row in ["candidate recall (before validation)", "comments per caught defect"] {
        assert!(dom.contains(&format!("<th>{row}</th>")), "the totals show {row}");
    }
    assert!(dom.contains("<svg id=\"sweep\"") && dom.contains("<polyline class=\"precision\""), "chart");
    assert!(dom.contains("<polyline class=\"recall\""));
    for t in [0, 25, 50, 75, 100] {
        assert!(dom.contains(&format!("class=\"precision\" data-threshold=\"{t}\"")), "precision point at {t}");
    }
    let cases: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(cases.len() >= 12, "the sample corpus: {cases:?}");
    for name in &cases {
        assert!(dom.contains(&format!("data-case=\"{name}\"")), "case {name} is on the page");
    }
    assert_eq!(dom.matches("<section class=\"case").count(), cases.len());
    assert!(dom.contains("<table id=\"reviewers\">"), "per-reviewer noise");
    // The claim is text in the page, never markup: no element came from it.
    for injected in ["<img", "<script", "id=\"injected\"", "<b "] {
        assert!(!dom.contains(injected), "`{injected}` became an element: {dom}");
    }
    assert!(dom.contains("&lt;script&gt;document.title=1&lt;/script&gt;"), "the text survives as text");
    assert!(dom.contains("<title>Backtest of "), "the title was not rewritten");

    let shot = artifacts().join("backtest-report.png");
    let _ = std::fs::remove_file(&shot);
    let arg = format!("--screenshot={}", shot.display());
    chromium(&page, &dir.path().join("profile-shot"), &[&arg, "--window-size=1280,2400", "--hide-scrollbars"]).await;
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "a real picture at {}", shot.display());
}
