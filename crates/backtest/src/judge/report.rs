//! The judge's figures in the Markdown and HTML reports: beside the known-defect
//! figures, never in place of them.

use super::{Judged, JudgedFinding};
use crate::report::Backtest;
use gauntlet_report::html::escape;
use std::fmt::Write;

use gauntlet_report::number::percent as pct;

/// The figures of one side, as the rows of the judge's table.
fn rows(j: Option<&Judged>) -> [String; 4] {
    match j {
        Some(j) => [
            format!("{} ({}/{}, {} unclear)", pct(j.precision), j.true_claims, j.judged, j.unclear),
            j.consequential.to_string(),
            j.false_claims.to_string(),
            j.gaps.to_string(),
        ],
        None => ["–".into(), "–".into(), "–".into(), "–".into()],
    }
}

const METRICS: [&str; 4] =
    ["judged precision (true / judged)", "true and consequential", "judged false", "not judged (gaps)"];

/// One case's figures for a side: `true/judged, N unclear, N consequential`.
fn brief(j: Option<&Judged>) -> String {
    j.map_or("–".into(), |j| {
        let gaps = if j.gaps > 0 { format!(", **{} not judged**", j.gaps) } else { String::new() };
        format!("{}/{} true, {} unclear, {} consequential{gaps}", j.true_claims, j.judged, j.unclear, j.consequential)
    })
}

/// The `## Blind judge` section: totals side by side, then one row per case.
pub fn markdown(out: &mut String, b: &Backtest) {
    let Some(ours) = &b.gauntlet.judge else { return };
    let theirs = b.baseline.as_ref().and_then(|s| s.judge.as_ref());
    let _ = writeln!(
        out,
        "\n## Blind judge\n\nEvery finding that matched no known defect, of either side, judged by a separate \
         session that saw the change, the code and the bare claim, not which system made it. The known-defect \
         figures above are unchanged.\n"
    );
    let g = rows(Some(ours));
    let base = b.baseline.as_ref().map(|_| rows(theirs));
    match &base {
        Some(_) => out.push_str("| | gauntlet | single-pass baseline |\n| --- | --- | --- |\n"),
        None => out.push_str("| | gauntlet |\n| --- | --- |\n"),
    }
    for (i, metric) in METRICS.iter().enumerate() {
        let other = base.as_ref().map_or(String::new(), |r| format!(" {} |", r[i]));
        let _ = writeln!(out, "| {metric} | {} |{other}", g[i]);
    }
    if let Some(spend) = &b.judge_spend {
        let cost = gauntlet_report::number::cost(spend.cost);
        let tokens = gauntlet_report::number::tokens(spend.tokens);
        let _ = writeln!(out, "\nThe judge spent {tokens} tokens, cost {cost}.");
    }
    let _ = writeln!(out, "\n| case | gauntlet, judged | baseline, judged |\n| --- | --- | --- |");
    for c in b.cases.iter().filter(|c| c.scored()) {
        let g = brief(c.gauntlet.as_ref().and_then(|g| g.judge.as_ref()));
        let t = brief(c.baseline.as_ref().and_then(|b| b.judge.as_ref()));
        let _ = writeln!(out, "| {} | {g} | {t} |", c.name.replace('|', "\\|"));
    }
    details(out, b);
}

fn answer(f: &JudgedFinding) -> String {
    match (&f.judgement, &f.gap) {
        (Some(j), _) => {
            format!("**{}**, {}: {}", j.verdict.as_str(), j.impact.as_str(), j.evidence.replace('\n', " "))
        }
        (None, Some(gap)) => format!("not judged: {gap}"),
        (None, None) => "not judged".into(),
    }
}

fn details(out: &mut String, b: &Backtest) {
    let mut text = String::new();
    for c in b.cases.iter().filter(|c| c.scored()) {
        let sides = [
            ("gauntlet", c.gauntlet.as_ref().and_then(|g| g.judge.as_ref())),
            ("baseline", c.baseline.as_ref().and_then(|b| b.judge.as_ref())),
        ];
        for (side, judged) in sides {
            for f in judged.map(|j| j.findings.as_slice()).unwrap_or_default() {
                let claim = f.claim.replace('\n', " ");
                let _ = writeln!(text, "- {} ({side}) `{}`: {claim} → {}", c.name, f.location, answer(f));
            }
        }
    }
    if !text.is_empty() {
        let _ = write!(out, "\n### Judged findings\n\n{text}");
    }
}

/// The judge's rows of the HTML totals table (`None` when it did not run).
pub fn html_totals(b: &Backtest) -> Option<String> {
    let ours = b.gauntlet.judge.as_ref()?;
    let theirs = b.baseline.as_ref().map(|s| rows(s.judge.as_ref()));
    let g = rows(Some(ours));
    let mut h = String::new();
    for (i, metric) in METRICS.iter().enumerate() {
        let _ = write!(h, "<tr class=\"judge\"><th>{metric}</th><td>{}</td>", escape(&g[i]));
        if let Some(t) = &theirs {
            let _ = write!(h, "<td>{}</td>", escape(&t[i]));
        }
        if b.comparison.is_some() {
            h.push_str("<td></td>");
        }
        h.push_str("</tr>\n");
    }
    Some(h)
}

/// What the judge said of a published finding, for the HTML case section.
pub fn html_answer(judged: Option<&Judged>, location: &str, claim: &str) -> String {
    let found = judged.and_then(|j| j.findings.iter().find(|f| f.location == location && f.claim == claim));
    let text = found.map(|f| answer(f).replace("**", ""));
    text.map_or(String::new(), |t| format!(" <span class=\"judged\">judge: {}</span>", escape(&t)))
}

/// The judge's line of one side of a case, for the HTML case section.
pub fn html_case(side: &str, judged: Option<&Judged>) -> String {
    judged.map_or(String::new(), |j| {
        format!("<p class=\"judge\">Blind judge, {side}: {}.</p>", escape(&brief(Some(j)).replace("**", "")))
    })
}
