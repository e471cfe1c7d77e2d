//! Where a line sits in its file: the definition around it, as clustering needs it.
//!
//! [`Regions`] is the seam the symbol index plugs into. [`SymbolRegions`] answers
//! from `gauntlet-code`: the innermost function, method or type around the lines as
//! the file's grammar parses it, and the symbols the change defines or alters. A
//! file with no grammar (or a build without the `grammars` feature) falls back to
//! the [`IndentRegions`] heuristic of [`crate::enclosing`], which walks
//! indentation to the nearest line that starts a definition. Its limits, stated so
//! nobody leans on it harder than it holds: top-level code (scripts, module-level
//! statements) has no region, so findings there merge only when their ranges
//! overlap; a signature the definition pattern does not know (some Java and C#
//! methods that start with a bare return type, C functions) is skipped over, so
//! the region found may be the enclosing class rather than the method, which is
//! wider than the truth; and code whose indentation lies (one-line bodies, macros)
//! gets whatever indentation says.

use std::collections::{BTreeMap, BTreeSet};

/// Definitions longer than this are not regions for clustering: two findings in a
/// 1000-line class are not about one thing just because they share it.
pub const MAX_REGION_LINES: u32 = 200;

/// The definition around some lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// 1-based, inclusive.
    pub start: u32,
    pub end: u32,
    /// What names the region independently of where it sits in the file, so it
    /// survives lines added above it: the kind and name of the definition from the
    /// index, qualified by the types around it (`method Cache.put`), or, where
    /// indentation found it, the text of its header line, whitespace-normalised.
    pub identity: String,
    /// The definition's normalised name (see [`super::names`]) where one is known.
    pub symbol: Option<String>,
}

/// The structure of the head that clustering consults.
pub trait Regions {
    /// The innermost function, method or block that encloses `start..=end` of
    /// `path`; `None` when none is known.
    fn region(&self, path: &str, start: u32, end: u32) -> Option<Region>;

    /// The 1-based, inclusive line range of [`Regions::region`].
    fn enclosing(&self, path: &str, start: u32, end: u32) -> Option<(u32, u32)> {
        self.region(path, start, end).map(|r| (r.start, r.end))
    }

    /// The normalised names the lines `start..=end` of `path` define themselves (a
    /// field, an enum member, a constant declared there); empty where unknown.
    fn defined_on(&self, _path: &str, _start: u32, _end: u32) -> BTreeSet<String> {
        BTreeSet::new()
    }

    /// The head text of `path`, where it was given.
    fn text(&self, path: &str) -> Option<&str>;

    /// Normalised names (see [`super::names`]) of the symbols the change defines or
    /// alters. Two findings in different files that both name one of these are
    /// about the same change. Empty without a symbol index.
    fn changed_symbols(&self) -> &BTreeSet<String> {
        static NONE: BTreeSet<String> = BTreeSet::new();
        &NONE
    }
}

/// Regions found by indentation in the head texts of the files concerned.
#[derive(Clone, Debug, Default)]
pub struct IndentRegions {
    texts: BTreeMap<String, String>,
}

impl IndentRegions {
    /// From the head text of each file findings are located in.
    pub fn new(texts: BTreeMap<String, String>) -> IndentRegions {
        IndentRegions { texts }
    }
}

impl Regions for IndentRegions {
    fn region(&self, path: &str, start: u32, end: u32) -> Option<Region> {
        let text = self.texts.get(path)?;
        let lines: Vec<&str> = text.lines().collect();
        let (from, to) = crate::enclosing::enclosing(&lines, start, end, MAX_REGION_LINES)?;
        // Decorators and attributes above the header belong to the region, not to
        // its name.
        let header = lines
            .get((from - 1) as usize..to as usize)?
            .iter()
            .find(|l| crate::enclosing::starts_definition(l))
            .copied()
            .unwrap_or(lines[(from - 1) as usize]);
        let identity = crate::shown::normalize(header);
        Some(Region { start: from, end: to, symbol: header_name(header), identity })
    }

    fn text(&self, path: &str) -> Option<&str> {
        self.texts.get(path).map(String::as_str)
    }
}

/// The name a definition header declares: the word after `def`, `fn`, `class`,
/// `func` (past a Go receiver) and the like.
fn header_name(header: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"\b(?:def|class|fn|function|func|fun|struct|enum|trait|interface|module|object|record|sub|procedure|void)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)",
        )
        .expect("the header pattern compiles")
    });
    let name = re.captures(header)?.get(1)?.as_str();
    super::names::in_code(name).into_iter().next()
}

/// Regions from the symbol index of the head, with indentation where a file has no
/// grammar; the changed symbols are those the change's added lines define, and the
/// functions and methods whose bodies they touch.
#[derive(Clone, Debug, Default)]
pub struct SymbolRegions {
    symbols: BTreeMap<String, gauntlet_code::Shared>,
    indent: IndentRegions,
    changed: BTreeSet<String>,
}

impl SymbolRegions {
    /// From the head text of each file findings are located in, and the change.
    /// Parses go through the per-blob cache the symbol index fills, and only the
    /// files in `texts` are parsed: a finding can only sit in a changed symbol of its
    /// own file, so the changed symbols of other files are never asked for.
    pub fn new(texts: BTreeMap<String, String>, change: &gauntlet_change::Change) -> SymbolRegions {
        // Only files a grammar read: the index's line heuristics know no bodies, so
        // indentation answers better for the rest.
        let symbols = texts
            .iter()
            .map(|(path, text)| (path.clone(), gauntlet_code::parsed(path, text)))
            .filter(|(_, symbols)| symbols.lang.is_some())
            .collect();
        let changed = changed_symbols(change, &texts);
        SymbolRegions { symbols, indent: IndentRegions::new(texts), changed }
    }
}

/// What the change's added lines define or sit in, in the files of `texts`.
fn changed_symbols(change: &gauntlet_change::Change, texts: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in &change.files {
        let (path, Some(text)) = (file.diff.path(), file.head_text.as_deref()) else { continue };
        if !texts.contains_key(path) {
            continue;
        }
        let symbols = gauntlet_code::parsed(path, text);
        let added = file.diff.hunks.iter().flat_map(|h| &h.lines);
        for line in added.filter(|l| l.kind == gauntlet_change::LineKind::Added).filter_map(|l| l.new) {
            let defined = symbols.defined_in(line, line).map(|d| d.name.as_str());
            let around = symbols.enclosing(line).filter(|d| d.kind.is_callable()).map(|d| d.name.as_str());
            out.extend(defined.chain(around).flat_map(super::names::in_code));
        }
    }
    out
}

/// Definitions that can be regions: code runs in them, or they hold such code.
fn is_region_kind(kind: gauntlet_code::Kind) -> bool {
    kind.is_callable() || kind == gauntlet_code::Kind::Type
}

impl Regions for SymbolRegions {
    fn region(&self, path: &str, start: u32, end: u32) -> Option<Region> {
        let Some(symbols) = self.symbols.get(path) else { return self.indent.region(path, start, end) };
        let around = symbols.enclosing(start)?;
        // The innermost definition around `start` that also holds `end`.
        let mut best = Some(around).filter(|d| d.contains(end));
        if best.is_none() {
            best = symbols
                .definitions
                .iter()
                .filter(|d| is_region_kind(d.kind))
                .filter(|d| d.contains(start) && d.contains(end))
                .min_by_key(|d| d.lines());
        }
        let d = best.filter(|d| d.lines() <= MAX_REGION_LINES)?;
        // Qualified by the types and functions around it, outermost first.
        let mut outer: Vec<&gauntlet_code::Definition> = symbols
            .definitions
            .iter()
            .filter(|o| is_region_kind(o.kind) && o.start <= d.start && d.end <= o.end && o.lines() > d.lines())
            .collect();
        outer.sort_by_key(|o| std::cmp::Reverse(o.lines()));
        let chain: Vec<&str> = outer.iter().map(|o| o.name.as_str()).chain([d.name.as_str()]).collect();
        let identity = format!("{} {}", d.kind.as_str(), chain.join("."));
        let symbol = super::names::in_code(&d.name).into_iter().next();
        Some(Region { start: d.start, end: d.end, identity, symbol })
    }

    fn defined_on(&self, path: &str, start: u32, end: u32) -> BTreeSet<String> {
        let Some(symbols) = self.symbols.get(path) else { return BTreeSet::new() };
        symbols.defined_in(start, end).flat_map(|d| super::names::in_code(&d.name)).collect()
    }

    fn text(&self, path: &str) -> Option<&str> {
        self.indent.text(path)
    }

    fn changed_symbols(&self) -> &BTreeSet<String> {
        &self.changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_the_definition_around_the_lines() {
        let text = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    return 2\n";
        let r = IndentRegions::new(BTreeMap::from([("m.py".to_string(), text.to_string())]));
        assert_eq!(r.enclosing("m.py", 2, 3), Some((1, 3)));
        assert_eq!(r.enclosing("m.py", 7, 7), Some((6, 7)));
        assert_eq!(r.enclosing("other.py", 1, 1), None, "a file it was not given");
        assert!(r.changed_symbols().is_empty());
    }

    #[test]
    fn top_level_code_has_no_region() {
        let text = "import os\nx = os.environ['A']\ny = int(x)\n";
        let r = IndentRegions::new(BTreeMap::from([("s.py".to_string(), text.to_string())]));
        assert_eq!(r.enclosing("s.py", 2, 2), None);
    }

    fn change(files: Vec<gauntlet_change::ChangedFile>) -> gauntlet_change::Change {
        use gauntlet_change::{Change, Snapshot};
        Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files }
    }

    /// A one-file change from its base and head texts.
    fn change_of(path: &str, base: &str, head: &str) -> gauntlet_change::Change {
        let patch = diffy::create_patch(base, head).to_string();
        let hunks = patch.split_once("\n@@").map(|(_, rest)| format!("@@{rest}")).expect("the texts differ");
        let text = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{hunks}");
        let files = gauntlet_change::parse_patch(&text).expect("the test patch parses");
        let head = Some(head.to_string());
        change(
            files
                .into_iter()
                .map(|diff| gauntlet_change::ChangedFile { diff, head_text: head.clone(), unreadable: None })
                .collect(),
        )
    }

    #[test]
    fn the_index_gives_the_method_around_the_lines_where_indentation_cannot() {
        // A Java method whose signature starts with a bare return type: the
        // indentation heuristic skips it and answers with the whole class.
        let text = "class Cart {\n    int total;\n\n    int sum(int[] xs) {\n        int t = 0;\n        for (int x : xs) t += x;\n        return t;\n    }\n\n    void clear() {\n        total = 0;\n    }\n}\n";
        let texts = BTreeMap::from([("Cart.java".to_string(), text.to_string())]);
        let indent = IndentRegions::new(texts.clone());
        assert_ne!(indent.enclosing("Cart.java", 5, 6), Some((4, 8)), "indentation alone misses the method");
        let r = SymbolRegions::new(texts, &change(Vec::new()));
        assert_eq!(r.enclosing("Cart.java", 5, 6), Some((4, 8)), "the method, not the class");
        assert_eq!(r.enclosing("Cart.java", 11, 11), Some((10, 12)));
    }

    #[test]
    fn changed_symbols_are_what_the_added_lines_define_or_sit_in() {
        let base = "def load(path):\n    return open(path).read()\n\n\ndef save(path, data):\n    open(path, 'w').write(data)\n";
        let head = "def load(path):\n    with open(path) as f:\n        return f.read()\n\n\ndef save(path, data):\n    open(path, 'w').write(data)\n\n\ndef remove_cache(path):\n    pass\n";
        let change = change_of("io.py", base, head);
        let none = SymbolRegions::new(BTreeMap::new(), &change);
        assert!(none.changed_symbols().is_empty(), "no finding in io.py: nothing there is asked for or parsed");
        let r = SymbolRegions::new(BTreeMap::from([("io.py".to_string(), head.to_string())]), &change);
        let changed = r.changed_symbols();
        assert!(changed.contains("load"), "the function whose body changed: {changed:?}");
        assert!(changed.contains("remove_cache"), "the function the change adds: {changed:?}");
        assert!(!changed.contains("save"), "an untouched function is no changed symbol: {changed:?}");
    }

    #[test]
    fn a_file_without_a_grammar_falls_back_to_indentation() {
        let text = "def a():\n    x = 1\n    return x\n";
        let texts = BTreeMap::from([("tool.pyx".to_string(), text.to_string())]);
        let r = SymbolRegions::new(texts, &change(Vec::new()));
        assert_eq!(r.enclosing("tool.pyx", 2, 3), Some((1, 3)));
    }
}
