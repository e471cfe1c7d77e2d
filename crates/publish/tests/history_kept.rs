//! A read that takes what an earlier read found (`history::read_with`): what
//! earned blocking keeps between runs so its record grows under a small call
//! budget, and a flood of empty pull requests cannot push it out of the read.
//! Run on the stateful fakes of the three hosts, against a full read's figures.

mod fakes;

use fakes::AUTHOR;
use fakes::repo::{FakeRepo, Kind, RPull, scenario};
use gauntlet_publish::history::{self, Known, Read, Scope};
use gauntlet_publish::outcome::figures;
use std::collections::BTreeMap;

fn scope() -> Scope {
    Scope { last: 50, since: None, policy: Default::default() }
}

const KINDS: [Kind; 3] = [Kind::GitHub, Kind::GitLab, Kind::Azure];

/// A full read of the scenario on `kind`, and what it leaves to keep.
async fn full(fake: &FakeRepo) -> (Read, BTreeMap<u64, Known>) {
    let read = history::read(fake.host().as_ref(), &scope()).await.unwrap();
    assert_eq!(read.partial, None);
    assert!(!record_requests(fake).is_empty(), "a full read reads each pull request's comments");
    fake.repo().requests = 0;
    fake.repo().log.clear();
    let known = read.known();
    (read, known)
}

/// Requests that read one pull request's comments (not the listing).
fn record_requests(fake: &FakeRepo) -> Vec<String> {
    let listing = |l: &&String| l.contains("/pulls?") || l.contains("/merge_requests?") || l.contains("/pullrequests?");
    fake.repo().log.iter().filter(|l| !listing(l)).cloned().collect()
}

#[tokio::test]
async fn pull_requests_an_earlier_read_found_are_not_read_again() {
    for kind in KINDS {
        let fake = FakeRepo::start(kind, scenario(kind)).await;
        let (first, known) = full(&fake).await;
        assert_eq!(known.len(), 3, "{kind:?}: the three closed pull requests");
        let again = history::read_with(fake.host().as_ref(), &scope(), &known).await.unwrap();
        assert_eq!(figures(&again.records), figures(&first.records), "{kind:?}");
        assert_eq!(again.pulls, first.pulls, "{kind:?}");
        assert_eq!(again.reused, 3, "{kind:?}");
        let asked = record_requests(&fake);
        assert!(asked.is_empty(), "{kind:?}: only the listing, not {asked:#?}");
        assert!(again.covers().contains("(3 of them as an earlier read found them)"), "{}", again.covers());
    }
}

#[tokio::test]
async fn a_pull_request_closed_again_is_read_again() {
    let fake = FakeRepo::start(Kind::GitHub, scenario(Kind::GitHub)).await;
    history::read(fake.host().as_ref(), &Scope { last: 1, ..scope() }).await.unwrap();
    let one_pull = record_requests(&fake).len();
    let (_, mut known) = full(&fake).await;
    // What was kept of #3 is from an earlier close: it was reopened since.
    known.get_mut(&3).unwrap().closed_at = "2024-03-01T12:00:00Z".into();
    known.get_mut(&3).unwrap().records.clear();
    let again = history::read_with(fake.host().as_ref(), &scope(), &known).await.unwrap();
    assert_eq!(again.reused, 2);
    assert!(again.records.iter().any(|r| r.pr == 3), "#3's records come from the host again");
    let asked = record_requests(&fake).len();
    assert_eq!(asked, one_pull, "only #3 (the newest close) is read again");
}

#[tokio::test]
async fn a_flood_of_empty_pull_requests_does_not_push_the_kept_record_out() {
    for kind in KINDS {
        let mut repo = scenario(kind);
        let fake_full = FakeRepo::start(kind, scenario(kind)).await;
        let (first, known) = full(&fake_full).await;
        // Twelve newer pull requests, opened and closed with nothing in them.
        for n in 0..12 {
            let day = format!("2024-04-{:02}T12:00:00Z", n + 1);
            repo.pulls.push(RPull {
                number: 100 + n,
                state: "closed",
                closed_at: day.clone(),
                updated_at: day,
                author: AUTHOR.into(),
                threads: Vec::new(),
                comments: Vec::new(),
                overviews: Vec::new(),
            });
        }
        let fake = FakeRepo::start(kind, repo).await;
        // Enough for the listing and a few of the empty ones only.
        let listing = {
            let read = history::read(fake.host().as_ref(), &Scope { last: 1, ..scope() }).await.unwrap();
            assert_eq!(read.pulls.len(), 1);
            let all = fake.repo().log.len();
            let n = all - record_requests(&fake).len();
            fake.repo().requests = 0;
            fake.repo().log.clear();
            n
        };
        let budget = listing + 3;
        let read = history::read_with(fake.host_with(budget).as_ref(), &scope(), &known).await.unwrap();
        let requests = fake.repo().requests;
        assert!(requests <= budget, "{kind:?}: {requests} requests");
        let why = read.partial.clone().unwrap_or_default();
        assert!(why.contains("older ones kept from an earlier read"), "{kind:?}: {why}");
        assert_eq!(figures(&read.records), figures(&first.records), "{kind:?}: the kept record still counts whole");
        assert!(read.pulls.iter().any(|p| p.0 == 3) && read.pulls.iter().any(|p| p.0 == 1), "{kind:?}");
    }
}

#[tokio::test]
async fn a_host_that_cannot_list_leaves_the_kept_record() {
    for kind in KINDS {
        let fake = FakeRepo::start(kind, scenario(kind)).await;
        let (first, known) = full(&fake).await;
        let read = history::read_with(fake.host_with(0).as_ref(), &scope(), &known).await.unwrap();
        assert_eq!(fake.repo().requests, 0);
        assert_eq!(figures(&read.records), figures(&first.records), "{kind:?}");
        assert_eq!(read.pulls, first.pulls, "{kind:?}: newest close first");
        let why = read.partial.clone().unwrap_or_default();
        assert!(why.starts_with("listing pull requests failed"), "{kind:?}: {why}");
        // With nothing kept, the same failure is an error, as before.
        assert!(history::read_with(fake.host_with(0).as_ref(), &scope(), &BTreeMap::new()).await.is_err());
    }
}

#[tokio::test]
async fn a_dismisser_the_host_would_not_answer_for_leaves_the_pull_request_unread() {
    let fake = FakeRepo::start(Kind::GitHub, scenario(Kind::GitHub)).await;
    let (_, _) = full(&fake).await;
    history::read(fake.host().as_ref(), &scope()).await.unwrap();
    let asked = fake.repo().log.iter().position(|l| l.contains("/collaborators/")).expect("someone's access is asked");
    let pr_of_asked = {
        // The thread query read just before the permission belongs to the pull request being decided.
        let log = fake.repo().log.clone();
        log[..asked].iter().rev().find(|l| l.contains("/graphql")).cloned().unwrap()
    };
    assert!(!pr_of_asked.is_empty());
    fake.repo().requests = 0;
    fake.repo().log.clear();
    // The budget runs out on that permission request.
    let read = history::read(fake.host_with(asked).as_ref(), &scope()).await.unwrap();
    let why = read.partial.clone().unwrap_or_default();
    assert!(why.contains("who may dismiss could not be asked"), "{why}");
    let read_prs: Vec<u64> = read.pulls.iter().map(|p| p.0).collect();
    assert!(read.records.iter().all(|r| read_prs.contains(&r.pr)), "no record of a pull request left unread");
    assert!(read.records.iter().all(|r| r.pr != 3), "#3, whose dismissers were being asked, is not counted");
    // Nothing of it would be kept for a later read either.
    assert!(!read.known().contains_key(&3));
}
