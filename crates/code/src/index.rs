//! The symbols of the files a review needs, and look-ups by name over them.

use crate::{Definition, FileSymbols, Lang, Shared, Use, symbols};
use sha1::{Digest, Sha1};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The git blob id of `text` (what `git hash-object` prints): the cache key of a
/// parse, so equal content is parsed once whatever its path or commit.
pub fn blob_id(text: &str) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", text.len()).as_bytes());
    h.update(text.as_bytes());
    h.finalize().into()
}

/// Parses kept per process at most; past this the cache starts over (a backtest of
/// many large repositories would otherwise grow without bound).
const CACHE_ENTRIES: usize = 50_000;

type CacheKey = ([u8; 20], Option<Lang>);

fn cache() -> &'static Mutex<HashMap<CacheKey, Shared>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Shared>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Forget every cached parse, so the next index parses as a fresh process does
/// (benchmarks measure a first review this way).
pub fn forget_parses() {
    cache().lock().expect("symbol cache lock").clear();
}

/// The symbols of `text` at `path`, parsed once per content and language in this
/// process (the cache the index and clustering share).
pub fn parsed(path: &str, text: &str) -> Shared {
    cached(path, text)
}

/// [`symbols`] through the per-blob cache.
fn cached(path: &str, text: &str) -> Shared {
    let key = (blob_id(text), Lang::of(path));
    if let Some(hit) = cache().lock().expect("symbol cache lock").get(&key) {
        return hit.clone();
    }
    let parsed: Shared = Arc::new(symbols(path, text));
    let mut map = cache().lock().expect("symbol cache lock");
    if map.len() >= CACHE_ENTRIES {
        map.clear();
    }
    map.insert(key, parsed.clone());
    parsed
}

/// The innermost function, method or type around `line` of the file `path` with
/// content `text`: the region a finding there sits in. Parsed through the same
/// per-blob cache as the index, so asking for many lines of one file parses it once.
pub fn enclosing(path: &str, text: &str, line: u32) -> Option<Definition> {
    cached(path, text).enclosing(line).cloned()
}

/// A definition found by name, with the file it is in.
#[derive(Clone, Copy, Debug)]
pub struct Found<'a> {
    pub path: &'a str,
    pub definition: &'a Definition,
}

/// A use found by name, with the file it is in.
#[derive(Clone, Copy, Debug)]
pub struct FoundUse<'a> {
    pub path: &'a str,
    pub line: u32,
    pub role: crate::Role,
}

/// The symbols of a set of files, looked up by name.
#[derive(Default)]
pub struct Index {
    files: BTreeMap<String, Shared>,
    /// name → (path, index into that file's definitions); built on first look-up.
    by_name: OnceLock<Names>,
}

#[derive(Default)]
struct Names {
    definitions: HashMap<String, Vec<(String, usize)>>,
    uses: HashMap<String, Vec<(String, usize)>>,
}

impl Index {
    /// Add (or replace) a file. Parsing happens here, through the cache.
    pub fn add(&mut self, path: &str, text: &str) {
        self.files.insert(path.to_string(), cached(path, text));
        self.by_name = OnceLock::new();
    }

    /// Add many files, parsing on all cores (each file is independent).
    pub fn add_all(&mut self, files: &[(&str, &str)]) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        let chunk = files.len().div_ceil(threads).max(1);
        let parsed: Vec<Vec<(String, Shared)>> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|part| s.spawn(move || part.iter().map(|(p, t)| (p.to_string(), cached(p, t))).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().expect("a parse thread never panics")).collect()
        });
        self.files.extend(parsed.into_iter().flatten());
        self.by_name = OnceLock::new();
    }

    pub fn file(&self, path: &str) -> Option<&FileSymbols> {
        self.files.get(path).map(|f| f.as_ref())
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn names(&self) -> &Names {
        self.by_name.get_or_init(|| {
            let mut names = Names::default();
            for (path, f) in &self.files {
                for (i, d) in f.definitions.iter().enumerate() {
                    names.definitions.entry(d.name.clone()).or_default().push((path.clone(), i));
                }
                for (i, u) in f.uses.iter().enumerate() {
                    names.uses.entry(u.name.clone()).or_default().push((path.clone(), i));
                }
            }
            names
        })
    }

    /// Every definition of exactly `name`, in path order.
    pub fn definitions<'a>(&'a self, name: &str) -> impl Iterator<Item = Found<'a>> + 'a {
        let hits = self.names().definitions.get(name).map(Vec::as_slice).unwrap_or(&[]);
        hits.iter().map(move |(path, i)| Found { path, definition: &self.files[path].definitions[*i] })
    }

    /// Every use of exactly `name`, in path and line order.
    pub fn uses<'a>(&'a self, name: &str) -> impl Iterator<Item = FoundUse<'a>> + 'a {
        let hits = self.names().uses.get(name).map(Vec::as_slice).unwrap_or(&[]);
        hits.iter().map(move |(path, i)| {
            let u: &Use = &self.files[path].uses[*i];
            FoundUse { path, line: u.line, role: u.role }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        let id: String = blob_id("hello\n").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(id, "ce013625030ba8dba906f756967f9e9ca394464a");
    }

    #[test]
    fn equal_content_is_parsed_once() {
        let text = "def unique_function_for_the_cache_test():\n    return 1\n";
        let (a, b) = (cached("a.py", text), cached("b/c.py", text));
        assert!(Arc::ptr_eq(&a, &b));
    }
}
