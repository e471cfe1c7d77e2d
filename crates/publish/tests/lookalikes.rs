//! Text that looks like something it is not, on every host: a writer's command
//! shown as code or spelt with a lookalike space dismisses nothing, and an issue
//! or merge-request reference a model quotes reaches the pull request as text,
//! not as a live cross-reference.

mod common;
#[macro_use]
mod fakes;

use common::*;
use fakes::{Fake, PERSON};
use gauntlet_publish::{Dismissals, Policy, dismissal};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;

/// Two inline findings and one the overview holds (outside the diff).
fn findings() -> Vec<Published> {
    let mut outside = finding("src/b.rs", 40, "retry();", "Retries forever on a closed socket.", Severity::High);
    outside.inline = false;
    vec![
        finding("src/a.rs", 3, "let x = v[i];", "Indexes past the end when the list is empty.", Severity::High),
        finding("src/a.rs", 9, "a / b", "Divides by zero when the batch is empty.", Severity::Medium),
        outside,
    ]
}

async fn dismissals(fake: &Fake) -> Dismissals {
    let host = fake.host();
    let existing = host.existing(HEAD).await.unwrap();
    dismissal::check(host.as_ref(), &existing, Policy::default()).await
}

/// What a writer might paste that looks like a command and is not one.
const LOOKALIKES: [&str; 4] = [
    "    /gauntlet dismiss shown as a code block",
    "/gauntlet\u{00A0}dismiss a non-breaking space",
    "/gauntlet\u{3000}false-positive an ideographic space",
    "/gauntlet dismiss\u{00A0}joined to its reason",
];

async fn a_writers_code_block_or_lookalike_spaces_dismiss_nothing(fake: Fake) {
    let published = findings();
    let outside_id = published[2].id.clone();
    publish_once(fake.host().as_ref(), published.clone()).await.unwrap();
    let threads: Vec<u64> = fake.inline().iter().map(|t| t.id).collect();
    assert_eq!(threads.len(), 2);
    for text in LOOKALIKES {
        fake.reply(threads[0], text);
    }
    // The same shapes naming the overview's finding by id, as general comments.
    for text in [
        format!("    /gauntlet dismiss {outside_id} shown as a code block"),
        format!("/gauntlet\u{00A0}dismiss {outside_id} a non-breaking space"),
        format!("/gauntlet\u{3000}false-positive {outside_id} an ideographic space"),
        format!("/gauntlet dismiss\u{00A0}{outside_id} joined to the verb"),
    ] {
        fake.state().add(None, None, PERSON, &text);
    }
    let seen = dismissals(&fake).await;
    assert_eq!(seen, Dismissals::default(), "no lookalike is a command, not even an ignored one");
    let summary = publish_once(fake.host().as_ref(), published.clone()).await.unwrap();
    assert_eq!((summary.dismissed, summary.unchanged), (0, 2), "{summary:?}");
    let overview = fake.overviews().pop().unwrap();
    assert!(overview.contains(&outside_id), "the overview still holds its finding:\n{overview}");

    // The command typed as a person types it counts, on a thread and by id.
    fake.reply(threads[1], "/gauntlet dismiss by design");
    fake.state().add(None, None, PERSON, &format!("/gauntlet false-positive {outside_id} checked upstream"));
    let seen = dismissals(&fake).await;
    assert_eq!((seen.counted.len(), seen.is_finding_dismissed(&outside_id)), (1, true), "{seen:?}");
}

/// Where each host turns text into a link to an issue, pull or merge request.
const REFERENCES: [&str; 4] = ["#12", "octo/widgets#34", "!56", "GH-78"];

/// Any live reference in `body` outside code: `#`, `!` or `GH-` right before a digit.
fn live_references(body: &str) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut found = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let sigil = matches!(c, '#' | '!') || (*c == '-' && i >= 2 && chars[i - 2..i] == ['G', 'H']);
        if sigil && next_digit {
            found.push(chars[i.saturating_sub(12)..(i + 4).min(chars.len())].iter().collect());
        }
    }
    found
}

async fn a_quoted_issue_reference_is_posted_as_text_not_as_a_link(fake: Fake) {
    let claim =
        format!("Same bug as {}; see also {}, {} and {}.", REFERENCES[0], REFERENCES[1], REFERENCES[2], REFERENCES[3]);
    let mut published = findings();
    published[0].claim = claim.clone();
    published[2].claim = claim.clone();
    published[0].validator_evidence = format!("src/a.rs:3 as in {}", REFERENCES[0]);
    publish_once(fake.host().as_ref(), published).await.unwrap();
    let bodies: Vec<String> =
        fake.state().threads.iter().flat_map(|t| t.notes.iter().map(|n| n.body.clone())).collect();
    assert!(bodies.len() >= 3, "{bodies:#?}");
    for body in &bodies {
        assert_eq!(live_references(body), Vec::<String>::new(), "a live reference in:\n{body}");
    }
    // Still readable: without the invisible break, the reference is as the model wrote it.
    let shown = |b: &String| b.replace(['\u{200B}', '\\'], "");
    for reference in REFERENCES {
        let n = bodies.iter().filter(|b| shown(b).contains(reference)).count();
        assert!(n >= 2, "{reference} is still there to read, inline and in the overview: {bodies:#?}");
    }
}

on_every_host!(
    a_writers_code_block_or_lookalike_spaces_dismiss_nothing,
    a_quoted_issue_reference_is_posted_as_text_not_as_a_link,
);
