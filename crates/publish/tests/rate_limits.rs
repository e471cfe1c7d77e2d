//! Writes to a rate-limited host: a refusal for a rate limit (a 429, or
//! GitHub's 403 with `Retry-After` or an exhausted quota) stores nothing, so the
//! publisher waits as asked and sends the write again; it lands once. A host
//! asking for a longer wait than `[network] max_retry_after_secs` allows fails
//! the run at once, saying so.

mod common;
#[macro_use]
mod fakes;

use common::*;
use fakes::Fake;
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use std::time::{Duration, Instant};

fn one_finding() -> Vec<Published> {
    vec![finding("src/a.rs", 3, "let x = v[i];", "Indexes past the end when the list is empty.", Severity::High)]
}

/// Refuse the next write with `status` and `headers`.
fn refuse_next_write(fake: &Fake, status: u16, headers: &[(&'static str, &str)]) {
    let headers = headers.iter().map(|(k, v)| (*k, v.to_string())).collect();
    fake.state().rate_limited.push_back((status, headers));
}

/// What a person sees: (inline threads, overviews).
fn posted(fake: &Fake) -> (usize, usize) {
    (fake.inline().len(), fake.overviews().len())
}

async fn a_write_refused_with_429_is_waited_out_and_lands_once(fake: Fake) {
    refuse_next_write(&fake, 429, &[("retry-after", "1")]);
    let started = Instant::now();
    let summary = publish_once(fake.host().as_ref(), one_finding()).await.expect("the write is sent again");
    assert!(started.elapsed() >= Duration::from_secs(1), "waited as the host asked");
    assert!(fake.state().rate_limited.is_empty(), "the refusal was served");
    assert_eq!(summary.created, 1, "{summary:?}");
    assert_eq!(posted(&fake), (1, 1), "one comment and one overview, nothing twice");
    assert!(fake.errors().is_empty(), "{:?}", fake.errors());
}

async fn githubs_secondary_limits_are_waited_out_too(fake: Fake) {
    // A 403 with `Retry-After` (the secondary limit), then a 403 of a spent quota
    // whose reset is a moment away: both on the first write, which then lands.
    refuse_next_write(&fake, 403, &[("retry-after", "1")]);
    let reset = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let reset = reset.to_string();
    refuse_next_write(&fake, 403, &[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", &reset)]);
    publish_once(fake.host().as_ref(), one_finding()).await.expect("both refusals are waited out");
    assert!(fake.state().rate_limited.is_empty());
    assert_eq!(posted(&fake), (1, 1));
}

async fn a_wait_longer_than_max_retry_after_fails_at_once_and_names_the_setting(fake: Fake) {
    let mut host = fake.host();
    host.wait_at_most(Duration::from_secs(5));
    refuse_next_write(&fake, 429, &[("retry-after", "3600")]);
    let started = Instant::now();
    let err = publish_once(host.as_ref(), one_finding()).await.unwrap_err();
    let text = err.to_string();
    assert!(started.elapsed() < Duration::from_secs(5), "no waiting: {text}");
    assert!(text.contains("HTTP 429") && text.contains("3600s"), "{text}");
    assert!(text.contains("[network] max_retry_after_secs") && text.contains("5s"), "{text}");
    assert!(!err.outcome_unknown() && !err.posted_something(), "a refusal stored nothing: {text}");
    assert_eq!(posted(&fake), (0, 0));
}

async fn a_limit_that_never_lifts_fails_after_three_tries_having_stored_nothing(fake: Fake) {
    refuse_next_write(&fake, 429, &[("retry-after", "0")]);
    refuse_next_write(&fake, 429, &[("retry-after", "0")]);
    refuse_next_write(&fake, 403, &[("retry-after", "0")]);
    let err = publish_once(fake.host().as_ref(), one_finding()).await.unwrap_err();
    let text = err.to_string();
    assert!(fake.state().rate_limited.is_empty(), "three tries: {text}");
    assert!(text.contains("HTTP 403") && text.contains("after 3 tries"), "{text}");
    assert!(!err.is_denied(), "a rate limit is no missing permission: {text}");
    assert!(!err.outcome_unknown() && !err.posted_something(), "{text}");
    assert_eq!(posted(&fake), (0, 0));
    publish_once(fake.host().as_ref(), one_finding()).await.unwrap();
    assert_eq!(posted(&fake), (1, 1), "the next run posts it");
}

on_every_host!(
    a_write_refused_with_429_is_waited_out_and_lands_once,
    githubs_secondary_limits_are_waited_out_too,
    a_wait_longer_than_max_retry_after_fails_at_once_and_names_the_setting,
    a_limit_that_never_lifts_fails_after_three_tries_having_stored_nothing,
);
