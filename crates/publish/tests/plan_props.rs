//! Properties of `plan_sync` over generated histories of a pull request.

mod common;

use common::*;
use gauntlet_publish::plan::{Action, Options};
use gauntlet_publish::{Dialect, Dismissals, Plan, Thread, plan_sync};
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use proptest::prelude::*;
use std::collections::BTreeMap;

const PATHS: [&str; 3] = ["src/a.rs", "src/b.rs", "lib/c.py"];
const CLAIMS: [&str; 6] = [
    "The unwrap panics when the cache entry is missing on a cold start.",
    "The loop reads one element past the end of the buffer on every call.",
    "Concurrent callers race on the shared counter and lose increments here.",
    "The retry loop swallows the final error and reports success to callers.",
    "The session check accepts a token that expired exactly this second.",
    "The migration drops the column before the backfill has copied it.",
];
const WORDING: [&str; 3] = ["", " Indeed.", " This will happen in production."];

/// A finding drawn from small pools, so runs share findings often.
fn arb_finding() -> impl Strategy<Value = Published> {
    (0..PATHS.len(), 0..CLAIMS.len(), 0..WORDING.len(), 1u32..50, any::<bool>(), 0..3usize).prop_map(
        |(p, c, w, line, inline, sev)| {
            let severity = [Severity::High, Severity::Medium, Severity::Low][sev];
            let mut f =
                finding(PATHS[p], line, &format!("evidence {c}"), &format!("{}{}", CLAIMS[c], WORDING[w]), severity);
            f.inline = inline;
            f
        },
    )
}

/// One review's findings: distinct fingerprints, as the adjudicator guarantees.
fn arb_run() -> impl Strategy<Value = Vec<Published>> {
    proptest::collection::vec(arb_finding(), 0..12).prop_map(|fs| {
        let mut seen = BTreeMap::new();
        for f in fs {
            seen.entry(f.id.clone()).or_insert(f);
        }
        seen.into_values().collect()
    })
}

fn run(threads: &[Thread], published: &[Published], cap: usize) -> Plan {
    run_with(threads, published, cap, &Dismissals::default())
}

fn run_with(threads: &[Thread], published: &[Published], cap: usize, dismissals: &Dismissals) -> Plan {
    let opts =
        Options { cap, reviewed: &gauntlet_publish::Reviewed::All, head: HEAD, dialect: Dialect::GitHub, dismissals };
    plan_sync(threads, &candidates(published), &opts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_finding_lands_in_exactly_one_place(history in proptest::collection::vec(arb_run(), 1..4), now in arb_run(), cap in 0usize..6) {
        let mut threads = Vec::new();
        for past in &history {
            threads = apply(&threads, &run(&threads, past, cap));
        }
        let plan = run(&threads, &now, cap);
        let mut placed = vec![0; now.len()];
        let mut touched = vec![0; threads.len()];
        let mut opened = 0;
        for a in &plan.actions {
            match a {
                Action::Create { finding, .. } => { placed[*finding] += 1; opened += 1; }
                Action::Update { thread, finding, reopen, .. } => {
                    placed[*finding] += 1; touched[*thread] += 1; opened += usize::from(*reopen);
                }
                Action::Resolve { thread, .. } => touched[*thread] += 1,
                Action::Leave { thread, finding } => {
                    touched[*thread] += 1;
                    if let Some(f) = finding { placed[*f] += 1; }
                }
            }
        }
        plan.overview.iter().chain(&plan.dismissed).for_each(|&i| placed[i] += 1);
        prop_assert!(placed.iter().all(|&n| n == 1), "{placed:?} {plan:?}");
        prop_assert!(touched.iter().all(|&n| n <= 1), "{touched:?}");
        prop_assert!(opened <= cap);
    }

    #[test]
    fn a_second_identical_run_changes_nothing(history in proptest::collection::vec(arb_run(), 0..3), now in arb_run()) {
        let mut threads = Vec::new();
        for past in history.iter().chain([&now]) {
            threads = apply(&threads, &run(&threads, past, 15));
        }
        let again = run(&threads, &now, 15);
        let (create, update, resolve, _) = counts(&again);
        prop_assert_eq!((create, update, resolve), (0, 0, 0), "{:?}", again);
    }

    #[test]
    fn dismissed_threads_are_never_touched(history in arb_run(), now in arb_run(), pick in any::<prop::sample::Index>(), resolved in any::<bool>()) {
        let mut threads = apply(&[], &run(&[], &history, 15));
        prop_assume!(!threads.is_empty());
        let t = pick.index(threads.len());
        threads[t].resolved = resolved;
        let plan = run_with(&threads, &now, 15, &resolved_by_writer(&[t]));
        for a in &plan.actions {
            let touched = match a {
                Action::Update { thread, .. } | Action::Resolve { thread, .. } | Action::Leave { thread, .. } => Some(*thread),
                Action::Create { .. } => None,
            };
            prop_assert_ne!(touched, Some(t));
        }
        let dismissed_id = gauntlet_publish::FindingMarker::parse(&threads[t].body).unwrap().id;
        for a in &plan.actions {
            if let Action::Create { finding, .. } = a {
                prop_assert_ne!(&now[*finding].id, &dismissed_id, "a dismissed finding was raised again");
            }
        }
    }
}
