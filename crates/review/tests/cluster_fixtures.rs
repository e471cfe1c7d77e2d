//! Paraphrase sets: the same defect as different reviewers word it, at the ranges
//! they tend to pick, and near misses that must stay apart. Written before the
//! clustering rule, in the shapes seen in measured runs (one leak reported as a
//! blocking send, as an early return and as resource exhaustion; one missing
//! `await` reported as lost rows, as swallowed errors and as a wrong batch total).
//!
//! Every fixture runs through both kinds of [`Regions`]: [`SymbolRegions`], built
//! from the fixture sources and a change from their base versions, as the pipeline
//! builds it, and [`IndentRegions`], the fallback for files without a grammar.

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_review::cluster::{self, Cluster, IndentRegions, Regions, SymbolRegions, cluster};
use gauntlet_review::contract::{Lens, Location, Severity};
use gauntlet_review::finding::Finding;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::OnceLock;

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

/// The base versions of the fixture files: what each change altered.
pub const FETCH_GO_BASE: &str = "package fetch

import \"context\"

type result struct {
\turl  string
\tbody []byte
\terr  error
}

func fetchAll(ctx context.Context, urls []string) ([]result, error) {
\tresults := make(chan result, len(urls))
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

pub const BATCH_PY_BASE: &str = "import asyncio


class BatchWriter:
    def __init__(self, store):
        self.store = store
        self.processed = 0

    async def save_batch(self, rows):
        await self.store.insert_many(rows)

    async def flush(self, rows):
        await self.save_batch(rows)
        self.processed += len(rows)
        return self.processed
";

pub const AUTH_PY_BASE: &str =
    "def can_delete(user, doc):\n    if user.is_admin:\n        return True\n    return doc.owner_id == user.id\n";

pub const DB_PY_BASE: &str = "def find_user(conn, name):
    query = \"SELECT * FROM users WHERE name = ?\"
    return conn.execute(query, (name,)).fetchone()
";

pub const CACHE_GO_BASE: &str = "package cache

import \"sync\"

type Cache struct {
\tmu    sync.Mutex
\titems map[string][]byte
\tmax   int
}

func (c *Cache) Put(k string, v []byte) {
\tc.mu.Lock()
\tdefer c.mu.Unlock()
\tif len(c.items) >= c.max {
\t\tc.evictOldest()
\t}
\tc.items[k] = v
}
";

pub const NOTIFY_PY_BASE: &str = "import logging

logger = logging.getLogger(__name__)


def notify(user, code):
    send(user, code)
";

pub const USERS_PY_BASE: &str = "def to_json(user):
    return {
        \"id\": user.id,
        \"display_name\": user.display_name,
    }
";

/// A price parser that now returns cents, and a caller that still takes dollars.
pub const MONEY_PY_BASE: &str = "def parse_price(text):
    \"\"\"The price in the text, in dollars.\"\"\"
    return float(text)
";

pub const MONEY_PY: &str = "def parse_price(text):
    \"\"\"The price in the text, in cents.\"\"\"
    return int(round(float(text) * 100))
";

pub const CHECKOUT_PY: &str = "from money import parse_price


def checkout(card, form):
    amount = parse_price(form[\"price\"])
    return charge(card, amount)
";

/// A lookup that now returns `None` for an unknown id, and two unchanged callers.
pub const USER_STORE_PY_BASE: &str = "def get_user(db, uid):
    return User(**db[uid])
";

pub const USER_STORE_PY: &str = "def get_user(db, uid):
    row = db.get(uid)
    if row is None:
        return None
    return User(**row)
";

pub const BILLING_PY: &str = "from user_store import get_user


def invoice_total(db, uid):
    user = get_user(db, uid)
    return sum(line.amount for line in user.lines) * 1.2
";

pub const MAIL_PY: &str = "from user_store import get_user


def send_receipt(db, uid, mailer):
    user = get_user(db, uid)
    mailer.send(user.email, \"receipt\")
";

/// Every fixture file: its path, its base (`None`: not in the change) and its head.
pub fn files() -> Vec<(&'static str, Option<&'static str>, &'static str)> {
    vec![
        ("fetch.go", Some(FETCH_GO_BASE), FETCH_GO),
        ("jobs/batch.py", Some(BATCH_PY_BASE), BATCH_PY),
        ("src/auth.py", Some(AUTH_PY_BASE), AUTH_PY),
        ("db.py", Some(DB_PY_BASE), DB_PY),
        ("cache.go", Some(CACHE_GO_BASE), CACHE_GO),
        ("notify.py", Some(NOTIFY_PY_BASE), NOTIFY_PY),
        ("api/users.py", Some(USERS_PY_BASE), USERS_PY),
        ("web/client.ts", None, CLIENT_TS),
        ("money.py", Some(MONEY_PY_BASE), MONEY_PY),
        ("checkout.py", None, CHECKOUT_PY),
        ("user_store.py", Some(USER_STORE_PY_BASE), USER_STORE_PY),
        ("billing.py", None, BILLING_PY),
        ("mail.py", None, MAIL_PY),
    ]
}

fn texts() -> BTreeMap<String, String> {
    files().into_iter().map(|(p, _, head)| (p.to_string(), head.to_string())).collect()
}

/// The change from the base to the head of every fixture file that has a base.
pub fn change() -> Change {
    let mut changed = Vec::new();
    for (path, base, head) in files() {
        let Some(base) = base else { continue };
        let patch = diffy::create_patch(base, head).to_string();
        let hunks = patch.split_once("\n@@").map(|(_, rest)| format!("@@{rest}")).expect("the texts differ");
        let text = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{hunks}");
        let diff = parse_patch(&text).expect("the fixture patch parses").remove(0);
        changed.push(ChangedFile { diff, head_text: Some(head.to_string()), unreadable: None });
    }
    Change { base: "base".into(), head: "head".into(), snapshot: Snapshot::Worktree, files: changed }
}

/// Regions as the pipeline builds them: the symbol index of the head, the change.
pub fn symbol_regions() -> SymbolRegions {
    SymbolRegions::new(texts(), &change())
}

/// Regions by indentation alone, as for files no grammar reads.
pub fn indent_regions() -> IndentRegions {
    IndentRegions::new(texts())
}

/// Both kinds of regions, named for assertion messages (built once: the proptest
/// asks for them on every case).
fn both() -> [(&'static str, &'static dyn Regions); 2] {
    static SYMBOLS: OnceLock<SymbolRegions> = OnceLock::new();
    static INDENT: OnceLock<IndentRegions> = OnceLock::new();
    [("symbols", SYMBOLS.get_or_init(symbol_regions)), ("indentation", INDENT.get_or_init(indent_regions))]
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

/// One defect in two files: the parser that changed to cents, and the caller that
/// still pays in dollars. Neither cites the other's `path:LINE`; what ties them is
/// the changed `parse_price`, which one sits in and the other's claim names.
pub fn cross_file_changed_symbol() -> Vec<Finding> {
    vec![
        finding(
            "correctness",
            "money.py:3",
            Severity::High,
            "`parse_price` now returns cents where it returned dollars, and its callers were not changed.",
            "return int(round(float(text) * 100))",
        ),
        finding(
            "contract-drift",
            "checkout.py:5-6",
            Severity::Medium,
            "`checkout` still hands what `parse_price` returns to `charge` as dollars, so every customer pays a \
             hundred times the price.",
            "amount = parse_price(form[\"price\"])",
        ),
    ]
}

/// Two defects in two files that both call the changed `get_user`, each about its
/// own code: a hard-coded tax rate and an unverified mail address. Both quote the
/// call; in `naming` both claims also mention `get_user` on the way.
pub fn two_callers_of_one_changed_function(naming: bool) -> Vec<Finding> {
    let (tax, mail) = if naming {
        (
            "`invoice_total` multiplies the lines of what `get_user` returns by a hard-coded `1.2`, so customers \
             outside the 20 % VAT zone are overcharged.",
            "`send_receipt` mails `user.email` from `get_user` without checking the address was verified.",
        )
    } else {
        (
            "`invoice_total` multiplies by a hard-coded `1.2`, so customers outside the 20 % VAT zone are \
             overcharged.",
            "`send_receipt` mails the receipt to `user.email` without checking the address was verified.",
        )
    };
    vec![
        finding(
            "correctness",
            "billing.py:5-6",
            Severity::Medium,
            tax,
            "user = get_user(db, uid)\n    return sum(line.amount for line in user.lines) * 1.2",
        ),
        finding(
            "security",
            "mail.py:5-6",
            Severity::Medium,
            mail,
            "user = get_user(db, uid)\n    mailer.send(user.email, \"receipt\")",
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
    for (regions_name, regions) in both() {
        for (name, set) in [
            ("goroutine leak", goroutine_leak()),
            ("missing await", missing_await()),
            ("removed check", removed_check()),
            ("sql injection", sql_injection()),
            ("cross-file twin", cross_file_twin()),
        ] {
            let n = set.len();
            assert_eq!(sizes(&cluster(&set, regions)), vec![n], "{name} ({regions_name})");
        }
    }
}

#[test]
fn the_symbol_index_knows_the_changed_symbols_of_the_fixtures() {
    let regions = symbol_regions();
    let changed = regions.changed_symbols();
    for name in ["fetch_all", "flush", "can_delete", "find_user", "put", "parse_price", "get_user"] {
        assert!(changed.contains(name), "{name}: {changed:?}");
    }
    for name in ["checkout", "invoice_total", "send_receipt", "load_user"] {
        assert!(!changed.contains(name), "{name} is not changed: {changed:?}");
    }
    assert!(indent_regions().changed_symbols().is_empty());
}

#[test]
fn one_defect_in_two_files_that_both_name_the_changed_symbol_merges() {
    let c = cluster(&cross_file_changed_symbol(), &symbol_regions());
    assert_eq!(sizes(&c), vec![2]);
    assert_eq!(c[0].members[0].location.to_string(), "money.py:3", "the high one represents it");
    assert_eq!(c[0].also_at(&c[0].members[0]).iter().map(ToString::to_string).collect::<Vec<_>>(), ["checkout.py:5-6"]);
    // Without a symbol index nothing ties two files but a citation.
    assert_eq!(sizes(&cluster(&cross_file_changed_symbol(), &indent_regions())), vec![1, 1]);
}

#[test]
fn two_defects_in_two_files_that_call_one_changed_function_stay_apart() {
    for naming in [false, true] {
        let set = two_callers_of_one_changed_function(naming);
        assert_eq!(sizes(&cluster(&set, &symbol_regions())), vec![1, 1], "claims naming `get_user`: {naming}");
    }
}

#[test]
fn a_caller_whose_claim_is_about_the_changed_function_joins_the_finding_inside_it() {
    let def = finding(
        "correctness",
        "user_store.py:2-4",
        Severity::High,
        "`get_user` now returns `None` for an unknown id where it raised, and no caller checks.",
        "if row is None:\n        return None",
    );
    let reader = finding(
        "error-handling",
        "mail.py:5-6",
        Severity::Medium,
        "`send_receipt` reads `user.email` of what `get_user` returns, which is now `None` for an unknown id.",
        "mailer.send(user.email, \"receipt\")",
    );
    let tax = two_callers_of_one_changed_function(false).remove(0);
    let c = cluster(&[tax.clone(), reader.clone(), def.clone()], &symbol_regions());
    assert_eq!(sizes(&c), vec![2, 1]);
    assert_eq!(c[0].members[0].location.path, "user_store.py");
    assert_eq!(c[0].members[1].location.path, "mail.py");
    // The documented limit: a caller's finding about its own code that mentions the
    // changed function in its claim joins too, once a finding sits inside it.
    let tax_naming = two_callers_of_one_changed_function(true).remove(0);
    assert_eq!(sizes(&cluster(&[tax_naming, reader, def], &symbol_regions())), vec![3]);
}

#[test]
fn two_defects_in_one_function_over_the_same_variables_stay_apart() {
    for (name, regions) in both() {
        assert_eq!(sizes(&cluster(&bound_and_lock(), regions)), vec![1, 1], "{name}");
    }
}

#[test]
fn the_bound_and_the_lock_stay_apart_with_margin_not_by_the_strict_inequality() {
    // Each claim shrunk to the shared variable plus its own: still apart.
    let mut set = bound_and_lock();
    set[0].claim = "`c.items` can hold one entry more than the maximum before anything is evicted.".into();
    for (name, regions) in both() {
        assert_eq!(sizes(&cluster(&set, regions)), vec![1, 1], "the bound names only `c.items` ({name})");
    }
    let mut set = bound_and_lock();
    set[1].claim = "`c.items` is written without holding `c.mu`.".into();
    for (name, regions) in both() {
        assert_eq!(sizes(&cluster(&set, regions)), vec![1, 1], "the lock drops `Put` ({name})");
    }
    // Only when both claims come down to the shared names alone are they one thing.
    let mut set = bound_and_lock();
    set[0].claim = "`c.items` overflows.".into();
    set[0].evidence = "c.items[k] = v".into();
    set[1].claim = "`c.items` is unsafe.".into();
    assert_eq!(sizes(&cluster(&set, &symbol_regions())), vec![2]);
}

#[test]
fn a_consequence_that_names_other_code_is_not_merged() {
    for (name, regions) in both() {
        // With the defect and its swallowed error only: nothing ties the total to them.
        let mut set = missing_await()[..2].to_vec();
        set.push(consequence_naming_other_code());
        assert_eq!(sizes(&cluster(&set, regions)), vec![2, 1], "{name}");
        // A consequence that names the call joins, and brings its own paraphrase with it.
        let mut set = missing_await();
        set.push(consequence_naming_other_code());
        assert_eq!(sizes(&cluster(&set, regions)), vec![4], "{name}");
    }
}

#[test]
fn the_same_wording_about_two_fields_stays_apart() {
    for (name, regions) in both() {
        assert_eq!(sizes(&cluster(&two_fields(), regions)), vec![1, 1], "{name}");
    }
}

#[test]
fn paraphrase_sets_mixed_together_come_apart_along_their_defects() {
    let all: Vec<Finding> = [goroutine_leak(), missing_await(), removed_check(), sql_injection(), bound_and_lock()]
        .into_iter()
        .flatten()
        .collect();
    for (name, regions) in both() {
        assert_eq!(sizes(&cluster(&all, regions)), vec![3, 3, 3, 2, 1, 1], "{name}");
    }
}

#[test]
fn the_representative_is_the_most_severe_then_narrowest_then_by_reviewer() {
    let c = cluster(&goroutine_leak(), &symbol_regions()).remove(0);
    assert_eq!(c.members[0].reviewer, "correctness", "the only high one");
    // The two medium ones: fetch.go:12 is one line, 24-25 two.
    assert_eq!((c.members[1].reviewer.as_str(), c.members[2].reviewer.as_str()), ("security", "error-handling"));
    let c = cluster(&removed_check(), &symbol_regions()).remove(0);
    // Both high; the one-line range first.
    assert_eq!(c.members[0].location.to_string(), "src/auth.py:4");
    assert_eq!(c.raised_by(), vec!["correctness", "security"]);
}

/// The fingerprint of the one cluster `set` forms.
fn id_of(set: &[Finding], regions: &dyn Regions) -> String {
    let clusters = cluster(set, regions);
    assert_eq!(clusters.len(), 1, "{clusters:#?}");
    clusters[0].id.clone()
}

#[test]
fn a_cluster_fingerprint_ignores_who_raised_it_and_how_they_worded_it() {
    for (name, regions) in both() {
        let base = id_of(&goroutine_leak(), regions);
        let mut reworded = goroutine_leak();
        for (i, f) in reworded.iter_mut().enumerate() {
            f.reviewer = format!("reviewer-{i}");
            f.claim = f.claim.replace("goroutine", "worker").replace("forever", "for good");
            f.severity = Severity::Low;
        }
        assert_eq!(id_of(&reworded, regions), base, "{name}");
        assert_ne!(base, id_of(&missing_await(), regions), "{name}");
    }
}

#[test]
fn a_cluster_fingerprint_survives_other_subsets_of_members_quoting_other_lines() {
    for (name, regions) in both() {
        for (defect, set) in [("goroutine leak", goroutine_leak()), ("missing await", missing_await())] {
            let (a, b, c) = (set[0].clone(), set[1].clone(), set[2].clone());
            let all = id_of(&set, regions);
            assert_eq!(id_of(std::slice::from_ref(&b), regions), all, "{defect}: {{B}} alone ({name})");
            assert_eq!(id_of(&[a.clone(), c.clone()], regions), all, "{defect}: {{A, C}} ({name})");
            assert_eq!(id_of(std::slice::from_ref(&a), regions), all, "{defect}: {{A}} alone ({name})");
            assert_eq!(id_of(std::slice::from_ref(&c), regions), all, "{defect}: {{C}} alone ({name})");
        }
        // The same members quoting other lines of the function, at other ranges.
        let mut requoted = goroutine_leak();
        requoted[0].location = Location::parse("fetch.go:16").unwrap();
        requoted[0].evidence = "results <- result{u, body, err}".into();
        requoted[1].location = Location::parse("fetch.go:22-23").unwrap();
        requoted[1].evidence = "case r := <-results:".into();
        assert_eq!(id_of(&requoted, regions), id_of(&goroutine_leak(), regions), "{name}");
    }
}

#[test]
fn two_defects_in_one_function_have_two_fingerprints() {
    for (name, regions) in both() {
        let clusters = cluster(&bound_and_lock(), regions);
        assert_eq!(clusters.len(), 2);
        assert_ne!(clusters[0].id, clusters[1].id, "{name}");
    }
}

#[test]
fn a_line_shift_above_the_function_keeps_the_fingerprint() {
    const ADDED: u32 = 4;
    let shifted_go =
        FETCH_GO.replacen("import \"context\"\n", "import (\n\t\"context\"\n\t\"errors\"\n\t\"log\"\n)\n", 1);
    let shifted_go = shifted_go.replacen("type result", "\n// result is what one fetch got.\ntype result", 1);
    assert_eq!(shifted_go.lines().count(), FETCH_GO.lines().count() + ADDED as usize + 2);
    let shift = ADDED + 2;
    let moved = |set: Vec<Finding>| -> Vec<Finding> {
        set.into_iter()
            .map(|mut f| {
                f.location.start += shift;
                f.location.end += shift;
                f
            })
            .collect()
    };
    let mut texts = texts();
    texts.insert("fetch.go".into(), shifted_go.clone());
    let shifted_symbols = SymbolRegions::new(texts.clone(), &Change { files: Vec::new(), ..change() });
    let shifted_indent = IndentRegions::new(texts);
    assert_eq!(
        id_of(&moved(goroutine_leak()), &shifted_symbols),
        id_of(&goroutine_leak(), &SymbolRegions::new(self::texts(), &Change { files: Vec::new(), ..change() }))
    );
    assert_eq!(id_of(&moved(goroutine_leak()), &shifted_indent), id_of(&goroutine_leak(), &indent_regions()));
    assert_eq!(
        id_of(std::slice::from_ref(&moved(goroutine_leak())[1]), &shifted_indent),
        id_of(&goroutine_leak(), &indent_regions()),
        "shifted, and another subset"
    );
}

#[test]
fn the_anchor_is_the_name_the_function_owns_then_the_rarest() {
    let scope = [
        "func fetchAll(ctx context.Context, urls []string) {",
        "\tresults := make(chan result)",
        "\tresults <- r",
        "\tcase <-ctx.Done():",
        "\tdone(results)",
    ];
    let subjects = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
    let own = ["fetch_all".to_string()].into();
    assert_eq!(
        cluster::anchor(&subjects(&["ctx.done", "results"]), &scope, &own).as_deref(),
        Some("results"),
        "assigned"
    );
    assert_eq!(
        cluster::anchor(&subjects(&["ctx.done", "urls"]), &scope, &own).as_deref(),
        Some("urls"),
        "one line each: by name"
    );
    assert_eq!(
        cluster::anchor(&subjects(&["fetch_all", "made_up"]), &scope, &own),
        None,
        "its own name, a name not in the code"
    );
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
        cross_file_changed_symbol(),
        two_callers_of_one_changed_function(true),
    ]
    .into_iter()
    .flatten()
    .collect()
}

proptest! {
    #[test]
    fn clustering_does_not_depend_on_input_order(order in Just(every_fixture()).prop_shuffle()) {
        for (_, regions) in both() {
            let expected = cluster(&every_fixture(), regions);
            prop_assert_eq!(cluster(&order, regions), expected);
        }
    }
}

const RENAME_PY: &str =
    "def rename(doc, title):\n    if not title:\n        return doc\n    doc.title = title.strip()\n    return doc\n";

#[test]
fn two_plain_claims_apart_in_one_function_whose_quotes_share_a_variable_stay_apart() {
    let texts = BTreeMap::from([("docs.py".to_string(), RENAME_PY.to_string())]);
    let unchanged = Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files: vec![] };
    let symbols = SymbolRegions::new(texts.clone(), &unchanged);
    let indent = IndentRegions::new(texts);
    let ignored = finding(
        "correctness",
        "docs.py:2-3",
        Severity::Medium,
        "Empty titles are silently ignored instead of rejected.",
        "if not title:",
    );
    let stripped = finding(
        "correctness",
        "docs.py:4",
        Severity::Low,
        "Stripping the title drops meaningful whitespace.",
        "doc.title = title.strip()",
    );
    for (name, regions) in [("symbols", &symbols as &dyn Regions), ("indentation", &indent)] {
        assert_eq!(symbols.enclosing("docs.py", 2, 2), symbols.enclosing("docs.py", 4, 4), "one function");
        let set = [ignored.clone(), stripped.clone()];
        assert_eq!(sizes(&cluster(&set, regions)), vec![1, 1], "{name}");
    }
    // On overlapping lines the same two quotes are close enough to be compared.
    let mut on_it = stripped.clone();
    on_it.location = Location::parse("docs.py:2-4").unwrap();
    on_it.claim = "An empty `title` returns early, so `doc.title` keeps its old value.".into();
    assert_eq!(sizes(&cluster(&[ignored, on_it], &symbols)), vec![2]);
}

const USER_RS_BASE: &str = "pub struct User {\n    pub id: u64,\n    pub display_name: String,\n}\n";
const USER_RS: &str = "pub struct User {\n    pub id: u64,\n    pub full_name: String,\n}\n";
const GREET_TS: &str = "export function greet(user: User): string {\n  return `Hello, ${user.displayName}`;\n}\n";

#[test]
fn a_renamed_field_and_the_client_that_still_reads_it_are_one_defect() {
    let patch = diffy::create_patch(USER_RS_BASE, USER_RS).to_string();
    let hunks = patch.split_once("\n@@").map(|(_, rest)| format!("@@{rest}")).unwrap();
    let text = format!("diff --git a/api/user.rs b/api/user.rs\n--- a/api/user.rs\n+++ b/api/user.rs\n{hunks}");
    let diff = parse_patch(&text).unwrap().remove(0);
    let change = Change {
        base: "b".into(),
        head: "h".into(),
        snapshot: Snapshot::Worktree,
        files: vec![ChangedFile { diff, head_text: Some(USER_RS.into()), unreadable: None }],
    };
    let texts =
        BTreeMap::from([("api/user.rs".to_string(), USER_RS.to_string()), ("web/client.ts".into(), GREET_TS.into())]);
    let regions = SymbolRegions::new(texts, &change);
    assert!(regions.changed_symbols().contains("full_name"), "{:?}", regions.changed_symbols());
    let renamed = finding(
        "contract-drift",
        "api/user.rs:3",
        Severity::High,
        "Renaming the JSON field breaks every client that reads the old name.",
        "pub full_name: String,",
    );
    let client = finding(
        "correctness",
        "web/client.ts:2",
        Severity::High,
        "The client still reads displayName, which the server now sends as fullName.",
        "return `Hello, ${user.displayName}`;",
    );
    assert_eq!(sizes(&cluster(&[renamed.clone(), client.clone()], &regions)), vec![2]);
    // A finding in another file whose claim does not name the renamed field stays apart.
    let mut elsewhere = client;
    elsewhere.claim = "The greeting is not escaped before it reaches the page.".into();
    assert_eq!(sizes(&cluster(&[renamed, elsewhere], &regions)), vec![1, 1]);
}

#[test]
fn a_caller_whose_plain_claim_only_quotes_the_changed_function_stays_apart() {
    let def = finding(
        "correctness",
        "user_store.py:2-4",
        Severity::High,
        "`get_user` now returns `None` for an unknown id where it raised, and no caller checks.",
        "if row is None:\n        return None",
    );
    // The claim names no code; only its evidence quotes the call on the way.
    let plain = finding(
        "error-handling",
        "billing.py:5-6",
        Severity::Medium,
        "Customers outside the VAT zone are overcharged on every invoice.",
        "user = get_user(db, uid)\n    return sum(line.amount for line in user.lines) * 1.2",
    );
    assert_eq!(sizes(&cluster(&[def, plain], &symbol_regions())), vec![1, 1]);
}
