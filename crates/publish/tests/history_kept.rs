//! A read that takes what an earlier read found (`history::read_with`): what
//! earned blocking keeps between runs so its record grows under a small call
//! budget, and a flood of empty pull requests cannot push it out of the read.
//! Run on the stateful fakes of the three hosts, against a full read's figures.

mod fakes;

use fakes::AUTHOR;
use fakes::repo::{FakeRepo, Kind, RPull, scenario};
use gauntlet_publish::PublishError;
use gauntlet_publish::history::{self, Comment, History, Known, PullRecord, Read, Scope};
use gauntlet_publish::host::{Handle, Person, Reply, Thread};
use gauntlet_publish::outcome::{Outcome, PrState, Record, figures};
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
async fn a_dismisser_the_budget_leaves_unasked_makes_the_pull_request_unread() {
    let fake = FakeRepo::start(Kind::GitHub, scenario(Kind::GitHub)).await;
    let (first, _) = full(&fake).await;
    history::read(fake.host().as_ref(), &scope()).await.unwrap();
    let asked = fake.repo().log.iter().position(|l| l.contains("/collaborators/")).expect("someone's access is asked");
    fake.repo().requests = 0;
    fake.repo().log.clear();
    // The budget runs out on that permission request, while #3 (the newest close) is decided.
    let read = history::read(fake.host_with(asked).as_ref(), &scope()).await.unwrap();
    let why = read.partial.clone().unwrap_or_default();
    assert!(why.contains("stopped at pull request 3") && why.contains("who may dismiss could not be asked"), "{why}");
    assert!(read.records.is_empty() && read.pulls.is_empty(), "nothing of #3 counts: {read:#?}");
    assert_eq!((read.edited, read.unreadable), (0, 0), "its left-out counts are rolled back too");
    assert!(first.edited > 0, "a full read leaves an edited comment of #3 out, so the rollback is seen");
    assert_eq!(read.unanswered, None, "a spent budget is only a shorter read");
    assert!(!read.known().contains_key(&3), "nothing of it would be kept for a later read either");
}

/// A host whose listing and answers a test writes: pages of pull requests (a
/// failure after the last one), each pull request holding one pipeline comment
/// that `dismisser` dismissed, and a permission answer that fails for `broken`.
struct Scripted {
    pages: Vec<Vec<history::Pull>>,
    dismisser: &'static str,
    broken: Option<&'static str>,
}

fn pull(number: u64, state: PrState, closed_at: &str) -> history::Pull {
    history::Pull { number, state, closed_at: closed_at.into(), listed_at: None }
}

fn finding_comment(number: u64, dismisser: &str) -> Comment {
    let p = gauntlet_review::review::Published {
        id: format!("f{number}"),
        reviewer: "logic".into(),
        raised_by: vec!["logic".into()],
        lens: gauntlet_review::contract::Lens::FailureScenario,
        location: "src/a.rs:3".into(),
        inline: true,
        claim: "A defect.".into(),
        evidence: "code".into(),
        severity: gauntlet_review::contract::Severity::High,
        confidence: 80,
        validator_evidence: "it stands".into(),
        gap: None,
        read: Vec::new(),
        also_at: Vec::new(),
        unvalidated: Vec::new(),
    };
    let who = Person { id: dismisser.into(), name: dismisser.into() };
    let thread = Thread {
        handle: Handle { thread: number.to_string(), comment: number.to_string() },
        path: "src/a.rs".into(),
        body: gauntlet_publish::body::inline(&p),
        resolved: false,
        resolved_by: None,
        replies: vec![Reply { author: who, body: "/gauntlet dismiss not a bug".into(), edited: Default::default() }],
        thumbs_down: Vec::new(),
    };
    Comment { thread, lines_changed: false, edited: None }
}

#[async_trait::async_trait]
impl History for Scripted {
    fn name(&self) -> &'static str {
        "Scripted"
    }

    async fn pulls(&self, page: u32) -> Result<(Vec<history::Pull>, bool), PublishError> {
        match self.pages.get(page as usize - 1) {
            Some(items) => Ok((items.clone(), true)),
            None => Err(PublishError::Response { host: "Scripted", what: "list".into(), message: "down".into() }),
        }
    }

    async fn record(&self, pull: &history::Pull) -> Result<PullRecord, PublishError> {
        Ok(PullRecord { comments: vec![finding_comment(pull.number, self.dismisser)], ..PullRecord::default() })
    }

    async fn may_write(&self, who: &Person) -> Result<bool, PublishError> {
        match self.broken {
            Some(name) if name == who.id => {
                Err(PublishError::Response { host: "Scripted", what: "ask".into(), message: "500".into() })
            }
            _ => Ok(true),
        }
    }
}

fn kept(number: u64, closed_at: &str) -> (u64, Known) {
    let record = Record {
        pr: number,
        finding: format!("k{number}"),
        severity: "high".into(),
        reviewers: vec!["logic".into()],
        closed_at: closed_at.into(),
        outcome: Outcome::Fixed,
        era: None,
        path: None,
        thread: None,
    };
    (number, Known { closed_at: closed_at.into(), records: vec![record] })
}

#[tokio::test]
async fn a_pull_request_listed_twice_counts_once() {
    let host = Scripted {
        pages: vec![
            vec![pull(5, PrState::Merged, "2024-05-02")],
            // The list moved between the two requests: #5 again.
            vec![pull(5, PrState::Merged, "2024-05-02"), pull(4, PrState::Merged, "2024-05-01")],
        ],
        dismisser: "alice",
        broken: None,
    };
    let known: BTreeMap<u64, Known> = [kept(5, "2024-05-02"), kept(4, "2024-05-01")].into();
    let read = history::read_with(&host, &scope(), &known).await.unwrap();
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![5, 4]);
    assert_eq!(read.records.len(), 2, "{read:#?}");
}

#[tokio::test]
async fn a_cut_listing_adds_older_kept_pull_requests_but_not_one_it_showed_reopened() {
    let host = Scripted {
        pages: vec![vec![pull(9, PrState::Merged, "2024-06-01")], vec![pull(5, PrState::Open, "")]],
        dismisser: "alice",
        broken: None,
    };
    // #5 was closed when kept, and is open again; #3 closed before anything listed.
    let known: BTreeMap<u64, Known> = [kept(5, "2024-04-01"), kept(3, "2024-03-01")].into();
    let read = history::read_with(&host, &scope(), &known).await.unwrap();
    assert!(
        read.partial.as_deref().is_some_and(|p| p.contains("listing pull requests stopped at page 3")),
        "{read:#?}"
    );
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![9, 3], "{read:#?}");
    // `--since` holds for what the file holds too, when the host cannot list at all.
    let down = Scripted { pages: Vec::new(), dismisser: "alice", broken: None };
    let since = Scope { since: Some("2024-03-15".into()), ..scope() };
    let read = history::read_with(&down, &since, &known).await.unwrap();
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![5]);
}

#[tokio::test]
async fn a_dismisser_the_host_will_not_answer_for_is_said_so_the_figure_is_not_trusted() {
    let pages = vec![vec![pull(2, PrState::Merged, "2024-05-02"), pull(1, PrState::Merged, "2024-05-01")]];
    let host = Scripted { pages: pages.clone(), dismisser: "alice", broken: Some("alice") };
    let read = history::read(&host, &scope()).await.unwrap();
    assert!(read.records.is_empty(), "no pull request whose dismissal is unknown counts: {read:#?}");
    assert!(read.unanswered.as_deref().is_some_and(|w| w.starts_with("#2: ") && w.contains("500")), "{read:#?}");
    // Answered, the same pull requests count, with their dismissals.
    let fine = Scripted { pages, dismisser: "alice", broken: None };
    let read = history::read(&fine, &scope()).await.unwrap();
    assert_eq!(read.records.iter().filter(|r| r.outcome == Outcome::Dismissed).count(), 2, "{read:#?}");
    assert_eq!(read.unanswered, None);
}

#[tokio::test]
async fn azure_devops_compares_a_pull_requests_files_in_one_request_per_iteration() {
    let fake = FakeRepo::start(Kind::Azure, scenario(Kind::Azure)).await;
    let read = history::read(fake.host().as_ref(), &scope()).await.unwrap();
    let compares = fake.repo().log.iter().filter(|l| l.contains("/filediffs")).count();
    // Every comment of a pull request was placed on its first iteration.
    assert_eq!(compares, read.pulls.len(), "{:#?}", fake.repo().log);
    let threads: usize = fake.repo().pulls.iter().filter(|p| p.state != "open").map(|p| p.threads.len()).sum();
    assert!(threads > compares, "more comments ({threads}) than requests");
}

#[tokio::test]
async fn azure_devops_naming_a_compared_file_in_another_form_still_counts_its_changed_lines() {
    let fake = FakeRepo::start(Kind::Azure, scenario(Kind::Azure)).await;
    let (first, _) = full(&fake).await;
    let mut repo = scenario(Kind::Azure);
    repo.bare_diff_paths = true;
    let bare = FakeRepo::start(Kind::Azure, repo).await;
    let read = history::read(bare.host().as_ref(), &scope()).await.unwrap();
    assert_eq!(figures(&read.records), figures(&first.records), "fixed stays fixed");
    assert!(figures(&read.records).total.fixed > 0);
}
