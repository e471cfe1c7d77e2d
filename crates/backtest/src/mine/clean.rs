//! Clean cases: old commits of the same eras and sizes as the escapes, written by
//! people, that change code in a language the escapes use and none of whose lines a
//! later fix touched, sampled with a seed so a second run picks the same ones.

use super::history::Commit;
use super::{Bucket, Clean, Escape, MineError, Miner, Summary, hunks, prose, skip};
use gauntlet_change::Snapshot;
use std::collections::{BTreeMap, BTreeSet};

const DAY: i64 = 24 * 3600;
const YEAR: i64 = 365 * DAY;

/// Whether an author is a bot (`dependabot[bot]`, Renovate, pre-commit.ci, ...).
pub fn is_bot(author: &str) -> bool {
    let a = author.to_ascii_lowercase();
    a.contains("[bot]")
        || ["dependabot", "renovate", "pre-commit-ci", "github-actions", "greenkeeper", "pyup-bot", "snyk-bot"]
            .iter()
            .any(|b| a.contains(b))
}

/// The language of a path: its grammar's name where the index has one, else its
/// extension (`None` for a file without one).
pub fn language(path: &str) -> Option<String> {
    if let Some(lang) = gauntlet_code::Lang::of(path) {
        return Some(lang.as_str().to_string());
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase())
}

/// The year of a commit time (UTC, proleptic Gregorian).
pub fn year(time: i64) -> i64 {
    // Days since 1970-01-01 to a civil year (Howard Hinnant's algorithm).
    let z = time.div_euclid(DAY) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

/// Where clean cases are drawn from.
pub(crate) struct Pool<'a, 'm> {
    pub miner: &'a Miner<'m>,
    pub commits: &'a [Commit],
    /// Every commit detected as a fix.
    pub fixes: &'a BTreeSet<String>,
    /// Every commit a fix's blame landed on, a fix named, a revert took back or a
    /// fix restored deleted lines of.
    pub blamed: &'a BTreeSet<String>,
    /// The newest commit time of the window: ages are measured from it, not from
    /// the clock, so mining the same HEAD twice gives the same corpus.
    pub newest: i64,
}

/// A stable 64-bit hash of a commit id under a seed (FNV-1a, then a splitmix
/// finaliser): the sampling order, the same on every machine and release.
pub fn rank(seed: u64, id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Size class: changed lines by powers of two (1, 2-3, 4-7, ...).
fn class(lines: usize) -> i64 {
    i64::from(usize::BITS - lines.leading_zeros())
}

/// How many clean cases escape `i` (0-based) asks for at `ratio`, so that the
/// first `n` escapes ask for `floor(n * ratio)` in all.
pub fn wanted(i: usize, ratio: f64) -> usize {
    let upto = |n: usize| (n as f64 * ratio + 1e-9).floor() as usize;
    upto(i + 1) - upto(i)
}

pub(crate) fn sample(pool: &Pool<'_, '_>, escapes: &[Escape], summary: &mut Summary) -> Result<Vec<Clean>, MineError> {
    let options = pool.miner.options;
    let window = i64::from(options.clean_window_days) * DAY;
    let heads: BTreeSet<&str> = escapes.iter().map(|e| e.head.as_str()).collect();
    let languages: BTreeSet<String> =
        escapes.iter().flat_map(|e| e.defects.iter().filter_map(|(p, ..)| language(p))).collect();
    let automated = regex::RegexSet::new(&options.gate.automated_subjects)
        .map_err(|e| MineError::Gate(format!("automated_subjects: {e}")))?;
    let miner = pool.miner;
    // A clean case must give a reviewer the kind of code the escapes do.
    let speaks = |c: &Commit| {
        c.files.iter().any(|(p, a, r)| {
            a + r > 0
                && hunks::not_code(p).is_none()
                && miner.rules.reason(p, None).is_none()
                && language(p).is_some_and(|l| languages.contains(&l))
        })
    };
    let mut candidates: Vec<(&Commit, usize)> = pool
        .commits
        .iter()
        .filter(|c| !c.is_merge() && !c.parents.is_empty())
        .filter(|c| !is_bot(&c.author) && !automated.is_match(c.subject()))
        // A commit about words or style (typo, docs, a linter or formatter run) gives
        // a reviewer nothing to weigh.
        .filter(|c| !options.patterns.excluded(c.subject()))
        .filter(|c| speaks(c))
        .filter(|c| !pool.fixes.contains(&c.id) && !heads.contains(c.id.as_str()))
        .filter(|c| pool.newest - c.time >= window)
        // Stricter than "within the window": a commit any mined fix blamed, named or
        // reverted is never clean, however long the fix took to come.
        .filter(|c| !pool.blamed.contains(&c.id))
        .map(|c| (c, pool.miner.size(c)))
        .filter(|(_, size)| *size > 0 && *size <= options.max_changed_lines)
        .collect();
    let mut out = Vec::new();
    let mut asked = 0;
    for (i, escape) in escapes.iter().enumerate() {
        let want = wanted(i, options.clean_ratio);
        // Counted whole, so a pool that runs dry shows as clean cases wanted, not found.
        asked += want;
        for _ in 0..want {
            let target = class(escape.size.max(1));
            // Years apart and size classes apart weigh the same; among equals the
            // nearer era, then the seeded rank.
            let gap = |c: &Commit, size: usize| {
                let era = (c.time - escape.time).abs() / YEAR;
                (era + (class(size) - target).abs(), era)
            };
            // The nearest candidate that changes code, not only its comments or layout.
            let picked = loop {
                let best = candidates
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, (c, size))| (gap(c, *size), rank(options.seed, &c.id)))
                    .map(|(at, _)| at);
                let Some(at) = best else { break None };
                let (commit, size) = candidates.swap_remove(at);
                if changes_code(miner, commit, &languages)? {
                    break Some((commit, size));
                }
            };
            let Some((commit, size)) = picked else { break };
            out.push(Clean {
                head: commit.id.clone(),
                base: commit.parents[0].clone(),
                subject: commit.subject().to_string(),
                size,
                time: commit.time,
            });
        }
    }
    summary.clean_wanted = asked;
    summary.clean = out.len();
    for _ in out.len()..asked {
        skip(summary, format!("clean case wanted, but no commit {} days old is left", options.clean_window_days));
    }
    out.sort_by(|a, b| a.head.cmp(&b.head));
    Ok(out)
}

/// Whether a commit changes code in one of `languages`: a hunk of such a file
/// that is not only comments, docstrings, literal text, layout, a version bump or
/// tool settings ([`prose::cosmetic`]).
fn changes_code(miner: &Miner<'_>, commit: &Commit, languages: &BTreeSet<String>) -> Result<bool, MineError> {
    let Some(parent) = commit.parents.first() else { return Ok(false) };
    let files = miner.own_diff(&commit.id, parent)?;
    for f in files.iter() {
        let Some(path) = f.new.as_deref().or(f.old.as_deref()) else { continue };
        let speaks = language(path).is_some_and(|l| languages.contains(&l));
        if !speaks || hunks::not_code(path).is_some() || miner.rules.reason(path, None).is_some() {
            continue;
        }
        let read = |rev: &str, path: Option<&str>| -> Result<Option<String>, MineError> {
            let Some(path) = path else { return Ok(None) };
            let bytes = miner.git.read(&Snapshot::Commit(rev.to_string()), path)?;
            Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
        };
        let before = prose::Reading::new(path, read(parent, f.old.as_deref())?.as_deref());
        let after = prose::Reading::new(path, read(&commit.id, f.new.as_deref())?.as_deref());
        if f.hunks.iter().any(|h| prose::cosmetic(&before, &after, h).is_none()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The escapes' and the clean cases' years and size classes, side by side.
pub(crate) fn distributions(escapes: &[Escape], cleans: &[Clean], summary: &mut Summary) {
    let count = |pairs: Vec<(i64, bool)>| -> Vec<(i64, usize, usize)> {
        let mut by: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
        for (key, escape) in pairs {
            let e = by.entry(key).or_default();
            if escape { e.0 += 1 } else { e.1 += 1 }
        }
        by.into_iter().map(|(k, (e, c))| (k, e, c)).collect()
    };
    let both = |f: &dyn Fn(i64, usize) -> i64| {
        let pairs = escapes.iter().map(|e| (f(e.time, e.size), true));
        count(pairs.chain(cleans.iter().map(|c| (f(c.time, c.size), false))).collect())
    };
    summary.eras = both(&|time, _| year(time))
        .into_iter()
        .map(|(y, escapes, clean)| Bucket { bucket: y.to_string(), escapes, clean })
        .collect();
    summary.sizes = both(&|_, size| class(size))
        .into_iter()
        .map(|(k, escapes, clean)| {
            let bucket = match k {
                0 => "0".to_string(),
                1 => "1".to_string(),
                k => format!("{}-{}", 1i64 << (k - 1), (1i64 << k) - 1),
            };
            Bucket { bucket, escapes, clean }
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_spreads_clean_cases_over_the_escapes() {
        let total = |n: usize, r: f64| (0..n).map(|i| wanted(i, r)).sum::<usize>();
        assert_eq!(total(4, 1.0), 4);
        assert_eq!(total(4, 0.5), 2);
        assert_eq!(total(3, 2.0), 6);
        assert_eq!(total(5, 0.3), 1);
        assert_eq!((0..3).map(|i| wanted(i, 1.0)).collect::<Vec<_>>(), vec![1, 1, 1]);
    }

    #[test]
    fn ranks_depend_on_the_seed_and_are_fixed_for_a_seed() {
        assert_eq!(rank(7, "abc"), rank(7, "abc"));
        assert_ne!(rank(7, "abc"), rank(8, "abc"));
        assert_ne!(rank(7, "abc"), rank(7, "abd"));
        // Pinned: a corpus mined with a seed, and the shards of a corpus, must not move
        // when gauntlet is rebuilt elsewhere (values from an independent implementation).
        assert_eq!(rank(0, "abc"), 0x0dd4_9049_0804_b508);
        assert_eq!(rank(42, "case-1"), 0x3dd9_5daf_40cb_354b);
    }

    #[test]
    fn years_bots_and_languages() {
        assert_eq!((year(0), year(1_609_459_200), year(1_609_459_199), year(951_782_400)), (1970, 2021, 2020, 2000));
        assert!(is_bot("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"));
        assert!(is_bot("Renovate Bot <bot@renovateapp.com>") && !is_bot("David Lord <davidism@gmail.com>"));
        assert_eq!(language("src/a.py").as_deref(), Some("python"));
        assert_eq!(language(".github/workflows/tests.yaml").as_deref(), Some("yaml"));
        assert_eq!(language("Makefile"), None);
    }

    #[test]
    fn size_classes_are_powers_of_two() {
        assert_eq!((class(1), class(2), class(3), class(4), class(7), class(8)), (1, 2, 2, 3, 3, 4));
    }
}
