//! "Verified" (75, 100) is held to what the validator saw: the places its verdict
//! cites and the files the claim names must each have been shown or read.

use gauntlet_review::ground::check_certainty;
use gauntlet_review::shown::Shown;

const CALLER: &str = "from db import fetch\n\ndef handler(request):\n    return fetch(request.user.id)\n";

fn shown(path: &str, text: &str) -> Shown {
    let mut s = Shown::default();
    s.add_file(path, text);
    s
}

#[test]
fn a_verdict_citing_only_what_was_shown_is_verified() {
    let api = shown("api.py", CALLER);
    let claim = "fetch is called without a user id.";
    assert_eq!(check_certainty(claim, "api.py:4 `fetch(request.user.id)` always passes one", &[&api]), Ok(()));
}

#[test]
fn a_verdict_citing_a_place_never_shown_or_read_is_not() {
    let api = shown("api.py", CALLER);
    let error = check_certainty("c", "db.py:16 `if user_id is None:` is missing", &[&api]).unwrap_err();
    assert_eq!(error, "the verdict cited db.py:16, which was never shown or read");
    let past_the_end = check_certainty("c", "api.py:40 `fetch` again", &[&api]).unwrap_err();
    assert!(past_the_end.contains("api.py:40"), "{past_the_end}");
}

#[test]
fn a_claim_resting_on_a_file_the_validator_never_saw_is_not_verified_until_it_is_read() {
    let api = shown("api.py", CALLER);
    let claim = "The guard at db.py:16 no longer covers the handler's call.";
    let evidence = "api.py:4 `fetch(request.user.id)` reaches the guard";
    let error = check_certainty(claim, evidence, &[&api]).unwrap_err();
    assert_eq!(error, "the claim rests on db.py, which was never shown or read");
    // Any part of the file read counts: the validator looked where the claim points.
    let mut read = Shown::default();
    read.add_range("db.py", 15, &["def fetch(user_id):", "    if user_id is None:"]);
    assert_eq!(check_certainty(claim, evidence, &[&api, &read]), Ok(()));
}

#[test]
fn a_verdict_that_cites_nothing_is_left_to_the_prompt() {
    // The contract asks for a location first; code does not guess what uncited prose read.
    assert_eq!(check_certainty("c", "the change does what the claim says", &[]), Ok(()));
}
