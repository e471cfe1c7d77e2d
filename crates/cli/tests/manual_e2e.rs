//! What a user reaches for before the first review: `--help` with examples and
//! the environment it reads, shell completions and man pages, all generated
//! from the flags the binary parses, so none of them can name a flag that is
//! not there.

use assert_cmd::Command;

fn gauntlet(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("gauntlet").unwrap().args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

const COMMANDS: [&str; 12] =
    ["review", "ci", "init", "reviewers", "model", "fix", "refine", "backtest", "stats", "rules", "completions", "man"];

#[test]
fn every_command_help_ends_with_examples_of_that_command() {
    for command in COMMANDS {
        let (code, out, err) = gauntlet(&[command, "--help"]);
        assert_eq!(code, 0, "{command}: {err}");
        let examples =
            out.split("Examples:").nth(1).unwrap_or_else(|| panic!("{command} --help has no examples:\n{out}"));
        assert!(examples.contains(&format!("gauntlet {command}")), "{command}: {examples}");
    }
}

#[test]
fn top_level_help_lists_the_environment_and_the_exit_codes() {
    let (code, out, _) = gauntlet(&["--help"]);
    assert_eq!(code, 0);
    let env = out.split("Environment:").nth(1).expect("an environment section");
    for var in
        ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GAUNTLET_PROVIDER", "NO_COLOR", "GITHUB_TOKEN", "GAUNTLET_CACHE_DIR"]
    {
        assert!(env.contains(var), "{var} is not listed:\n{env}");
    }
    assert!(out.contains("3 a finding at or above --fail-on") && out.contains("4 a candidate"), "{out}");
    let (_, review, _) = gauntlet(&["review", "--help"]);
    assert!(review.contains("--fail-on <SEVERITY>") && review.contains("--output <FORMAT=PATH>"), "{review}");
    assert!(review.contains("Environment: ANTHROPIC_API_KEY"), "{review}");
}

#[test]
fn completions_for_each_shell_know_the_commands_and_their_flags() {
    let shells = [
        ("bash", "_gauntlet()"),
        ("zsh", "#compdef gauntlet"),
        ("fish", "complete -c gauntlet"),
        ("powershell", "Register-ArgumentCompleter"),
    ];
    for (shell, marker) in shells {
        let (code, out, err) = gauntlet(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(marker), "{shell}: {out}");
        assert!(out.contains("fail-on") && out.contains("backtest"), "{shell} completes commands and flags");
    }
    let (code, _, err) = gauntlet(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("possible values") && err.contains("bash"), "{err}");
}

#[test]
fn man_writes_one_page_per_command_or_gauntlet_1_to_stdout() {
    let (code, page, _) = gauntlet(&["man"]);
    assert_eq!(code, 0);
    assert!(page.contains(".TH gauntlet 1") && page.contains("Environment:"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let (code, _, err) = gauntlet(&["man", pages.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for name in
        ["gauntlet.1", "gauntlet-review.1", "gauntlet-ci.1", "gauntlet-rules-lock.1", "gauntlet-backtest-mine.1"]
    {
        let text = std::fs::read_to_string(pages.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains(".TH"), "{name}: {text}");
    }
    let review = std::fs::read_to_string(pages.join("gauntlet-review.1")).unwrap();
    assert!(review.contains("fail\\-on") && review.contains("Examples:"), "{review}");
}
