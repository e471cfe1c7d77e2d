//! The backtest as Markdown, for people: the headline numbers (beside the baseline
//! when it ran), one row per case, the per-reviewer noise, then what was missed and
//! what was published without matching anything known.

use crate::report::{Backtest, CaseResult, Side};
use crate::score::Spend;
use gauntlet_report::number::{self, cost, percent as pct, seconds as secs};
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

/// One cell of a table: no line breaks or other control characters (an escape
/// sequence in a mined subject would be obeyed by a terminal), no column
/// separators, no HTML tags (GitHub's job summary renders them).
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Tokens, cost and time of one run: `12,345 tok, $0.0120, 4.1 s`.
fn spend(s: &Spend) -> String {
    format!("{} tok, {}, {}", number::tokens(s.tokens), cost(s.cost), secs(s.wall_ms))
}

/// The headline figures of one side, one per [`METRICS`] row (plain text; the
/// HTML report escapes and shows the same rows).
pub(crate) fn side_rows(side: &Side) -> [String; 11] {
    let (t, s) = (&side.totals, &side.spend);
    [
        format!("{} ({}/{})", pct(t.precision), t.true_positives, t.published),
        format!("{} ({}/{})", pct(t.precision_per_defect), t.distinct_hits, t.distinct_hits + t.false_positives),
        format!("{} ({}/{})", pct(t.recall), t.caught, t.defects),
        format!("{} ({}/{})", pct(side.candidate_recall), side.candidates_caught, t.defects),
        format!("{} ({}/{})", number::ratio(t.comments_per_caught_defect), t.defect_comments, t.caught),
        t.duplicates.to_string(),
        format!("{} ({} per case)", t.false_positives, number::ratio(t.fp_per_case)),
        format!("{}/{}", t.silent_clean, t.clean_cases),
        number::tokens(s.tokens),
        cost(s.cost),
        secs(s.wall_ms),
    ]
}

/// The rows of the totals table.
pub(crate) const METRICS: [&str; 11] = [
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
        number::ratio(v.per_caught_defect),
        v.saved,
        v.rechecks,
        b.gauntlet.totals.cases
    );
    match (&b.baseline, &b.comparison) {
        (Some(base), Some(c)) => {
            let base = side_rows(base);
            let change = changes(b, c);
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

/// The change column beside the baseline, one per [`METRICS`] row: points for
/// shares, `91% fewer` for false positives, nothing where a difference says
/// nothing.
pub(crate) fn changes(b: &Backtest, c: &crate::score::Comparison) -> [String; 11] {
    let base = b.baseline.as_ref();
    let candidate_change = b.gauntlet.candidate_recall.zip(base.and_then(|s| s.candidate_recall)).map(|(g, b)| g - b);
    let per_defect = b.gauntlet.totals.precision_per_defect.zip(base.and_then(|s| s.totals.precision_per_defect));
    [
        number::points(c.precision_change),
        number::points(per_defect.map(|(g, b)| g - b)),
        number::points(c.recall_change),
        number::points(candidate_change),
        String::new(),
        String::new(),
        number::fewer(c.fp_reduction),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]
}

/// One step's figures, as both reports show them: calls, tokens in and out,
/// cache read and write, and the cost as billed.
pub(crate) fn step_numbers(s: &crate::score::StepSpend) -> [String; 6] {
    [
        s.calls.to_string(),
        number::tokens(s.input),
        number::tokens(s.output),
        number::tokens(s.cache_read),
        number::tokens(s.cache_write),
        cost(s.billed),
    ]
}

/// Each step's raw tokens next to what the provider bills for them: a prompt
/// cache makes many reviewers over one shared block cost far less than their
/// tokens suggest.
fn spend_by_step(out: &mut String, b: &Backtest) {
    let sides =
        std::iter::once(("gauntlet", &b.gauntlet.spend)).chain(b.baseline.iter().map(|s| ("baseline", &s.spend)));
    let rows: Vec<String> = sides
        .flat_map(|(side, spend)| {
            spend.steps.iter().map(move |s| format!("| {side} | {} | {} |", cell(&s.step), step_numbers(s).join(" | ")))
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
    for c in crate::report::reading_order(&b.cases) {
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
        g.score
            .unmatched
            .iter()
            .map(|u| gauntlet_report::markdown::code_cell(&u.location))
            .collect::<Vec<_>>()
            .join(", ")
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
    // `unmatched` is code spans already (their text is shown as written).
    let (name, notes) = (cell(&c.name), cell(&notes.join("; ")));
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
    for c in crate::report::reading_order(&b.cases) {
        let Some(g) = &c.gauntlet else { continue };
        for (description, places) in crate::score::missed_by_description(&g.score.missed) {
            // Descriptions are mined commit subjects and claims come from a model:
            // shown as text, never as markup or terminal control.
            let at: Vec<String> = places.iter().map(|p| gauntlet_report::markdown::code(p)).collect();
            let at = if at.is_empty() { String::new() } else { format!(" {}", at.join(", ")) };
            let _ = writeln!(text, "- {}: missed{at}: {}", c.name, gauntlet_report::markdown::text(description));
        }
        for u in &g.score.unmatched {
            let _ = writeln!(
                text,
                "- {}: unmatched {} ({}): {}",
                c.name,
                gauntlet_report::markdown::code(&u.location),
                gauntlet_report::markdown::text(&u.credited().join(", ")),
                gauntlet_report::markdown::text(&u.claim)
            );
        }
    }
    if !text.is_empty() {
        let _ = writeln!(out, "\n## Missed defects and unmatched findings (gauntlet)\n\n{text}");
    }
}
