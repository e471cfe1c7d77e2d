//! `code_tokens`: what is left of a file's code once comments are dropped and each
//! literal is one token, in the languages the index has a grammar for.

#![cfg(feature = "grammars")]

use gauntlet_code::{STRING_TOKEN, code_tokens};

fn texts(path: &str, text: &str) -> Vec<String> {
    code_tokens(path, text).expect("a grammar reads it").into_iter().map(|t| t.text).collect()
}

#[test]
fn comments_go_and_each_literal_is_one_token_whatever_its_words() {
    let rust = texts("a.rs", "// why\nfn f() -> &'static str { /* note */ \"a typo\" }\n");
    assert_eq!(rust, texts("a.rs", "/// other words\nfn f() -> &'static str { \"no typo\" }\n"));
    assert!(rust.contains(&STRING_TOKEN.to_string()) && !rust.iter().any(|t| t.contains("typo")), "{rust:?}");
    let py = "def f():\n    \"\"\"Docs.\"\"\"\n    return 'x'  # note\n";
    assert_eq!(texts("a.py", py), texts("a.py", &py.replace("Docs.", "Other docs.").replace("'x'", "'y'")));
    let go = "package a\n// c\nfunc f() string { return `raw` + \"s\" }\n";
    assert_eq!(texts("a.go", go), texts("a.go", &go.replace("raw", "other")));
}

#[test]
fn code_inside_an_interpolation_is_still_code_and_lines_are_kept() {
    let js = "const m = `hello ${user.name}`;\n";
    assert_ne!(texts("a.js", js), texts("a.js", &js.replace("user.name", "user.id")));
    let py = "x = f\"{a}\"\n";
    assert_ne!(texts("a.py", py), texts("a.py", &py.replace("{a}", "{b}")));
    let tokens = code_tokens("a.py", "x = 1\n\ny = 2\n").unwrap();
    assert_eq!(tokens.iter().map(|t| t.line).collect::<Vec<_>>(), vec![1, 1, 1, 3, 3, 3]);
    assert!(code_tokens("a.rb", "x = 1\n").is_none(), "no grammar reads Ruby: the caller uses line heuristics");
}
