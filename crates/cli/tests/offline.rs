//! The offline path end to end: the real binary reviews the bundled example
//! repository with the embedded default model (real inference, no fakes).
//!
//! Needs the model in the user cache (`scripts/test` runs `gauntlet model pull`
//! first); without it the binary fetches it, and fails with the reason if it can't.
#![cfg(feature = "local")]

use assert_cmd::Command;
use std::path::Path;
use std::time::Instant;

#[test]
fn inference_offline_review_of_the_example_prints_the_funnel() {
    let work = tempfile::tempdir().unwrap();
    let bundle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/buggy.bundle");
    let repo = work.path().join("buggy");
    let status = std::process::Command::new("git").arg("clone").arg("-q").arg(&bundle).arg(&repo).status().unwrap();
    assert!(status.success(), "cloning {}", bundle.display());

    let started = Instant::now();
    let out = Command::cargo_bin("gauntlet")
        .unwrap()
        .arg("-C")
        .arg(&repo)
        .args(["review", "--base", "HEAD~1", "--reviewers", "correctness", "--color", "never"])
        // Nothing configured and no key: the embedded model is the default.
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("GAUNTLET_PROVIDER")
        .env_remove("GAUNTLET_MODEL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}\n{stdout}\noffline review took {:.1}s", started.elapsed().as_secs_f64());
    assert!(out.status.success(), "exit {:?}", out.status.code());
    assert!(stdout.contains("candidates") && stdout.contains("published"), "no funnel in:\n{stdout}");
    assert!(stdout.contains("local:smollm2"), "the report names the provider and model:\n{stdout}");
    assert!(stdout.contains("not for real review quality"), "the tiny-model note is missing:\n{stdout}");
    assert!(started.elapsed().as_secs() < 600, "the offline example review must finish within 10 minutes");
}

/// The loop's contracts turn into grammars the embedded model can be held to, with
/// answers to issues bounded by the issues raised.
#[test]
fn loop_contracts_compile_to_local_grammars() {
    use gauntlet_local::grammar::from_schema;
    use gauntlet_loop::contract::{critique_schema, draft_schema};
    from_schema(&critique_schema()).expect("the adversary contract has a grammar");
    let first = from_schema(&draft_schema("document", 4_000, 0)).expect("a first draft has a grammar");
    assert!(first.gbnf.contains("\"\\\"addressed\\\":\" \"[]\""), "nothing to answer yet: {}", first.gbnf);
    let later = from_schema(&draft_schema("patch", 24_000, 3)).expect("a later draft has a grammar");
    assert!(later.max_bytes > first.max_bytes);
}
