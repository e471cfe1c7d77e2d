//! Snapshots of the rendered prompts: what the model is actually asked.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_review::fence::Fence;
use gauntlet_review::guidance::Guidance;
use gauntlet_review::{prompt, rules};

const PATCH: &str = "diff --git a/src/auth.py b/src/auth.py
--- a/src/auth.py
+++ b/src/auth.py
@@ -2,3 +2,3 @@ def can_delete(user, doc):
     if user.is_admin:
         return True
-    return doc.owner_id == user.id
+    return True
";

fn change() -> Change {
    let diff = parse_patch(PATCH).unwrap().remove(0);
    let head = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";
    Change {
        base: "b".into(),
        head: "h".into(),
        snapshot: Snapshot::Worktree,
        files: vec![ChangedFile { diff, head_text: Some(head.into()), unreadable: None }],
    }
}

#[test]
fn shared_block_fences_the_change_and_the_guidance() {
    let guidance = vec![Guidance { path: "AGENTS.md".into(), text: "Admins may delete anything.\n".into() }];
    let text = prompt::shared(&change(), &guidance, &Fence::fixed("DATA-0000"));
    insta::assert_snapshot!(text);
}

#[test]
fn finder_turn_for_the_correctness_reviewer() {
    let r = rules::builtin().into_iter().find(|r| r.name == "correctness").unwrap();
    insta::assert_snapshot!(prompt::finder(&r.name, &r.description, &r.body, r.max_findings));
}

#[test]
fn validator_turn_first_pass() {
    let region = prompt::numbered(1, ["def can_delete(user, doc):", "    return True"]);
    let text = prompt::validator(
        "src/auth.py:4",
        "Anyone can delete any document.",
        (&region, ""),
        false,
        &Fence::fixed("DATA-0000"),
    );
    insta::assert_snapshot!(text);
}

#[test]
fn validator_turn_strict_pass_asks_for_harder_disproofs() {
    let text =
        prompt::validator("src/auth.py:4", "Anyone can delete.", ("(region)", ""), true, &Fence::fixed("DATA-0000"));
    assert!(text.contains("second pass"));
    let lenient =
        prompt::validator("src/auth.py:4", "Anyone can delete.", ("(region)", ""), false, &Fence::fixed("DATA-0000"));
    assert!(!lenient.contains("second pass"));
}

#[test]
fn the_validator_keeps_other_files_code_out_of_the_code_around_the_location() {
    let fence = Fence::fixed("DATA-0000");
    let around = prompt::numbered(3, ["    if user.is_admin:", "        return True"]);
    let elsewhere = format!("web/client.ts:\n{}", prompt::numbered(12, ["return user.displayName;"]));
    let text = prompt::validator("src/auth.py:4", "Anyone can delete.", (&around, &elsewhere), false, &fence);
    let code = text.split("## Code around the location").nth(1).unwrap();
    let (region, rest) = code.split_once("<<<END DATA-0000>>>").unwrap();
    assert!(region.contains("    3 |     if user.is_admin:") && !region.contains("displayName"), "{region}");
    assert!(rest.contains("## Other code the reviewer was given") && rest.contains("   12 | return user.displayName;"));
    let alone = prompt::validator("src/auth.py:4", "Anyone can delete.", (&around, ""), false, &fence);
    assert!(!alone.contains("Other code the reviewer was given"), "no other code, no section");
}

#[test]
fn the_validator_is_told_the_citation_rules_and_never_to_trust_the_authors_claims() {
    let text = prompt::validator("a.py:1", "c", ("(region)", ""), false, &Fence::fixed("DATA-0000"));
    assert!(!text.contains("PR text"), "the author's text is no disproof strategy");
    for rule in ["at most 40 lines each", "8 or more non-blank characters", "at most 1000 characters"] {
        assert!(text.contains(rule), "`{rule}` missing from:\n{text}");
    }
}

#[test]
fn a_finders_stated_intent_is_fenced_labelled_and_names_the_mismatch_rule() {
    use gauntlet_review::intent::Intent;
    let fence = Fence::fixed("DATA-0000");
    let intent = Intent::pull_request(Some("Cache invoices"), Some("Reads are now cached for an hour."), None).unwrap();
    let text = prompt::intent(&intent, &fence);
    insta::assert_snapshot!("intent_pull_request", text);
    assert!(text.contains(
        "<<<DATA-0000 stated intent>>>\nCache invoices\n\nReads are now cached for an hour.\n<<<END DATA-0000>>>"
    ));
    let commits = Intent::commits(&["Fix the cache".to_string()], None).unwrap();
    assert!(prompt::intent(&commits, &fence).contains("messages of the reviewed commits"));
}

#[test]
fn reask_turns_name_the_error() {
    insta::assert_snapshot!("reask_contract", prompt::reask("verdict: unknown variant `false_positive`", true));
    insta::assert_snapshot!("reask_disproof", prompt::reask("disproof cited src/x.rs:40, never shown", false));
}

#[test]
fn tool_sessions_are_told_what_they_may_read() {
    insta::assert_snapshot!("tools_validator", prompt::tools(8, true));
    insta::assert_snapshot!("tools_reviewer", prompt::tools(8, false));
    insta::assert_snapshot!("step_limit", prompt::step_limit(8));
}

#[test]
fn context_section_fences_each_block_and_restates_the_answer_format() {
    use gauntlet_review::context::{Block, CodeRange, ContextKind};
    let consumer = Block {
        kind: ContextKind::Consumers,
        label: "consumer web/src/client.ts".into(),
        text: "web/src/client.ts at head (mentions display_name):\n   12 | return user.displayName;\n".into(),
        about: vec!["src/api/users.rs".into()],
        code: vec![CodeRange {
            path: "web/src/client.ts".into(),
            start: 12,
            lines: vec!["return user.displayName;".into()],
        }],
    };
    insta::assert_snapshot!(prompt::reviewer_context(&[&consumer], &Fence::fixed("DATA-0000")));
    assert_eq!(prompt::reviewer_context(&[], &Fence::fixed("DATA-0000")), "", "no context, no section");
}

#[test]
fn every_limit_of_both_contracts_is_stated_in_the_prompt_that_answers_it() {
    use gauntlet_review::contract::{CLAIM_MAX, VERDICT_EVIDENCE_MAX, findings_schema, verdict_schema};
    use gauntlet_review::limits::in_words;
    let r = rules::builtin().into_iter().find(|r| r.name == "correctness").unwrap();
    let finder = prompt::finder(&r.name, &r.description, &r.body, r.max_findings);
    let stated = in_words(&findings_schema(r.max_findings));
    assert!(stated.len() >= 6, "maxItems, three maxLength and two enums: {stated:?}");
    for line in &stated {
        assert!(finder.contains(line.as_str()), "the finder prompt lacks {line:?}");
    }
    assert!(finder.contains(&format!("`findings[].claim`: at most {CLAIM_MAX} characters")));
    let validator = prompt::validator("a.py:1", "c", ("(region)", ""), false, &Fence::fixed("DATA-0000"));
    for line in in_words(&verdict_schema()) {
        assert!(validator.contains(line.as_str()), "the validator prompt lacks {line:?}");
    }
    assert!(validator.contains(&format!("`evidence`: at most {VERDICT_EVIDENCE_MAX} characters")));
}

#[test]
fn the_confidence_levels_say_only_how_sure_the_validator_is_and_impact_is_asked_apart() {
    let text = prompt::validator("a.py:1", "c", ("(region)", ""), false, &Fence::fixed("DATA-0000"));
    let start = text.find("`confidence` says").expect("the confidence rubric");
    let end = text.find("`impact` is a separate answer").expect("the impact question");
    assert!(start < end, "confidence first, then impact");
    // The levels' own definitions: the lines that start with a level.
    let levels: Vec<&str> = text[start..end]
        .lines()
        .skip_while(|l| !l.starts_with("- 0:"))
        .take_while(|l| !l.starts_with("A verdict of 75"))
        .collect();
    assert_eq!(levels.iter().filter(|l| l.starts_with("- ")).count(), 5, "{levels:#?}");
    let importance = ["minor", "rare", "nitpick", "consequential", "matter", "important", "severity", "cosmetic"];
    for line in &levels {
        let lower = line.to_lowercase();
        for word in importance {
            assert!(!lower.contains(word), "the confidence rubric speaks of importance ({word}): {line}");
        }
    }
    let rubric = levels.join("\n");
    assert!(rubric.contains("- 75: checked against the code that would disprove it"), "{rubric}");
    assert!(rubric.contains("stays at 50 or below"), "a gap in what was read caps the certainty: {rubric}");
    let impact = &text[end..];
    assert!(impact.contains("`consequential`: wrong behaviour, a crash, a build break"), "{impact}");
    assert!(impact.contains("`minor`: cosmetic, wording, style"), "{impact}");
    assert!(impact.contains(r#""impact": "consequential" | "minor""#), "the answer format names the field");
}
