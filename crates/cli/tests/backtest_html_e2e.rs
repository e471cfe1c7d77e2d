//! `gauntlet backtest CORPUS --format html`, loaded in a real headless Chromium
//! (Debian's `chromium`, installed by scripts/deps): the sample corpus, with one
//! published claim carrying hostile HTML. The test reads the DOM the browser built
//! and saves a screenshot as an artifact (looked at by people, never compared).

mod support;

use serde_json::json;
use std::path::PathBuf;
use support::{Fake, Script, Wire, artifacts, chromium, finder, gauntlet, verdict};

const HOSTILE: &str = "Cursor reset <img src=x onerror=alert(1)><script>document.title=1</script><b id=injected>x</b> resets the cursor to zero";

/// What the Markdown report carries is on the page too: the change column, the
/// validator sessions, spend per step for both sides, a row per case, a table
/// of contents with an anchor per case, escapes before clean cases, and the
/// baseline's findings beside gauntlet's in every case.
fn at_least_the_markdown(dom: &str, cases: &[String]) {
    assert!(dom.contains("<th>gauntlet</th><th>single-pass baseline</th><th>change</th>"), "{dom}");
    for row in ["precision per distinct defect", "duplicate comments", "wall time (summed)", "billed cost"] {
        assert!(dom.contains(&format!("<tr><th>{row}</th>")), "the totals show {row}");
    }
    assert!(dom.contains("<p id=\"validation\">Validator sessions: "), "{dom}");
    // gauntlet published no false positive, the single pass one per case.
    assert!(dom.contains("<tr><th>false positives</th><td>0 (0.00 per case)</td>"), "{dom}");
    assert!(dom.contains("<td class=\"change\">100% fewer</td>"), "the comparison in words: {dom}");
    let spend =
        dom.split("<table id=\"spend-by-step\">").nth(1).expect("spend by step").split("</table>").next().unwrap();
    for side in ["gauntlet", "baseline"] {
        assert!(spend.contains(&format!("<tr data-side=\"{side}\"><td>{side}</td>")), "{side}'s steps: {spend}");
    }
    assert!(spend.contains("<th>billed</th>") && spend.contains("<th>cache read</th>"), "{spend}");
    let table =
        dom.split("<table id=\"case-table\">").nth(1).expect("a per-case table").split("</table>").next().unwrap();
    assert_eq!(table.matches("<tr data-case=").count(), cases.len(), "a row per case");
    let toc = dom.split("<nav id=\"toc\"").nth(1).expect("a table of contents").split("</nav>").next().unwrap();
    for name in cases {
        assert!(toc.contains(&format!("href=\"#case-{name}\"")), "{name} in the contents");
        assert!(dom.contains(&format!("id=\"case-{name}\"")), "{name}'s anchor");
    }
    let sections: Vec<&str> = dom.split("<section class=\"case ").skip(1).collect();
    let first_clean = sections.iter().position(|s| s.starts_with("clean")).expect("a clean case");
    assert!(first_clean > 0 && sections[first_clean..].iter().all(|s| s.starts_with("clean")), "escapes first");
    let ran = sections.iter().filter(|s| s.contains("class=\"funnel\"")).count();
    assert_eq!(dom.matches("data-side=\"baseline\"><h4>").count(), ran, "the baseline beside every case that ran");
}

/// Every hit, false positive and miss carries an icon and a word, every miss
/// says where the defect is, and no miss line repeats within a case.
fn marks_do_not_rest_on_colour(dom: &str) {
    for (class, mark) in [("hit", "✓ hit"), ("fp", "✗ false positive"), ("missed", "○ missed")] {
        let marked = dom.matches(&format!("data-mark=\"{class}\"><span class=\"mark\">{mark}</span>")).count();
        assert_eq!(marked, dom.matches(&format!("data-mark=\"{class}\"")).count(), "{mark}: every one in words");
    }
    assert!(dom.contains("<span class=\"mark\">✓ hit</span> <code>stocksync/sync.py:29</code>"), "{dom}");
    assert!(dom.contains("<span class=\"mark\">✓ hit</span> <code>stocksync/sync.py:28</code>"), "the baseline's hit");
    assert!(dom.contains("<span class=\"mark\">✗ false positive</span> <code>nowhere.py:1</code>"), "{dom}");
    let misses: Vec<&str> = dom.split("<span class=\"mark\">○ missed</span> ").skip(1).collect();
    assert!(!misses.is_empty(), "the corpus has misses: {dom}");
    assert!(misses.iter().all(|m| m.starts_with("<code>") && m[6..].split("</code>").next().unwrap().contains(':')));
    // Within one side of one case (the baseline lists its own misses).
    for side in dom.split("<div class=\"side\"").skip(1) {
        let lines: Vec<&str> =
            side.split("<li class=\"missed\"").skip(1).map(|l| l.split("</li>").next().unwrap()).collect();
        let distinct: std::collections::BTreeSet<&&str> = lines.iter().collect();
        assert_eq!(distinct.len(), lines.len(), "a miss said twice: {side}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repo_url_that_is_not_a_web_page_is_refused_with_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let corpus_arg = corpus().display().to_string();
    let args = ["backtest", &corpus_arg, "--format", "html", "--repo-url", "git@github.com:o/r.git"];
    let (code, _, stderr) = gauntlet(dir.path(), Wire::Anthropic, &server, &args).await;
    assert_ne!(code, 0);
    assert!(stderr.contains("--repo-url") && stderr.contains("https://github.com/owner/name"), "{stderr}");
    assert!(fake.seen().is_empty(), "refused before any model call");
}

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
    // The single pass answers every case alike: the reset (a hit on its case) and
    // a claim about a file no case has (a false positive everywhere).
    let baseline = Script {
        step: "find",
        reviewer: None,
        claim: Some("list the bugs it introduces"),
        answers: vec![
            json!({"findings": [
                {"location": "stocksync/sync.py:28", "claim": "the cursor goes back to zero", "severity": "high"},
                {"location": "nowhere.py:1", "claim": "a bug in a file that is not there", "severity": "low"}]})
            .to_string(),
        ],
    };
    let scripts = vec![found, verdict("validate", "resets the cursor to zero", &[holds]), baseline];
    let (server, _fake) = Fake::start(Wire::Anthropic, scripts).await;
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
    at_least_the_markdown(&dom, &cases);
    marks_do_not_rest_on_colour(&dom);

    let shot = artifacts().join("backtest-report.png");
    let _ = std::fs::remove_file(&shot);
    let arg = format!("--screenshot={}", shot.display());
    chromium(&page, &dir.path().join("profile-shot"), &[&arg, "--window-size=1280,2400", "--hide-scrollbars"]).await;
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "a real picture at {}", shot.display());
}
