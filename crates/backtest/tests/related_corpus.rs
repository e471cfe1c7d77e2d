//! Related code on the corpus's cross-file escapes, with no model: for every case
//! that names decoys, the related-code block every session receives holds each
//! defect's `also` location (the untouched file that proves it), holds no decoy,
//! and stays within its budget.

use gauntlet_backtest::checkout::checkout;
use gauntlet_backtest::corpus::{self, Case, Kind};
use gauntlet_change::Target;
use gauntlet_review::pipeline::RepoHead;
use gauntlet_review::related::{self, Related};
use gauntlet_review::sandbox::Limits;
use std::path::Path;

/// A quarter of a 32k-token context: the default for a model of that size, and
/// smaller than the corpus's largest repository.
const BUDGET: usize = 8_000;

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    corpus::load(&root).expect("the sample corpus loads").into_iter().filter(|c| !c.decoys.is_empty()).collect()
}

fn related_of(case: &Case) -> Related {
    let repo = checkout(&case.repo, &case.base, &case.head).expect("the case checks out");
    let target = Target::Range { base: case.base.clone(), head: Some(case.head.clone()) };
    let change = gauntlet_change::acquire(&repo.git, &target).expect("the case's change is read");
    let head = RepoHead::new(&repo.git, &change).expect("the head is readable");
    related::gather(&change, &head, Limits::default().file_bytes, BUDGET)
}

#[test]
fn related_code_holds_every_also_location_no_decoy_and_fits_its_budget() {
    let cases = cases();
    let escapes = cases.iter().filter(|c| c.kind == Kind::Escape).count();
    assert!(escapes >= 6, "the six cross-file escapes name decoys; found {escapes}");
    let mut failures = Vec::new();
    let (mut held, mut wanted) = (0, 0);
    for case in &cases {
        let related = related_of(case);
        let at = |path: &str, start: u32, end: u32| {
            related.entries.iter().any(|e| e.path == path && e.start <= start && end <= e.end())
        };
        if case.kind == Kind::Escape {
            for also in case.defects.iter().flat_map(|d| &d.also) {
                wanted += 1;
                if at(&also.path, also.start, also.end) {
                    held += 1;
                } else {
                    failures.push(format!(
                        "{}: {}:{}-{} is not in related code",
                        case.name, also.path, also.start, also.end
                    ));
                }
            }
        }
        for decoy in &case.decoys {
            for e in related.entries.iter().filter(|e| &e.path == decoy) {
                failures.push(format!(
                    "{}: decoy {} is in related code ({})",
                    case.name,
                    e.location(),
                    e.why.join("; ")
                ));
            }
        }
        if related.tokens() > BUDGET {
            failures.push(format!("{}: {} tokens, over the {BUDGET}-token budget", case.name, related.tokens()));
        }
    }
    assert!(failures.is_empty(), "context recall {held}/{wanted}:\n{}", failures.join("\n"));
}
