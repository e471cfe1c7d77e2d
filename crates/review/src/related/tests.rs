use super::*;
use crate::repo::{HeadFiles, RepoRead};
use gauntlet_change::{ChangedFile, Snapshot, parse_patch};
use std::collections::BTreeMap;

pub(crate) use crate::repo::Memory as Files;

/// The change from `base` to `head` (whole repositories), as git would diff it.
pub(crate) fn change_of(base: &BTreeMap<String, String>, head: &BTreeMap<String, String>) -> Change {
    let mut files = Vec::new();
    for (path, new) in head {
        let old = base.get(path);
        if old == Some(new) {
            continue;
        }
        let body = diffy::create_patch(old.map_or("", String::as_str), new).to_string();
        let hunks = body.split_once("\n@@").map(|(_, h)| format!("@@{h}")).unwrap_or_default();
        let header = match old {
            Some(_) => format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"),
            None => format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"),
        };
        let diff = parse_patch(&(header + &hunks)).expect("a diffy patch parses").remove(0);
        files.push(ChangedFile { diff, head_text: Some(new.clone()), unreadable: None });
    }
    Change { base: "base".into(), head: "head".into(), snapshot: Snapshot::Worktree, files }
}

fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
}

const MODELS: &str = "\
class Order:
    def __init__(self, total_cents, display_name):
        self.total_cents = total_cents
        self.display_name = display_name
";

const MODELS_HEAD: &str = "\
class Order:
    def __init__(self, total_cents, full_name):
        self.total_cents = total_cents
        self.full_name = full_name
";

const RECEIPT_JS: &str = "\
export function receiptLine(order) {
  return `${order.displayName}: ${order.total_cents / 100}`;
}
";

/// A file that shares words with the change but none of its symbols.
const DECOY: &str = "\
def split(items):
    first, rest = items[0], items[1:]
    name = 'display name'
    return first, rest
";

const RATES: &str = "\
def load_rates(region):
    return {'eu': 0.2, 'us': 0.07}[region]
";

const TAX_BASE: &str = "def tax(order):\n    return 0\n";
const TAX_HEAD: &str =
    "from rates import load_rates\n\n\ndef tax(order, region):\n    return order.total_cents * load_rates(region)\n";

fn sample() -> (Change, Files) {
    let base = tree(&[
        ("shop/models.py", MODELS),
        ("web/receipt.js", RECEIPT_JS),
        ("util/split.py", DECOY),
        ("shop/rates.py", RATES),
        ("shop/tax.py", TAX_BASE),
    ]);
    let mut head = base.clone();
    head.insert("shop/models.py".into(), MODELS_HEAD.into());
    head.insert("shop/tax.py".into(), TAX_HEAD.into());
    (change_of(&base, &head), Files(head))
}

#[test]
fn a_renamed_field_brings_its_remaining_readers_with_the_reason() {
    let (change, repo) = sample();
    let related = gather(&change, &repo, 1 << 20, 10_000);
    let receipt = related.entries.iter().find(|e| e.path == "web/receipt.js").expect("the client is shown");
    assert!(
        receipt.why.iter().any(|w| w.starts_with("still uses `display_name`, removed at shop/models.py:")),
        "{:?}",
        receipt.why
    );
    assert!(receipt.lines.iter().any(|l| l.contains("order.displayName")));
    assert!(!related.entries.iter().any(|e| e.path == "util/split.py"), "a decoy sharing words: {related:?}");
}

#[test]
fn a_called_function_defined_elsewhere_is_shown_with_its_body() {
    let (change, repo) = sample();
    let related = gather(&change, &repo, 1 << 20, 10_000);
    let rates = related.entries.iter().find(|e| e.path == "shop/rates.py").expect("the callee is shown");
    assert!(
        rates.why.iter().any(|w| w.starts_with("defines function `load_rates` used at shop/tax.py:")),
        "{:?}",
        rates.why
    );
    assert_eq!((rates.start, rates.lines.len()), (1, 2));
}

#[test]
fn the_budget_cuts_the_lowest_ranked_and_lists_them() {
    let (change, repo) = sample();
    let all = gather(&change, &repo, 1 << 20, 10_000);
    assert!(all.entries.len() >= 2 && all.omitted.is_empty(), "{all:?}");
    let first = all.entries.iter().map(super::tokens).min().unwrap();
    let tight = gather(&change, &repo, 1 << 20, first);
    assert!(tight.tokens() <= first);
    assert_eq!(tight.entries.len() + tight.omitted.len(), all.entries.len());
    assert!(tight.omitted_line().is_some());
    assert!(gather(&change, &repo, 1 << 20, 0).is_empty(), "0 turns related code off");
}

#[test]
fn files_over_the_tool_size_limit_are_not_read() {
    let (change, repo) = sample();
    let related = gather(&change, &repo, 60, 10_000);
    assert!(related.entries.iter().all(|e| e.path != "web/receipt.js"), "receipt.js is over 60 bytes");
}

#[test]
fn what_is_shown_enters_the_shown_record_and_the_fenced_listing() {
    let (change, repo) = sample();
    let related = gather(&change, &repo, 1 << 20, 10_000);
    let mut shown = Shown::default();
    related.add_to(&mut shown);
    assert!(shown.blocks.iter().any(|b| b.path == "shop/rates.py"));
    let text = related.listing(&Fence::fixed("DATA-1"));
    assert!(text.contains("<<<DATA-1 related shop/rates.py:1-2>>>\nwhy: defines function `load_rates`"), "{text}");
}

#[test]
fn the_related_block_as_every_session_receives_it() {
    let (change, repo) = sample();
    let all = gather(&change, &repo, 1 << 20, 10_000);
    let smallest = all.entries.iter().map(super::tokens).min().unwrap();
    let tight = gather(&change, &repo, 1 << 20, smallest);
    let text = crate::prompt::related(&tight, &Fence::fixed("DATA-0000")).expect("one entry fits");
    insta::assert_snapshot!(text);
    assert!(crate::prompt::related(&Related::default(), &Fence::fixed("DATA-0000")).is_none());
}

/// A reader whose shown texts are masked and whose search texts are not.
struct Masking(Files);

impl HeadFiles for Masking {
    fn line_count(&self, path: &str) -> Option<u32> {
        self.0.line_count(path)
    }
}

impl RepoRead for Masking {
    fn text(&self, path: &str) -> Option<String> {
        self.0.text(path).map(|t| t.replace("sk_live_123", "[masked]"))
    }
    fn files(&self) -> Vec<&str> {
        self.0.files()
    }
    fn unmasked_texts(&self, paths: &[&str]) -> Vec<Option<String>> {
        paths.iter().map(|p| self.0.text(p)).collect()
    }
}

#[test]
fn related_code_is_read_masked_even_though_the_name_search_is_not() {
    let (change, Files(mut head)) = sample();
    let with_key = RATES.replace("    return", "    key = 'sk_live_123'\n    return");
    head.insert("shop/rates.py".into(), with_key);
    let related = gather(&change, &Masking(Files(head)), 1 << 20, 10_000);
    let rates = related.entries.iter().find(|e| e.path == "shop/rates.py").expect("the callee is shown");
    let text = related.listing(&Fence::fixed("DATA-1"));
    assert!(rates.lines.iter().any(|l| l.contains("key = '[masked]'")), "{:?}", rates.lines);
    assert!(!text.contains("sk_live_123"), "{text}");
}

const PATCH_BASE: &str = "pub struct Patch {\n    pub lines: Vec<String>,\n}\n\nimpl Patch {\n    pub fn apply(&self, text: &str) -> String {\n        text.to_string()\n    }\n}\n";
const PATCH_HEAD: &str = "pub struct Patch {\n    pub lines: Vec<String>,\n}\n\nimpl Patch {\n    pub fn apply(&self, text: &str) -> String {\n        let mut out = text.to_string();\n        out.extend(self.lines.iter().map(|l| l.as_str()));\n        out\n    }\n}\n";
const PATCH_CALLER: &str =
    "use crate::patch::Patch;\n\npub fn run(p: &Patch, text: &str) -> String {\n    p.apply(text)\n}\n";
const LICENSE_MD: &str =
    "# Licence\n\nThe conditions below apply to every copy.\nThey apply whether or not\nyou apply the patch.\n";
const DEPLOY_SH: &str = "#!/bin/sh\n# apply the migrations before the patch\nmigrate --all\n";

#[test]
fn prose_files_and_comments_are_never_callers_of_a_method_named_by_a_plain_word() {
    let base = tree(&[
        ("src/patch.rs", PATCH_BASE),
        ("src/run.rs", PATCH_CALLER),
        ("LICENSE.md", LICENSE_MD),
        ("README", "Call apply on a Patch to apply it.\n"),
        ("CHANGELOG.txt", "0.2: apply keeps the lines\n"),
        ("docs/guide.rst", "Use ``apply`` to apply a patch.\n"),
        ("scripts/deploy.sh", DEPLOY_SH),
    ]);
    let mut head = base.clone();
    head.insert("src/patch.rs".into(), PATCH_HEAD.into());
    let change = change_of(&base, &head);
    let related = gather(&change, &Files(head), 1 << 20, 10_000);
    let paths: Vec<&str> = related.entries.iter().map(|e| e.path.as_str()).collect();
    assert!(paths.contains(&"src/run.rs"), "the real caller is shown: {related:?}");
    for prose in ["LICENSE.md", "README", "CHANGELOG.txt", "docs/guide.rst", "scripts/deploy.sh"] {
        assert!(!paths.contains(&prose), "{prose} is no caller of `apply`: {related:?}");
    }
}

#[test]
fn a_plain_word_in_a_file_without_a_grammar_counts_only_where_code_uses_it() {
    let base = tree(&[
        ("src/patch.rs", PATCH_BASE),
        ("lib/tasks.rb", "# apply runs last\ndef task\n  patch.apply(text)\nend\n"),
        ("lib/notes.rb", "# We apply the patch by hand here.\ndef notes\n  puts 'apply it'\nend\n"),
    ]);
    let mut head = base.clone();
    head.insert("src/patch.rs".into(), PATCH_HEAD.into());
    let change = change_of(&base, &head);
    let related = gather(&change, &Files(head), 1 << 20, 10_000);
    let paths: Vec<&str> = related.entries.iter().map(|e| e.path.as_str()).collect();
    assert!(paths.contains(&"lib/tasks.rb"), "`patch.apply(text)` is a call: {related:?}");
    assert!(!paths.contains(&"lib/notes.rb"), "a comment and a string are not calls: {related:?}");
}
