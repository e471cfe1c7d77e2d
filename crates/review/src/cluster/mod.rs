//! Clustering: the candidates of a change that describe one defect, grouped before
//! validation so each defect is validated once and published once.
//!
//! Several reviewers that find one bug word it differently and pick different
//! ranges, so neither identical wording nor identical lines can be the test. Two
//! grounded findings are **related** when:
//!
//! - *in one file*, their ranges overlap or lie in the same enclosing definition
//!   ([`Regions`]), **and** they name the same code: more than half
//!   ([`MIN_COVER`]) of what one's claim names (its [`names::Named::subject`]) is
//!   named by the other's claim or evidence, or both quote the same evidence
//!   (whitespace-normalised) at overlapping ranges;
//! - *across files*, one's claim or evidence cites the other's location as
//!   `path:LINE` (within [`CITE_SLACK`] lines), or both name a symbol the change
//!   alters ([`Regions::changed_symbols`]).
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

pub use regions::{IndentRegions, Regions, SymbolRegions};

use crate::contract::{Location, Severity};
use crate::finding::Finding;
use names::{Named, cover, named};
use sha2::{Digest, Sha256};
use std::cmp::{Ordering, Reverse};
use std::collections::BTreeSet;

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
            Cluster { id: fingerprint(&members), members }
        })
        .collect()
}

/// [`cluster`] as positions into `findings`: each group in validation order, the
/// groups ordered by their first member.
pub fn groups(findings: &[Finding], regions: &dyn Regions) -> Vec<Vec<usize>> {
    let named: Vec<Named> = findings.iter().map(|f| named(&f.claim, &f.evidence)).collect();
    let region: Vec<Option<(u32, u32)>> =
        findings.iter().map(|f| regions.enclosing(&f.location.path, f.location.start, f.location.end)).collect();
    let mut parent: Vec<usize> = (0..findings.len()).collect();
    for a in 0..findings.len() {
        for b in a + 1..findings.len() {
            let (fa, fb) = (&findings[a], &findings[b]);
            let near = |x: &Finding, y: &Finding| {
                x.location.overlaps(&y.location) || (region[a].is_some() && region[a] == region[b])
            };
            let related = if fa.location.path == fb.location.path {
                near(fa, fb) && (same_code(&named[a], &named[b]) || same_quote(fa, fb))
            } else {
                cites(fa, fb) || cites(fb, fa) || shared_symbol(&named[a], &named[b], regions.changed_symbols())
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

/// More than half of what one claim names is named by the other finding.
fn same_code(a: &Named, b: &Named) -> bool {
    cover(&a.subject, &b.all).max(cover(&b.subject, &a.all)) > MIN_COVER
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

fn shared_symbol(a: &Named, b: &Named, changed: &BTreeSet<String>) -> bool {
    !changed.is_empty() && a.all.iter().any(|n| changed.contains(n) && b.all.contains(n))
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

/// A cluster's identity across runs: the files it is located in and the names its
/// members' evidence quotes (the code itself, falling back to the normalised
/// quotes when they name nothing). Not the reviewers, the wording, the severity
/// or line numbers, so a re-run that finds the same defect keeps the same comment
/// whoever raised it, and a dismissal sticks.
pub fn fingerprint(members: &[Finding]) -> String {
    let paths: BTreeSet<&str> = members.iter().map(|m| m.location.path.as_str()).collect();
    let mut quoted: BTreeSet<String> = members.iter().flat_map(|m| names::in_code(&m.evidence)).collect();
    if quoted.is_empty() {
        quoted = members.iter().map(|m| crate::shown::normalize(&m.evidence)).collect();
    }
    let mut h = Sha256::new();
    h.update(b"cluster\0");
    for part in paths.iter().map(|p| p.to_string()).chain([String::new()]).chain(quoted) {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex::encode(&h.finalize()[..8])
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
