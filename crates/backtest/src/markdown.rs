//! The backtest as Markdown, for people: the headline numbers (beside the baseline
//! when it ran), one row per case, the per-reviewer noise, then what was missed and
//! what was published without matching anything known.

use crate::report::{Backtest, CaseResult, Side};
use crate::score::Spend;
use std::fmt::Write;

/// Render the report.
pub fn render(b: &Backtest) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Backtest of {}\n\n{} case(s) on {}, tolerance {} lines, findings up to {} lines wide, threshold {}.",
        b.corpus,
        b.cases.len(),
        b.provider,
        b.tolerance,
        b.max_span,
        b.threshold
    );
    if b.failed > 0 {
        let _ =
            writeln!(out, "\n**{} case(s) could not be run** and are left out of every total (see Cases).", b.failed);
    }
    for note in &b.notes {
        let _ = writeln!(out, "\nNote: {note}");
    }
    let _ = writeln!(out, "\nCuration: {}", b.curation.sentence());
    headline(&mut out, b);
    crate::judge::report::markdown(&mut out, b);
    spend_by_step(&mut out, b);
    cases(&mut out, b);
    reviewers(&mut out, b);
    out.push_str(&crate::sweep::markdown(&b.threshold_sweep));
    details(&mut out, b);
    out
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:.0}%", v * 100.0))
}

fn points(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{:+.0} pts", v * 100.0))
}

fn cost(c: Option<f64>) -> String {
    c.map_or("unknown".into(), |c| format!("${c:.4}"))
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// One cell of a table: no line breaks, no column separators.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Tokens, cost and time in a few characters: `12.3k tok, $0.0120, 4.1 s`.
fn spend(s: &Spend) -> String {
    let tokens = if s.tokens >= 1000 { format!("{:.1}k", s.tokens as f64 / 1000.0) } else { s.tokens.to_string() };
    format!("{tokens} tok, {}, {}", cost(s.cost), secs(s.wall_ms))
}

fn ratio(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.2}"))
}

fn side_rows(side: &Side) -> [String; 11] {
    let (t, s) = (&side.totals, &side.spend);
    [
        format!("{} ({}/{})", pct(t.precision), t.true_positives, t.published),
        format!("{} ({}/{})", pct(t.precision_per_defect), t.distinct_hits, t.distinct_hits + t.false_positives),
        format!("{} ({}/{})", pct(t.recall), t.caught, t.defects),
        format!("{} ({}/{})", pct(side.candidate_recall), side.candidates_caught, t.defects),
        format!("{} ({}/{})", ratio(t.comments_per_caught_defect), t.defect_comments, t.caught),
        t.duplicates.to_string(),
        format!("{} ({} per case)", t.false_positives, t.fp_per_case.map_or("–".into(), |v| format!("{v:.2}"))),
        format!("{}/{}", t.silent_clean, t.clean_cases),
        s.tokens.to_string(),
        cost(s.cost),
        secs(s.wall_ms),
    ]
}

const METRICS: [&str; 11] = [
    "precision per comment",
    "precision per distinct defect",
    "recall",
    "candidate recall (before validation)",
    "comments per caught defect",
    "duplicate comments",
    "false positives",
    "silent clean cases",
    "tokens",
    "billed cost",
    "wall time (summed)",
];

fn headline(out: &mut String, b: &Backtest) {
    let g = side_rows(&b.gauntlet);
    let f = b.funnel;
    let _ = writeln!(out, "\n## Totals\n");
    let _ = writeln!(
        out,
        "Pipeline funnel over the scored cases: {} candidates, {} grounded, {} clustered, {} survived, {} \
         published.\n",
        f.candidates, f.grounded, f.clustered, f.survived, f.published
    );
    let v = &b.validation;
    let _ = writeln!(
        out,
        "Validator sessions: {} ({} per caught defect), {} saved by clustering; the rubber-stamp re-check fired on \
         {} of {} case(s).\n",
        v.sessions,
        ratio(v.per_caught_defect),
        v.saved,
        v.rechecks,
        b.gauntlet.totals.cases
    );
    match (&b.baseline, &b.comparison) {
        (Some(base), Some(c)) => {
            let candidate_change = b.gauntlet.candidate_recall.zip(base.candidate_recall).map(|(g, b)| g - b);
            let base = side_rows(base);
            let change = [
                points(c.precision_change),
                String::new(),
                points(c.recall_change),
                points(candidate_change),
                String::new(),
                String::new(),
                c.fp_reduction.map_or("–".into(), |r| {
                    if r >= 0.0 { format!("{:.0}% fewer", r * 100.0) } else { format!("{:.0}% more", -r * 100.0) }
                }),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ];
            let _ = writeln!(out, "| | gauntlet | single-pass baseline | change |\n| --- | --- | --- | --- |");
            for i in 0..METRICS.len() {
                let _ = writeln!(out, "| {} | {} | {} | {} |", METRICS[i], g[i], base[i], change[i]);
            }
        }
        _ => {
            let _ = writeln!(out, "| | gauntlet |\n| --- | --- |");
            for (metric, value) in METRICS.iter().zip(&g) {
                let _ = writeln!(out, "| {metric} | {value} |");
            }
        }
    }
}

/// Each step's raw tokens next to what the provider bills for them: a prompt
/// cache makes many reviewers over one shared block cost far less than their
/// tokens suggest.
fn spend_by_step(out: &mut String, b: &Backtest) {
    let sides =
        std::iter::once(("gauntlet", &b.gauntlet.spend)).chain(b.baseline.iter().map(|s| ("baseline", &s.spend)));
    let rows: Vec<String> = sides
        .flat_map(|(side, spend)| {
            spend.steps.iter().map(move |s| {
                format!(
                    "| {side} | {} | {} | {} | {} | {} | {} | {} |",
                    cell(&s.step),
                    s.calls,
                    s.input,
                    s.output,
                    s.cache_read,
                    s.cache_write,
                    cost(s.billed)
                )
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Spend by step\n");
    let _ = writeln!(out, "| side | step | calls | in | out | cache read | cache write | billed |");
    let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let _ = writeln!(out, "{r}");
    }
}

fn cases(out: &mut String, b: &Backtest) {
    let with_baseline = b.baseline.is_some();
    let _ = writeln!(out, "\n## Cases\n");
    let _ = write!(out, "| case | kind | curation | candidates | grounded | survived | published | TP | FP | caught |");
    let baseline = if with_baseline { " baseline TP/FP/caught |" } else { "" };
    let _ = writeln!(out, "{baseline} spend | unmatched findings | notes |");
    let columns = if with_baseline { 14 } else { 13 };
    let _ = writeln!(out, "|{}", " --- |".repeat(columns));
    for c in &b.cases {
        let _ = writeln!(out, "{}", case_row(c, with_baseline));
    }
}

fn case_row(c: &CaseResult, with_baseline: bool) -> String {
    let kind = match c.kind {
        crate::corpus::Kind::Escape => "escape",
        crate::corpus::Kind::Clean => "clean",
    };
    let mut notes: Vec<String> = Vec::new();
    if c.left_out {
        notes.push(format!("left out: {}", c.curation.status));
    }
    if let Some(e) = &c.error {
        notes.push(format!("**failed**: {e}"));
    }
    if let Some(why) = &c.gate_would_skip {
        notes.push(format!("gate would skip: {why}"));
    }
    let numbers = match &c.gauntlet {
        Some(g) => {
            let f = g.funnel;
            let s = &g.score;
            if !g.gaps.is_empty() {
                notes.push(format!("{} gap(s)", g.gaps.len()));
            }
            format!(
                "{} | {} | {} | {} | {} | {} | {}/{}",
                f.candidates,
                f.grounded,
                f.survived,
                f.published,
                s.true_positives,
                s.false_positives,
                s.caught,
                s.defects
            )
        }
        None => "– | – | – | – | – | – | –".into(),
    };
    let spent = c.gauntlet.as_ref().map_or("–".into(), |g| spend(&g.spend));
    let unmatched = c.gauntlet.as_ref().map_or(String::new(), |g| {
        g.score.unmatched.iter().map(|u| format!("`{}`", u.location)).collect::<Vec<_>>().join(", ")
    });
    let baseline = if with_baseline {
        let text = c.baseline.as_ref().map_or("–".into(), |b| {
            if let Some(e) = &b.error {
                notes.push(format!("baseline: {e}"));
            }
            format!("{}/{}/{}", b.score.true_positives, b.score.false_positives, b.score.caught)
        });
        format!(" {text} |")
    } else {
        String::new()
    };
    let (name, unmatched, notes) = (cell(&c.name), cell(&unmatched), cell(&notes.join("; ")));
    let curation = cell(&c.curation.label());
    format!("| {name} | {kind} | {curation} | {numbers} |{baseline} {spent} | {unmatched} | {notes} |")
}

fn reviewers(out: &mut String, b: &Backtest) {
    if b.reviewers.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Reviewer noise\n");
    let _ = writeln!(out, "| reviewer | candidates | published | true positives | published / candidates |");
    let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
    for r in &b.reviewers {
        let share = crate::score::ratio(r.published, r.candidates);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&r.reviewer),
            r.candidates,
            r.published,
            r.true_positives,
            pct(share)
        );
    }
}

/// Missed defects and unmatched findings, with their claims.
fn details(out: &mut String, b: &Backtest) {
    let mut text = String::new();
    for c in &b.cases {
        let Some(g) = &c.gauntlet else { continue };
        for m in &g.score.missed {
            let _ = writeln!(text, "- {}: missed: {}", c.name, m);
        }
        for u in &g.score.unmatched {
            let _ = writeln!(
                text,
                "- {}: unmatched `{}` ({}): {}",
                c.name,
                u.location,
                u.reviewer,
                u.claim.replace('\n', " ")
            );
        }
    }
    if !text.is_empty() {
        let _ = writeln!(out, "\n## Missed defects and unmatched findings (gauntlet)\n\n{text}");
    }
}
