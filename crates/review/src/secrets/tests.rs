use super::*;
use crate::contract::Severity;
use proptest::prelude::*;
use std::sync::OnceLock;

/// Pieces of text near and far from every rule, secrets split across lines and
/// private-key blocks included.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")),
        Just(format!("{}{}", "AKIA", "IOSFODNN7ZQ3XW5P")),
        Just("password = \"Xy7#kLm9qR2w\"".to_string()),
        Just("password =".to_string()),
        Just(" \"Xy7#kLm9qR2w\"".to_string()),
        Just("postgres://u:p4ss@db".to_string()),
        Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
        Just("-----END RSA PRIVATE KEY-----".to_string()),
        Just(format!("{}{}", "xoxb-", "123456789012-abc")),
        Just("let step = plan(1, 2);".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just(" ".to_string()),
        "[a-zA-Z0-9_=:'\" ]{0,12}",
    ]
}

fn change_of(text: &str) -> Change {
    let kinds = [LineKind::Added, LineKind::Context, LineKind::Removed];
    let lines: Vec<gauntlet_change::DiffLine> = text
        .lines()
        .enumerate()
        .map(|(i, t)| gauntlet_change::DiffLine {
            kind: kinds[i % 3],
            old: Some(i as u32 + 1),
            new: Some(i as u32 + 1),
            anchor: i as u32 + 1,
            text: t.to_string(),
        })
        .collect();
    let hunk =
        gauntlet_change::Hunk { old_start: 1, old_lines: 0, new_start: 1, new_lines: 0, header: String::new(), lines };
    let diff = gauntlet_change::FileDiff {
        old_path: Some("a.txt".into()),
        new_path: Some("a.txt".into()),
        status: gauntlet_change::FileStatus::Modified,
        binary: false,
        old_mode: None,
        new_mode: None,
        hunks: vec![hunk],
    };
    let file = gauntlet_change::ChangedFile { diff, head_text: Some(text.to_string()), unreadable: None };
    Change { base: "b".into(), head: "h".into(), snapshot: gauntlet_change::Snapshot::Worktree, files: vec![file] }
}

proptest! {
    #[test]
    fn the_one_pass_keyword_screen_never_changes_what_is_masked(pieces in prop::collection::vec(fragment(), 0..24)) {
        let text: String = pieces.concat();
        static MASKERS: OnceLock<(Masker, Masker)> = OnceLock::new();
        let (fast, slow) = MASKERS.get_or_init(|| {
            (Masker::new(&[]).unwrap(), Masker { screen: false, ..Masker::new(&[]).unwrap() })
        });
        prop_assert_eq!(fast.text(&text), slow.text(&text));
        let (mut a, mut b) = (change_of(&text), change_of(&text));
        prop_assert_eq!(fast.change(&mut a), slow.change(&mut b));
        let texts = |c: &Change| {
            let f = &c.files[0];
            (f.head_text.clone(), f.diff.hunks[0].lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>())
        };
        prop_assert_eq!(texts(&a), texts(&b));
    }
}

// Built at run time so that no secret-shaped literal sits in the source.
fn github_token() -> String {
    format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")
}

#[test]
fn the_vendored_rule_set_loads_with_the_expected_rules_skipped() {
    // gitleaks v8.30.1 has 222 rules. One matches file names only (a PKCS#12
    // file) and four only within files of some names; masking sees text without
    // a name, so it skips them. Every other regex compiles with the `regex` crate
    // once RE2's literal `{` is escaped. A release that changes this list must be
    // looked at.
    let skipped: Vec<(&str, &str)> =
        rules::skipped().iter().map(|s| (s.id.as_str(), s.why.split(" (").next().unwrap())).collect();
    let scoped = "scoped to file names";
    assert_eq!(
        skipped,
        vec![
            ("freemius-secret-key", scoped),
            ("hashicorp-tf-password", scoped),
            ("kubernetes-secret-yaml", scoped),
            ("nuget-config-password", scoped),
            ("pkcs12-file", "matches file names only"),
        ]
    );
    assert_eq!(rules::applied(), 222 - skipped.len() + 5, "the vendored rules and gauntlet's own five");
    let rejected = rules::rejected();
    assert!(rejected.is_empty(), "patterns the regex crate rejects: {rejected:?}");
}

#[test]
fn a_github_token_is_masked_and_named_by_rule_and_length_only() {
    let token = github_token();
    let (masked, hits) = Masker::new(&[]).unwrap().line(&format!("TOKEN = \"{token}\"  # ci"));
    assert_eq!(masked, "TOKEN = \"[masked github-pat]\"  # ci");
    assert_eq!(hits, vec![Hit { kind: "github-pat".into(), redacted: "40 characters".into() }]);
}

#[test]
fn an_aws_key_pair_in_json_is_masked_whole() {
    // The form the old `aws_`-prefixed pattern let through with only the key id masked.
    let secret = ["wJalrXUt", "nFEMI/K7", "MDENG/bP", "xRfiCYzQ", "8vLq2Ns9"].concat();
    let id = format!("{}{}", "AKIA", "IOSFODNN7ZQ3XW5P");
    let text = format!("{{\n  \"AccessKeyId\": \"{id}\",\n  \"SecretAccessKey\": \"{secret}\"\n}}\n");
    let (masked, hits) = Masker::new(&[]).unwrap().text(&text);
    assert!(!masked.contains(&secret) && !masked.contains(&id), "{masked}");
    assert_eq!(hits.iter().map(|(line, _)| *line).collect::<Vec<_>>(), vec![1, 2]);
}

#[test]
fn a_private_key_block_is_masked_line_for_line() {
    let text = "x = 1\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQ\n-----END RSA PRIVATE KEY-----\ny = 2\n";
    let (masked, hits) = Masker::new(&[]).unwrap().text(text);
    assert_eq!(masked.lines().count(), text.lines().count());
    assert!(!masked.contains("MIIEow") && !masked.contains("AKCAQ"));
    assert!(masked.starts_with("x = 1\n-----BEGIN RSA PRIVATE KEY-----\n[masked private-key]\n"));
    assert!(masked.ends_with("-----END RSA PRIVATE KEY-----\ny = 2\n"));
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0, 1);
}

#[test]
fn a_key_on_one_line_is_masked_between_its_armour() {
    let body = ["MIIEow", &"Ab3+".repeat(20), "Zq9/"].concat();
    let line = format!("\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n\",");
    let (masked, hits) = Masker::new(&[]).unwrap().text(&line);
    assert_eq!(
        masked,
        "\"private_key\": \"-----BEGIN PRIVATE KEY----- [masked private-key]-----END PRIVATE KEY-----\\n\","
    );
    assert_eq!(hits.len(), 1);
}

#[test]
fn an_armour_quoted_in_code_masks_nothing_after_it() {
    let code = "if line.starts_with(\"-----BEGIN RSA PRIVATE KEY-----\") {\n    parse(line)\n}\n";
    assert_eq!(Masker::new(&[]).unwrap().text(code), (code.to_string(), Vec::new()));
}

#[test]
fn configured_patterns_mask_their_group() {
    let m = Masker::new(&[r"internal-([0-9a-f]{12})".into()]).unwrap();
    let (masked, hits) = m.line("id internal-0123456789ab end");
    assert_eq!(masked, "id internal-[masked configured secret pattern] end");
    assert_eq!(hits[0].redacted, "12 characters");
    assert!(Masker::new(&["(".into()]).is_err());
}

#[test]
fn overlapping_matches_mask_one_secret_named_by_the_specific_rule() {
    let token = github_token();
    let (masked, hits) = Masker::new(&[]).unwrap().line(&format!("github_token: \"{token}\""));
    assert_eq!(masked, "github_token: \"[masked github-pat]\"");
    assert_eq!(hits.len(), 1, "{hits:?}");
}

#[test]
fn a_secrets_finding_quotes_no_part_of_the_value() {
    let token = github_token();
    let m = Masker::new(&[]).unwrap();
    let mut change = change_of(&format!("T = \"{token}\"\n"));
    let secrets = m.change(&mut change);
    let f = &findings(&secrets)[0];
    assert_eq!((f.reviewer.as_str(), f.severity, f.location.as_str()), ("secrets", Severity::High, "a.txt:1"));
    let all = format!("{f:?}");
    for piece in [&token[..8], &token[4..12], &token[token.len() - 8..]] {
        assert!(!all.contains(piece), "{all}");
    }
    assert!(!all.contains("T = "), "the line is not quoted: {all}");
    assert!(f.claim.starts_with("A secret (github-pat, 40 characters) is committed here"), "{}", f.claim);
}

#[test]
fn model_written_texts_of_a_review_are_masked() {
    let token = github_token();
    let mut review = crate::review::Review::default();
    let mut p = findings(&[Secret {
        path: "a".into(),
        line: 1,
        masked_line: String::new(),
        hit: Hit { kind: "k".into(), redacted: "1 characters".into() },
    }])
    .remove(0);
    p.claim = format!("the token {token} leaks");
    p.evidence = format!("T = \"{token}\"");
    p.validator_evidence = format!("confirmed: {token}");
    review.unverified.push(p.clone());
    review.minor.push(p.clone());
    review.published.push(p);
    review.notes.push(format!("note {token}"));
    review.dropped.push(crate::finding::Dropped {
        reason: crate::finding::DropReason::Ungrounded,
        detail: "no such file".into(),
        reviewer: "correctness".into(),
        location: format!("{token}.py:1"),
        claim: "c".into(),
        severity: Severity::Low,
        confidence: None,
    });
    Masker::new(&[]).unwrap().review(&mut review);
    assert!(!format!("{review:?}").contains(&token[4..]), "{review:?}");
}

#[test]
fn a_json_answer_is_masked_string_by_string_and_stays_json() {
    let token = github_token();
    let answer = serde_json::json!({"findings": [{"evidence": format!("TOKEN = \"{token}\""), "line": 3}]}).to_string();
    let masked = Masker::new(&[]).unwrap().answer(&answer);
    let value: serde_json::Value = serde_json::from_str(&masked).expect("still JSON");
    assert_eq!(value["findings"][0]["evidence"], "TOKEN = \"[masked github-pat]\"");
    assert_eq!(value["findings"][0]["line"], 3);
    let plain = Masker::new(&[]).unwrap().answer(&format!("not JSON: {token}"));
    assert_eq!(plain, "not JSON: [masked github-pat]");
}

#[test]
fn a_token_the_change_splits_across_added_lines_is_masked_and_reported() {
    let token = ["ghp_", "R7xK2mQ9", "vLp4Nt8W", "zB3cY6dF", "hJ1sG5aE", "0uIo"].concat();
    let (a, b) = token.split_at(16);
    let patch = format!(
        "diff --git a/c.js b/c.js\n--- a/c.js\n+++ b/c.js\n@@ -1 +1,4 @@\n use(x);\n+const token =\n+  '{a}' +\n+  '{b}';\n"
    );
    let mut change = Change {
        base: "b".into(),
        head: "h".into(),
        snapshot: gauntlet_change::Snapshot::Worktree,
        files: vec![gauntlet_change::ChangedFile {
            diff: gauntlet_change::parse_patch(&patch).unwrap().remove(0),
            head_text: Some(format!("use(x);\nconst token =\n  '{a}' +\n  '{b}';\n")),
            unreadable: None,
        }],
    };
    let secrets = Masker::new(&[]).unwrap().change(&mut change);
    assert_eq!(secrets.len(), 1, "{secrets:?}");
    assert_eq!(secrets[0].line, 3, "reported where the chain starts");
    let file = &change.files[0];
    let shown: String = file.diff.hunks[0].lines.iter().map(|l| l.text.clone()).collect();
    assert!(!shown.contains(a) && !shown.contains(b), "{shown}");
    let head = file.head_text.as_deref().unwrap();
    assert!(!head.contains(a) && !head.contains(b), "{head}");
}
