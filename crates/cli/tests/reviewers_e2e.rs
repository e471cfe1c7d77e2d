//! Specialist reviewers run only where the change gives them something to work
//! with, decided before any model call: `gauntlet reviewers` says why each one is
//! off, and `gauntlet review` sends no request for it.

mod support;

use serde_json::Value;
use support::{Fake, Wire, gauntlet, repo};

const CART_BASE: &str = "def total(items):\n    return sum(i.price for i in items)\n";
const CART_HEAD: &str = "def total(items):\n    return sum(i.price * i.quantity for i in items)\n";

const USERS_BASE: &str = "def find(db, name):\n    return db.users.get(name)\n";
const USERS_HEAD: &str = "def find(db, name):\n    cur = db.cursor()\n    cur.execute(\"SELECT * FROM users WHERE name = '\" + name + \"'\")\n    return cur.fetchone()\n";

/// The listing's line for reviewer `name`.
fn line<'a>(listing: &'a str, name: &str) -> &'a str {
    let found = listing.lines().find(|l| l.split_whitespace().next() == Some(name));
    found.unwrap_or_else(|| panic!("no line for {name} in:\n{listing}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_with_no_auth_data_or_error_path_runs_neither_security_nor_error_handling() {
    let dir = repo(&[("shop/cart.py", CART_BASE)], &[("shop/cart.py", CART_HEAD)]);
    let (server, fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, listing, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    assert_eq!(code, 0, "{err}");
    for name in ["security-privacy", "error-handling"] {
        let l = line(&listing, name);
        assert!(l.contains("off: the change touches nothing it looks for ("), "{l}");
        assert!(l.contains("[when] lines"), "the reason names the rule-file field to tune: {l}");
    }
    for name in ["correctness", "broad"] {
        assert!(line(&listing, name).contains("runs: shop/cart.py matches applies_to"), "{listing}");
    }
    assert_eq!(fake.seen().len(), 0, "deciding who runs calls no model");

    let (code, out, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["review", "--format", "json"]).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{err}"));
    let ran = report["reviewers"].to_string();
    assert!(ran.contains("correctness") && ran.contains("broad"), "{ran}");
    let finders: Vec<String> =
        fake.seen().into_iter().filter(|s| s.step == "find").filter_map(|s| s.reviewer).collect();
    for name in ["security-privacy", "error-handling"] {
        assert!(!ran.contains(name) && !finders.contains(&name.to_string()), "{name} ran: {ran} {finders:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_that_builds_sql_from_text_runs_security_privacy_and_says_where() {
    let dir = repo(&[("app/users.py", USERS_BASE)], &[("app/users.py", USERS_HEAD)]);
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, listing, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    assert_eq!(code, 0, "{err}");
    let l = line(&listing, "security-privacy");
    assert!(l.contains("runs: app/users.py:3 matches [when] lines") && l.contains("SQL"), "{l}");
    assert!(listing.contains("security-privacy"), "{listing}");
    let outcome = listing.lines().last().unwrap();
    assert!(outcome.contains("security-privacy"), "{outcome}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_tunes_when_a_specialist_runs_in_its_own_rule_file() {
    let dir = repo(&[("shop/cart.py", CART_BASE)], &[("shop/cart.py", CART_HEAD)]);
    let ours = "+++\nname = \"security-privacy\"\ndescription = \"ours\"\n[when]\nabout = \"prices\"\n\
                lines = ['price']\n+++\nPrices are sensitive here.\n";
    std::fs::create_dir_all(dir.path().join(".gauntlet/reviewers")).unwrap();
    std::fs::write(dir.path().join(".gauntlet/reviewers/security-privacy.md"), ours).unwrap();
    let (server, _fake) = Fake::start(Wire::Anthropic, vec![]).await;
    let (code, listing, err) = gauntlet(dir.path(), Wire::Anthropic, &server, &["reviewers"]).await;
    assert_eq!(code, 0, "{err}");
    let l = line(&listing, "security-privacy");
    assert!(l.contains("runs: shop/cart.py:2 matches [when] lines (prices)"), "{l}");
}
