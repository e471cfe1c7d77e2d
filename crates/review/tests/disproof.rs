//! The disproof check over everything a validator session saw: several cited
//! places, every read of the session counted (whole files, ranges from any turn,
//! search hits), and a rejection that names the rule that really failed.

use gauntlet_model::ToolCall;
use gauntlet_review::fence::Fence;
use gauntlet_review::ground::{check_disproof, citations};
use gauntlet_review::pipeline::Memory;
use gauntlet_review::sandbox::{Limits, Sandbox};
use gauntlet_review::shown::Shown;
use gauntlet_review::tools::Toolbox;
use serde_json::json;
use std::collections::BTreeMap;

/// `db.py`: 60 lines, a guard at line 16 and a helper at line 40.
fn db() -> String {
    (1..=60)
        .map(|n| match n {
            15 => "def fetch(user_id):\n".to_string(),
            16 => "    if user_id is None:\n".to_string(),
            17 => "        raise ValueError(\"user_id is required\")\n".to_string(),
            40 => "def normalise_email(address):\n".to_string(),
            41 => "    return address.strip().lower()\n".to_string(),
            _ => format!("# db line {n}\n"),
        })
        .collect()
}

/// `api.py`: the caller, which always passes a user id.
const API: &str = "from db import fetch\n\ndef handler(request):\n    return fetch(request.user.id)\n";

fn repo() -> Memory {
    Memory(BTreeMap::from([("db.py".to_string(), db()), ("api.py".to_string(), API.to_string())]))
}

/// What the session was shown before its turn: `api.py` whole (as a changed file is).
fn shared() -> Shown {
    let mut shown = Shown::default();
    shown.add_file("api.py", API);
    shown
}

fn read(tools: &mut Toolbox<'_>, input: serde_json::Value) {
    let result = tools.run(&ToolCall { id: "c".into(), name: "read_file".into(), input });
    assert!(!result.is_error, "{}", result.content);
}

fn search(tools: &mut Toolbox<'_>, pattern: &str) {
    let result = tools.run(&ToolCall { id: "s".into(), name: "search".into(), input: json!({ "pattern": pattern }) });
    assert!(!result.is_error, "{}", result.content);
}

const TWO_PLACES: &str = "db.py:16 the guard `if user_id is None:` rejects a missing id, and api.py:4 the only \
                          caller passes `fetch(request.user.id)`";

#[test]
fn a_disproof_resting_on_a_guard_and_its_caller_in_two_files_is_accepted() {
    let (repo, fence) = (repo(), Fence::fixed("DATA-t"));
    let mut tools = Toolbox::new(Sandbox::new(&repo, Limits::default()), &fence);
    read(&mut tools, json!({"path": "db.py"}));
    let shared = shared();
    assert_eq!(check_disproof(TWO_PLACES, &[&shared, &tools.reads.shown]), Ok(()));
    let places: Vec<String> = citations(TWO_PLACES).iter().map(ToString::to_string).collect();
    assert_eq!(places, ["db.py:16", "api.py:4"]);
}

#[test]
fn a_whole_file_read_without_a_line_range_counts() {
    // The measured false rejection: db.py read whole with a tool, a quote from
    // another file too; the message claimed db.py:16 was never shown or read.
    let (repo, fence) = (repo(), Fence::fixed("DATA-t"));
    let mut tools = Toolbox::new(Sandbox::new(&repo, Limits::default()), &fence);
    read(&mut tools, json!({"path": "db.py"}));
    let shared = shared();
    let records = [&shared, &tools.reads.shown];
    assert_eq!(check_disproof("db.py:16 `if user_id is None:` comes first", &records), Ok(()));
    let err = check_disproof("db.py:16 `if user_id is None:` and `fetch(request.user.id)`", &records).unwrap_err();
    assert_eq!(err, "disproof quoted `fetch(request.user.id)` which does not occur near db.py:16");
    assert!(!err.contains("never shown"), "the file was read: {err}");
}

#[test]
fn ranges_read_in_any_turn_keep_counting_after_later_reads_of_the_same_file() {
    let (repo, fence) = (repo(), Fence::fixed("DATA-t"));
    let mut tools = Toolbox::new(Sandbox::new(&repo, Limits::default()), &fence);
    read(&mut tools, json!({"path": "db.py", "start_line": 14, "end_line": 18}));
    read(&mut tools, json!({"path": "db.py", "start_line": 39, "end_line": 42}));
    read(&mut tools, json!({"path": "db.py", "start_line": 19, "end_line": 22}));
    let records = [&tools.reads.shown];
    assert_eq!(check_disproof("db.py:16 `if user_id is None:`", &records), Ok(()));
    assert_eq!(check_disproof("db.py:41 `return address.strip().lower()`", &records), Ok(()));
    // Line 18 came from the first read, line 19 from the third: one quote spans both.
    assert_eq!(check_disproof("db.py:18-19 `# db line 18\n# db line 19`", &records), Ok(()));
    let err = check_disproof("db.py:30 `# db line 30`", &records).unwrap_err();
    assert_eq!(err, "disproof cited db.py:30, which was never shown or read");
}

#[test]
fn a_line_shown_only_by_a_search_hit_counts_for_that_line() {
    let (repo, fence) = (repo(), Fence::fixed("DATA-t"));
    let mut tools = Toolbox::new(Sandbox::new(&repo, Limits::default()), &fence);
    search(&mut tools, r"if user_id is None");
    let records = [&tools.reads.shown];
    assert_eq!(check_disproof("db.py:16 the guard `if user_id is None:` is there", &records), Ok(()));
    let err = check_disproof("db.py:16-17 `raise ValueError(\"user_id is required\")`", &records).unwrap_err();
    assert_eq!(
        err,
        "disproof quoted `raise ValueError(\"user_id is required\")` which does not occur near db.py:16-17"
    );
}

#[test]
fn each_rejection_names_the_rule_that_failed() {
    let (repo, fence) = (repo(), Fence::fixed("DATA-t"));
    let mut tools = Toolbox::new(Sandbox::new(&repo, Limits::default()), &fence);
    read(&mut tools, json!({"path": "db.py", "start_line": 10, "end_line": 20}));
    let shared = shared();
    let records = [&shared, &tools.reads.shown];
    let reject = |evidence: &str| check_disproof(evidence, &records).unwrap_err();
    assert_eq!(
        reject("db.py:16 `if user_id is None:` and lib/other.py:3 `fetch(request.user.id)`"),
        "disproof cited lib/other.py:3, which was never shown or read"
    );
    assert_eq!(
        reject("db.py:16 `if user_id is None:` and api.py:4 `caller validates first`"),
        "disproof quoted `caller validates first` which does not occur near any of db.py:16, api.py:4"
    );
    assert_eq!(
        reject("db.py:16 `if user_id is None:` and api.py:4, whose `fetch` is guarded"),
        "disproof cited api.py:4 but quoted nothing of at least 8 non-blank characters that occurs there"
    );
    assert_eq!(
        reject("db.py:1-60 `if user_id is None:`"),
        "disproof cited db.py:1-60, which spans 60 lines; cite at most 40 lines per location"
    );
    assert_eq!(reject("db.py:16 and api.py:4 rule it out"), "disproof quoted nothing from db.py:16, api.py:4");
    assert_eq!(reject("the guard `if user_id is None:` rules it out"), "disproof cited no path:LINE location");
}

#[test]
fn code_inside_quotes_and_prose_that_only_looks_like_a_location_are_not_citations() {
    let cited = citations("api.py:4 `ratio = a:3` at 12:30 (see https://x.test:8080) and `db.py:16`.");
    let cited: Vec<String> = cited.iter().map(ToString::to_string).collect();
    assert_eq!(cited, ["api.py:4", "db.py:16"]);
    let dashed: Vec<String> = citations("db.py:15–17 `if user_id is None:`").iter().map(ToString::to_string).collect();
    assert_eq!(dashed, ["db.py:15-17"], "a range written with an en dash is still a range");
}

/// Code in quotes that merely contains a colon is code, not a citation: a slice, an
/// address, a dictionary key. A cited line with a column is the line.
#[test]
fn quotes_with_colons_are_code_and_a_column_after_the_line_is_dropped() {
    let mut shown = Shown::default();
    shown.add_file(
        "net.py",
        "def head(buf, s):\n    magic = buf[:4]\n    host = \"localhost:8080\"\n    return s[1:3], magic, host\n",
    );
    let evidence = "net.py:2 reads `magic = buf[:4]` and net.py:3-4 sets `host = \"localhost:8080\"` then \
                    returns `s[1:3]`, which the claim misreads";
    assert_eq!(check_disproof(evidence, &[&shown]), Ok(()));
    let places: Vec<String> = citations(evidence).iter().map(ToString::to_string).collect();
    assert_eq!(places, ["net.py:2", "net.py:3-4"], "no slice or address is a citation");
    assert_eq!(citations("see net.py:2:9 and `localhost:8080`")[0].to_string(), "net.py:2");
    assert_eq!(citations("see net.py:2:9 and `localhost:8080`").len(), 1);
    assert_eq!(citations("the rule in Makefile:3").len(), 1, "a root file without an extension");
}

/// A disproof that quotes the guard the change removed rests on code that is gone.
#[test]
fn a_quote_of_removed_code_does_not_back_a_disproof() {
    let patch = "diff --git a/auth.py b/auth.py\n--- a/auth.py\n+++ b/auth.py\n@@ -1,4 +1,3 @@\n \
                 def delete(user, doc):\n-    if not user.is_admin: raise Forbidden()\n     doc.remove()\n     \
                 return True\n";
    let diff = gauntlet_change::parse_patch(patch).unwrap().remove(0);
    let head = "def delete(user, doc):\n    doc.remove()\n    return True\n";
    let file = gauntlet_change::ChangedFile { diff, head_text: Some(head.into()), unreadable: None };
    let mut shown = Shown::default();
    shown.add_hunks(&file);
    let gone = "auth.py:2 `if not user.is_admin: raise Forbidden()` stops anyone else";
    let err = check_disproof(gone, &[&shown]).unwrap_err();
    assert!(err.contains("does not occur near auth.py:2"), "{err}");
    // The same session may quote what is there.
    assert_eq!(check_disproof("auth.py:2 `doc.remove()` runs for every caller", &[&shown]), Ok(()));
}
