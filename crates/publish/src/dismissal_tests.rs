use super::*;
use crate::host::{Edited, Handle, Reply};

fn person(name: &str) -> Person {
    Person { id: format!("id-{name}"), name: name.into() }
}

fn thread() -> Thread {
    Thread {
        handle: Handle { thread: "t".into(), comment: "c".into() },
        path: "src/a.rs".into(),
        body: "<!-- gauntlet:finding v1 id=abc -->\n\nclaim".into(),
        resolved: false,
        resolved_by: None,
        replies: vec![],
        thumbs_down: vec![],
    }
}

fn replied(by: &str, body: &str) -> Thread {
    let mut t = thread();
    t.replies.push(Reply { author: person(by), body: body.into(), edited: Edited::NotByOthers });
    t
}

/// `alice` and `erin` may write; the author is `paul`.
fn writers(p: &Person) -> Access {
    if ["alice", "erin"].contains(&p.name.as_str()) { Access::Write } else { Access::NoWrite }
}

fn judge(threads: &[Thread], policy: Policy) -> Dismissals {
    assess(threads, Some(&person("paul")), policy, writers)
}

#[test]
fn a_command_on_the_first_line_parses_with_its_reason() {
    let c = command("/gauntlet false-positive the sentinel slot makes len safe\n\nmore words").unwrap();
    assert_eq!((c.verb, c.reason.as_deref()), (Verb::FalsePositive, Some("the sentinel slot makes len safe")));
    let c = command("  \n/gauntlet   DISMISS  ").unwrap();
    assert_eq!((c.verb, c.reason), (Verb::Dismiss, None));
}

#[test]
fn prose_negations_questions_and_near_misses_are_no_command() {
    for text in [
        "This is NOT a false positive, please fix it before merging.",
        "Is this a false positive? /gauntlet dismiss?",
        "won't fix",
        "Please do not /gauntlet dismiss this",
        "/gauntlet dismissed",
        "/gauntletdismiss",
        "/gauntlet",
        "/gauntlet help",
        "> /gauntlet dismiss",
        "`/gauntlet dismiss`",
        "first line\n/gauntlet dismiss on the second line",
    ] {
        assert_eq!(command(text), None, "{text:?} is not a command");
    }
}

#[test]
fn an_indented_line_or_words_joined_by_a_lookalike_space_is_no_command() {
    for text in [
        // Four spaces make a code block: shown as code, never read as a command.
        "    /gauntlet dismiss",
        "\n    /gauntlet dismiss",
        "\t/gauntlet dismiss",
        " /gauntlet dismiss",
        "/gauntlet\u{00A0}dismiss",
        "/gauntlet\u{3000}dismiss",
        "/gauntlet dismiss\u{00A0}by design",
        "/gauntlet\u{2003}false-positive",
        "\u{FEFF}/gauntlet dismiss",
    ] {
        assert_eq!(command(text), None, "{text:?} is not a command");
    }
    // A lookalike space inside the reason is just text.
    let c = command("/gauntlet dismiss by\u{3000}design").unwrap();
    assert_eq!(c.reason.as_deref(), Some("by\u{3000}design"));
}

#[test]
fn a_long_reason_is_cut() {
    let c = command(&format!("/gauntlet dismiss {}", "x".repeat(1000))).unwrap();
    assert_eq!(c.reason.unwrap().chars().count(), MAX_REASON_CHARS);
}

#[test]
fn free_text_by_a_writer_never_dismisses() {
    let threads =
        [replied("alice", "This is NOT a false positive, please fix it."), replied("alice", "false positive?")];
    assert_eq!(judge(&threads, Policy::default()), Dismissals::default());
}

#[test]
fn a_writers_command_counts_and_a_non_writers_is_ignored_with_the_reason() {
    let threads = [replied("alice", "/gauntlet dismiss by design"), replied("mallory", "/gauntlet false-positive")];
    let d = judge(&threads, Policy::default());
    assert_eq!(
        d.counted,
        vec![Counted {
            thread: 0,
            by: person("alice"),
            form: Form::Command(Verb::Dismiss),
            reason: Some("by design".into())
        }]
    );
    assert_eq!(
        d.ignored,
        vec![Ignored { thread: 1, by: person("mallory"), form: Form::Command(Verb::FalsePositive), why: Why::NoWrite }]
    );
    assert!(d.is_dismissed(0) && !d.is_dismissed(1));
}

#[test]
fn the_authors_acts_count_only_when_allowed_in_every_form() {
    let mut t = replied("paul", "/gauntlet dismiss mine, I know");
    t.resolved = true;
    t.resolved_by = Some(person("paul"));
    t.thumbs_down.push(person("paul"));
    let threads = [t];
    let off = judge(&threads, Policy::default());
    assert!(off.counted.is_empty(), "{off:?}");
    assert_eq!(off.ignored.len(), 3);
    assert!(off.ignored.iter().all(|i| i.why == Why::Author), "{off:?}");
    let on = judge(&threads, Policy { author_may_dismiss: true });
    let forms: Vec<Form> = on.counted.iter().map(|c| c.form).collect();
    assert_eq!(forms, vec![Form::Command(Verb::Dismiss), Form::Resolution, Form::Reaction]);
    assert!(on.ignored.is_empty());
}

#[test]
fn a_resolution_counts_only_with_a_resolver_who_may_write() {
    let mut by_writer = thread();
    by_writer.resolved = true;
    by_writer.resolved_by = Some(person("erin"));
    let mut unattributed = thread();
    unattributed.resolved = true;
    let mut reopened = by_writer.clone();
    reopened.resolved = false;
    let mut by_reader = by_writer.clone();
    by_reader.resolved_by = Some(person("mallory"));
    let mut by_pipeline = unattributed.clone();
    by_pipeline.body = "<!-- gauntlet:finding v1 id=abc state=resolved -->\n\nclaim".into();
    let d = judge(&[by_writer, unattributed, reopened, by_reader, by_pipeline], Policy::default());
    assert_eq!(d.counted.iter().map(|c| (c.thread, c.form)).collect::<Vec<_>>(), vec![(0, Form::Resolution)]);
    assert_eq!(
        d.ignored.iter().map(|i| (i.thread, &i.why)).collect::<Vec<_>>(),
        vec![(1, &Why::Unattributed), (3, &Why::NoWrite)],
        "the pipeline's own resolution is neither counted nor listed"
    );
}

#[test]
fn a_writers_thumbs_down_counts() {
    let mut t = thread();
    t.thumbs_down = vec![person("mallory"), person("alice")];
    let d = judge(&[t], Policy::default());
    assert_eq!(d.of(0).map(|c| (&c.by.name, c.form)), Some((&"alice".to_string(), Form::Reaction)));
    assert_eq!(d.ignored.len(), 1);
}

#[test]
fn an_unanswered_permission_question_ignores_the_act_and_says_why() {
    let threads = [replied("alice", "/gauntlet dismiss")];
    let d = assess(&threads, None, Policy::default(), |_| Access::Unknown("HTTP 403".into()));
    assert!(d.counted.is_empty());
    assert_eq!(d.ignored[0].why, Why::Unchecked("HTTP 403".into()));
    assert!(d.ignored[0].why.to_string().contains("HTTP 403"));
}

#[test]
fn each_person_is_asked_about_once_and_the_author_not_at_all() {
    let mut a = replied("alice", "/gauntlet dismiss");
    a.thumbs_down.push(person("alice"));
    a.replies.push(Reply { author: person("paul"), body: "/gauntlet dismiss".into(), edited: Edited::NotByOthers });
    let b = replied("alice", "/gauntlet false-positive");
    let threads = [a, b];
    let names: Vec<&str> = to_check(&threads, Some(&person("paul"))).iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["alice"]);
}

#[test]
fn a_command_outside_the_threads_names_its_finding_by_id() {
    let reply = |body: &str| Reply { author: person("alice"), body: body.into(), edited: Edited::NotByOthers };
    let f = by_finding(&reply("/gauntlet dismiss 5e0c1d2b3a4f6e7d the handler is internal")).unwrap();
    assert_eq!(
        (f.id.as_str(), f.verb, f.reason.as_deref()),
        ("5e0c1d2b3a4f6e7d", Verb::Dismiss, Some("the handler is internal"))
    );
    assert_eq!(by_finding(&reply("/gauntlet false-positive `abc1`")).unwrap().id, "abc1");
    for text in [
        "/gauntlet dismiss",
        "/gauntlet dismiss ../x reason",
        "I would /gauntlet dismiss abc1",
        "/gauntlet dismis abc1",
    ] {
        assert_eq!(by_finding(&reply(text)), None, "{text:?}");
    }
    let mut edited = reply("/gauntlet dismiss abc1");
    edited.edited = Edited::By(person("mallory"));
    let mut out = Dismissals::default();
    assess_general(
        &[reply("/gauntlet dismiss abc1"), edited],
        Some(&person("paul")),
        Policy::default(),
        writers,
        &mut out,
    );
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings_ignored[0].1, Why::EditedBy("mallory".into()));
}
