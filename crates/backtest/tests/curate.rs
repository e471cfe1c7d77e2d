//! `backtest curate` on a corpus mined from a repository built here, driven by
//! answers given line by line as a pipe would give them.

#[path = "support/history.rs"]
mod history;

use gauntlet_backtest::corpus;
use gauntlet_backtest::curate::Status;
use gauntlet_backtest::curate::walk::{Filter, Options, Tally, WalkError, walk};
use gauntlet_backtest::mine::{self, Confidence};
use gauntlet_change::git::Git;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A repository and the corpus mined from it (escapes of confidence A and B only,
/// no clean case): three escapes, named in id order.
fn mined() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    history::build(&repo);
    let options = mine::Options { clean_ratio: 0.0, keep: vec![Confidence::A, Confidence::B], ..Default::default() };
    let m = mine::mine(&Git::at(&repo), &options).unwrap();
    let corpus = dir.path().join("corpus");
    mine::write::write(&m, &repo, &corpus).unwrap();
    (dir, corpus)
}

fn options(filter: Filter) -> Options {
    Options { filter, by: "Ada".into(), today: "2026-12-06".into(), tty: false, max_lines: 0 }
}

fn unreviewed() -> Options {
    options(Filter::Status(vec![Status::Unreviewed]))
}

fn run(corpus: &Path, options: &Options, answers: &str) -> (Result<Tally, WalkError>, String) {
    let mut out = Vec::new();
    let tally = walk(corpus, options, &mut answers.as_bytes(), &mut out);
    (tally, String::from_utf8(out).unwrap())
}

fn statuses(corpus: &Path) -> Vec<(Status, Option<String>)> {
    corpus::load(corpus).unwrap().into_iter().map(|c| (c.curation.status, c.curation.reason)).collect()
}

#[test]
fn accept_reject_and_skip_are_recorded_in_case_toml_with_its_comments_kept() {
    let (_dir, corpus) = mined();
    // Accept with a reason; reject, giving no reason first (asked again); skip.
    let answers = "a\nthe guard was dropped\nr\n\n   \na refactor moved the line\ns\n";
    let (tally, screen) = run(&corpus, &unreviewed(), answers);
    let tally = tally.unwrap();
    assert_eq!((tally.accepted, tally.rejected, tally.skipped, tally.quit), (1, 1, 1, false));
    assert_eq!(screen.matches("A rejection needs a reason").count(), 2, "{screen}");
    assert_eq!(
        statuses(&corpus),
        vec![
            (Status::Accepted, Some("the guard was dropped".into())),
            (Status::Rejected, Some("a refactor moved the line".into())),
            (Status::Unreviewed, None),
        ]
    );
    assert_eq!((tally.corpus.accepted, tally.corpus.rejected, tally.corpus.unreviewed), (1, 1, 1));
    let first = &corpus::load(&corpus).unwrap()[0];
    assert_eq!(
        (first.curation.curated_by.as_deref(), first.curation.curated_at.as_deref()),
        (Some("Ada"), Some("2026-12-06"))
    );
    let text = std::fs::read_to_string(first.dir.join("case.toml")).unwrap();
    assert!(text.starts_with("# Mined by `gauntlet backtest mine`."), "the comments stay: {text}");
    assert!(text.contains("[[fix]]") && text.contains("mined_at = "), "{text}");

    // Each screen shows the case, both commits and the blamed lines in the introducing diff.
    assert!(screen.contains("Case 1 of 3: escape-"), "{screen}");
    assert!(screen.contains("introduced by ") && screen.contains("Dev <dev@example.com>  2021-"), "{screen}");
    assert!(screen.contains("fixed by") && screen.contains("Fix the last page having one item too many"), "{screen}");
    assert!(screen.contains(">>+    return items[start:start+size+1]"), "{screen}");
    assert!(screen.contains("blamed lines  src/paging.py:3"), "{screen}");
}

#[test]
fn quitting_keeps_the_earlier_decisions_and_a_bad_answer_is_asked_again() {
    let (_dir, corpus) = mined();
    let (tally, screen) = run(&corpus, &unreviewed(), "maybe\nyes looks right\nq\n");
    let tally = tally.unwrap();
    assert!(screen.contains("`maybe`: answer a (accept), r (reject, with why), s (skip) or q (quit)."), "{screen}");
    assert_eq!((tally.accepted, tally.quit), (1, true));
    let got = statuses(&corpus);
    assert_eq!(got[0], (Status::Accepted, Some("looks right".into())), "a reason may follow the answer");
    assert_eq!(got[1..], [(Status::Unreviewed, None), (Status::Unreviewed, None)]);

    // The end of the input is a quit, too: nothing half-recorded.
    let (tally, screen) = run(&corpus, &unreviewed(), "r\n");
    assert!(tally.unwrap().quit);
    assert!(screen.contains("End of input"), "{screen}");
    assert_eq!(statuses(&corpus)[1], (Status::Unreviewed, None));
}

#[test]
fn decided_cases_are_revisited_by_status_or_by_name() {
    let (_dir, corpus) = mined();
    run(&corpus, &unreviewed(), "r not a bug\nr typo fix\na\n\n").0.unwrap();
    let (tally, screen) = run(&corpus, &unreviewed(), "");
    assert_eq!(tally.unwrap().accepted, 0);
    assert!(
        screen.contains("Nothing to curate") && screen.contains("1 accepted, 2 rejected, 0 unreviewed"),
        "{screen}"
    );

    let rejected = options(Filter::Status(vec![Status::Rejected]));
    let (tally, screen) = run(&corpus, &rejected, "s\na on second reading it is\n");
    assert_eq!(tally.unwrap().accepted, 1);
    assert!(screen.contains("Case 1 of 2:") && screen.contains("rejected: not a bug"), "{screen}");
    assert_eq!(statuses(&corpus)[1], (Status::Accepted, Some("on second reading it is".into())));

    let name = corpus::load(&corpus).unwrap()[0].name.clone();
    let (tally, _) = run(&corpus, &options(Filter::Case(name)), "a\n\n");
    assert_eq!(tally.unwrap().accepted, 1);
    assert_eq!(statuses(&corpus)[0], (Status::Accepted, None), "accepted again without a reason");

    let err = run(&corpus, &options(Filter::Case("escape-nope".into())), "").0.unwrap_err().to_string();
    assert!(err.contains("no case named `escape-nope`") && err.contains("escape-"), "{err}");
}

#[test]
fn a_missing_corpus_and_a_case_without_diffs_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let err = run(&dir.path().join("nowhere"), &unreviewed(), "").0.unwrap_err().to_string();
    assert!(err.contains("no corpus at") && err.contains("gauntlet backtest mine --out"), "{err}");

    // A hand-written case: no status (unreviewed), no diffs beside it.
    let case = dir.path().join("by-hand");
    std::fs::create_dir(&case).unwrap();
    let toml = "# written by hand\nrepo = \"r\"\nbase = \"a\"\nhead = \"b\"\nkind = \"escape\"\n\
                [[defects]]\npath = \"a.py\"\nlines = 2\ndescription = \"off by one\"\n";
    std::fs::write(case.join("case.toml"), toml).unwrap();
    let (tally, screen) = run(dir.path(), &unreviewed(), "a\nchecked by hand\n");
    assert_eq!(tally.unwrap().accepted, 1);
    assert!(
        screen.contains("no fixing commit is recorded") && screen.contains("no intro.diff beside case.toml"),
        "{screen}"
    );
    let text = std::fs::read_to_string(case.join("case.toml")).unwrap();
    assert!(text.starts_with("# written by hand\n") && text.contains("status = \"accepted\""), "{text}");
    assert!(text.find("status = ").unwrap() < text.find("[[defects]]").unwrap(), "keys before the tables: {text}");
}

#[test]
fn reports_name_each_cases_curation_and_what_was_left_out() {
    use gauntlet_backtest::report::{CaseResult, Meta, summarise};
    let (_dir, corpus) = mined();
    run(&corpus, &unreviewed(), "a\n\nr blamed a refactor\n").0.unwrap();
    let cases = corpus::load(&corpus).unwrap();
    let meta = || Meta {
        corpus: "mined".into(),
        provider: "scripted:fixed".into(),
        tolerance: 3,
        max_span: 20,
        threshold: 75,
        baseline: false,
        shard: None,
        notes: Vec::new(),
    };
    let selection = gauntlet_backtest::curate::Selection::of_cases(&cases);
    let (run, left_out) = gauntlet_backtest::curate::split(cases.clone(), &selection);
    assert_eq!(run.iter().map(|c| c.curation.status).collect::<Vec<_>>(), [Status::Accepted], "only it is run");
    let report = summarise(meta(), run.iter().map(CaseResult::new).chain(left_out).collect());
    let c = report.curation;
    assert_eq!((c.accepted, c.rejected, c.unreviewed, c.only_accepted, c.left_out()), (1, 1, 1, true, 2));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["curation"]["only_accepted"], true);
    let rejected = json["cases"].as_array().unwrap().iter().find(|c| c["curation"]["status"] == "rejected").unwrap();
    assert_eq!((&rejected["curation"]["reason"], &rejected["left_out"]), (&json!("blamed a refactor"), &json!(true)));

    // A shard's report of only left-out cases still says only accepted cases are scored.
    let shard = summarise(meta(), report.cases.iter().filter(|c| c.left_out).cloned().collect());
    assert!(shard.curation.only_accepted && shard.curation.left_out() == 2, "{:?}", shard.curation);

    let md = gauntlet_backtest::markdown::render(&report);
    assert!(
        md.contains("Curation: Scored only the 1 accepted case(s) of 3: left out 1 rejected and 1 unreviewed."),
        "{md}"
    );
    assert!(md.contains("| case | kind | curation |"), "{md}");
    assert!(md.contains("| escape | rejected: blamed a refactor |"), "{md}");
    assert!(md.contains("left out: unreviewed"), "{md}");
    let html = gauntlet_backtest::html::render(&report);
    assert!(html.contains("[rejected: blamed a refactor, left out]") && html.contains("[accepted]"), "{html}");
    assert!(html.contains("left out 1 rejected and 1 unreviewed"), "{html}");

    // Nothing accepted: every case is scored, and the report says the corpus is unreviewed.
    let none: Vec<CaseResult> = cases
        .iter()
        .map(|c| {
            let mut r = CaseResult::new(c);
            r.curation = Default::default();
            r
        })
        .collect();
    let report = summarise(meta(), none);
    assert!(!report.curation.only_accepted && report.curation.left_out() == 0);
    let md = gauntlet_backtest::markdown::render(&report);
    assert!(md.contains("The corpus is unreviewed: none of its 3 case(s) is accepted"), "{md}");
}

#[test]
fn control_sequences_in_a_mined_case_are_shown_on_the_screen_not_obeyed() {
    let (_dir, corpus) = mined();
    // The mined repository's author writes the subjects and the diffs: clear the
    // screen, hide text, set the clipboard, fake a "Recorded" line.
    let first = corpus::load(&corpus).unwrap().remove(0);
    for name in ["fix.diff", "intro.diff"] {
        let path = first.dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let attack = "\u{1b}[2J\u{1b}[H\u{1b}[8m\u{1b}]52;c;aGk=\u{7}\u{1b}[1A\u{1b}[2KRecorded: fake";
        let evil = text
            .replace("Page through results", &format!("Page through results{attack}"))
            .replace("    start = n * size", &format!("    start = n * size{attack}"));
        assert_ne!(evil, text, "{name} shows a subject or a line to plant the escapes in");
        std::fs::write(&path, evil).unwrap();
    }
    let (tally, screen) = run(&corpus, &options(Filter::Case(first.name.clone())), "s\n");
    tally.unwrap();
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}'),
        "raw control characters reach the terminal: {screen:?}"
    );
    assert!(screen.contains("\\u{1b}[2J"), "shown as escapes: {screen}");
}

/// The corpus is shared like the rest of a repository: written atomically, but
/// not left private (a temporary file's 0600) for the next reader.
#[cfg(unix)]
#[test]
fn mined_and_curated_files_are_readable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, corpus) = mined();
    let (tally, _) = run(&corpus, &unreviewed(), "a\nreal\nq\n");
    assert_eq!(tally.unwrap().accepted, 1);
    let first = &corpus::load(&corpus).unwrap()[0];
    for name in ["case.toml", "fix.diff", "intro.diff"] {
        let mode = std::fs::metadata(first.dir.join(name)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{name} is {mode:o}");
    }
}
