//! The configuration reference, docs/src/reference/configuration.md, rendered from
//! the source of the types `gauntlet.toml` and rule files are read into: each
//! table's doc comment and each key's doc comment, which ends with `Default: ...`.
//! A test compares the rendering with the committed page and checks that the keys
//! it lists are exactly the keys serde accepts, so the page cannot drift.
//!
//! Regenerate: `GAUNTLET_BLESS_DOCS=1 cargo test -p gauntlet --bin gauntlet settings::reference`.

use std::collections::BTreeMap;

const FILE_SOURCE: &str = include_str!("file.rs");

/// A source file of the review crate, read when the test runs (not included at
/// build time: a packaged crate holds only its own files).
fn review_source(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../review/src").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Where the page lives, from the repository root.
const PAGE: &str = "docs/src/reference/configuration.md";
const BLESS: &str = "GAUNTLET_BLESS_DOCS";

#[derive(Clone, Debug)]
struct Field {
    name: String,
    ty: String,
    doc: String,
}

#[derive(Clone, Debug)]
struct Struct {
    doc: String,
    fields: Vec<Field>,
}

/// One table of the reference: its TOML path, what it is for, its keys.
#[derive(Debug)]
struct Table {
    path: String,
    doc: String,
    keys: Vec<Field>,
}

/// The structs of a Rust source file with their doc comments, read line by line:
/// `///` lines before a struct or field are its doc; attributes are passed over.
fn parse_structs(source: &str) -> BTreeMap<String, Struct> {
    let mut structs = BTreeMap::new();
    let mut doc: Vec<String> = Vec::new();
    let mut open: Option<(String, Struct)> = None;
    for line in source.lines() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
            continue;
        }
        if t.starts_with("#[") {
            continue;
        }
        if open.is_none() {
            let words: Vec<&str> = t.split_whitespace().collect();
            if let Some(i) = words.iter().position(|w| *w == "struct")
                && t.ends_with('{')
                && words[..i].iter().all(|w| w.starts_with("pub"))
            {
                let name = words[i + 1].trim_end_matches('{').to_string();
                open = Some((name, Struct { doc: doc.join(" "), fields: Vec::new() }));
            }
        } else if t == "}" {
            let (name, s) = open.take().expect("open struct");
            structs.insert(name, s);
        } else if let Some((_, s)) = open.as_mut() {
            let t = t.strip_prefix("pub ").unwrap_or(t);
            if let Some((name, ty)) = t.strip_suffix(',').and_then(|t| t.split_once(": ")) {
                s.fields.push(Field { name: name.to_string(), ty: ty.to_string(), doc: doc.join(" ") });
            }
        }
        doc.clear();
    }
    structs
}

fn strip_option(ty: &str) -> &str {
    ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')).unwrap_or(ty)
}

/// The last path segment of a type: `gauntlet_review::cost::Price` is `Price`.
fn base_name(ty: &str) -> &str {
    ty.rsplit("::").next().unwrap_or(ty)
}

/// `gauntlet.toml`'s tables, from `FileConfig` down.
fn config_tables() -> Vec<Table> {
    let structs = parse_structs(FILE_SOURCE);
    let prices = parse_structs(&review_source("cost.rs"));
    let mut tables = Vec::new();
    walk(&structs, &prices, "FileConfig", "", &mut tables);
    tables
}

fn walk(
    structs: &BTreeMap<String, Struct>,
    extra: &BTreeMap<String, Struct>,
    name: &str,
    path: &str,
    out: &mut Vec<Table>,
) {
    let s = &structs[name];
    let at = out.len();
    out.push(Table { path: path.to_string(), doc: s.doc.clone(), keys: Vec::new() });
    for f in &s.fields {
        let inner = base_name(strip_option(&f.ty));
        let sub = if path.is_empty() { f.name.clone() } else { format!("{path}.{}", f.name) };
        if structs.contains_key(inner) {
            walk(structs, extra, inner, &sub, out);
        } else if let Some(value) = f.ty.strip_prefix("BTreeMap<String, ").and_then(|t| t.strip_suffix('>')) {
            let value = &extra[base_name(value)];
            out.push(Table { path: format!("{sub}.\"MODEL\""), doc: f.doc.clone(), keys: value.fields.clone() });
        } else {
            out[at].keys.push(f.clone());
        }
    }
}

/// The rule file's front matter and its `[when]` table.
fn rule_tables() -> Vec<Table> {
    let rules = parse_structs(&review_source("rules.rs"));
    let when = parse_structs(&review_source("rules/when.rs"));
    let front = &rules["FrontMatter"];
    let keys = front.fields.iter().filter(|f| f.name != "when").cloned().collect();
    vec![
        Table { path: String::new(), doc: "The keys between the `+++` lines.".into(), keys },
        Table {
            path: "when".into(),
            doc: "Optional, after the other keys: what in a change makes the reviewer run, besides a changed \
                  file matching `applies_to`."
                .into(),
            keys: when["WhenFront"].fields.clone(),
        },
    ]
}

/// How a Rust field type is written in TOML.
fn toml_type(ty: &str) -> Option<&'static str> {
    Some(match strip_option(ty) {
        "u8" | "u32" | "u64" | "usize" => "integer",
        "f64" => "number",
        "bool" => "boolean",
        "String" => "string",
        "std::path::PathBuf" | "PathBuf" => "string (a path)",
        "Tier" => "string",
        "Vec<String>" | "Vec<ContextKind>" => "array of strings",
        _ => return None,
    })
}

/// A key's doc split into what it means and its default, or what is missing.
fn meaning_and_default(table: &str, f: &Field) -> Result<(String, String), String> {
    let Some((meaning, default)) = f.doc.rsplit_once("Default: ") else {
        return Err(format!("{table} {}: its doc comment must end with `Default: ...`", f.name));
    };
    if toml_type(&f.ty).is_none() {
        return Err(format!("{table} {}: type `{}` has no TOML name in settings::reference::toml_type", f.name, f.ty));
    }
    let meaning = meaning.trim();
    if meaning.is_empty() {
        return Err(format!("{table} {}: its doc comment says nothing before `Default:`", f.name));
    }
    Ok((meaning.to_string(), default.trim().trim_end_matches('.').to_string()))
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render_tables(out: &mut String, tables: &[Table], heading: &str, problems: &mut Vec<String>) {
    for t in tables {
        if t.keys.is_empty() {
            continue;
        }
        let name = if t.path.is_empty() { "Front matter".to_string() } else { format!("`[{}]`", t.path) };
        out.push_str(&format!("{heading} {name}\n\n"));
        // The struct's doc names its table first (`[review]`: ...); the heading does that here.
        let doc = t.doc.trim();
        let doc = doc.strip_prefix(&format!("{name}: ")).unwrap_or(doc);
        let mut chars = doc.chars();
        if let Some(first) = chars.next() {
            out.push_str(&format!("{}{}\n\n", first.to_uppercase(), chars.as_str()));
        }
        out.push_str("| key | type | default | meaning |\n| --- | --- | --- | --- |\n");
        for f in &t.keys {
            match meaning_and_default(&name, f) {
                Ok((meaning, default)) => out.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    f.name,
                    toml_type(&f.ty).unwrap_or_default(),
                    cell(&default),
                    cell(&meaning)
                )),
                Err(p) => problems.push(p),
            }
        }
        out.push('\n');
    }
}

/// The page, or every key whose documentation is missing.
fn render() -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let mut out = String::from(
        "# Configuration reference\n\n\
         <!-- Generated from crates/cli/src/settings/file.rs, crates/review/src/cost.rs and \
         crates/review/src/rules.rs; do not edit by hand. Regenerate with \
         GAUNTLET_BLESS_DOCS=1 cargo test -p gauntlet --bin gauntlet settings::reference -->\n\n\
         Every key gauntlet reads, generated from the types it reads them into, so this page \
         lists exactly the keys there are. Unknown keys are an error naming the key and the file. \
         Flags win over the environment, which wins over `gauntlet.toml`; `gauntlet init` writes \
         a commented starter file. The [configuration](../configuration.md) chapter explains how \
         the settings fit together.\n\n\
         ## `gauntlet.toml`\n\n",
    );
    render_tables(&mut out, &config_tables(), "###", &mut problems);
    out.push_str(
        "## Rule files\n\n\
         A reviewer is a Markdown file whose TOML front matter sits between `+++` lines (see \
         [reviewers](../rules/reviewers.md)).\n\n",
    );
    render_tables(&mut out, &rule_tables(), "###", &mut problems);
    while out.ends_with("\n\n") {
        out.pop();
    }
    if problems.is_empty() { Ok(out) } else { Err(problems) }
}

/// The names serde lists as expected after an unknown key in `text`'s error.
fn expected_keys(error: &str) -> Vec<String> {
    let after = error.split_once("expected").map_or("", |(_, a)| a);
    // parse_file adds where to look after serde's message.
    let after = after.split_once("; see").map_or(after, |(list, _)| list);
    let mut keys: Vec<String> = after.split('`').skip(1).step_by(2).map(str::to_string).collect();
    keys.sort();
    keys
}

fn listed_keys(t: &Table, nested: &[&Table]) -> Vec<String> {
    let mut keys: Vec<String> = t.keys.iter().map(|f| f.name.clone()).collect();
    // Sub-tables are keys of their parent too.
    for n in nested {
        let rest = if t.path.is_empty() {
            n.path.as_str()
        } else {
            n.path.strip_prefix(&format!("{}.", t.path)).unwrap_or("")
        };
        let first = rest.split('.').next().unwrap_or("");
        if !first.is_empty() && !keys.iter().any(|k| k == first) {
            keys.push(first.to_string());
        }
    }
    keys.sort();
    keys
}

#[test]
fn every_key_serde_accepts_is_in_the_reference_and_no_other() {
    let tables = config_tables();
    for t in &tables {
        let header =
            if t.path.is_empty() { String::new() } else { format!("[{}]\n", t.path.replace("\"MODEL\"", "\"m\"")) };
        let text = format!("{header}not_a_key_anywhere = 1\n");
        let err = super::parse_file(&text, "test").expect_err(&text).to_string();
        let nested: Vec<&Table> = tables.iter().filter(|n| n.path != t.path && !n.path.contains('"')).collect();
        let mut listed = listed_keys(t, &nested);
        if t.path.is_empty() {
            listed.push("prices".into());
            listed.sort();
        }
        assert_eq!(expected_keys(&err), listed, "table [{}]: serde's keys (left) differ from the reference's", t.path);
    }
    let rules = rule_tables();
    let front = "name = \"n\"\ndescription = \"d\"\n";
    for (extra, t) in
        [("not_a_key_anywhere = 1\n", &rules[0]), ("[when]\nabout = \"a\"\nnot_a_key_anywhere = 1\n", &rules[1])]
    {
        let text = format!("+++\n{front}{extra}+++\nbody\n");
        let err = gauntlet_review::rules::Reviewer::parse("x.md", &text, gauntlet_review::rules::Origin::Builtin)
            .expect_err(&text)
            .to_string();
        let mut listed: Vec<String> = t.keys.iter().map(|f| f.name.clone()).collect();
        if t.path.is_empty() {
            listed.push("when".into());
        }
        listed.sort();
        assert_eq!(
            expected_keys(&err),
            listed,
            "rule file {}: serde's keys (left) differ from the reference's",
            t.path
        );
    }
}

#[test]
fn every_key_has_a_meaning_and_a_default() {
    if let Err(problems) = render() {
        panic!("undocumented configuration keys:\n{}", problems.join("\n"));
    }
}

#[test]
fn a_key_without_a_default_is_named() {
    let source = "/// `[x]`: a table.\npub struct X {\n    /// Says what it does.\n    pub key: Option<u32>,\n}\n";
    let s = &parse_structs(source)["X"];
    let err = meaning_and_default("`[x]`", &s.fields[0]).unwrap_err();
    assert!(err.contains("`[x]` key") && err.contains("Default: ..."), "{err}");
}

#[test]
fn the_committed_reference_is_the_generated_one() {
    let page = render().unwrap_or_else(|p| panic!("undocumented configuration keys:\n{}", p.join("\n")));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(PAGE);
    if std::env::var(BLESS).is_ok_and(|v| v == "1") {
        let tmp = path.with_extension("md.tmp");
        std::fs::write(&tmp, &page).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == page,
        "{PAGE} is not what the settings types generate; run `{BLESS}=1 cargo test -p gauntlet --bin gauntlet \
         settings::reference` and commit the file"
    );
}
