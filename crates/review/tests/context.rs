//! Context gathered for the reviewers that know the system, on real git
//! repositories: history with a fix the change reverts, consumers of a renamed
//! field across languages, design tokens.

use gauntlet_change::{Change, Target, git::Git};
use gauntlet_review::context::{Block, Config, ContextKind, Gathered, Sources, gather};
use gauntlet_review::pipeline::RepoHead;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// A repository whose `main` is built by `commits` in order, with `feature`
/// (checked out) changing files to `head`.
fn repo(commits: &[(&str, &[(&str, &str)])], head: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "Tess"]);
    for (message, files) in commits {
        write(d, files);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", message]);
    }
    git(d, &["checkout", "-q", "-b", "feature"]);
    write(d, head);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "change"]);
    dir
}

fn gathered(dir: &Path, kind: ContextKind, config: &Config) -> Gathered {
    let g = Git::discover(dir).unwrap();
    let change: Change =
        gauntlet_change::acquire(&g, &Target::Range { base: "main".into(), head: None }).expect("change");
    let head = RepoHead::new(&g, &change).unwrap();
    gather(kind, &Sources { git: &g, change: &change, head: &head, config }).expect("gathered")
}

fn blocks(g: Gathered) -> Vec<Block> {
    match g {
        Gathered::Found(b) => b,
        Gathered::Nothing(why) => panic!("expected context, got nothing: {why}"),
    }
}

const PAGER_V1: &str = "def page(items, n, size):\n    start = n * size\n    return items[start:start + size]\n";
const PAGER_FIXED: &str =
    "def page(items, n, size):\n    n = max(n, 1)\n    start = (n - 1) * size\n    return items[start:start + size]\n";

#[test]
fn history_context_holds_the_fix_commit_that_the_change_reverts() {
    let dir = repo(
        &[
            ("Add pagination", &[("src/pager.py", PAGER_V1), ("README.md", "pager\n")]),
            ("Fix off-by-one: pages are numbered from 1", &[("src/pager.py", PAGER_FIXED)]),
            ("Document the pager", &[("README.md", "pager, pages from 1\n")]),
        ],
        &[("src/pager.py", PAGER_V1)],
    );
    let fix_sha = git(dir.path(), &["rev-parse", "main~1"]).trim().to_string();
    let b = blocks(gathered(dir.path(), ContextKind::History, &Config::default()));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].about, vec!["src/pager.py"]);
    let text = &b[0].text;
    assert!(text.contains(&fix_sha[..12]), "the fix commit is named: {text}");
    assert!(text.contains("[fix]: Fix off-by-one: pages are numbered from 1"), "{text}");
    assert!(text.contains("This change removes lines that"), "the undone lines are pointed out: {text}");
    assert!(text.contains("n = max(n, 1)"), "{text}");
    assert!(!text.contains("Document the pager"), "commits that did not touch these lines are left out");
}

#[test]
fn history_without_a_fix_in_the_window_leaves_the_reviewer_nothing() {
    let dir = repo(&[("Add pagination", &[("src/pager.py", PAGER_V1)])], &[("src/pager.py", PAGER_FIXED)]);
    match gathered(dir.path(), ContextKind::History, &Config::default()) {
        Gathered::Nothing(why) => assert!(why.contains("no fix or revert"), "{why}"),
        Gathered::Found(b) => panic!("expected nothing, got {b:?}"),
    }
}

const RUST_DTO: &str = r#"use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    pub id: u64,
    pub display_name: String,
}

pub fn routes() -> Router {
    Router::new().route("/api/users/:id", get(show))
}
"#;

const TS_CLIENT: &str = r#"export interface User {
  id: number;
  displayName: string;
}

export async function loadUser(id: number): Promise<User> {
  const res = await fetch(`/api/users/${id}`);
  return res.json();
}

export function greeting(user: User): string {
  return `Hello, ${user.displayName}`;
}
"#;

#[test]
fn renaming_a_rust_dto_field_finds_the_typescript_client_that_reads_it() {
    let renamed = RUST_DTO.replace("display_name", "full_name");
    let dir = repo(
        &[(
            "api",
            &[("src/api/users.rs", RUST_DTO), ("web/src/client.ts", TS_CLIENT), ("src/math.rs", "fn one() {}\n")],
        )],
        &[("src/api/users.rs", &renamed)],
    );
    let b = blocks(gathered(dir.path(), ContextKind::Consumers, &Config::default()));
    let summary = &b[0];
    assert!(summary.text.contains("display_name (removed in src/api/users.rs"), "{}", summary.text);
    assert!(summary.text.contains("displayName"), "searched in camelCase too: {}", summary.text);
    let client = b.iter().find(|b| b.label == "consumer web/src/client.ts").expect("the client is a consumer");
    assert!(client.text.contains("return `Hello, ${user.displayName}`;"), "{}", client.text);
    assert_eq!(client.about, vec!["src/api/users.rs"]);
    assert!(
        client.code.iter().any(|r| r.path == "web/src/client.ts" && r.lines.iter().any(|l| l.contains("displayName")))
    );
    assert!(!b.iter().any(|b| b.label.contains("math.rs")), "unrelated files stay out");
}

#[test]
fn renaming_the_field_on_the_typescript_client_finds_the_rust_dto_that_sends_it() {
    let renamed = TS_CLIENT.replace("displayName", "fullName");
    let dir = repo(
        &[("api", &[("src/api/users.rs", RUST_DTO), ("web/src/client.ts", TS_CLIENT)])],
        &[("web/src/client.ts", &renamed)],
    );
    let b = blocks(gathered(dir.path(), ContextKind::Consumers, &Config::default()));
    let server = b.iter().find(|b| b.label == "consumer src/api/users.rs").expect("the other side is found");
    assert!(server.text.contains("pub display_name: String,"), "{}", server.text);
}

const CS_CONTROLLER: &str = r#"[ApiController]
[Route("api/users")]
public class UsersController : ControllerBase
{
    [HttpGet("{id}")]
    public UserDto Get(int id) => _store.Find(id);
}

public record UserDto
{
    public int Id { get; init; }
    public string DisplayName { get; init; }
}
"#;

#[test]
fn renaming_a_csharp_property_finds_the_typescript_client_that_reads_it() {
    let renamed = CS_CONTROLLER.replace("DisplayName", "FullName");
    let dir = repo(
        &[("api", &[("Api/UsersController.cs", CS_CONTROLLER), ("web/src/client.ts", TS_CLIENT)])],
        &[("Api/UsersController.cs", &renamed)],
    );
    let b = blocks(gathered(dir.path(), ContextKind::Consumers, &Config::default()));
    assert!(b.iter().any(|b| b.label == "consumer web/src/client.ts"), "{b:#?}");
}

#[test]
fn a_change_that_touches_no_shape_gathers_no_consumers() {
    let dir = repo(
        &[("math", &[("src/math.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }\n")])],
        &[("src/math.rs", "pub fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }\n")],
    );
    assert!(matches!(gathered(dir.path(), ContextKind::Consumers, &Config::default()), Gathered::Nothing(_)));
}

#[test]
fn a_raw_colour_equal_to_a_token_is_pointed_out() {
    let dir = repo(
        &[("ui", &[("styles/tokens.css", ":root {\n  --brand: #1a73e8;\n}\n"), ("web/button.css", ".b {}\n")])],
        &[("web/button.css", ".b {\n  color: #1A73E8;\n}\n")],
    );
    let config = Config { token_files: vec!["styles/tokens.css".into()], ..Config::default() };
    let b = blocks(gathered(dir.path(), ContextKind::Tokens, &config));
    assert!(
        b[0].text.contains("web/button.css:2 `#1A73E8` equals token `--brand` (styles/tokens.css:2)"),
        "{}",
        b[0].text
    );
    assert!(b.iter().any(|b| b.code.iter().any(|r| r.path == "styles/tokens.css")), "the token file is shown code");
}

const REST_DTO: &str = r#"use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rest {
    pub retry_after: u32,
}
"#;

const SPLITTER: &str = r#"pub fn tail(items: &[u32]) -> &[u32] {
    let (_, rest) = items.split_at(1);
    rest
}
"#;

const RETRY_CLIENT: &str = r#"export function waitFor(body: { retryAfter: number }): number {
  return body.retryAfter * 1000;
}
"#;

#[test]
fn a_local_variable_that_shares_a_word_with_a_changed_type_is_no_consumer() {
    let renamed = REST_DTO.replace("retry_after", "wait_seconds");
    let dir = repo(
        &[("api", &[("src/api/rest.rs", REST_DTO), ("src/split.rs", SPLITTER), ("web/src/retry.ts", RETRY_CLIENT)])],
        &[("src/api/rest.rs", &renamed)],
    );
    let b = blocks(gathered(dir.path(), ContextKind::Consumers, &Config::default()));
    assert!(b.iter().any(|b| b.label == "consumer web/src/retry.ts"), "the client reading retryAfter: {b:?}");
    assert!(!b.iter().any(|b| b.label == "consumer src/split.rs"), "a local `rest` is not the type `Rest`: {b:?}");
}
