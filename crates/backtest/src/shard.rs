//! Backtests that outgrow one machine: `--shard K/N` reviews the cases whose name
//! hashes to shard K of N (stable: the same case lands in the same shard on every
//! machine and run), and [`merge`] adds the shards' JSON reports up into the
//! report one run over the whole corpus would have printed.

use crate::corpus::Case;
use crate::report::{Backtest, CaseResult, Meta, SCHEMA_VERSION, summarise};
use serde::Deserialize;
use std::collections::BTreeSet;

/// One shard of N (K is 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text}: write K/N with 1 <= K <= N, e.g. --shard 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether the case named `name` belongs to this shard.
    pub fn holds(&self, name: &str) -> bool {
        (crate::mine::clean::rank(0, name) % self.count as u64) as usize == self.index - 1
    }

    /// The cases of this shard, in corpus order.
    pub fn select(&self, cases: Vec<Case>) -> Vec<Case> {
        cases.into_iter().filter(|c| self.holds(&c.name)).collect()
    }
}

/// Why shard reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{path}: not a backtest JSON report ({message}); pass the files `gauntlet backtest --format json` wrote")]
    Read { path: String, message: String },
    #[error(
        "{path}: schema version {found}, this gauntlet reads {SCHEMA_VERSION}: merge with the gauntlet that ran the shards"
    )]
    Schema { path: String, found: u32 },
    #[error("{path} differs from {first} in {what}: merge only shards of one backtest run")]
    Mismatch { path: String, first: String, what: &'static str },
    #[error("case `{name}` is in more than one report: pass each shard once")]
    Duplicate { name: String },
    #[error("shard {missing} is missing: merge every shard, or the totals are not the corpus's")]
    Missing { missing: String },
}

/// The parts of a report a merge needs; everything else is recomputed.
#[derive(Deserialize)]
struct Part {
    schema_version: u32,
    corpus: String,
    provider: String,
    tolerance: u32,
    /// Reports written before `--max-span` existed used the default.
    #[serde(default = "default_max_span")]
    max_span: u32,
    threshold: u8,
    baseline: Option<serde_json::Value>,
    /// Read only for whether the judge ran (its `judge` key).
    #[serde(default)]
    gauntlet: serde_json::Value,
    shard: Option<String>,
    notes: Vec<String>,
    cases: Vec<CaseResult>,
}

fn default_max_span() -> u32 {
    crate::score::DEFAULT_MAX_SPAN
}

/// Merge shard reports (`(file name, JSON text)`) into the whole corpus's report.
/// The reports must come from one run: the same corpus, provider, tolerance,
/// max span, threshold, baseline and judge settings, and every shard of N exactly once.
pub fn merge(reports: &[(String, String)]) -> Result<Backtest, MergeError> {
    let mut parts = Vec::new();
    for (path, text) in reports {
        let part: Part =
            serde_json::from_str(text).map_err(|e| MergeError::Read { path: path.clone(), message: e.to_string() })?;
        if part.schema_version != SCHEMA_VERSION {
            return Err(MergeError::Schema { path: path.clone(), found: part.schema_version });
        }
        parts.push((path, part));
    }
    let Some((_, first)) = parts.first() else {
        return Err(MergeError::Missing { missing: "1/1".into() });
    };
    let shards = check(&parts)?;
    if let Some(count) = shards {
        let seen: BTreeSet<String> = parts.iter().filter_map(|(_, p)| p.shard.clone()).collect();
        for k in 1..=count {
            let want = format!("{k}/{count}");
            if !seen.contains(&want) {
                return Err(MergeError::Missing { missing: want });
            }
        }
    }
    let mut names = BTreeSet::new();
    let mut cases: Vec<CaseResult> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for (_, part) in &parts {
        for case in &part.cases {
            if !names.insert(case.name.clone()) {
                return Err(MergeError::Duplicate { name: case.name.clone() });
            }
            cases.push(case.clone());
        }
        notes.extend(part.notes.iter().filter(|n| !notes.contains(n)).cloned().collect::<Vec<_>>());
    }
    // The corpus runs its cases in name order; so does the merge.
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    let meta = Meta {
        corpus: first.corpus.clone(),
        provider: first.provider.clone(),
        tolerance: first.tolerance,
        max_span: first.max_span,
        threshold: first.threshold,
        baseline: first.baseline.is_some(),
        shard: None,
        notes,
    };
    Ok(summarise(meta, cases))
}

/// The reports agree on the run; returns N when they are shards.
fn check(parts: &[(&String, Part)]) -> Result<Option<usize>, MergeError> {
    let (first_path, first) = &parts[0];
    let count = |p: &Part| p.shard.as_deref().and_then(|s| s.parse::<Shard>().ok()).map(|s| s.count);
    for (path, p) in &parts[1..] {
        let mismatch = |what| MergeError::Mismatch { path: path.to_string(), first: first_path.to_string(), what };
        if p.corpus != first.corpus {
            return Err(mismatch("the corpus"));
        }
        if p.provider != first.provider {
            return Err(mismatch("the provider"));
        }
        if (p.tolerance, p.max_span, p.threshold) != (first.tolerance, first.max_span, first.threshold) {
            return Err(mismatch("tolerance, max span or threshold"));
        }
        if p.baseline.is_some() != first.baseline.is_some() {
            return Err(mismatch("whether the baseline ran"));
        }
        // Judged totals of some shards only would read as the whole corpus's.
        if p.gauntlet.get("judge").is_some() != first.gauntlet.get("judge").is_some() {
            return Err(mismatch("whether the judge ran (--judge)"));
        }
        if count(p) != count(first) {
            return Err(mismatch("the shard count"));
        }
    }
    Ok(count(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_impossible_numbers() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().unwrap_err().contains("K/N"), "{bad}");
        }
    }

    #[test]
    fn every_name_lands_in_exactly_one_shard() {
        let names: Vec<String> = (0..200).map(|i| format!("case-{i}")).collect();
        for n in [1, 2, 3, 7] {
            let mut sizes = vec![0; n];
            for name in &names {
                let holders: Vec<usize> = (1..=n).filter(|&k| Shard { index: k, count: n }.holds(name)).collect();
                assert_eq!(holders.len(), 1, "{name} in {n} shards");
                sizes[holders[0] - 1] += 1;
            }
            assert!(sizes.iter().all(|&s| s * n >= 200 / 2), "no shard is starved: {sizes:?}");
        }
    }

    #[test]
    fn shards_judged_and_unjudged_are_not_merged() {
        let meta = || crate::report::Meta {
            corpus: "c".into(),
            provider: "p".into(),
            tolerance: 3,
            max_span: crate::score::DEFAULT_MAX_SPAN,
            threshold: 75,
            baseline: false,
            shard: None,
            notes: vec![],
        };
        let shard = |k: usize, judged: bool| {
            let mut report = summarise(Meta { shard: Some(format!("{k}/2")), ..meta() }, Vec::new());
            if judged {
                report.gauntlet.judge = Some(crate::judge::Judged::default());
            }
            (format!("{k}.json"), serde_json::to_string(&report).unwrap())
        };
        let error = merge(&[shard(1, true), shard(2, false)]).unwrap_err().to_string();
        assert!(error.contains("whether the judge ran"), "{error}");
        assert!(merge(&[shard(1, true), shard(2, true)]).is_ok());
    }
}
