//! Snapshots of every format over hand-built reviews, plus the properties the
//! formats promise (no colour when off, complete JSON, dropped only when verbose,
//! untrusted text neutralised).

use gauntlet_report::{Format, Options, render};
use gauntlet_review::Review;
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::finding::{DropReason, Dropped};
use gauntlet_review::review::{Funnel, Gap, NotReviewed, Published, SCHEMA_VERSION, Skip, StepUsage};

const PLAIN: Options = Options { verbose: false, color: false };
const VERBOSE: Options = Options { verbose: true, color: false };

fn usage(step: &str, tier: &str, calls: u32, input: u64, cost: Option<f64>, wall_ms: u64) -> StepUsage {
    StepUsage {
        step: step.into(),
        tier: tier.into(),
        model: if tier == "fast" { "claude-haiku-4-5" } else { "claude-sonnet-4-5" }.into(),
        calls,
        input,
        output: input / 20,
        cached: input / 2,
        cache_write: input / 10,
        cost,
        wall_ms,
    }
}

fn base(skipped: Option<Skip>) -> Review {
    Review {
        schema_version: SCHEMA_VERSION,
        base: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b".into(),
        head: "2c26b46b68ffc68ff99b453c1d30413413422d70".into(),
        provider: "anthropic:claude-sonnet-4-5".into(),
        rules_version: "2025.06.1".into(),
        skipped,
        ..Review::default()
    }
}

fn published_inline() -> Published {
    Published {
        id: "3f2a9c01d4e5b6a7".into(),
        reviewer: "correctness".into(),
        raised_by: vec!["correctness".into(), "security-privacy".into()],
        lens: Lens::FailureScenario,
        location: "src/auth/session.rs:88".into(),
        inline: true,
        claim: "`expires_at <= now` treats a token expiring this second as valid, so a request racing the expiry is authorised with a dead token.".into(),
        evidence: "if session.expires_at <= now {\n    return Ok(session);\n}".into(),
        severity: Severity::High,
        confidence: 85,
        validator_evidence: "No guard elsewhere: `authorize` (src/auth/mod.rs:40) calls `check` and trusts its Ok.\nThe comparison was `<` before this change.".into(),
        gap: None,
        read: vec!["src/auth/mod.rs".into(), "src/auth/session.rs".into()],
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

fn published_overview() -> Published {
    Published {
        id: "a1b2c3d4e5f60718".into(),
        reviewer: "contract-drift".into(),
        raised_by: vec!["contract-drift".into()],
        lens: Lens::BlastRadius,
        location: "web/src/api/client.ts:41".into(),
        inline: false,
        claim: "The handler now returns { items, next } but this client still reads data.results | [], so every list page renders empty.".into(),
        evidence: "/// ```\n/// const page = await list();\n/// ```\nreturn data.results ?? [];".into(),
        severity: Severity::Medium,
        confidence: 70,
        validator_evidence: "The client is in this repo and was not changed; no adapter maps items to results.".into(),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

fn unverified() -> Published {
    Published {
        id: "77e1aa90c3b2d415".into(),
        reviewer: "security-and-privacy".into(),
        raised_by: vec!["security-and-privacy".into()],
        lens: Lens::HiddenAssumption,
        location: "src/api/users.rs:23".into(),
        inline: true,
        claim: "The new /users/<id>/export route has no ownership check.".into(),
        evidence: ".route(\"/users/:id/export\", get(export_user))".into(),
        severity: Severity::High,
        confidence: 25,
        validator_evidence: "Disproved: the gateway enforces ownership.".into(),
        gap: Some("disproof cited gateway/policy.rego:12, which the validator never read".into()),
        read: vec!["src/api/users.rs".into()],
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

fn dropped() -> Vec<Dropped> {
    vec![
        Dropped {
            reason: DropReason::Ungrounded,
            detail: "evidence not found near src/db.rs:310".into(),
            reviewer: "error-handling".into(),
            location: "src/db.rs:310".into(),
            claim: "The retry loop swallows the final error.".into(),
            severity: Severity::Medium,
            confidence: None,
        },
        Dropped {
            reason: DropReason::UnverifiedDisproof,
            detail: "disproof quoted text that does not match src/cache.rs:9".into(),
            reviewer: "correctness".into(),
            location: "src/cache.rs:14".into(),
            claim: "Cache keys omit the tenant id.".into(),
            severity: Severity::Low,
            confidence: Some(25),
        },
    ]
}

fn full() -> Review {
    Review {
        published: vec![published_inline(), published_overview()],
        unverified: vec![unverified()],
        dropped: dropped(),
        not_reviewed: vec![NotReviewed::new(
            "migrations/2024_06_01_backfill.sql",
            "exceeds max_changed_lines (4120 > 2000)",
        )],
        gaps: vec![Gap {
            step: "find".into(),
            reviewer: Some("error-handling".into()),
            finding: None,
            message: "provider error: 529 overloaded (after 3 attempts)".into(),
            failed: true,
        }],
        funnel: Funnel { candidates: 9, grounded: 6, clustered: 5, survived: 3, published: 2, minor: 0 },
        validator_sessions: gauntlet_review::review::Sessions { run: 6, saved: 1, rechecked: false },
        usage: vec![
            usage("find", "standard", 4, 182_400, Some(0.6123), 31_200),
            usage("validate", "standard", 6, 96_000, Some(0.3011), 14_900),
            usage("summarise", "fast", 1, 8_000, None, 850),
        ],
        reviewers: vec![
            "correctness".into(),
            "security-and-privacy".into(),
            "error-handling".into(),
            "contract-drift".into(),
        ],
        notes: vec!["Large change: split into 2 chunks for the find step.".into()],
        wall_ms: 48_210,
        ..base(None)
    }
}

fn skipped() -> Review {
    Review {
        base: "origin/main".into(),
        head: "HEAD".into(),
        ..base(Some(Skip { reason: "draft pull request".into() }))
    }
}

fn clean() -> Review {
    Review {
        funnel: Funnel { candidates: 2, grounded: 2, clustered: 2, survived: 0, published: 0, minor: 0 },
        usage: vec![usage("find", "standard", 2, 40_000, Some(0.1402), 9_300)],
        reviewers: vec!["correctness".into(), "tests".into()],
        wall_ms: 9_412,
        ..base(None)
    }
}

/// One defect in two files, raised by three reviewers, with two test gaps folded
/// into it: what clustering publishes.
fn clustered() -> Review {
    let mut p = published_overview();
    p.id = "5e0c1d2b3a4f6e7d".into();
    p.reviewer = "correctness".into();
    p.raised_by = vec!["contract-drift".into(), "correctness".into(), "tests".into()];
    p.location = "api/users.py:4".into();
    p.inline = true;
    p.claim = "The response key `name` replaces `display_name`, so every client reading the old key breaks.".into();
    p.evidence = "\"name\": user.display_name,".into();
    p.severity = Severity::High;
    p.confidence = 100;
    p.validator_evidence = "api/users.py:4 `\"name\": user.display_name,` renames the key the client reads".into();
    p.also_at = vec!["web/client.ts:4".into()];
    p.unvalidated = vec![
        "`tests` at tests/test_users.py:12-14: No test reads `display_name` from the response of `to_json`.".into(),
        "`tests` at web/client.test.ts:3: Nothing tests `loadUser` against the new key.".into(),
    ];
    Review {
        published: vec![p],
        funnel: Funnel { candidates: 5, grounded: 5, clustered: 1, survived: 1, published: 1, minor: 0 },
        validator_sessions: gauntlet_review::review::Sessions { run: 1, saved: 4, rechecked: false },
        reviewers: vec!["contract-drift".into(), "correctness".into(), "tests".into()],
        wall_ms: 12_000,
        ..base(None)
    }
}

#[test]
fn clustered_terminal() {
    let out = render(&clustered(), Format::Terminal, &PLAIN);
    assert!(out.contains("also at: web/client.ts:4"), "{out}");
    assert_eq!(out.matches("also raised, not validated: `tests` at ").count(), 2, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clustered_markdown() {
    let out = render(&clustered(), Format::Markdown, &PLAIN);
    assert!(out.contains("**Also at:** `web/client.ts:4`"), "{out}");
    assert_eq!(out.matches("**Also raised, not validated:** ").count(), 2, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clustered_json_carries_both_lists() {
    let v = json(&render(&clustered(), Format::Json, &PLAIN));
    let p = &v["published"][0];
    assert_eq!(p["also_at"], serde_json::json!(["web/client.ts:4"]));
    assert_eq!(p["unvalidated"].as_array().unwrap().len(), 2);
    assert_eq!(p["raised_by"], serde_json::json!(["contract-drift", "correctness", "tests"]));
}

#[test]
fn full_terminal() {
    insta::assert_snapshot!(render(&full(), Format::Terminal, &PLAIN));
}

#[test]
fn full_terminal_verbose() {
    insta::assert_snapshot!(render(&full(), Format::Terminal, &VERBOSE));
}

#[test]
fn full_markdown() {
    insta::assert_snapshot!(render(&full(), Format::Markdown, &VERBOSE));
}

#[test]
fn full_json() {
    insta::assert_snapshot!(render(&full(), Format::Json, &PLAIN));
}

#[test]
fn skipped_terminal() {
    insta::assert_snapshot!(render(&skipped(), Format::Terminal, &PLAIN));
}

#[test]
fn skipped_markdown() {
    insta::assert_snapshot!(render(&skipped(), Format::Markdown, &PLAIN));
}

#[test]
fn skipped_json() {
    insta::assert_snapshot!(render(&skipped(), Format::Json, &PLAIN));
}

#[test]
fn clean_terminal() {
    insta::assert_snapshot!(render(&clean(), Format::Terminal, &PLAIN));
}

#[test]
fn clean_markdown() {
    insta::assert_snapshot!(render(&clean(), Format::Markdown, &PLAIN));
}

#[test]
fn clean_json() {
    insta::assert_snapshot!(render(&clean(), Format::Json, &PLAIN));
}

#[test]
fn no_ansi_without_color() {
    for review in [full(), skipped(), clean()] {
        for format in Format::ALL {
            let out = render(&review, format, &VERBOSE);
            assert!(!out.contains('\x1b'), "{format}: {out}");
        }
    }
}

#[test]
fn color_marks_severity() {
    let color = Options { verbose: false, color: true };
    let out = render(&full(), Format::Terminal, &color);
    assert!(out.contains("\x1b[1;31mHIGH\x1b[0m"), "{out}");
    assert!(out.contains("\x1b[1;33mMEDIUM\x1b[0m"), "{out}");
}

#[test]
fn json_is_one_complete_object() {
    for review in [full(), skipped(), clean()] {
        for opts in [PLAIN, VERBOSE] {
            let out = render(&review, Format::Json, &opts);
            assert!(out.ends_with("}\n"));
            let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
            let obj = v.as_object().expect("an object");
            assert_eq!(obj["schema_version"], 1);
            for key in [
                "base",
                "head",
                "provider",
                "rules_version",
                "skipped",
                "published",
                "unverified",
                "dropped",
                "not_reviewed",
                "gaps",
                "funnel",
                "usage",
            ] {
                assert!(obj.contains_key(key), "missing {key}");
            }
        }
    }
    let v: serde_json::Value = serde_json::from_str(&render(&full(), Format::Json, &PLAIN)).unwrap();
    assert_eq!(v["dropped"][1]["reason"], "unverified_disproof");
    assert_eq!(v["usage"][2]["cost"], serde_json::Value::Null);
}

#[test]
fn dropped_only_when_verbose() {
    for format in [Format::Terminal, Format::Markdown] {
        let plain = render(&full(), format, &PLAIN);
        let verbose = render(&full(), format, &VERBOSE);
        for needle in ["ungrounded", "unverified_disproof", "Cache keys omit the tenant id"] {
            assert!(!plain.contains(needle), "{format} plain shows {needle}");
            assert!(verbose.contains(needle), "{format} verbose lacks {needle}");
        }
        assert!(verbose.contains("evidence not found near src/db.rs:310"));
    }
}

#[test]
fn gaps_and_not_reviewed_are_always_shown() {
    for format in [Format::Terminal, Format::Markdown] {
        let out = render(&full(), format, &PLAIN);
        assert!(out.contains("529 overloaded"), "{format}");
        assert!(out.contains("2024\\_06\\_01") || out.contains("2024_06_01"), "{format}");
        assert!(!out.contains("No findings"), "{format}");
    }
    let mut gappy = clean();
    gappy.gaps = full().gaps;
    let out = render(&gappy, Format::Terminal, &PLAIN);
    assert!(out.contains("coverage is incomplete"), "{out}");
    assert!(!out.contains("No findings."), "{out}");
}

#[test]
fn clean_says_no_findings_and_skipped_does_not() {
    for format in [Format::Terminal, Format::Markdown] {
        assert!(render(&clean(), format, &PLAIN).contains("No findings."));
        let skipped = render(&skipped(), format, &PLAIN);
        assert!(!skipped.contains("No findings"), "{format}");
        assert!(skipped.contains("candidates 0 → grounded 0 → clustered 0 → survived 0 → published 0"));
    }
}

fn hostile() -> Review {
    let mut p = published_inline();
    p.claim = "Bad <img src=x onerror=alert(1)> [click](https://evil.example) | x\n# heading\n\x1b[2Jgone".into();
    p.evidence = "let s = \"````\"; // ``` fence\n</code></pre><script>x()</script>".into();
    p.validator_evidence = "1. ok\n> quoted\n<details>".into();
    p.location = "src/a|b.rs:1".into();
    Review { published: vec![p], ..clean() }
}

#[test]
fn markdown_neutralises_model_text() {
    let out = render(&hostile(), Format::Markdown, &PLAIN);
    let fence = "`````\n";
    let (before, rest) = out.split_once(fence).expect("fence of 5 backticks");
    let (code, after) = rest.split_once(fence).expect("closing fence");
    assert!(code.contains("<script>"), "code blocks keep code verbatim");
    for prose in [before, after] {
        assert!(!prose.contains('<') && !prose.contains('>'), "raw HTML in {prose}");
        assert!(!prose.replace("\\]", "").contains("]("), "link in {prose}");
        assert!(!prose.contains("\n# heading"), "heading in {prose}");
        assert!(!prose.contains('\x1b'));
    }
    // Every table row keeps its five cells.
    for row in before.lines().filter(|l| l.starts_with("| 1 ")) {
        let cells = row.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 6, "{row}");
    }
}

#[test]
fn terminal_escapes_control_characters() {
    let out = render(&hostile(), Format::Terminal, &PLAIN);
    assert!(!out.contains('\x1b'));
    assert!(out.contains("\\u{1b}[2Jgone"), "{out}");
}

#[test]
fn format_names() {
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>(), Ok(f));
    }
    let err = "xml".parse::<Format>().unwrap_err().to_string();
    assert_eq!(
        err,
        "unknown format `xml`; valid formats: terminal, json, markdown, sarif, rdjson, rdjsonl, codequality"
    );
}

#[test]
fn markdown_breaks_mentions_and_bare_links() {
    let mut review = hostile();
    review.published[0].claim = "ping @octocat, see https://evil.example/?d=secret and www.evil.example".into();
    let out = render(&review, Format::Markdown, &PLAIN);
    assert!(!out.contains("@octocat") && out.contains("@\u{200B}octocat"), "{out}");
    assert!(!out.contains("https://") && !out.contains("www."), "{out}");
}

#[test]
fn markdown_breaks_issue_and_request_references_and_keeps_them_readable() {
    let mut review = hostile();
    review.published[0].claim = "as in #12, octo/widgets#34, !56 and GH-78 (not # 9 or issue#x)".into();
    let out = render(&review, Format::Markdown, &PLAIN);
    for live in ["#12", "#34", "!56", "GH-78"] {
        assert!(!out.contains(live), "{live} would link:\n{out}");
    }
    let read = out.replace('\u{200B}', "");
    assert!(read.contains("as in #12, octo/widgets#34, !56 and GH-78 (not # 9 or issue#x)"), "{out}");
}

#[test]
fn full_sarif() {
    insta::assert_snapshot!(render(&full(), Format::Sarif, &PLAIN));
}

#[test]
fn full_rdjson() {
    insta::assert_snapshot!(render(&full(), Format::Rdjson, &PLAIN));
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("valid JSON")
}

#[test]
fn sarif_has_what_code_scanning_requires() {
    let log = json(&render(&full(), Format::Sarif, &PLAIN));
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "gauntlet");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "published findings only, never unverified ones");
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(!r["message"]["text"].as_str().unwrap().is_empty());
        let physical = &r["locations"][0]["physicalLocation"];
        assert!(
            physical["artifactLocation"]["uri"].as_str().unwrap().starts_with("src/")
                || physical["artifactLocation"]["uri"].as_str().unwrap().starts_with("web/")
        );
        assert!(physical["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(r["partialFingerprints"]["gauntlet/v1"].is_string());
    }
    assert_eq!(results[0]["level"], "error");
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 88);
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "a coverage gap is not a successful run");
    let notes = invocation["toolExecutionNotifications"].to_string();
    assert!(notes.contains("529 overloaded") && notes.contains("could not be verified either way"), "{notes}");
}

#[test]
fn sarif_of_a_clean_run_has_no_results_and_succeeds() {
    let log = json(&render(&clean(), Format::Sarif, &PLAIN));
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn rdjsonl_is_one_diagnostic_per_published_finding_then_one_per_coverage_hole() {
    let out = render(&full(), Format::Rdjsonl, &PLAIN);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 + 3, "two findings; a gap, an unverified finding and a file not reviewed");
    for line in &lines[2..] {
        let d = json(line);
        assert_eq!((d["severity"].as_str(), d.get("location")), (Some("INFO"), None), "{line}");
    }
    let first = json(lines[0]);
    assert_eq!(first["location"]["path"], "src/auth/session.rs");
    assert_eq!(first["location"]["range"]["start"]["line"], 88);
    assert_eq!(first["severity"], "ERROR");
    assert_eq!(json(lines[1])["severity"], "WARNING");
    assert_eq!(render(&clean(), Format::Rdjsonl, &PLAIN), "", "no diagnostics, no lines");
    let whole = json(&render(&full(), Format::Rdjson, &PLAIN));
    assert_eq!(whole["source"]["name"], "gauntlet");
    assert_eq!(whole["diagnostics"].as_array().unwrap().len(), 5);
}

#[test]
fn rdjson_messages_are_safe_to_post() {
    let out = render(&hostile(), Format::Rdjson, &PLAIN);
    let message = json(&out)["diagnostics"][0]["message"].as_str().unwrap().to_string();
    assert!(!message.contains('<') && !message.replace("\\]", "").contains("]("), "{message}");
}

/// The fields GitLab's Code Quality documentation lists as required, with the
/// severities it accepts, checked on every entry.
fn assert_gitlab_code_quality(report: &serde_json::Value) {
    let entries = report.as_array().expect("a Code Quality report is a JSON array");
    for e in entries {
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(e[key].as_str().is_some_and(|s| !s.is_empty()), "`{key}` must be a non-empty string: {e}");
        }
        let severity = e["severity"].as_str().unwrap();
        assert!(["info", "minor", "major", "critical", "blocker"].contains(&severity), "{severity}");
        assert!(e["location"]["path"].as_str().is_some_and(|p| !p.is_empty() && !p.starts_with('/')), "{e}");
        assert!(e["location"]["lines"]["begin"].as_u64().is_some_and(|l| l >= 1), "{e}");
    }
    let mut fingerprints: Vec<&str> = entries.iter().map(|e| e["fingerprint"].as_str().unwrap()).collect();
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), entries.len(), "GitLab keeps one entry per fingerprint");
}

#[test]
fn codequality_has_the_fields_gitlab_documents_and_an_unverified_finding_is_only_info() {
    let report = json(&render(&full(), Format::Codequality, &PLAIN));
    assert_gitlab_code_quality(&report);
    assert_eq!(report.as_array().unwrap().len(), 3, "the published findings, then the unverified one");
    let unverified = &report[2];
    assert_eq!(
        (unverified["severity"].as_str(), unverified["check_name"].as_str()),
        (Some("info"), Some("gauntlet/unverified"))
    );
    let description = unverified["description"].as_str().unwrap();
    assert!(description.starts_with("Could not be validated either way"), "never worded as a finding: {description}");
    assert!(description.contains("has no ownership check"), "it names the finding: {description}");
    assert_eq!(unverified["location"]["path"], "src/api/users.rs");
    let first = &report[0];
    assert_eq!(first["location"]["path"], "src/auth/session.rs");
    assert_eq!(first["location"]["lines"]["begin"], 88);
    assert_eq!((first["severity"].as_str(), report[1]["severity"].as_str()), (Some("critical"), Some("major")));
    assert_eq!(first["fingerprint"], "3f2a9c01d4e5b6a7", "the finding's own fingerprint");
    assert_eq!(first["check_name"], "gauntlet/correctness/failure_scenario");
    assert_eq!(json(&render(&clean(), Format::Codequality, &PLAIN)), serde_json::json!([]));
}

#[test]
fn codequality_descriptions_are_plain_single_lines_with_nothing_hidden() {
    let mut review = hostile();
    review.published[0].claim.push_str(&"x".repeat(5_000));
    review.published[0].claim.push('\u{202E}');
    let report = json(&render(&review, Format::Codequality, &PLAIN));
    assert_gitlab_code_quality(&report);
    let description = report[0]["description"].as_str().unwrap();
    assert!(!description.contains('\n') && !description.contains('\x1b'), "{description}");
    assert!(description.contains("\\u{1b}[2Jgone"), "control characters are shown: {description}");
    assert!(description.starts_with("Bad <img"), "plain text: GitLab escapes HTML itself: {description}");
    assert_eq!(description.chars().count(), gauntlet_report::codequality::DESCRIPTION_LIMIT);
    assert!(description.ends_with('…'), "{description}");
}
