//! Builders shared by the publisher's tests.
#![allow(dead_code)]

use gauntlet_publish::dismissal::{Counted, Dismissals, Form};
use gauntlet_publish::plan::Action;
use gauntlet_publish::{Anchor, Candidate, Edited, Handle, Person, Plan, Reply, Thread};
use gauntlet_review::contract::{Lens, Severity};
use gauntlet_review::finding::Finding;
use gauntlet_review::review::{Funnel, Published, Review, SCHEMA_VERSION};

pub const HEAD: &str = "2c26b46b68ffc68ff99b453c1d30413413422d70";
pub const BASE: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b";

/// A published finding whose id is the real fingerprint of its parts.
pub fn finding(path: &str, line: u32, evidence: &str, claim: &str, severity: Severity) -> Published {
    let lens = Lens::FailureScenario;
    Published {
        id: Finding::fingerprint("correctness", path, lens, evidence),
        reviewer: "correctness".into(),
        raised_by: vec!["correctness".into()],
        lens,
        location: format!("{path}:{line}"),
        inline: true,
        claim: claim.into(),
        evidence: evidence.into(),
        severity,
        confidence: 75,
        validator_evidence: format!("{path}:{line} the code does what the claim says"),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    }
}

pub fn anchor(p: &Published) -> Anchor {
    let (path, line) = p.location.rsplit_once(':').unwrap();
    let line: u32 = line.parse().unwrap();
    Anchor { path: path.into(), old_path: path.into(), start: line, line, old_line: None }
}

pub fn candidates(published: &[Published]) -> Vec<Candidate<'_>> {
    published.iter().map(|p| Candidate { finding: p, anchor: p.inline.then(|| anchor(p)), fix: None }).collect()
}

pub fn review(published: Vec<Published>) -> Review {
    Review {
        schema_version: SCHEMA_VERSION,
        base: BASE.into(),
        head: HEAD.into(),
        provider: "fake:model".into(),
        rules_version: "sha256:0123456789ab".into(),
        funnel: Funnel {
            candidates: published.len(),
            grounded: published.len(),
            clustered: published.len(),
            survived: published.len(),
            published: published.len(),
            minor: 0,
        },
        published,
        reviewers: vec!["correctness".into()],
        ..Review::default()
    }
}

/// What a host would hold after `plan` ran against `threads`.
pub fn apply(threads: &[Thread], plan: &Plan) -> Vec<Thread> {
    let mut out = threads.to_vec();
    for action in &plan.actions {
        match action {
            Action::Create { anchor, body, .. } => {
                let id = format!("t{}", out.len());
                out.push(Thread {
                    handle: Handle { thread: id.clone(), comment: id },
                    path: anchor.path.clone(),
                    body: body.clone(),
                    resolved: false,
                    resolved_by: None,
                    replies: vec![],
                    thumbs_down: vec![],
                });
            }
            Action::Update { thread, body, reopen, .. } => {
                out[*thread].body = body.clone();
                if *reopen {
                    out[*thread].resolved = false;
                }
            }
            Action::Resolve { thread, body } => {
                out[*thread].body = body.clone();
                out[*thread].resolved = true;
            }
            Action::Leave { .. } => {}
        }
    }
    out
}

/// How many actions of each kind: (create, update, resolve, leave).
pub fn counts(plan: &Plan) -> (usize, usize, usize, usize) {
    let mut c = (0, 0, 0, 0);
    for a in &plan.actions {
        match a {
            Action::Create { .. } => c.0 += 1,
            Action::Update { .. } => c.1 += 1,
            Action::Resolve { .. } => c.2 += 1,
            Action::Leave { .. } => c.3 += 1,
        }
    }
    c
}

/// Someone on the host.
pub fn person(name: &str) -> Person {
    Person { id: format!("id-{name}"), name: name.into() }
}

/// A reply by `name`.
pub fn reply(name: &str, body: &str) -> Reply {
    Reply { author: person(name), body: body.into(), edited: Edited::NotByOthers }
}

/// Dismissals in which `threads` were resolved by a writer.
pub fn resolved_by_writer(threads: &[usize]) -> Dismissals {
    let counted = threads
        .iter()
        .map(|&thread| Counted { thread, by: person("erin"), form: Form::Resolution, reason: None })
        .collect();
    Dismissals { counted, ..Dismissals::default() }
}

/// Publish `published` to `host` once, as a full run at [`HEAD`] under the
/// default dismissal policy: list what is there, decide, write.
pub async fn publish_once(
    host: &dyn gauntlet_publish::CodeHost,
    published: Vec<Published>,
) -> Result<gauntlet_publish::Summary, gauntlet_publish::PublishError> {
    use gauntlet_publish::{OverviewMarker, Policy, Request, Reviewed, dismissal, sync};
    let review = review(published);
    let existing = host.existing(HEAD).await?;
    let dismissals = dismissal::check(host, &existing, Policy::default()).await;
    let marker = OverviewMarker {
        head: HEAD.into(),
        rules: review.rules_version.clone(),
        config: "cfg1".into(),
        held: None,
        era: None,
        gone: vec![],
        incomplete: false,
        open: None,
    };
    let candidates = candidates(&review.published);
    let request = Request {
        review: &review,
        candidates,
        marker,
        cap: 15,
        reviewed: Reviewed::All,
        notes: vec![],
        dismissals,
        since_last: None,
        unapplied_rules: vec![],
    };
    sync(host, &existing, request).await
}
