//! What `gauntlet fix` reports: one row per item (exit reason, rounds, open issues,
//! patch), the cost, and the patch files themselves, each marked when it did not
//! converge.

use super::ItemResult;
use crate::contract::{Issue, Severity};
use crate::converge::ExitReason;
use crate::engine::Flow;
use crate::meter::Spent;
use crate::round::Round;
use gauntlet_review::review::StepUsage;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FixReport {
    pub head: String,
    /// The round cap.
    pub rounds: u32,
    pub flow: Flow,
    pub check: Option<String>,
    pub items: Vec<ItemReport>,
    pub usage: Vec<StepUsage>,
    pub notes: Vec<String>,
    pub wall_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ItemReport {
    pub id: String,
    pub location: String,
    pub claim: String,
    pub exit: ExitReason,
    pub converged: bool,
    pub rounds: usize,
    /// The round whose patch is kept.
    pub kept_round: Option<u32>,
    /// What the adversary still raised against the kept patch.
    pub open_issues: Vec<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The kept patch; `None` when no patch changing anything survived to be judged.
    pub patch: Option<String>,
    /// The file it was written to (`--out`).
    pub file: Option<String>,
    /// What `--apply` did with it.
    pub applied: Option<String>,
    pub spent: Spent,
    pub history: Vec<Round>,
}

impl ItemReport {
    pub fn new(r: &ItemResult) -> ItemReport {
        let o = &r.outcome;
        ItemReport {
            id: r.item.id.clone(),
            location: r.item.location.clone(),
            claim: r.item.claim.clone(),
            exit: o.exit,
            converged: o.exit.converged(),
            rounds: o.rounds.len(),
            kept_round: o.kept,
            open_issues: o.open_issues().to_vec(),
            message: o.message.clone(),
            patch: r.patch().map(str::to_string),
            file: None,
            applied: None,
            spent: o.spent,
            history: o.rounds.clone(),
        }
    }

    /// `2 critical, 1 minor`, or `-`.
    pub fn open_summary(&self) -> String {
        let parts: Vec<String> = [Severity::Critical, Severity::Major, Severity::Minor]
            .iter()
            .filter_map(|s| {
                let n = self.open_issues.iter().filter(|i| i.severity == *s).count();
                (n > 0).then(|| format!("{n} {}", s.as_str()))
            })
            .collect();
        if parts.is_empty() { "-".into() } else { parts.join(", ") }
    }

    /// The file name of this item's patch (`index` is 1-based).
    pub fn file_name(&self, index: usize) -> String {
        patch_file_name(index, &self.location, self.converged)
    }

    /// The patch file's text: a header `git apply` skips, then the patch.
    pub fn patch_file(&self, patch: &str) -> String {
        let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let status = if self.converged {
            format!("converged ({}) after {} round(s)", self.exit, self.rounds)
        } else {
            format!(
                "NOT CONVERGED ({} after {} round(s)): the best patch, from round {}, with open issues: {}",
                self.exit,
                self.rounds,
                self.kept_round.unwrap_or(0),
                self.open_summary()
            )
        };
        let mut out = format!(
            "# gauntlet fix: {} (finding {})\n# claim: {}\n# {status}\n",
            one_line(&self.location),
            self.id,
            one_line(&self.claim)
        );
        for issue in &self.open_issues {
            out.push_str(&format!("# open [{}]: {}\n", issue.severity.as_str(), one_line(&issue.description)));
        }
        out.push_str(patch);
        out
    }
}

/// `01-src-a.py-4.patch`, or `01-src-a.py-4.unconverged.patch` for an item that did
/// not converge: the mark is in the name, so it survives any tool that drops headers.
pub fn patch_file_name(index: usize, location: &str, converged: bool) -> String {
    let slug: String =
        location.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '_' { c } else { '-' }).collect();
    let slug = slug.trim_matches(['-', '.']);
    let mark = if converged { "" } else { ".unconverged" };
    format!("{index:02}-{slug}{mark}.patch")
}

/// Model and report text as it may appear in a terminal: no control characters.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

fn total(usage: &[StepUsage]) -> (u32, u64, Option<f64>) {
    let calls = usage.iter().map(|u| u.calls).sum();
    let tokens = usage.iter().map(|u| u.input + u.output).sum();
    let cost = usage.iter().try_fold(0.0, |acc, u| u.cost.map(|c| acc + c));
    (calls, tokens, cost)
}

/// The summary for people.
pub fn render(report: &FixReport) -> String {
    let mut rows = vec![["#", "item", "exit", "rounds", "open issues", "cost", "patch"].map(String::from).to_vec()];
    for (i, item) in report.items.iter().enumerate() {
        let patch = match (&item.file, &item.patch) {
            (Some(f), _) => clean(f),
            (None, Some(_)) => "(below)".into(),
            (None, None) => "none".into(),
        };
        let exit = if item.converged { item.exit.to_string() } else { format!("{} (not converged)", item.exit) };
        rows.push(vec![
            (i + 1).to_string(),
            clean(&item.location),
            exit,
            item.rounds.to_string(),
            item.open_summary(),
            item.spent.cost.map_or("n/a".to_string(), |c| format!("${c:.4}")),
            patch,
        ]);
    }
    let widths: Vec<usize> = (0..7).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    // A commit id's short form; cut by characters, as a report may name a branch.
    let short: String = report.head.chars().take(12).collect();
    let flow = match report.flow {
        Flow::Standard => "standard",
        Flow::Inverted => "inverted",
    };
    let mut out = format!(
        "gauntlet fix: {} finding(s) at {short}, up to {} rounds each ({flow} flow{})\n\n",
        report.items.len(),
        report.rounds,
        report.check.as_ref().map(|c| format!(", check `{}`", clean(c))).unwrap_or_default()
    );
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push('\n');
    for (i, item) in report.items.iter().enumerate() {
        if let Some(m) = &item.message {
            out.push_str(&format!("item {}: {}\n", i + 1, clean(m)));
        }
        if let Some(a) = &item.applied {
            out.push_str(&format!("item {}: {}\n", i + 1, clean(a)));
        }
    }
    let converged = report.items.iter().filter(|i| i.converged).count();
    let (calls, tokens, cost) = total(&report.usage);
    let cost = cost.map_or("cost n/a (unknown price)".to_string(), |c| format!("${c:.4}"));
    out.push_str(&format!(
        "{converged} of {} converged · {calls} model calls · {tokens} tokens · {cost} · {:.1}s\n",
        report.items.len(),
        report.wall_ms as f64 / 1000.0
    ));
    for u in &report.usage {
        let cost = u.cost.map_or("n/a".to_string(), |c| format!("${c:.4}"));
        out.push_str(&format!(
            "  {:<10} {:<8} {} · {} calls · in {} (cached {}) · out {} · {cost}\n",
            u.step,
            u.tier,
            clean(&u.model),
            u.calls,
            u.input,
            u.cached,
            u.output
        ));
    }
    for note in &report.notes {
        out.push_str(&format!("note: {}\n", clean(note)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(location: &str, exit: ExitReason, open: &[(Severity, &str)]) -> ItemReport {
        ItemReport {
            id: "f00d".into(),
            location: location.into(),
            claim: "It breaks\non empty input.".into(),
            exit,
            converged: exit.converged(),
            rounds: if exit.converged() { 2 } else { 10 },
            kept_round: Some(if exit.converged() { 2 } else { 7 }),
            open_issues: open
                .iter()
                .map(|(s, d)| Issue { category: "correctness".into(), description: d.to_string(), severity: *s })
                .collect(),
            message: None,
            patch: Some("diff --git a/x b/x\n".into()),
            file: None,
            applied: None,
            spent: Spent::zero(),
            history: Vec::new(),
        }
    }

    #[test]
    fn an_unconverged_patch_is_marked_in_its_name_and_header() {
        let done = item("src/a.py:4", ExitReason::Approved, &[]);
        assert_eq!(done.file_name(1), "01-src-a.py-4.patch");
        let open = [(Severity::Major, "Still raises on None")];
        let stuck = item("src/a.py:9-12", ExitReason::RoundCap, &open);
        assert_eq!(stuck.file_name(2), "02-src-a.py-9-12.unconverged.patch");
        let text = stuck.patch_file("diff --git a/x b/x\n");
        assert!(text.contains("# NOT CONVERGED (round_cap after 10 round(s)): the best patch, from round 7"), "{text}");
        assert!(text.contains("# claim: It breaks on empty input.\n"), "one line: {text}");
        assert!(text.contains("# open [major]: Still raises on None\n"));
        assert!(text.ends_with("diff --git a/x b/x\n"));
    }

    #[test]
    fn the_summary_table_lists_exit_rounds_open_issues_and_cost() {
        let report = FixReport {
            head: "0123456789abcdef0123".into(),
            rounds: 10,
            flow: Flow::Standard,
            check: Some("pytest -q".into()),
            items: vec![
                item("src/a.py:4", ExitReason::Approved, &[]),
                item("src/b.py:12", ExitReason::RoundCap, &[(Severity::Critical, "x"), (Severity::Minor, "y")]),
            ],
            usage: vec![StepUsage {
                step: "primary".into(),
                tier: "standard".into(),
                model: "anthropic:claude-sonnet-4-5".into(),
                calls: 12,
                input: 30_000,
                output: 4_000,
                cached: 20_000,
                cache_write: 0,
                cost: Some(0.15),
                wall_ms: 4_000,
            }],
            notes: vec![],
            wall_ms: 12_300,
        };
        insta::assert_snapshot!(render(&report));
    }
}
