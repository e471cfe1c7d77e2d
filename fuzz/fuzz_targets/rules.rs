//! Rule files come from the repository under review (`.gauntlet/reviewers/`) and
//! from a rules channel, so a pull request can put any text there. A parsed rule
//! must meet the documented bounds; a lock file must read back what it wrote.

#![no_main]

use gauntlet_review::rules::lock::Lock;
use gauntlet_review::rules::{Origin, Reviewer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(r) = Reviewer::parse("fuzz.md", text, Origin::Builtin) {
        assert!(!r.name.is_empty());
        assert!(r.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "name {:?}", r.name);
        assert!((1..=50).contains(&r.max_findings));
        // Leading blanks of the first line may be meaningful Markdown; blank lines are not.
        assert!(!r.body.trim().is_empty(), "the body is not blank");
        assert!(r.body.trim_end() == r.body && !r.body.starts_with(['\n', '\r']), "{:?}", r.body);
        assert_eq!(r.source, text);
        let _ = r.first_match(["src/lib.rs", "README.md", ".github/workflows/ci.yml"]);
    }
    if let Ok(lock) = Lock::parse(text) {
        let again = Lock::parse(&lock.render()).expect("a lock reads back what it wrote");
        assert_eq!(again, lock);
    }
});
