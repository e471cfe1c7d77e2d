//! Sessions that read code: the validator's tool loop against the fakes of both
//! wire formats, the sandbox's refusals, grounded disproofs over what was read
//! (several places at once, and rejections that name their real cause), the step
//! limit, and reviewers that read within their own smaller budget.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{Fake, Wire, finder, gauntlet, git, tool, tool_results, tools, verdict};

const AUTH: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return doc.owner_id == user.id
";

const AUTH_HEAD: &str = "def can_delete(user, doc):
    if user.is_admin:
        return True
    return True
";

const SESSION: &str = "from tokens import verify


def load(token):
    user = User()
    # The admin flag comes only from a verified token,
    # never from anything the client sends.
    if token is None:
        return user
    user.is_admin = verify(token)
    return user
";

const REAL: &str = "Any user can delete any document because the ownership check was removed.";
const ADMIN: &str = "The admin check trusts a flag the client controls.";

/// A repository under `<tmp>/repo` whose base holds `extra` besides src/auth.py and
/// src/session.py; the feature branch changes src/auth.py. `<tmp>/outside.txt` lies
/// next to it, outside the repository.
pub fn repo_with(extra: &[(&str, &str)], links: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("outside.txt"), "SECRET-OUTSIDE\n").unwrap();
    let d = tmp.path().join("repo");
    std::fs::create_dir_all(d.join("src")).unwrap();
    git(&d, &["init", "-q", "-b", "main"]);
    git(&d, &["config", "user.email", "t@example.com"]);
    git(&d, &["config", "user.name", "t"]);
    std::fs::write(d.join("src/auth.py"), AUTH).unwrap();
    std::fs::write(d.join("src/session.py"), SESSION).unwrap();
    for (path, text) in extra {
        std::fs::write(d.join(path), text).unwrap();
    }
    for (link, target) in links {
        std::os::unix::fs::symlink(target, d.join(link)).unwrap();
    }
    git(&d, &["add", "-A"]);
    git(&d, &["commit", "-q", "-m", "base"]);
    git(&d, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(d.join("src/auth.py"), AUTH_HEAD).unwrap();
    git(&d, &["commit", "-q", "-am", "change"]);
    tmp
}

fn finding(location: &str, claim: &str, evidence: &str) -> Value {
    json!({"lens": "hidden_assumption", "location": location, "claim": claim, "evidence": evidence, "severity": "high"})
}

fn two_findings() -> support::Script {
    finder(
        "correctness",
        json!([finding("src/auth.py:4", REAL, "return True"), finding("src/auth.py:2", ADMIN, "if user.is_admin:"),]),
    )
}

async fn review(dir: &Path, wire: Wire, scripts: Vec<support::Script>) -> (Value, Fake) {
    let (server, fake) = Fake::start(wire, scripts).await;
    let args = ["review", "--format", "json", "--reviewers", "correctness"];
    let (code, out, err) = gauntlet(dir, wire, &server, &args).await;
    assert_eq!(code, 0, "{err}\n{out}");
    (serde_json::from_str(&out).unwrap(), fake)
}

fn requests_about(fake: &Fake, claim: &str) -> Vec<Value> {
    fake.seen()
        .into_iter()
        .filter(|s| s.step == "validate" && s.body.to_string().contains(claim))
        .map(|s| s.body)
        .collect()
}

fn dropped_reason(report: &Value, claim: &str) -> String {
    let d = report["dropped"].as_array().unwrap().iter().find(|d| d["claim"] == claim);
    d.unwrap_or_else(|| panic!("{claim} not dropped: {report}"))["reason"].as_str().unwrap().to_string()
}

async fn disproof_resting_on_a_read_file_is_accepted_on(wire: Wire) {
    let dir = repo_with(&[], &[]);
    let read_session = tool("read_file", json!({"path": "src/session.py", "start_line": 1, "end_line": 12}));
    let scripts = vec![
        two_findings(),
        verdict(
            "validate",
            REAL,
            &[
                read_session.clone(),
                json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True` replaced the owner check", "confidence": 100, "impact": "consequential"}),
            ],
        ),
        verdict(
            "validate",
            ADMIN,
            &[
                read_session,
                json!({"verdict": "disproved", "evidence": "src/session.py:10 `user.is_admin = verify(token)` is set server-side", "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ];
    let (report, fake) = review(&dir.path().join("repo"), wire, scripts).await;
    assert_eq!(dropped_reason(&report, ADMIN), "disproved", "the disproof rests on a line the validator read");
    assert_eq!(report["unverified"], json!([]));
    assert_eq!(report["published"][0]["claim"], REAL);
    assert_eq!(report["published"][0]["read"], json!(["src/session.py"]), "the report names what was read");
    let answered = requests_about(&fake, ADMIN);
    assert_eq!(answered.len(), 2, "one tool turn, then the answer");
    let results = tool_results(&answered[1]);
    assert_eq!(results.len(), 1);
    assert!(results[0].0.contains("   10 |     user.is_admin = verify(token)"), "{}", results[0].0);
    assert!(answered[0]["tools"].to_string().contains("read_file"), "the tools are offered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_validator_disproof_resting_on_a_file_it_read_is_accepted() {
    disproof_resting_on_a_read_file_is_accepted_on(Wire::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_validator_disproof_resting_on_a_file_it_read_is_accepted() {
    disproof_resting_on_a_read_file_is_accepted_on(Wire::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disproof_citing_a_line_never_read_is_reasked_then_kept_as_survives() {
    let dir = repo_with(&[], &[]);
    let cites_unread = json!({"verdict": "disproved", "evidence": "src/session.py:10 `user.is_admin = verify(token)`", "confidence": 100, "impact": "consequential"});
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:2", ADMIN, "if user.is_admin:")])),
        verdict(
            "validate",
            ADMIN,
            &[
                tool("read_file", json!({"path": "src/session.py", "start_line": 1, "end_line": 5})),
                cites_unread.clone(),
                cites_unread,
            ],
        ),
    ];
    let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
    let requests = requests_about(&fake, ADMIN);
    assert_eq!(requests.len(), 3, "tool turn, answer, one re-ask");
    assert!(requests[2].to_string().contains("never shown or read"), "the re-ask says why");
    let kept = &report["unverified"][0];
    assert_eq!(kept["claim"], ADMIN);
    assert_eq!(kept["confidence"], 25);
    assert_eq!(kept["gap"], "disproof cited src/session.py:10, which was never shown or read");
    assert_eq!(kept["read"], json!(["src/session.py"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sandbox_escape_is_refused_as_a_tool_error() {
    let big = "x = 1\n".repeat(400);
    let dir = repo_with(&[("big.py", &big)], &[("link_out", "../outside.txt"), ("link_abs", "/etc/passwd")]);
    let repo = dir.path().join("repo");
    std::fs::write(repo.join("gauntlet.toml"), "[validate]\nmax_file_bytes = 1000\n").unwrap();
    let escapes = [
        ("/etc/passwd", "absolute"),
        ("../outside.txt", "`..`"),
        (".git/config", ".git"),
        ("link_out", "outside the repository"),
        ("link_abs", "outside the repository"),
        ("big.py", "byte limit"),
    ];
    let calls: Vec<(&str, Value)> = escapes.iter().map(|(p, _)| ("read_file", json!({"path": p}))).collect();
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:4", REAL, "return True")])),
        verdict(
            "validate",
            REAL,
            &[
                tools(&calls),
                tool("search", json!({"pattern": "SECRET|root:", "glob": "**"})),
                json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True`", "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ];
    let (report, fake) = review(&repo, Wire::Anthropic, scripts).await;
    let last = requests_about(&fake, REAL).pop().unwrap();
    let results = tool_results(&last);
    assert_eq!(results.len(), escapes.len() + 1);
    for ((path, reason), (text, is_error)) in escapes.iter().zip(&results) {
        assert!(is_error, "{path} must be refused: {text}");
        assert!(text.contains(reason), "{path}: expected `{reason}` in {text}");
    }
    assert!(results[escapes.len()].0.contains("no line matches"), "search sees neither outside nor .git");
    let everything = last.to_string();
    assert!(!everything.contains("SECRET-OUTSIDE") && !everything.contains("root:x:"), "nothing outside leaks");
    assert_eq!(report["published"][0]["claim"], REAL, "refusals do not break the session");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "?? gauntlet.toml\n", "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_limit_ends_the_loop_with_a_recorded_gap() {
    let dir = repo_with(&[], &[]);
    let mut answers = vec![tool("list_dir", json!({"path": "src"})); 9];
    answers.push(json!({"verdict": "survives", "evidence": "src/auth.py:4 `return True`", "confidence": 100, "impact": "consequential"}));
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:4", REAL, "return True")])),
        verdict("validate", REAL, &answers),
    ];
    let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
    let requests = requests_about(&fake, REAL);
    assert_eq!(requests.len(), 10, "8 tool turns, the one over the limit, then the forced answer");
    let last = requests.last().unwrap();
    assert_eq!(last["tool_choice"]["name"], "report_verdict", "the last call must answer");
    assert!(!last["tools"].to_string().contains("read_file"), "and is offered no tools");
    assert!(last.to_string().contains("used all 8 turns of tool calls"));
    let gaps = report["gaps"].as_array().unwrap();
    assert!(
        gaps.iter().any(|g| g["step"] == "validate"
            && g["message"].as_str().unwrap().contains("all 8 tool steps")
            && g["message"].as_str().unwrap().contains("[validate] max_steps")),
        "{gaps:?}"
    );
    assert_eq!(report["published"][0]["claim"], REAL, "the forced answer still counts");
}

/// A disproof that rests on a file read whole (no line range) and on the changed
/// file shown with the change, citing both.
const TWO_PLACES: &str = "src/session.py:10 `user.is_admin = verify(token)` is set server-side, and \
                          src/auth.py:2 trusts only that flag: `if user.is_admin:`";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disproof_citing_a_file_read_whole_and_the_changed_file_is_accepted() {
    let dir = repo_with(&[], &[]);
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:2", ADMIN, "if user.is_admin:")])),
        verdict(
            "validate",
            ADMIN,
            &[
                tool("read_file", json!({"path": "src/session.py"})),
                json!({"verdict": "disproved", "evidence": TWO_PLACES, "confidence": 100, "impact": "consequential"}),
            ],
        ),
    ];
    let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
    assert_eq!(dropped_reason(&report, ADMIN), "disproved", "{report}");
    assert_eq!(requests_about(&fake, ADMIN).len(), 2, "accepted without a re-ask");
    assert_eq!(report["unverified"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_rejected_disproof_is_told_and_recorded_with_its_real_cause() {
    let cases = [
        (
            "src/session.py:10 `user.is_admin = verify(token)` and src/auth.py:2 `if request.user.is_admin:`",
            "disproof quoted `if request.user.is_admin:` which does not occur near any of src/session.py:10, src/auth.py:2",
        ),
        (
            "src/session.py:10 `user.is_admin = verify(token)` and src/tokens.py:3 `def verify(token):`",
            "disproof cited src/tokens.py:3, which was never shown or read",
        ),
        (
            "src/session.py:10 `user.is_admin = verify(token)`, which src/auth.py:2 reads",
            "disproof cited src/auth.py:2 but quoted nothing of at least 8 non-blank characters that occurs there",
        ),
    ];
    for (evidence, why) in cases {
        let dir = repo_with(&[], &[]);
        let wrong = json!({"verdict": "disproved", "evidence": evidence, "confidence": 100, "impact": "consequential"});
        let scripts = vec![
            finder("correctness", json!([finding("src/auth.py:2", ADMIN, "if user.is_admin:")])),
            verdict("validate", ADMIN, &[tool("read_file", json!({"path": "src/session.py"})), wrong.clone(), wrong]),
        ];
        let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
        let requests = requests_about(&fake, ADMIN);
        assert_eq!(requests.len(), 3, "{evidence}: tool turn, answer, one re-ask");
        assert!(requests[2].to_string().contains(why), "{evidence}: the re-ask says `{why}`");
        assert_eq!(report["unverified"][0]["gap"], why, "{evidence}");
    }
}

/// A finder that reads an untouched file before answering, then reports a finding
/// located in it.
fn reading_finder(reads: usize) -> support::Script {
    let mut answers = vec![tool("read_file", json!({"path": "src/session.py"})).to_string(); reads];
    answers
        .push(json!({"findings": [finding("src/session.py:10", ADMIN, "user.is_admin = verify(token)")]}).to_string());
    support::Script { step: "find", reviewer: Some("correctness"), claim: None, answers }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_read_by_default_and_may_ground_a_finding_in_what_they_read() {
    let dir = repo_with(&[], &[]);
    let survives = json!({"verdict": "survives", "evidence": "src/session.py:10 `user.is_admin = verify(token)`", "confidence": 100, "impact": "consequential"});
    let scripts = vec![reading_finder(1), verdict("validate", ADMIN, &[survives])];
    let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
    let finds: Vec<Value> = fake.seen().into_iter().filter(|s| s.step == "find").map(|s| s.body).collect();
    assert_eq!(finds.len(), 2, "one tool turn, then the answer");
    assert!(finds[0]["tools"].to_string().contains("read_file"), "reviewers are offered the tools");
    assert!(finds[0].to_string().contains("3 turns of tool calls"), "the reviewer's own step budget is stated");
    assert!(tool_results(&finds[1])[0].0.contains("   10 |     user.is_admin = verify(token)"));
    let published = &report["published"][0];
    assert_eq!((published["claim"].as_str(), published["inline"].as_bool()), (Some(ADMIN), Some(false)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reviewer_past_its_three_steps_answers_and_the_gap_names_its_setting() {
    let dir = repo_with(&[], &[]);
    let survives = json!({"verdict": "survives", "evidence": "src/session.py:10 `user.is_admin = verify(token)`", "confidence": 100, "impact": "consequential"});
    let scripts = vec![reading_finder(4), verdict("validate", ADMIN, &[survives])];
    let (report, fake) = review(&dir.path().join("repo"), Wire::Anthropic, scripts).await;
    assert_eq!(fake.count("find"), 5, "3 tool turns, the one over the limit, then the forced answer");
    let gaps = report["gaps"].as_array().unwrap();
    assert!(
        gaps.iter().any(|g| g["step"] == "find"
            && g["message"].as_str().unwrap().contains("all 3 tool steps")
            && g["message"].as_str().unwrap().contains("[review] reviewer_max_steps")),
        "{gaps:?}"
    );
    assert_eq!(report["published"][0]["claim"], ADMIN, "what it read before the limit still grounds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewer_tools_off_offers_reviewers_no_tools() {
    let dir = repo_with(&[], &[]);
    let repo = dir.path().join("repo");
    std::fs::write(repo.join("gauntlet.toml"), "[review]\nreviewer_tools = false\n").unwrap();
    let scripts = vec![finder("correctness", json!([]))];
    let (_, fake) = review(&repo, Wire::Anthropic, scripts).await;
    let finds: Vec<Value> = fake.seen().into_iter().filter(|s| s.step == "find").map(|s| s.body).collect();
    assert_eq!(finds.len(), 1);
    assert!(!finds[0]["tools"].to_string().contains("read_file"), "{}", finds[0]["tools"]);
}

/// A finder whose one finding is that the admin flag is trusted; the validator
/// answers `survives` at 75 citing the line of src/session.py that sets the flag,
/// after reading `reads` (none, or the file).
async fn survivor_at_75_citing_session_py(reads: &[Value]) -> Value {
    let dir = repo_with(&[], &[]);
    let survives = json!({"verdict": "survives", "evidence": "src/session.py:10 `user.is_admin = verify(token)` is the only place the flag is set, and it trusts the token", "confidence": 75, "impact": "consequential"});
    let mut answers = reads.to_vec();
    answers.push(survives);
    let scripts = vec![
        finder("correctness", json!([finding("src/auth.py:2", ADMIN, "if user.is_admin:")])),
        verdict("validate", ADMIN, &answers),
    ];
    review(&dir.path().join("repo"), Wire::Anthropic, scripts).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survivor_verified_on_a_file_it_never_read_is_held_to_50_and_not_published() {
    let report = survivor_at_75_citing_session_py(&[]).await;
    assert_eq!(report["published"], json!([]), "{report}");
    assert_eq!(dropped_reason(&report, ADMIN), "below_threshold");
    let dropped = report["dropped"].as_array().unwrap().iter().find(|d| d["claim"] == ADMIN).unwrap();
    assert_eq!(dropped["confidence"], 50);
    assert_eq!(
        dropped["detail"],
        "confidence 50 is under the threshold 75 (confidence 75 held to 50: the verdict cited src/session.py:10, \
         which was never shown or read)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survivor_verified_on_the_file_it_read_keeps_its_75_and_is_published() {
    let read = tool("read_file", json!({"path": "src/session.py", "start_line": 1, "end_line": 12}));
    let report = survivor_at_75_citing_session_py(&[read]).await;
    let published = &report["published"][0];
    assert_eq!((published["claim"].as_str(), published["confidence"].as_u64()), (Some(ADMIN), Some(75)), "{report}");
    assert_eq!(published["read"], json!(["src/session.py"]));
}
