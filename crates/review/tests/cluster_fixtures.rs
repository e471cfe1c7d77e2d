//! Paraphrase sets: the same defect as different reviewers word it, at the ranges
//! they tend to pick, and near misses that must stay apart. Written before the
//! clustering rule, in the shapes seen in measured runs (one leak reported as a
//! blocking send, as an early return and as resource exhaustion; one missing
//! `await` reported as lost rows, as swallowed errors and as a wrong batch total).

use gauntlet_review::cluster::{Cluster, IndentRegions, cluster};
use gauntlet_review::contract::{Lens, Location, Severity};
use gauntlet_review::finding::Finding;
use proptest::prelude::*;
use std::collections::BTreeMap;

pub const FETCH_GO: &str = "package fetch

import \"context\"

type result struct {
\turl  string
\tbody []byte
\terr  error
}

func fetchAll(ctx context.Context, urls []string) ([]result, error) {
\tresults := make(chan result)
\tfor _, u := range urls {
\t\tgo func(u string) {
\t\t\tbody, err := get(ctx, u)
\t\t\tresults <- result{u, body, err}
\t\t}(u)
\t}
\tvar out []result
\tfor range urls {
\t\tselect {
\t\tcase r := <-results:
\t\t\tout = append(out, r)
\t\tcase <-ctx.Done():
\t\t\treturn nil, ctx.Err()
\t\t}
\t}
\treturn out, nil
}
";

pub const BATCH_PY: &str = "import asyncio


class BatchWriter:
    def __init__(self, store):
        self.store = store
        self.processed = 0

    async def save_batch(self, rows):
        await self.store.insert_many(rows)

    async def flush(self, rows):
        self.save_batch(rows)
        self.processed += len(rows)
        return self.processed
";

pub const AUTH_PY: &str = "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return True\n";

pub const DB_PY: &str = "def find_user(conn, name):
    query = f\"SELECT * FROM users WHERE name = '{name}'\"
    return conn.execute(query).fetchone()
";

pub const CACHE_GO: &str = "package cache

import \"sync\"

type Cache struct {
\tmu    sync.Mutex
\titems map[string][]byte
\tmax   int
}

func (c *Cache) Put(k string, v []byte) {
\tif len(c.items) > c.max {
\t\tc.evictOldest()
\t}
\tc.items[k] = v
}
";

pub const NOTIFY_PY: &str = "import logging

logger = logging.getLogger(__name__)


def notify(user, code):
    logger.info(\"sending code to %s\", user.email)
    logger.info(\"sms fallback %s\", user.phone)
    send(user, code)
";

pub const USERS_PY: &str = "def to_json(user):
    return {
        \"id\": user.id,
        \"name\": user.display_name,
    }
";

pub const CLIENT_TS: &str = "export async function loadUser(id: string) {
  const res = await fetch(`/api/users/${id}`);
  const user = await res.json();
  return user.display_name.trim();
}
";

pub fn regions() -> IndentRegions {
    let files = [
        ("fetch.go", FETCH_GO),
        ("jobs/batch.py", BATCH_PY),
        ("src/auth.py", AUTH_PY),
        ("db.py", DB_PY),
        ("cache.go", CACHE_GO),
        ("notify.py", NOTIFY_PY),
        ("api/users.py", USERS_PY),
        ("web/client.ts", CLIENT_TS),
    ];
    IndentRegions::new(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect::<BTreeMap<_, _>>())
}

pub fn finding(reviewer: &str, at: &str, severity: Severity, claim: &str, evidence: &str) -> Finding {
    let location = Location::parse(at).unwrap();
    Finding {
        id: Finding::fingerprint(reviewer, &location.path, Lens::FailureScenario, evidence),
        reviewer: reviewer.into(),
        lens: Lens::FailureScenario,
        location,
        inline: true,
        claim: claim.into(),
        evidence: evidence.into(),
        severity,
    }
}

/// One goroutine leak, three reviewers, three disjoint ranges in one function.
pub fn goroutine_leak() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "fetch.go:14-17",
            Severity::High,
            "Each goroutine started by `fetchAll` blocks forever on `results <- result{...}` once the caller gives \
             up, because nothing reads `results` after the early return.",
            "results <- result{u, body, err}",
        ),
        finding(
            "error-handling",
            "fetch.go:24-25",
            Severity::Medium,
            "On `ctx.Done()` the function returns while workers are still sending on the unbuffered `results` \
             channel, so they never exit.",
            "case <-ctx.Done():\n\t\t\treturn nil, ctx.Err()",
        ),
        finding(
            "security",
            "fetch.go:12",
            Severity::Medium,
            "A client that cancels requests leaks one goroutine per URL: `results` has no buffer and is abandoned \
             on cancellation, which exhausts memory over time.",
            "results := make(chan result)",
        ),
    ]
}

/// One missing `await`: the defect, its swallowed error, its wrong batch total.
pub fn missing_await() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "jobs/batch.py:13",
            Severity::High,
            "`flush` calls `self.save_batch(rows)` without `await`, so the coroutine is created and dropped and no \
             row is written.",
            "self.save_batch(rows)",
        ),
        finding(
            "error-handling",
            "jobs/batch.py:13-14",
            Severity::High,
            "Errors from `save_batch` can never reach the caller of `flush` because the call is not awaited; a \
             failed insert still reports success.",
            "        self.save_batch(rows)",
        ),
        finding(
            "correctness",
            "jobs/batch.py:14-15",
            Severity::Medium,
            "The batch-level count in `self.processed` includes rows that `save_batch` never wrote, since nothing \
             waits for it.",
            "self.processed += len(rows)",
        ),
    ]
}

/// A consequence worded around other code only: it names `self.processed`, not the
/// call that was not awaited, so no rule of "same code" can tie it to the defect.
pub fn consequence_naming_other_code() -> Finding {
    finding(
        "correctness",
        "jobs/batch.py:14-15",
        Severity::Medium,
        "The batch total is wrong: `self.processed` grows by `len(rows)` whether or not the rows were saved.",
        "self.processed += len(rows)",
    )
}

/// The removed ownership check, told as a bypass and as an unconditional return.
pub fn removed_check() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "src/auth.py:4",
            Severity::High,
            "Any signed-in user can delete any document: `can_delete` now ends in an unconditional `return True`.",
            "    return True",
        ),
        finding(
            "security",
            "src/auth.py:3-4",
            Severity::High,
            "The ownership comparison `doc.owner_id == user.id` was removed, so authorisation is bypassed for \
             every non-admin.",
            "return True",
        ),
    ]
}

/// One SQL injection, as an injection, a crash on quotes and an uncaught error.
pub fn sql_injection() -> Vec<Finding> {
    vec![
        finding(
            "security",
            "db.py:2",
            Severity::High,
            "`name` is interpolated into the SQL text, so a crafted name runs arbitrary SQL.",
            "query = f\"SELECT * FROM users WHERE name = '{name}'\"",
        ),
        finding(
            "correctness",
            "db.py:2-3",
            Severity::Medium,
            "A user name containing a quote breaks `find_user`'s query, because `name` is pasted into it instead \
             of being passed as a parameter.",
            "return conn.execute(query).fetchone()",
        ),
        finding(
            "error-handling",
            "db.py:3",
            Severity::Low,
            "`conn.execute(query)` raises on any name with an apostrophe and nothing here handles it.",
            "return conn.execute(query).fetchone()",
        ),
    ]
}

/// A changed response key and the client it breaks, in two files.
pub fn cross_file_twin() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "api/users.py:4",
            Severity::High,
            "The response key `name` replaces `display_name`, so every client reading the old key breaks.",
            "\"name\": user.display_name,",
        ),
        finding(
            "contract-drift",
            "web/client.ts:4",
            Severity::Medium,
            "`loadUser` reads `user.display_name`, which api/users.py:4 no longer sends; `.trim()` then throws.",
            "return user.display_name.trim();",
        ),
    ]
}

/// Two different defects in one function, over the same variables.
pub fn bound_and_lock() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "cache.go:12",
            Severity::Medium,
            "The bound `len(c.items) > c.max` lets the cache hold `c.max + 1` entries before anything is evicted.",
            "if len(c.items) > c.max {",
        ),
        finding(
            "correctness",
            "cache.go:15",
            Severity::High,
            "`Put` writes `c.items` without taking `c.mu`, so concurrent callers race on the map and can crash the \
             process.",
            "c.items[k] = v",
        ),
    ]
}

/// The same wording about two different fields, on neighbouring lines.
pub fn two_fields() -> Vec<Finding> {
    vec![
        finding(
            "security",
            "notify.py:7",
            Severity::Medium,
            "The log line writes `user.email` in clear text, so personal data ends up in the log store.",
            "logger.info(\"sending code to %s\", user.email)",
        ),
        finding(
            "security",
            "notify.py:8",
            Severity::Medium,
            "The log line writes `user.phone` in clear text, so personal data ends up in the log store.",
            "logger.info(\"sms fallback %s\", user.phone)",
        ),
    ]
}

/// Cluster sizes, largest first, for readable assertions.
fn sizes(clusters: &[Cluster]) -> Vec<usize> {
    let mut s: Vec<usize> = clusters.iter().map(|c| c.members.len()).collect();
    s.sort_unstable_by(|a, b| b.cmp(a));
    s
}

#[test]
fn paraphrases_of_one_defect_merge_into_one_cluster() {
    for (name, set) in [
        ("goroutine leak", goroutine_leak()),
        ("missing await", missing_await()),
        ("removed check", removed_check()),
        ("sql injection", sql_injection()),
        ("cross-file twin", cross_file_twin()),
    ] {
        let n = set.len();
        assert_eq!(sizes(&cluster(&set, &regions())), vec![n], "{name}");
    }
}

#[test]
fn two_defects_in_one_function_over_the_same_variables_stay_apart() {
    assert_eq!(sizes(&cluster(&bound_and_lock(), &regions())), vec![1, 1]);
}

#[test]
fn a_consequence_that_names_other_code_is_not_merged() {
    // With the defect and its swallowed error only: nothing ties the total to them.
    let mut set = missing_await()[..2].to_vec();
    set.push(consequence_naming_other_code());
    assert_eq!(sizes(&cluster(&set, &regions())), vec![2, 1]);
    // A consequence that names the call joins, and brings its own paraphrase with it.
    let mut set = missing_await();
    set.push(consequence_naming_other_code());
    assert_eq!(sizes(&cluster(&set, &regions())), vec![4]);
}

#[test]
fn the_same_wording_about_two_fields_stays_apart() {
    assert_eq!(sizes(&cluster(&two_fields(), &regions())), vec![1, 1]);
}

#[test]
fn paraphrase_sets_mixed_together_come_apart_along_their_defects() {
    let all: Vec<Finding> = [goroutine_leak(), missing_await(), removed_check(), sql_injection(), bound_and_lock()]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(sizes(&cluster(&all, &regions())), vec![3, 3, 3, 2, 1, 1]);
}

#[test]
fn the_representative_is_the_most_severe_then_narrowest_then_by_reviewer() {
    let c = cluster(&goroutine_leak(), &regions()).remove(0);
    assert_eq!(c.members[0].reviewer, "correctness", "the only high one");
    // The two medium ones: fetch.go:12 is one line, 24-25 two.
    assert_eq!((c.members[1].reviewer.as_str(), c.members[2].reviewer.as_str()), ("security", "error-handling"));
    let c = cluster(&removed_check(), &regions()).remove(0);
    // Both high; the one-line range first.
    assert_eq!(c.members[0].location.to_string(), "src/auth.py:4");
    assert_eq!(c.raised_by(), vec!["correctness", "security"]);
}

#[test]
fn a_cluster_fingerprint_ignores_who_raised_it_and_how_they_worded_it() {
    let base = cluster(&goroutine_leak(), &regions()).remove(0).id;
    let mut reworded = goroutine_leak();
    for (i, f) in reworded.iter_mut().enumerate() {
        f.reviewer = format!("reviewer-{i}");
        f.claim = f.claim.replace("goroutine", "worker").replace("forever", "for good");
        f.severity = Severity::Low;
    }
    assert_eq!(cluster(&reworded, &regions()).remove(0).id, base);
    let other = cluster(&missing_await(), &regions()).remove(0).id;
    assert_ne!(base, other);
}

fn every_fixture() -> Vec<Finding> {
    [
        goroutine_leak(),
        missing_await(),
        removed_check(),
        sql_injection(),
        cross_file_twin(),
        bound_and_lock(),
        two_fields(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

proptest! {
    #[test]
    fn clustering_does_not_depend_on_input_order(order in Just(every_fixture()).prop_shuffle()) {
        let expected = cluster(&every_fixture(), &regions());
        prop_assert_eq!(cluster(&order, &regions()), expected);
    }
}
