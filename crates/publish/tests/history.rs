//! What became of the pipeline's findings on a repository's recent pull requests,
//! read from stateful fakes of GitHub, GitLab and Azure DevOps holding a finding
//! in every outcome, people's replies, resolutions, merges, and a pull request
//! author's attempts to move the figures. The figures are computed by hand.

mod fakes;

use fakes::repo::{FakeRepo, Kind, RPull, Repo, scenario};
use fakes::{AUTHOR, PERSON, READER};
use gauntlet_publish::FindingMarker;
use gauntlet_publish::dismissal::{Form, Verb};
use gauntlet_publish::history::{self, Read, Scope};
use gauntlet_publish::outcome::{Outcome, Tally, figures};

fn scope(last: usize) -> Scope {
    Scope { last, since: None, policy: Default::default() }
}

fn tally(fixed: usize, withdrawn: usize, dismissed: usize, ignored: usize) -> Tally {
    Tally { fixed, withdrawn, dismissed, ignored, open: 0 }
}

async fn every_outcome_on(kind: Kind) {
    let mut repo = scenario(kind);
    repo.rate_limit_at = Some(2);
    let fake = FakeRepo::start(kind, repo).await;
    let host = fake.host();
    let read = history::read(host.as_ref(), &scope(50)).await.unwrap();
    let f = figures(&read.records);
    assert_eq!(f.total, tally(3, 2, 3, 3), "{kind:?}: {:#?}", read.records);
    assert_eq!(f.total.precision(), Some(0.5));
    assert_eq!(f.total.action_rate(), Some(3.0 / 11.0));
    assert_eq!(f.per_reviewer["logic"], tally(1, 2, 2, 3), "{kind:?}");
    assert_eq!(f.per_reviewer["security"], tally(3, 0, 1, 0), "{kind:?}");
    assert_eq!(f.per_severity["high"], tally(3, 0, 1, 1), "{kind:?}");
    assert_eq!(f.per_month["2024-03"], tally(2, 2, 2, 2), "{kind:?}");
    assert_eq!(f.per_month["2024-02"], tally(0, 0, 1, 1), "{kind:?}");
    assert_eq!(f.per_month["2024-01"], tally(1, 0, 0, 0), "{kind:?}");
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![3, 2, 1], "newest close first");
    // G and the overview the author edited (Azure DevOps lets nobody but the
    // author of a comment edit it); the overview's entry too old to name reviewers.
    assert_eq!(read.edited, 2 * usize::from(kind != Kind::Azure), "{kind:?}");
    assert_eq!(read.unreadable, 1, "{kind:?}");
    assert_eq!(read.partial, None);
    assert!(read.records.iter().all(|r| r.pr != 4), "the open pull request is outside the scope");
    // The author's acts are reported as not counted, with the reason.
    assert!(
        read.not_counted.iter().any(|l| l.contains(AUTHOR) && l.contains("opened this pull request")),
        "{:?}",
        read.not_counted
    );
    // The 429 was waited out and the same request made again.
    let log = fake.repo().log.clone();
    let limited = log.iter().position(|l| l.starts_with("429")).expect("a 429 was served");
    assert_eq!(log[limited].trim_start_matches("429"), log[limited + 1].trim_start_matches("200"), "{log:#?}");
    // Pages were followed.
    let paged = |needle: &str| log.iter().any(|l| l.contains(needle));
    match kind {
        Kind::GitHub => assert!(paged("/pulls?") && paged("page=2"), "{log:#?}"),
        Kind::GitLab => assert!(paged("/merge_requests?") && paged("/discussions?per_page=100&page=2"), "{log:#?}"),
        Kind::Azure => assert!(paged("$skip=100"), "{log:#?}"),
    }
}

#[tokio::test]
async fn github_every_outcome_from_the_hosts_records() {
    every_outcome_on(Kind::GitHub).await;
}

#[tokio::test]
async fn gitlab_every_outcome_from_the_hosts_records() {
    every_outcome_on(Kind::GitLab).await;
}

/// Azure DevOps, with its closed pull requests on the second page of the listing.
#[tokio::test]
async fn azure_every_outcome_from_the_hosts_records() {
    let mut repo = scenario(Kind::Azure);
    // Over a hundred newer open pull requests: the closed ones are on page two.
    for n in 10..112 {
        repo.pulls.push(RPull {
            number: n,
            state: "open",
            closed_at: String::new(),
            updated_at: "2024-03-11T00:00:00Z".into(),
            author: AUTHOR.into(),
            threads: vec![],
            comments: vec![],
            overviews: vec![],
        });
    }
    let fake = FakeRepo::start(Kind::Azure, repo).await;
    let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
    let f = figures(&read.records);
    assert_eq!(f.total, tally(3, 2, 3, 3), "{:#?}", read.records);
    assert_eq!(f.per_reviewer["security"], tally(3, 0, 1, 0));
    assert!(fake.repo().log.iter().any(|l| l.contains("$skip=100")));
}

#[tokio::test]
async fn last_and_since_choose_the_newest_closes() {
    let fake = FakeRepo::start(Kind::GitHub, scenario(Kind::GitHub)).await;
    let host = fake.host();
    let read = history::read(host.as_ref(), &scope(2)).await.unwrap();
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![3, 2]);
    assert_eq!(figures(&read.records).total, tally(2, 2, 3, 3));
    assert!(read.covers().starts_with("2 merged or closed pull request(s), closed 2024-02-10 to 2024-03-05"));
    let since = Scope { last: 50, since: Some("2024-02-01".into()), policy: Default::default() };
    let read = history::read(host.as_ref(), &since).await.unwrap();
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![3, 2]);
}

#[tokio::test]
async fn an_author_allowed_to_dismiss_moves_only_their_own_dismissals() {
    let fake = FakeRepo::start(Kind::GitLab, scenario(Kind::GitLab)).await;
    let policy = gauntlet_publish::Policy { author_may_dismiss: true };
    let read = history::read(fake.host().as_ref(), &Scope { last: 50, since: None, policy }).await.unwrap();
    // D becomes dismissed; the forged and the edited comments still count for nothing.
    assert_eq!(figures(&read.records).total, tally(3, 2, 4, 2));
    assert!(read.records.iter().any(|r| r.outcome == Outcome::Dismissed && r.severity == "high" && r.pr == 3));
}

#[tokio::test]
async fn a_failure_part_way_gives_a_partial_read_that_says_so() {
    let mut repo = scenario(Kind::GitHub);
    repo.broken = Some(1);
    let fake = FakeRepo::start(Kind::GitHub, repo).await;
    let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
    assert_eq!(read.pulls.iter().map(|p| p.0).collect::<Vec<_>>(), vec![3, 2]);
    let covers = read.covers();
    assert!(covers.contains("partial: stopped at pull request 1") && covers.contains("HTTP 404"), "{covers}");
    assert_eq!(figures(&read.records).total, tally(2, 2, 3, 3));
}

/// A read under a call budget sends no more requests than that, and says where
/// it stopped; what it read before the budget ran out still counts.
#[tokio::test]
async fn a_call_budget_caps_the_requests_and_leaves_a_partial_read() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let fake = FakeRepo::start(kind, scenario(kind)).await;
        let full = {
            let host = fake.host();
            history::read(host.as_ref(), &scope(50)).await.unwrap();
            fake.repo().requests
        };
        fake.repo().requests = 0;
        let budget = full - 1;
        let host = fake.host_with(budget);
        let read = history::read(host.as_ref(), &scope(50)).await.unwrap();
        assert!(fake.repo().requests <= budget, "{kind:?}: {} requests", fake.repo().requests);
        let why = read.partial.clone().unwrap_or_default();
        assert!(why.contains("budget of API calls"), "{kind:?}: {why}");
        assert!(!read.pulls.is_empty(), "{kind:?}: the pull requests read before the budget ran out count");
    }
}

/// The id of the finding on `path` in pull request 3 of `repo` (D, `src/d.rs`, is
/// ignored in the scenario).
fn finding_on(repo: &Repo, path: &str) -> String {
    let pr3 = repo.pulls.iter().find(|p| p.number == 3).unwrap();
    let t = pr3.threads.iter().find(|t| t.path == path).unwrap();
    FindingMarker::parse(&t.body).unwrap().id
}

/// The scenario on `kind` with `comments` on pull request 3 after two lines of
/// chatter (so the comments take more than one page), read in full.
async fn read_with(kind: Kind, comments: impl Fn(&str) -> Vec<(String, String)>) -> (Read, String) {
    let mut repo = scenario(kind);
    let d = finding_on(&repo, "src/d.rs");
    let pr3 = repo.pulls.iter_mut().find(|p| p.number == 3).unwrap();
    pr3.comments.push((AUTHOR.into(), "Thanks for the review.".into()));
    pr3.comments.push((READER.into(), "Looks fine to me; is /gauntlet dismiss how it works?".into()));
    pr3.comments.extend(comments(&d));
    let fake = FakeRepo::start(kind, repo).await;
    let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
    (read, d)
}

/// `ci` counts a writer's `/gauntlet dismiss <finding id>` posted anywhere on the
/// pull request; the record `stats` reads counts it too, with who and why.
#[tokio::test]
async fn a_writers_dismissal_by_id_counts_on_every_host() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let (read, d) =
            read_with(kind, |d| vec![(PERSON.into(), format!("/gauntlet dismiss `{d}` the caller validates it"))])
                .await;
        // D moves from ignored to dismissed.
        assert_eq!(figures(&read.records).total, tally(3, 2, 4, 2), "{kind:?}: {:#?}", read.records);
        let record = read.records.iter().find(|r| r.finding == d).unwrap();
        assert_eq!(record.outcome, Outcome::Dismissed, "{kind:?}");
        let dismissed = read.dismissed.iter().find(|x| x.finding == d).expect("D is among the dismissed");
        assert_eq!((dismissed.pr, dismissed.path.as_str()), (3, "src/d.rs"), "{kind:?}");
        assert_eq!(dismissed.by, PERSON, "{kind:?}");
        assert_eq!(dismissed.form, Form::Command(Verb::Dismiss), "{kind:?}");
        assert_eq!(dismissed.reason.as_deref(), Some("the caller validates it"), "{kind:?}");
        assert_eq!(read.partial, None, "{kind:?}");
    }
}

/// A by-id command from someone without write access, or from the author without
/// `author_may_dismiss`, changes no figure and is listed as not counted.
#[tokio::test]
async fn a_non_writers_or_the_authors_dismissal_by_id_does_not_count() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let (read, d) = read_with(kind, |d| {
            vec![
                (READER.into(), format!("/gauntlet false-positive {d} nothing wrong here")),
                (AUTHOR.into(), format!("/gauntlet dismiss {d}")),
            ]
        })
        .await;
        assert_eq!(figures(&read.records).total, tally(3, 2, 3, 3), "{kind:?}: {:#?}", read.records);
        assert!(read.dismissed.iter().all(|x| x.finding != d), "{kind:?}");
        let listed = |who: &str, verb: &str, why: &str| {
            read.not_counted.iter().any(|l| {
                l.starts_with("#3 src/d.rs: ")
                    && l.contains(who)
                    && l.contains(&format!("`/gauntlet {verb} {d}`"))
                    && l.contains(why)
            })
        };
        assert!(
            listed(READER, "false-positive", "not report them as able to write"),
            "{kind:?}: {:#?}",
            read.not_counted
        );
        assert!(listed(AUTHOR, "dismiss", "opened this pull request"), "{kind:?}: {:#?}", read.not_counted);
    }
}

/// A by-id command naming no finding the pipeline posted changes nothing: no
/// figure, no dismissal, no line among those not counted.
#[tokio::test]
async fn a_dismissal_by_an_id_that_matches_no_finding_changes_nothing() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let (baseline, _) = read_with(kind, |_| vec![]).await;
        let (read, _) = read_with(kind, |_| {
            vec![
                (PERSON.into(), "/gauntlet dismiss f999999 not ours".into()),
                (READER.into(), "/gauntlet dismiss f999998".into()),
            ]
        })
        .await;
        assert_eq!(read.records, baseline.records, "{kind:?}");
        assert_eq!(read.dismissed, baseline.dismissed, "{kind:?}");
        assert_eq!(read.not_counted, baseline.not_counted, "{kind:?}");
        assert_eq!(figures(&read.records).total, tally(3, 2, 3, 3), "{kind:?}");
    }
}

/// Findings only the overview shows enter the record with the same outcomes as
/// those with a comment: K fixed, L withdrawn (gone), N dismissed by a writer's
/// command naming it, J ignored (still held at the merge). The finding of the
/// inline comment A, also held, counts once; an overview someone else edited,
/// and one the author forged, count for nothing.
#[tokio::test]
async fn findings_only_the_overview_shows_are_counted_once_and_only_from_the_pipelines_own_overview() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let repo = scenario(kind);
        let a = finding_on(&repo, "src/a.rs");
        let fake = FakeRepo::start(kind, repo).await;
        let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
        let of = |prefix: char| -> Vec<(u64, Outcome, &[String])> {
            let from = read.records.iter().filter(|r| r.finding.starts_with(prefix));
            from.map(|r| (r.pr, r.outcome, &r.reviewers[..])).collect()
        };
        let (logic, security) = (["logic".to_string()], ["security".to_string()]);
        assert_eq!(of('k'), [(3, Outcome::Fixed, &security[..])], "{kind:?}: {:#?}", read.records);
        assert_eq!(of('l'), [(3, Outcome::Withdrawn, &logic[..])], "{kind:?}");
        assert_eq!(of('n'), [(3, Outcome::Dismissed, &logic[..])], "{kind:?}");
        assert_eq!(of('j'), [(3, Outcome::Ignored, &logic[..])], "{kind:?}");
        assert!(of('o').is_empty(), "{kind:?}: an entry without reviewers is not guessed at");
        let a_records: Vec<Outcome> = read.records.iter().filter(|r| r.finding == a).map(|r| r.outcome).collect();
        assert_eq!(a_records, [Outcome::Fixed], "{kind:?}: A counts once, from its comment");
        // Pull request 1 holds only the author's forged overview, 2 only an edited one.
        assert!(read.records.iter().filter(|r| r.pr != 3).all(|r| r.finding.starts_with('f')), "{kind:?}");
    }
}

/// `ci` rewrites the overview on every run: one only the pipeline edited, thirty
/// times, still counts; one someone else edited after as many is still left out.
#[tokio::test]
async fn github_an_overview_the_pipeline_edited_thirty_times_still_counts() {
    let mut repo = scenario(Kind::GitHub);
    repo.pulls[2].overviews[0].pipeline_edits = 30;
    repo.pulls[1].overviews[0].pipeline_edits = 30;
    let fake = FakeRepo::start(Kind::GitHub, repo).await;
    let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
    assert_eq!(figures(&read.records).total, tally(3, 2, 3, 3), "{:#?}", read.records);
    assert_eq!(read.edited, 2, "G and the overview the author edited");
}

/// An overview is rewritten by every run, in that run's era; each finding it
/// holds or remembers as gone is counted in the era of the run that raised it,
/// and one whose entry names none belongs to no era.
#[tokio::test]
async fn an_overview_finding_is_counted_in_the_era_that_raised_it() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let fake = FakeRepo::start(kind, scenario(kind)).await;
        let read = history::read(fake.host().as_ref(), &scope(50)).await.unwrap();
        let mut eras: Vec<(char, Option<&str>)> = read
            .records
            .iter()
            .filter(|r| r.pr == 3 && ["j", "n", "k", "l"].iter().any(|p| r.finding.starts_with(p)))
            .map(|r| (r.finding.chars().next().unwrap(), r.era.as_deref()))
            .collect();
        eras.sort();
        let want = vec![('j', Some("e1")), ('k', Some("e2")), ('l', None), ('n', Some("e3"))];
        assert_eq!(eras, want, "{kind:?}: {:#?}", read.records);
    }
}

/// Pull request 3 of the scenario on `kind`, changed by `edit`, read in full.
async fn read_pr3_edited(kind: Kind, edit: impl FnOnce(&mut RPull)) -> Read {
    let mut repo = scenario(kind);
    edit(repo.pulls.iter_mut().find(|p| p.number == 3).unwrap());
    let fake = FakeRepo::start(kind, repo).await;
    history::read(fake.host().as_ref(), &scope(50)).await.unwrap()
}

/// The author copies the pipeline's markers into comments of their own: its
/// finding comment on D, marked resolved, as a reply in D's thread and as a
/// comment on the pull request, and its overview, remembering one more finding
/// as fixed. None of it moves a figure `gauntlet stats` or earned blocking reads.
#[tokio::test]
async fn markers_the_author_copies_into_their_own_comments_move_no_figure() {
    for kind in [Kind::GitHub, Kind::GitLab, Kind::Azure] {
        let baseline = read_pr3_edited(kind, |_| {}).await;
        let read = read_pr3_edited(kind, |pr3| {
            let d = pr3.threads.iter_mut().find(|t| t.path == "src/d.rs").unwrap();
            let resolved = d.body.replace("id=", "state=resolved id=").replacen(" -->", " state=resolved -->", 1);
            d.replies.push((AUTHOR.into(), resolved.clone()));
            let overview = pr3.overviews[0].body.replacen(" gone=", " gone=fh.f999.logic+", 1);
            assert_ne!(overview, pr3.overviews[0].body, "the copy remembers one more finding");
            pr3.comments.push((AUTHOR.into(), resolved));
            pr3.comments.push((AUTHOR.into(), overview));
        })
        .await;
        assert_eq!(read.records, baseline.records, "{kind:?}");
        assert_eq!(figures(&read.records).total, tally(3, 2, 3, 3), "{kind:?}");
    }
}

/// Someone other than the pipeline, here a person with write access, edits the
/// pipeline's overview to remember a finding as fixed: the overview is left out
/// whole, and nothing it claims is counted. Azure DevOps lets only a comment's
/// author edit it.
#[tokio::test]
async fn an_overview_someone_else_edited_is_left_out_whole() {
    for kind in [Kind::GitHub, Kind::GitLab] {
        let baseline = read_pr3_edited(kind, |_| {}).await;
        let read = read_pr3_edited(kind, |pr3| {
            let overview = &mut pr3.overviews[0];
            overview.body = overview.body.replacen(" gone=", " gone=fh.f999.logic+", 1);
            overview.edited_by = Some(PERSON.into());
        })
        .await;
        // The overview's own findings (J, K, L, N) go with it; A keeps its comment.
        let from_overview =
            |r: &&gauntlet_publish::outcome::Record| r.pr == 3 && r.finding.starts_with(['j', 'k', 'l', 'n']);
        let want: Vec<_> = baseline.records.iter().filter(|r| !from_overview(r)).cloned().collect();
        assert_eq!(baseline.records.len() - want.len(), 4, "{kind:?}: {:#?}", baseline.records);
        assert_eq!(read.records, want, "{kind:?}");
        assert!(read.records.iter().all(|r| r.finding != "f999"), "{kind:?}");
        assert_eq!(read.edited, baseline.edited + 1, "{kind:?}");
    }
}

/// A comment with more edits than GitHub lists in one answer may hide someone
/// else's edit, so it is left out; but nobody is known to have edited it, and
/// the read says which of the two it was.
#[tokio::test]
async fn github_edits_it_did_not_list_are_told_apart_from_an_edit_by_someone_else() {
    let baseline = read_pr3_edited(Kind::GitHub, |_| {}).await;
    let read = read_pr3_edited(Kind::GitHub, |pr3| {
        pr3.threads.iter_mut().find(|t| t.path == "src/d.rs").unwrap().pipeline_edits = 150;
    })
    .await;
    assert_eq!(read.records.len(), baseline.records.len() - 1, "the comment is left out");
    assert_eq!(read.edited, baseline.edited, "nobody else is known to have edited it");
    assert_eq!(read.unlisted, baseline.unlisted + 1);
    assert!(
        read.left_out.iter().any(|l| l == "#3 src/d.rs: GitHub listed 100 of the comment's 150 edits"),
        "{:?}",
        read.left_out
    );
    assert!(baseline.left_out.iter().any(|l| l.contains(": edited by ")), "{:?}", baseline.left_out);
}
