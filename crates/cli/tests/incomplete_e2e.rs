//! A review that could not finish never looks like a pass, end to end on every
//! host: the real binary, a fake model whose validator answers off its contract
//! for a high finding (as a provider outage, or a prompt injected into the
//! change to knock the validator off, would leave it), and the publisher's
//! stateful fakes of GitHub, GitLab and Azure DevOps. With `--fail-on high` the
//! job exits 4 and no host shows a pass; without it the run stays advisory but
//! says it is incomplete; a re-run of the same head reviews again rather than
//! skip what was never judged. A reviewer knocked off its contract, which leaves
//! its share of the change unreviewed, makes the run incomplete the same way; a
//! file left out by policy (binary, too large, ignored) does not.

mod support;

#[path = "../../publish/tests/fakes/mod.rs"]
mod fakes;

use fakes::repo::Kind;
use serde_json::{Value, json};
use support::{Fake, Wire, finder, gauntlet_env, git, repo, verdict};

const BASE: &str = "def refund(order):\n    return order.total\n";
const HEAD: &str = "def refund(order):\n    pay(order.total)\n    return order.total\n";
const CLAIM: &str = "The refund is paid twice when the payment callback retries.";

/// The exit code of an incomplete `ci` run, as the README documents it.
const INCOMPLETE: i32 = 4;

/// One high finding; its validator answers off the verdict contract `broken`
/// times (every try of a run is two), then as the contract asks: it survives.
fn scripts(broken: usize) -> Vec<support::Script> {
    let finding = json!({"lens": "failure_scenario", "location": "src/pay.py:2", "claim": CLAIM,
                         "evidence": "    pay(order.total)", "severity": "high"});
    let off = json!({"verdict": "valid", "evidence": "src/pay.py:2 `pay(order.total)`", "confidence": 75});
    let survives = json!({"verdict": "survives", "evidence": "src/pay.py:2 `pay(order.total)` pays again", "confidence": 100, "impact": "consequential"});
    let mut answers = vec![off; broken];
    answers.push(survives);
    vec![finder("correctness", json!([finding])), verdict("validate", "paid twice", &answers)]
}

/// A pull request from `feature` into `main` in `kind`'s pipeline, the host's
/// fake standing in for it, and the model's fake.
struct Pipeline {
    kind: Kind,
    dir: tempfile::TempDir,
    event: tempfile::NamedTempFile,
    host: fakes::Fake,
    model: wiremock::MockServer,
    fake: Fake,
    /// `--reviewers`.
    reviewers: &'static str,
}

impl Pipeline {
    async fn on(kind: Kind, broken: usize) -> Pipeline {
        Pipeline::with(kind, scripts(broken), "correctness", &[("src/pay.py", HEAD)]).await
    }

    /// Two reviewers on the change, `correctness` knocked off its findings
    /// contract: every answer of its session carries extra fields.
    async fn failed_finder(kind: Kind) -> Pipeline {
        let off = support::Script {
            step: "find",
            reviewer: Some("correctness"),
            claim: None,
            answers: vec![json!({"approved": true, "findings": []}).to_string()],
        };
        Pipeline::with(kind, vec![off], "correctness,security-privacy", &[("src/pay.py", HEAD)]).await
    }

    async fn with(
        kind: Kind,
        scripts: Vec<support::Script>,
        reviewers: &'static str,
        head: &[(&str, &str)],
    ) -> Pipeline {
        let dir = repo(&[("src/pay.py", BASE)], head);
        // Azure Pipelines names the target branch: the clone has it as fetched.
        git(dir.path(), &["update-ref", "refs/remotes/origin/main", "main"]);
        let head = git(dir.path(), &["rev-parse", "HEAD"]).trim().to_string();
        let host = match kind {
            Kind::GitHub => fakes::github::start().await,
            Kind::GitLab => fakes::gitlab::start(&head).await,
            Kind::Azure => fakes::azure::start(&head).await,
        };
        host.state().changed = vec!["src/pay.py".into()];
        let (model, fake) = Fake::start(Wire::Anthropic, scripts).await;
        let event = tempfile::NamedTempFile::new().unwrap();
        let base = git(dir.path(), &["rev-parse", "main"]);
        let e = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head},
                       "draft": false, "state": "open", "user": {"login": "alice"}}});
        std::fs::write(event.path(), e.to_string()).unwrap();
        Pipeline { kind, dir, event, host, model, fake, reviewers }
    }

    fn report(&self) -> std::path::PathBuf {
        self.dir.path().join("gl-code-quality-report.json")
    }

    /// `gauntlet ci ARGS --codequality REPORT` in this pipeline's environment.
    async fn ci(&self, args: &[&str]) -> (i32, String, String) {
        let uri = self.host.server.uri();
        let pipeline = match self.kind {
            Kind::GitHub => support::Pipeline::GitHub,
            Kind::GitLab => support::Pipeline::GitLab,
            Kind::Azure => support::Pipeline::Azure,
        };
        let summary = self.dir.path().join(".git/step-summary.md");
        let env = support::ci_vars(pipeline, self.dir.path(), &uri, self.event.path(), &summary);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let report = self.report();
        let mut all = vec!["ci", "--reviewers", self.reviewers];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--codequality", report.to_str().unwrap()]);
        gauntlet_env(self.dir.path(), Wire::Anthropic, &self.model, &all, &env).await
    }

    fn overview(&self) -> String {
        self.host.overviews().join("\n")
    }

    /// What the host shows as the run's verdict: GitHub's check-run conclusion
    /// and title, Azure DevOps' status state and description; GitLab has none.
    fn shown(&self) -> Option<(String, String)> {
        let state = self.host.state();
        match self.kind {
            Kind::GitHub => {
                state.check_runs.last().map(|r| (r.conclusion.clone().unwrap_or_default(), r.title.clone()))
            }
            Kind::Azure => state
                .statuses
                .last()
                .map(|s| (s["state"].as_str().unwrap_or_default().to_string(), s["description"].to_string())),
            Kind::GitLab => None,
        }
    }

    /// The Code Quality report the run wrote.
    fn entries(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.report()).expect("the run wrote its Code Quality report");
        serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
    }
}

/// The entry the report gives the finding nobody could validate: `info`, at its
/// line, saying what it is.
fn assert_names_the_unverified_finding(kind: Kind, entries: &[Value]) {
    assert_eq!(entries.len(), 1, "{kind:?}: {entries:?}");
    let e = &entries[0];
    assert_eq!((e["severity"].as_str(), e["check_name"].as_str()), (Some("info"), Some("gauntlet/unverified")));
    assert_eq!(
        (e["location"]["path"].as_str(), e["location"]["lines"]["begin"].as_u64()),
        (Some("src/pay.py"), Some(2))
    );
    let description = e["description"].as_str().unwrap();
    assert!(
        description.starts_with("Could not be validated either way") && description.contains(CLAIM),
        "{description}"
    );
}

async fn fail_on_high_is_incomplete_on(kind: Kind) {
    let run = Pipeline::on(kind, 2).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, INCOMPLETE, "{kind:?}: a high finding nobody could validate never passes\n{stderr}");
    assert!(
        stderr.contains("the review is incomplete: 1 candidate finding(s) at or above `high`"),
        "{kind:?}: {stderr}"
    );
    assert!(stderr.contains("high finding at src/pay.py:2 (reviewer correctness)"), "{kind:?}: {stderr}");
    match (kind, run.shown()) {
        (Kind::GitHub, Some((conclusion, title))) => {
            assert_eq!(conclusion, "failure", "a required check must not pass");
            assert!(title.contains("incomplete: 0 findings; 1 at or above high could not be validated"), "{title}");
        }
        (Kind::Azure, Some((state, description))) => {
            assert_eq!(state, "error", "{description}");
            assert!(description.contains("incomplete"), "{description}");
        }
        (Kind::GitLab, None) => {}
        (kind, shown) => panic!("{kind:?} showed {shown:?}"),
    }
    assert_names_the_unverified_finding(kind, &run.entries());
    let overview = run.overview();
    assert!(
        overview.contains("This review is incomplete: 1 candidate finding(s) at or above \\`high\\`"),
        "{kind:?}: {overview}"
    );
    assert!(overview.contains("high finding at src/pay.py:2"), "{kind:?}: the overview names it: {overview}");
    assert!(run.host.errors().is_empty(), "{kind:?}: {:?}", run.host.errors());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_a_high_finding_the_validator_could_not_judge_fails_the_check_run_as_incomplete() {
    fail_on_high_is_incomplete_on(Kind::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_high_finding_the_validator_could_not_judge_is_an_error_status_not_a_pass() {
    fail_on_high_is_incomplete_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_high_finding_the_validator_could_not_judge_fails_the_job_and_is_in_the_code_quality_report() {
    fail_on_high_is_incomplete_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_fail_on_the_run_stays_advisory_but_says_it_is_incomplete() {
    for kind in [Kind::GitHub, Kind::Azure, Kind::GitLab] {
        let run = Pipeline::on(kind, 2).await;
        let (code, _, stderr) = run.ci(&[]).await;
        assert_eq!(code, 0, "{kind:?}: advisory\n{stderr}");
        match (kind, run.shown()) {
            (Kind::GitHub, Some((conclusion, title))) => {
                assert_eq!(conclusion, "neutral");
                assert!(title.contains("advisory, incomplete: 0 findings; 1 could not be validated"), "{title}");
            }
            (Kind::Azure, Some((state, description))) => {
                assert_eq!(state, "notApplicable");
                assert!(description.contains("advisory, incomplete"), "{description}");
            }
            (Kind::GitLab, None) => {}
            (kind, shown) => panic!("{kind:?} showed {shown:?}"),
        }
        assert_names_the_unverified_finding(kind, &run.entries());
        assert!(run.overview().contains("This review is incomplete"), "{kind:?}: {}", run.overview());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_of_an_incomplete_head_reviews_again_and_the_finding_then_blocks() {
    // "Re-run failed jobs" after the outage: the validator answers this time.
    let run = Pipeline::on(Kind::GitHub, 2).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, INCOMPLETE);
    let validations = run.fake.count("validate");
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert!(!stderr.contains("already reviewed"), "an incomplete head is never skipped: {stderr}");
    assert!(run.fake.count("validate") > validations, "the finding was validated again");
    assert_eq!(code, 3, "judged this time, the high finding fails the job\n{stderr}");
    assert_eq!(run.shown().map(|(c, _)| c).as_deref(), Some("failure"));
    assert_eq!(run.host.inline().len(), 1, "and it is posted");
    assert!(run.entries().iter().all(|e| e["severity"] == "critical"), "{:?}", run.entries());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_after_an_incomplete_run_reviews_the_whole_pull_request_again() {
    let run = Pipeline::on(Kind::GitHub, 2).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, INCOMPLETE);
    // A push that leaves the unjudged file alone.
    std::fs::write(run.dir.path().join("README.md"), "notes\n").unwrap();
    git(run.dir.path(), &["add", "README.md"]);
    git(run.dir.path(), &["commit", "-qm", "another push"]);
    let head = git(run.dir.path(), &["rev-parse", "HEAD"]);
    let base = git(run.dir.path(), &["rev-parse", "main"]);
    let e = json!({"pull_request": {"number": 1, "base": {"sha": base.trim()}, "head": {"sha": head.trim()},
                   "draft": false, "state": "open", "user": {"login": "alice"}}});
    std::fs::write(run.event.path(), e.to_string()).unwrap();
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert!(stderr.contains("reviewing 2 file(s)"), "src/pay.py is reviewed again, not only the push: {stderr}");
    assert_eq!(code, 3, "and its finding, judged this time, fails the job\n{stderr}");
    assert!(run.overview().contains("could not validate every candidate"), "{}", run.overview());
}

async fn a_reviewer_that_could_not_finish_makes_fail_on_incomplete_on(kind: Kind) {
    let run = Pipeline::failed_finder(kind).await;
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, INCOMPLETE, "{kind:?}: a reviewer that never finished leaves its share unreviewed\n{stderr}");
    assert!(stderr.contains("1 reviewer session(s) could not finish"), "{kind:?}: {stderr}");
    assert!(stderr.contains("reviewer correctness (find):"), "{kind:?}: {stderr}");
    match (kind, run.shown()) {
        (Kind::GitHub, Some((conclusion, title))) => {
            assert_eq!(conclusion, "failure", "a required check must not pass");
            assert!(title.contains("incomplete: 0 findings; reviewer correctness could not finish"), "{title}");
            let summary = run.host.state().check_runs.last().unwrap().summary.clone();
            assert!(summary.contains("- reviewer correctness (find): "), "the summary says why: {summary}");
        }
        (Kind::Azure, Some((state, description))) => {
            assert_eq!(state, "error", "{description}");
            assert!(description.contains("incomplete") && description.contains("correctness"), "{description}");
        }
        (Kind::GitLab, None) => {}
        (kind, shown) => panic!("{kind:?} showed {shown:?}"),
    }
    let overview = run.overview();
    assert!(
        overview.contains("This review is incomplete: 1 reviewer session(s) could not finish"),
        "{kind:?}: {overview}"
    );
    assert!(overview.contains("reviewer correctness (find): "), "{kind:?}: the overview names it: {overview}");
    assert!(overview.contains("contract"), "{kind:?}: and says why: {overview}");
    assert!(run.host.errors().is_empty(), "{kind:?}: {:?}", run.host.errors());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_a_reviewer_knocked_off_its_contract_fails_the_check_run_as_incomplete() {
    a_reviewer_that_could_not_finish_makes_fail_on_incomplete_on(Kind::GitHub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_a_reviewer_knocked_off_its_contract_is_an_error_status_not_a_pass() {
    a_reviewer_that_could_not_finish_makes_fail_on_incomplete_on(Kind::Azure).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_a_reviewer_knocked_off_its_contract_fails_the_job_as_incomplete() {
    a_reviewer_that_could_not_finish_makes_fail_on_incomplete_on(Kind::GitLab).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_fail_on_a_reviewer_that_could_not_finish_leaves_the_run_advisory_but_incomplete() {
    for kind in [Kind::GitHub, Kind::Azure] {
        let run = Pipeline::failed_finder(kind).await;
        let (code, _, stderr) = run.ci(&[]).await;
        assert_eq!(code, 0, "{kind:?}: advisory\n{stderr}");
        match (kind, run.shown()) {
            (Kind::GitHub, Some((conclusion, title))) => {
                assert_eq!(conclusion, "neutral");
                assert!(
                    title.contains("advisory, incomplete: 0 findings; reviewer correctness could not finish"),
                    "{title}"
                );
            }
            (Kind::Azure, Some((state, description))) => {
                assert_eq!(state, "notApplicable");
                assert!(description.contains("advisory, incomplete"), "{description}");
            }
            (kind, shown) => panic!("{kind:?} showed {shown:?}"),
        }
        assert!(run.overview().contains("This review is incomplete"), "{kind:?}: {}", run.overview());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_after_a_reviewer_could_not_finish_reviews_the_head_again() {
    let run = Pipeline::failed_finder(Kind::GitHub).await;
    assert_eq!(run.ci(&["--fail-on", "high"]).await.0, INCOMPLETE);
    let finds = run.fake.count("find");
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert!(!stderr.contains("already reviewed"), "an unfinished head is never skipped: {stderr}");
    assert!(run.fake.count("find") > finds, "the reviewers ran again");
    assert_eq!(code, INCOMPLETE, "still knocked off, still incomplete\n{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_left_out_as_binary_does_not_make_a_clean_run_incomplete() {
    let head = [("src/pay.py", HEAD), ("assets/logo.png", "\u{0}PNG\u{0}\u{1}binary\u{0}")];
    let run = Pipeline::with(Kind::GitHub, Vec::new(), "correctness", &head).await;
    run.host.state().changed = vec!["src/pay.py".into(), "assets/logo.png".into()];
    let (code, _, stderr) = run.ci(&["--fail-on", "high"]).await;
    assert_eq!(code, 0, "a file nobody can show a model is policy, not a failure\n{stderr}");
    let (conclusion, title) = run.shown().unwrap();
    assert_eq!(conclusion, "success", "{title}");
    assert!(run.overview().contains("not reviewed: `assets/logo.png`"), "still listed: {}", run.overview());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_fail_on_exits_incomplete_when_a_reviewer_could_not_finish() {
    let run = Pipeline::failed_finder(Kind::GitHub).await;
    let args = ["review", "--fail-on", "high", "--reviewers", run.reviewers, "--format", "json"];
    let (code, _, stderr) = support::gauntlet(run.dir.path(), Wire::Anthropic, &run.model, &args).await;
    assert_eq!(code, INCOMPLETE, "{stderr}");
    assert!(stderr.contains("reviewer correctness (find):"), "{stderr}");
    let args = ["review", "--reviewers", run.reviewers, "--format", "json"];
    let (code, _, stderr) = support::gauntlet(run.dir.path(), Wire::Anthropic, &run.model, &args).await;
    assert_eq!(code, 0, "advisory without --fail-on\n{stderr}");
}
