//! Where a line sits in its file: the definition around it, as clustering needs it.
//!
//! [`Regions`] is the seam a symbol index plugs into. Until one does, the
//! [`IndentRegions`] heuristic of [`crate::enclosing`] answers: it walks
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

/// The structure of the head that clustering consults.
pub trait Regions {
    /// The 1-based, inclusive line range of the function, method or block that
    /// encloses `start..=end` of `path`; `None` when none is known.
    fn enclosing(&self, path: &str, start: u32, end: u32) -> Option<(u32, u32)>;

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
    fn enclosing(&self, path: &str, start: u32, end: u32) -> Option<(u32, u32)> {
        let text = self.texts.get(path)?;
        let lines: Vec<&str> = text.lines().collect();
        crate::enclosing::enclosing(&lines, start, end, MAX_REGION_LINES)
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
}
