//! `gauntlet stats --format html`, loaded in a real headless Chromium (Debian's
//! `chromium`, installed by scripts/deps), against the GitHub repository fake with
//! hostile HTML in the data: one pipeline comment names a reviewer and a severity
//! made of markup and a `</script>` breakout, carries the same text as its claim,
//! and the author's dismissal that does not count sits on a file of that name.
//! The test reads the DOM the browser built and saves a screenshot as an artifact
//! (looked at by people, never compared).

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;
mod support;

use fakes::repo::{FakeRepo, Kind, scenario};
use support::{artifacts, chromium};

const HOSTILE: &str = "<img src=x onerror=alert(1)></script><script>document.title=1</script><b id=injected>x</b>";

async fn stats_html(fake: &FakeRepo) -> (bool, String, String) {
    let uri = fake.server.uri();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let out = assert_cmd::Command::cargo_bin("gauntlet")
            .unwrap()
            .current_dir(dir.path())
            .args(["stats", "--format", "html"])
            .env("GITHUB_REPOSITORY", "o/r")
            .env("GITHUB_API_URL", &uri)
            .env("GITHUB_TOKEN", "ghs_faketoken")
            .env_remove("GITHUB_GRAPHQL_URL")
            .env_remove("GAUNTLET_GITHUB_LOGIN")
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stats_page_renders_in_chromium_with_every_table_the_chart_and_no_injected_element() {
    let mut repo = scenario(Kind::GitHub);
    // Pull request 3 holds the dismissed finding on src/c.rs (reviewer `security`,
    // severity low) and the author's uncounted dismissal on src/d.rs.
    let pr3 = repo.pulls.iter_mut().find(|p| p.number == 3).unwrap();
    let c = pr3.threads.iter_mut().find(|t| t.path == "src/c.rs").unwrap();
    assert!(c.body.contains("**low**") && c.body.contains("reviewer `security`"), "{}", c.body);
    c.body = c
        .body
        .replace("**low**", &format!("**{HOSTILE}**"))
        .replace("reviewer `security`", &format!("reviewer `{HOSTILE}`"))
        .replace("A defect in src/c.rs.", HOSTILE);
    let d = pr3.threads.iter_mut().find(|t| t.path == "src/d.rs").unwrap();
    d.path = format!("src/{HOSTILE}.rs");
    let fake = FakeRepo::start(Kind::GitHub, repo).await;

    let (ok, html, err) = stats_html(&fake).await;
    assert!(ok, "{err}");
    assert!(
        html.contains("&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;"),
        "the hostile names are on the page, escaped"
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("stats.html");
    std::fs::write(&page, &html).unwrap();

    let (dom, _) = chromium(&page, &dir.path().join("profile-dom"), &["--dump-dom"]).await;
    assert!(dom.contains("<title>gauntlet stats: GitHub o/r</title>"), "the title was not rewritten: {dom}");
    assert!(dom.contains("<p id=\"covers\">3 merged or closed pull request(s), closed 2024-01-20 to 2024-03-05.</p>"));
    // Totals: the hand counts of the scenario (fixed 3, withdrawn 2, dismissed 3, ignored 3).
    assert!(dom.contains("<table id=\"totals\">"), "totals: {dom}");
    for (row, n) in [("published", 11), ("fixed", 3), ("withdrawn", 2), ("dismissed", 3), ("ignored", 3), ("open", 0)] {
        assert!(dom.contains(&format!("<tr><th>{row}</th><td class=\"n\">{n}</td></tr>")), "{row} {n}: {dom}");
    }
    assert!(dom.contains("<td class=\"n\">50% (3 fixed of 6 fixed or dismissed)</td>"), "precision in the wild");
    // Per reviewer: `logic`, `security`, and the hostile name as a text cell.
    assert!(dom.contains("<table id=\"per-reviewer\">"));
    // Each with three findings only the overview showed (logic) or one (security).
    assert!(dom.contains("<tr><td>logic</td><td class=\"n\">8</td>"), "logic raised eight: {dom}");
    assert!(dom.contains("<tr><td>security</td><td class=\"n\">3</td>"), "security three, less the renamed one: {dom}");
    let hostile_text = "&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;script&gt;document.title=1&lt;/script&gt;\
                        &lt;b id=injected&gt;x&lt;/b&gt;";
    assert!(dom.contains(&format!("<tr><td>{hostile_text}</td><td class=\"n\">1</td>")), "{dom}");
    // Per severity: high, medium, low and the hostile one.
    assert!(dom.contains("<table id=\"per-severity\">"));
    assert!(dom.contains("<tr><td>high</td><td class=\"n\">5</td>") && dom.contains("<tr><td>medium</td>"), "{dom}");
    assert_eq!(dom.matches(&format!("<tr><td>{hostile_text}</td>")).count(), 2, "reviewer and severity rows");
    // The monthly chart: both lines, a point per month where there is something to show.
    assert!(dom.contains("<svg id=\"trend\""), "chart: {dom}");
    assert!(dom.contains("<polyline class=\"precision\"") && dom.contains("<polyline class=\"action-rate\""));
    for month in ["2024-01", "2024-02", "2024-03"] {
        assert!(dom.contains(&format!("class=\"action-rate\" data-month=\"{month}\"")), "action rate in {month}");
        assert!(dom.contains(&format!(">{month}</text>")), "the label of {month}");
    }
    assert!(dom.contains("class=\"precision\" data-month=\"2024-01\" data-value=\"1.0000\""), "{dom}");
    assert!(dom.contains("<table id=\"per-month\">"));
    // The uncounted dismissal names the hostile file, as text.
    assert!(dom.contains("<ul id=\"not-counted\"><li>#3 src/&lt;img"), "{dom}");
    assert!(
        dom.contains("<p id=\"left-out\">Left out: 2 comment(s) someone other than the pipeline edited, 1 finding(s)"),
        "the edited comment and overview, the overview's entry too old to read: {dom}"
    );
    // Every finding, with its pull request, outcome and a link to its thread on the
    // repository the CI variables name (GitHub's web page for `o/r`).
    let findings =
        dom.split("<table id=\"findings\">").nth(1).expect("a findings table").split("</table>").next().unwrap();
    assert_eq!(findings.matches("<tr data-outcome=").count(), 11, "one row per published finding: {findings}");
    assert_eq!(findings.matches("<td>dismissed</td>").count(), 3, "{findings}");
    assert!(findings.contains("<a href=\"https://github.com/o/r/pull/3\">#3</a>"), "{findings}");
    assert!(findings.contains("<a href=\"https://github.com/o/r/pull/3#discussion_r"), "a thread link: {findings}");
    assert!(findings.contains(">overview</a>"), "an overview finding links to its pull request: {findings}");
    assert!(!dom.contains('`'), "code spans are <code>, never literal backticks: {dom}");
    assert!(dom.contains("<ul id=\"left-out-why\"><li>#"), "each left-out comment with its reason: {dom}");
    // The hostile text is text in the page, never markup: no element came from it.
    for injected in ["<img", "<script", "id=\"injected\"", "<b "] {
        assert!(!dom.contains(injected), "`{injected}` became an element: {dom}");
    }

    let shot = artifacts().join("stats-report.png");
    let _ = std::fs::remove_file(&shot);
    let arg = format!("--screenshot={}", shot.display());
    chromium(&page, &dir.path().join("profile-shot"), &[&arg, "--window-size=1280,2600", "--hide-scrollbars"]).await;
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "a real picture at {}", shot.display());
}
