//! `gauntlet backtest --format html` on a corpus mined from a repository whose
//! `origin` is on github.com: commits and findings link to the host's pages,
//! derived from the remote without `--repo-url`, and a given `--repo-url` wins.
//! The page is read back from a headless Chromium's DOM.

#[path = "../../backtest/tests/support/history.rs"]
mod history;
mod support;

use support::{Fake, Wire, chromium, gauntlet};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mined_corpus_links_its_commits_and_lines_to_the_origin_remote() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let h = history::build(&repo);
    history::git(&repo, &["remote", "add", "origin", "git@github.com:o/r.git"], 0);
    let corpus = dir.path().join("mined").display().to_string();
    let (server, _fake) = Fake::start(Wire::Anthropic, support::paging::scripts()).await;
    let (code, _, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &["backtest", "mine", "--out", &corpus]).await;
    assert_eq!(code, 0, "{stderr}");

    let (code, html, stderr) =
        gauntlet(&repo, Wire::Anthropic, &server, &["backtest", &corpus, "--format", "html"]).await;
    assert_eq!(code, 0, "{stderr}");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).unwrap();
    let (dom, _) = chromium(&page, &dir.path().join("profile"), &["--dump-dom"]).await;
    let paging = h.id("paging");
    let lines =
        format!("<a href=\"https://github.com/o/r/blob/{paging}/src/paging.py#L3\"><code>src/paging.py:3</code></a>");
    assert!(dom.contains(&lines), "the hit links to its line at the reviewed commit: {dom}");
    let commit = format!("<a href=\"https://github.com/o/r/commit/{paging}\"><code>{}</code></a>", &paging[..12]);
    assert!(dom.contains(&commit), "the reviewed commit links to its page: {dom}");
    let missed: Vec<&str> = dom.split("<span class=\"mark\">○ missed</span> ").skip(1).collect();
    assert!(!missed.is_empty(), "the page shows the case's misses: {dom}");
    assert!(
        missed.iter().all(|m| m.starts_with("<a href=\"https://github.com/o/r/blob/")),
        "every miss links to its lines: {dom}"
    );

    let given = ["backtest", &corpus, "--format", "html", "--repo-url", "https://gitlab.com/g/r"];
    let (code, html, stderr) = gauntlet(&repo, Wire::Anthropic, &server, &given).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(html.contains(&format!("https://gitlab.com/g/r/-/commit/{paging}")), "--repo-url wins over origin");
    assert!(!html.contains("https://github.com/o/r"), "{html}");
}
