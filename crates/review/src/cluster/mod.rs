//! Clustering: the candidates of a change that describe one defect, grouped before
//! validation so each defect is validated once and published once.
//!
//! Several reviewers that find one bug word it differently and pick different
//! ranges, so neither identical wording nor identical lines can be the test. Two
//! grounded findings are **related** when:
//!
//! - *in one file*, their ranges overlap or lie in the same enclosing definition
//!   ([`Regions`]), **and** they name the same code ([`same_code`]): each names at
//!   least half ([`MIN_COVER`]) of what the other's claim names (its
//!   [`names::Named::subject`]) in its own claim or evidence, and one names more
//!   than half; or both quote the same evidence (whitespace-normalised) at
//!   overlapping ranges. When their ranges only share a definition, without
//!   overlapping, at least one claim must name code itself: two claims in plain
//!   words whose quotes share a variable are usually two defects in one function;
//! - *across files*, one's claim or evidence cites the other's location as
//!   `path:LINE` (within [`CITE_SLACK`] lines), or one sits in or on the definition
//!   of a symbol the change alters ([`Regions::changed_symbols`]: a changed
//!   function, or a renamed field on the finding's own line) and the other's claim
//!   names that symbol: the defect where it was made and where it is felt.
//!
//! Why "same code" asks both ways: two defects in one function usually share the
//! variables they touch (a wrong bound and a missing lock over `c.items`), so a
//! claim naming the shared variable and one other name covers exactly half of the
//! other claim. Asking only one way leaves such a pair apart by the width of the
//! strict inequality: one claim that drops its second name merges them. Asking
//! both ways keeps them apart unless *both* claims shrink to the shared names,
//! while paraphrases, which name the same few things, still pass.
//!
//! Why the cross-file symbol rule asks for a location: two findings in two files
//! that merely call one changed function (both quote the call, or both mention it
//! on the way to their own point) are usually two defects, each about its own
//! code. Naming a changed symbol in both is therefore not enough; one of them must
//! be *in* that symbol. Its limit: a second defect inside the changed function
//! joins a caller's finding whose claim names the function.
//!
//! Clusters are the connected components of that relation, so the result does not
//! depend on the order findings arrive in. Within a cluster, members are ordered by
//! [`validation_order`]: highest severity, then narrowest range, then reviewer
//! name (then location and text, so the order is total). The first member is the
//! representative.
//!
//! Limits: a chain of related pairs joins findings that are not pairwise related
//! (that is what lets three paraphrases merge when only some pairs share a name,
//! and it can join two defects through a third finding that names both); two
//! defects on the same line that quote the same code merge.

pub mod names;
pub mod regions;

pub use regions::{IndentRegions, Region, Regions, SymbolRegions};

use crate::contract::{Location, Severity};
use crate::finding::Finding;
use names::{Named, cover, named, same_name};
use sha2::{Digest, Sha256};
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

/// Share of a claim's named code the other finding must name (strictly more than).
pub const MIN_COVER: f64 = 0.5;
/// Lines a cross-file citation may miss the cited finding's range by.
pub const CITE_SLACK: u32 = 3;
/// The reviewer whose findings in test files may fold into a published defect.
pub const TESTS_REVIEWER: &str = "tests";

/// Findings that describe one defect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// The cluster's fingerprint (see [`fingerprint`]).
    pub id: String,
    /// The members in [`validation_order`]: the representative first.
    pub members: Vec<Finding>,
}

impl Cluster {
    /// Every reviewer that raised a member, sorted, each once.
    pub fn raised_by(&self) -> Vec<String> {
        let names: BTreeSet<&str> = self.members.iter().map(|m| m.reviewer.as_str()).collect();
        names.into_iter().map(str::to_string).collect()
    }

    /// The highest severity of any member.
    pub fn severity(&self) -> Severity {
        self.members.iter().map(|m| m.severity).max().unwrap_or(Severity::Low)
    }

    /// Members' locations in other files than `primary`'s: where a cross-file
    /// defect shows too. Sorted, each once.
    pub fn also_at(&self, primary: &Finding) -> Vec<Location> {
        let other: BTreeSet<&Location> =
            self.members.iter().map(|m| &m.location).filter(|l| l.path != primary.location.path).collect();
        other.into_iter().cloned().collect()
    }
}

/// Group `findings` into clusters, ordered by their representatives.
pub fn cluster(findings: &[Finding], regions: &dyn Regions) -> Vec<Cluster> {
    groups(findings, regions)
        .into_iter()
        .map(|g| {
            let members: Vec<Finding> = g.iter().map(|&i| findings[i].clone()).collect();
            Cluster { id: fingerprint(&members, regions), members }
        })
        .collect()
}

/// [`cluster`] as positions into `findings`: each group in validation order, the
/// groups ordered by their first member.
pub fn groups(findings: &[Finding], regions: &dyn Regions) -> Vec<Vec<usize>> {
    let named: Vec<Named> = findings.iter().map(|f| named(&f.claim, &f.evidence)).collect();
    let region: Vec<Option<Region>> =
        findings.iter().map(|f| regions.region(&f.location.path, f.location.start, f.location.end)).collect();
    let changed = regions.changed_symbols();
    // What each finding sits in or on: its region's symbol and what its own lines
    // define (a renamed field is the defect where it was made).
    let owned: Vec<BTreeSet<String>> = findings
        .iter()
        .zip(&region)
        .map(|(f, r)| {
            let mut names = regions.defined_on(&f.location.path, f.location.start, f.location.end);
            names.extend(r.as_ref().and_then(|r| r.symbol.clone()));
            names
        })
        .collect();
    let mut parent: Vec<usize> = (0..findings.len()).collect();
    for a in 0..findings.len() {
        for b in a + 1..findings.len() {
            let (fa, fb) = (&findings[a], &findings[b]);
            let near = |x: &Finding, y: &Finding| {
                x.location.overlaps(&y.location) || (region[a].is_some() && region[a] == region[b])
            };
            let related = if fa.location.path == fb.location.path {
                let close = if fa.location.overlaps(&fb.location) {
                    true
                } else {
                    // Apart in one definition, quoting code that shares a variable
                    // is what two defects there commonly do: at least one claim must
                    // itself name the code.
                    near(fa, fb) && (named[a].claim_names_code || named[b].claim_names_code)
                };
                (close && same_code(&named[a], &named[b])) || (near(fa, fb) && same_quote(fa, fb))
            } else {
                cites(fa, fb)
                    || cites(fb, fa)
                    || in_changed_symbol_named_by(&owned[a], &named[b], changed)
                    || in_changed_symbol_named_by(&owned[b], &named[a], changed)
            };
            if related {
                union(&mut parent, a, b);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for i in 0..findings.len() {
        let root = find(&mut parent, i);
        match roots.iter().position(|r| *r == root) {
            Some(at) => out[at].push(i),
            None => {
                roots.push(root);
                out.push(vec![i]);
            }
        }
    }
    for g in &mut out {
        g.sort_by(|&x, &y| validation_order(&findings[x], &findings[y]));
    }
    out.sort_by(|x, y| validation_order(&findings[x[0]], &findings[y[0]]));
    out
}

fn find(parent: &mut [usize], i: usize) -> usize {
    let mut r = i;
    while parent[r] != r {
        r = parent[r];
    }
    parent[i] = r;
    r
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    parent[ra.max(rb)] = ra.min(rb);
}

/// Two findings name the same code: each names at least [`MIN_COVER`] of what the
/// other's claim names, and one names more than that. See the module docs for why
/// both ways.
pub fn same_code(a: &Named, b: &Named) -> bool {
    let (x, y) = (cover(&a.subject, &b.all), cover(&b.subject, &a.all));
    x.max(y) > MIN_COVER && x.min(y) >= MIN_COVER
}

/// The same evidence at overlapping ranges: the code itself is the name.
fn same_quote(a: &Finding, b: &Finding) -> bool {
    a.location.overlaps(&b.location)
        && crate::shown::normalize(&a.evidence) == crate::shown::normalize(&b.evidence)
        && !a.evidence.trim().is_empty()
}

/// `a`'s claim or evidence names `b`'s location as `path:LINE`.
fn cites(a: &Finding, b: &Finding) -> bool {
    let text = format!("{} {}", a.claim, a.evidence);
    text.split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ',').any(|token| {
        let token = token.trim_end_matches([',', ';', '.', ')', ':']);
        Location::parse(token).is_some_and(|at| {
            at.path == b.location.path
                && at.start <= b.location.end.saturating_add(CITE_SLACK)
                && b.location.start <= at.end.saturating_add(CITE_SLACK)
        })
    })
}

/// A finding sits in or on the definition of a symbol the change alters (`owned`:
/// its region's symbol and what its own lines define), and the other finding's
/// claim (`other`'s subject) names that symbol.
/// Only the claim counts: evidence quoting a call to the symbol on the way to its
/// own point is no claim about it.
fn in_changed_symbol_named_by(owned: &BTreeSet<String>, other: &Named, changed: &BTreeSet<String>) -> bool {
    other.claim_names_code
        && owned
            .iter()
            .filter(|s| changed.contains(*s))
            .any(|symbol| other.subject.iter().any(|n| same_name(n, symbol)))
}

/// The total order members are validated in: highest severity, narrowest range,
/// reviewer name; then path, lines, lens, claim, evidence and id.
pub fn validation_order(a: &Finding, b: &Finding) -> Ordering {
    let width = |f: &Finding| f.location.end - f.location.start;
    (Reverse(a.severity), width(a), &a.reviewer)
        .cmp(&(Reverse(b.severity), width(b), &b.reviewer))
        .then_with(|| a.location.cmp(&b.location))
        .then_with(|| (a.lens, &a.claim, &a.evidence, &a.id).cmp(&(b.lens, &b.claim, &b.evidence, &b.id)))
        .then_with(|| a.inline.cmp(&b.inline))
}

/// A cluster's identity across runs, from where it is and not from who found it:
///
/// - each file it is located in, with the identity of the region around each
///   member there ([`Region::identity`]: the definition's kind and qualified name
///   from the index, or its header line where indentation found it; nothing for
///   code outside any region), so lines added above it do not move it;
/// - its **anchor**: the one name that says which defect in that region it is
///   ([`anchor`]); where no name qualifies, the code its members quote.
///
/// Not the reviewers, the wording, the severity, the quotes or line numbers, so a
/// re-run that finds the same defect through other reviewers or other quotes keeps
/// the same comment, and a dismissal sticks. Limits: a re-run whose members sit
/// in another region or file (a member left out that was the only one in its
/// file) gets another fingerprint; two clusters in one region with the same
/// anchor (or none) share one, and [`crate::pipeline`] then adds their quotes.
pub fn fingerprint(members: &[Finding], regions: &dyn Regions) -> String {
    let mut places: BTreeSet<(&str, String)> = BTreeSet::new();
    let mut scopes: BTreeMap<(&str, u32, u32), Vec<&str>> = BTreeMap::new();
    let mut own: BTreeSet<String> = BTreeSet::new();
    for m in members {
        let path = m.location.path.as_str();
        let region = regions.region(path, m.location.start, m.location.end);
        let lines: Vec<&str> = regions.text(path).map(|t| t.lines().collect()).unwrap_or_default();
        let (from, to) = region.as_ref().map_or((1, lines.len() as u32), |r| (r.start, r.end));
        scopes.entry((path, from, to)).or_insert_with(|| {
            lines
                .iter()
                .skip(from.saturating_sub(1) as usize)
                .take((to + 1).saturating_sub(from) as usize)
                .copied()
                .collect()
        });
        if let Some(symbol) = region.as_ref().and_then(|r| r.symbol.as_ref()) {
            own.insert(last_segment(symbol).to_string());
        }
        places.insert((path, region.map(|r| r.identity).unwrap_or_default()));
    }
    let scope: Vec<&str> = scopes.into_values().flatten().collect();
    let subjects: BTreeSet<String> = members.iter().flat_map(|m| named(&m.claim, &m.evidence).subject).collect();
    // Without an anchor, the code the members quote says which defect it is; so a
    // cluster's id never depends on which other clusters share its region.
    let anchor = anchor(&subjects, &scope, &own).unwrap_or_else(|| {
        let quotes: BTreeSet<String> = members.iter().map(|m| crate::shown::normalize(&m.evidence)).collect();
        format!("quotes\0{}", quotes.into_iter().collect::<Vec<_>>().join("\0"))
    });
    let mut h = Sha256::new();
    h.update(b"cluster/2\0");
    for (path, identity) in &places {
        for part in [path, identity.as_str()] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
    }
    h.update([0u8]);
    h.update(anchor.as_bytes());
    hex::encode(&h.finalize()[..8])
}

/// The name a cluster is about, chosen from what its members' claims name
/// (`subjects`) by a ranking over the region's code (`scope`) alone, so whichever
/// members a run has, the same name wins as long as one of them names it:
///
/// 1. only names that occur in the region's code count (prose words, removed code
///    and the region's own name, already in the fingerprint, do not), each by its
///    last segment (`c.items` → `items`), as members qualify names differently;
/// 2. a name the region assigns or declares (`results := ...`, `let total`,
///    `query = ...`) first: the variable a defect is about is usually one the
///    function owns, where a paraphrase may name a call or a parameter on the way;
/// 3. then the name on the fewest lines of the region: the most specific one, so
///    two defects over one shared variable are told apart by what else they name;
/// 4. then alphabetically.
///
/// `None` when no name qualifies.
pub fn anchor(subjects: &BTreeSet<String>, scope: &[&str], own: &BTreeSet<String>) -> Option<String> {
    let keys: BTreeSet<&str> = subjects
        .iter()
        .map(|n| last_segment(n))
        .filter(|k| k.chars().count() > 1 && !names::is_stop(k) && !own.contains(*k))
        .collect();
    let segments = |code: &str| -> BTreeSet<String> {
        names::in_code(code).iter().flat_map(|n| n.split('.').map(str::to_string).collect::<Vec<_>>()).collect()
    };
    let lines: Vec<BTreeSet<String>> = scope.iter().map(|l| segments(l)).collect();
    let defined: BTreeSet<String> =
        scope.iter().filter_map(|l| assigned().captures(l)).flat_map(|c| segments(&c[1])).collect();
    keys.into_iter()
        .map(|k| (k, lines.iter().filter(|l| l.contains(k)).count()))
        .filter(|(_, n)| *n > 0)
        .min_by_key(|&(k, n)| (!defined.contains(k), n, k))
        .map(|(k, _)| k.to_string())
}

fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// A line that assigns or declares plain names: `x = `, `x, y := `, `let mut x`,
/// `var x`, `const x: T =`.
fn assigned() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"^\s*(?:(?:let|var|const|val|auto|final)\s+(?:mut\s+)?)?([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::\s*[^=]+)?(?::=|=(?:[^=]|$))",
        )
        .expect("the assignment pattern compiles")
    })
}

/// Whether `f` is a test gap: the tests reviewer's finding located in a test file.
pub fn is_test_gap(f: &Finding) -> bool {
    f.reviewer == TESTS_REVIEWER && is_test_path(&f.location.path)
}

/// Paths that hold tests by the common conventions of the major languages.
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let in_test_dir =
        lower.split('/').rev().skip(1).any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec" | "specs"));
    let stem = name.split('.').next().unwrap_or(name);
    in_test_dir
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with("test") && name.ends_with(".java")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The first of `clusters` a test gap is about: more than half of the code its
/// claim names is named by a member.
pub fn fold_target(gap: &Finding, clusters: &[Cluster]) -> Option<usize> {
    let subject = named(&gap.claim, &gap.evidence).subject;
    clusters.iter().position(|c| {
        let names: BTreeSet<String> = c.members.iter().flat_map(|m| named(&m.claim, &m.evidence).all).collect();
        cover(&subject, &names) > MIN_COVER
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Lens;

    fn f(reviewer: &str, at: &str, claim: &str, evidence: &str) -> Finding {
        let location = Location::parse(at).unwrap();
        Finding {
            id: Finding::fingerprint(reviewer, &location.path, Lens::FailureScenario, evidence),
            reviewer: reviewer.into(),
            lens: Lens::FailureScenario,
            location,
            inline: true,
            claim: claim.into(),
            evidence: evidence.into(),
            severity: Severity::Medium,
        }
    }

    #[test]
    fn test_files_are_recognised_by_name_and_folder() {
        for p in ["tests/test_cache.py", "pkg/cache_test.go", "web/a.test.ts", "spec/user_spec.rb", "src/FooTest.java"]
        {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/cache.py", "src/testing_utils.rs", "contest/main.go", "src/attest.py"] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn a_test_gap_folds_into_the_defect_whose_code_it_names() {
        let defect = f("error-handling", "src/store.py:8", "`load` swallows what `db.get` raises.", "db.get(key)");
        let other = f("correctness", "src/other.py:3", "`parse` drops the sign.", "int(text)");
        let clusters = cluster(&[defect, other], &IndentRegions::default());
        let gap = f("tests", "tests/test_store.py:20", "No test makes `db.get` raise inside `load`.", "def test_load");
        assert!(is_test_gap(&gap));
        let at = fold_target(&gap, &clusters).unwrap();
        assert_eq!(clusters[at].members[0].location.path, "src/store.py");
        let unrelated = f("tests", "tests/test_x.py:2", "Nothing tests `render`.", "def test_x");
        assert_eq!(fold_target(&unrelated, &clusters), None);
    }

    #[test]
    fn a_citation_must_land_near_the_other_finding() {
        let a = f("r", "api.py:10", "`total` changed type.", "total = str(n)");
        let near = f("s", "web.ts:4", "reads what api.py:12 now returns as text", "x + total");
        let far = f("s", "web.ts:4", "reads what api.py:40 now returns as text", "x + total");
        assert!(cites(&near, &a));
        assert!(!cites(&far, &a));
    }
}
