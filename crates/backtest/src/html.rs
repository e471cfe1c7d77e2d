//! `--format html`: the backtest as one page a person reads, self-contained (no
//! script, no network asset), every text escaped, under a Content-Security-Policy
//! that allows nothing but the page's own stylesheet (by its hash) and inline
//! images.
//!
//! It carries at least what the Markdown report does, in this order: a table of
//! contents, the totals beside the baseline with a change column, validator
//! sessions, spend per step (raw tokens and billed cost, both sides), precision
//! and recall by threshold (an SVG chart of the sweep), per-reviewer noise, one
//! row per case, then every case (escapes first) with its funnel, gauntlet's and
//! the baseline's findings side by side, and the known defects missed with where
//! they are. Every hit, false positive and miss is marked by an icon and a word,
//! never by colour alone. With a web address for the repository (`--repo-url`,
//! or the `origin` remote) commits and locations link to the host's pages.

use crate::report::{Backtest, Side};
use crate::sweep::Point;
use gauntlet_report::html::{Chart, Series, escape, head};
use gauntlet_report::number::{self, cost, percent as pct};
use gauntlet_report::weblink::WebRepo;
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:76rem;color:#1b1f24}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #d0d7de;padding:.25rem .6rem;\
text-align:left;vertical-align:top}th{background:#f6f8fa}td.n{text-align:right}.case{border:1px solid #d0d7de;\
border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.case.failed{border-color:#cf222e}\
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}.sides h4{margin:.5rem 0 .25rem}\
.findings,.missed{list-style:none;padding-left:0}.missed ul{list-style:none;padding-left:1.2rem}\
.findings li,.missed li{margin:.2rem 0}.wide{overflow-x:auto}#case-table td{white-space:nowrap}\
#case-table td:last-child{white-space:normal;min-width:12rem}\
.mark{font-weight:600;white-space:nowrap}.hit .mark,.mark.hit{color:#1a7f37}.fp .mark,.mark.fp{color:#cf222e}\
.missed .mark,.mark.missed{color:#9a6700}.mark.failed{color:#cf222e}.by{color:#57606a}\
nav#toc{border:1px solid #d0d7de;border-radius:6px;padding:.25rem 1rem;background:#f6f8fa}\
nav#toc ol ol{columns:2}.note{color:#57606a}\
code{background:#f6f8fa;padding:0 .2rem}svg text{font-size:11px}";

/// Render the whole report, without links to the repository's web pages.
pub fn render(b: &Backtest) -> String {
    render_linked(b, None)
}

/// Render the whole report; with `web`, commits and file lines link to the
/// host's pages (only revisions that are commit ids: a branch name in a bundle
/// means nothing there).
pub fn render_linked(b: &Backtest, web: Option<&WebRepo>) -> String {
    let mut h = String::new();
    let title = format!("Backtest of {}", b.corpus);
    h.push_str(&head(&title, STYLE));
    let _ = writeln!(
        h,
        "<h1>{}</h1><p>{} on {} case(s), threshold {}, tolerance {} line(s), findings up to {} lines wide{}.</p>",
        escape(&title),
        escape(&b.provider),
        b.cases.len(),
        b.threshold,
        b.tolerance,
        b.max_span,
        b.shard.as_ref().map(|s| format!(", shard {}", escape(s))).unwrap_or_default()
    );
    if b.failed > 0 {
        let _ = writeln!(
            h,
            "<p class=\"failed-note\"><span class=\"mark failed\">⚠ failed</span> <strong>{} case(s) could not be \
             run</strong> and are left out of every total (see Cases).</p>",
            b.failed
        );
    }
    for note in &b.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(note));
    }
    let _ = writeln!(h, "<p class=\"note curation\">{}</p>", escape(&b.curation.sentence()));
    let order = crate::report::reading_order(&b.cases);
    let anchors = crate::html_cases::anchors(&order);
    toc(&mut h, b, &order, &anchors);
    totals(&mut h, b);
    spend_by_step(&mut h, b);
    chart(&mut h, &b.threshold_sweep.points, &b.threshold_sweep.basis);
    with_minor(&mut h, &b.threshold_sweep.with_minor);
    reviewers(&mut h, b);
    crate::html_cases::table(&mut h, b, &order, &anchors);
    crate::html_cases::sections(&mut h, b, &order, &anchors, web);
    h.push_str("</body></html>\n");
    h
}

/// The table of contents: every section, then every case (escapes first) with
/// its outcome in a word.
fn toc(h: &mut String, b: &Backtest, order: &[&crate::report::CaseResult], anchors: &[String]) {
    h.push_str("<nav id=\"toc\" aria-label=\"contents\"><h2>Contents</h2><ol>");
    let mut sections = vec![("h-totals", "Totals"), ("h-spend", "Spend by step"), ("h-sweep", "By threshold")];
    if !b.threshold_sweep.with_minor.is_empty() {
        sections.push(("h-minor", "By threshold, minor counted"));
    }
    sections.extend([("h-reviewers", "Noise per reviewer"), ("h-case-table", "Cases at a glance")]);
    for (id, text) in sections {
        let _ = write!(h, "<li><a href=\"#{id}\">{text}</a></li>");
    }
    let escapes = order.iter().filter(|c| c.kind == crate::corpus::Kind::Escape).count();
    let _ = write!(
        h,
        "<li><a href=\"#h-cases\">Cases</a> ({escapes} escape(s) first, then {} clean)<ol>",
        order.len() - escapes
    );
    for (c, anchor) in order.iter().zip(anchors) {
        let (class, text) = crate::html_cases::status(c);
        let _ = write!(
            h,
            "<li><a href=\"#{anchor}\">{}</a> <span class=\"mark {class}\">{}</span></li>",
            escape(&c.name),
            escape(&text)
        );
    }
    h.push_str("</ol></li></ol></nav>\n");
}

fn totals(h: &mut String, b: &Backtest) {
    let ours = crate::markdown::side_rows(&b.gauntlet);
    let theirs = b.baseline.as_ref().map(crate::markdown::side_rows);
    let change = b.comparison.as_ref().map(|c| crate::markdown::changes(b, c));
    h.push_str("<h2 id=\"h-totals\">Totals</h2><table id=\"totals\"><tr><th></th><th>gauntlet</th>");
    if theirs.is_some() {
        h.push_str("<th>single-pass baseline</th>");
    }
    if change.is_some() {
        h.push_str("<th>change</th>");
    }
    h.push_str("</tr>\n");
    for (i, row) in crate::markdown::METRICS.iter().enumerate() {
        let _ = write!(h, "<tr><th>{row}</th><td>{}</td>", escape(&ours[i]));
        if let Some(t) = &theirs {
            let _ = write!(h, "<td>{}</td>", escape(&t[i]));
        }
        if let Some(c) = &change {
            let _ = write!(h, "<td class=\"change\">{}</td>", escape(&c[i]));
        }
        h.push_str("</tr>\n");
    }
    h.push_str(&crate::judge::report::html_totals(b).unwrap_or_default());
    let f = &b.funnel;
    let _ = writeln!(
        h,
        "</table><p id=\"funnel\">Funnel over the scored cases: {} candidates, {} grounded, {} clustered, {} survived, \
         {} published; {} case(s) failed.</p>",
        f.candidates, f.grounded, f.clustered, f.survived, f.published, b.failed
    );
    let v = &b.validation;
    let _ = writeln!(
        h,
        "<p id=\"validation\">Validator sessions: {} ({} per caught defect), {} saved by clustering; the rubber-stamp \
         re-check fired on {} of {} case(s).</p>",
        v.sessions,
        number::ratio(v.per_caught_defect),
        v.saved,
        v.rechecks,
        b.gauntlet.totals.cases
    );
    if let Some(spend) = &b.judge_spend {
        let _ = writeln!(
            h,
            "<p class=\"judge\">The blind judge spent {} tokens, cost {}.</p>",
            number::tokens(spend.tokens),
            cost(spend.cost)
        );
    }
}

/// Each step's raw tokens next to what the provider bills for them, for both
/// sides: a prompt cache makes many reviewers over one shared block cost far
/// less than their tokens suggest.
fn spend_by_step(h: &mut String, b: &Backtest) {
    let sides: Vec<(&str, &Side)> =
        std::iter::once(("gauntlet", &b.gauntlet)).chain(b.baseline.iter().map(|s| ("baseline", s))).collect();
    h.push_str(
        "<h2 id=\"h-spend\">Spend by step</h2><table id=\"spend-by-step\"><tr><th>side</th><th>step</th>\
         <th>calls</th><th>in</th><th>out</th><th>cache read</th><th>cache write</th><th>billed</th></tr>\n",
    );
    for (side, s) in sides {
        for step in &s.spend.steps {
            let numbers: String = crate::markdown::step_numbers(step)
                .iter()
                .map(|n| format!("<td class=\"n\">{}</td>", escape(n)))
                .collect();
            let _ =
                writeln!(h, "<tr data-side=\"{side}\"><td>{side}</td><td>{}</td>{numbers}</tr>", escape(&step.step));
        }
        let _ = writeln!(
            h,
            "<tr class=\"total\" data-side=\"{side}\"><th>{side}</th><th>total</th><td></td>\
             <td class=\"n\" colspan=\"4\">{} tokens</td><td class=\"n\">{}</td></tr>",
            number::tokens(s.spend.tokens),
            cost(s.spend.cost)
        );
    }
    h.push_str("</table>\n");
}

/// Precision and recall by threshold, as an SVG line chart (0-100 on both axes).
fn chart(h: &mut String, points: &[Point], basis: &str) {
    type Metric = fn(&Point) -> Option<f64>;
    let series: [(&str, &str, Metric); 2] =
        [("precision", "#0969da", |p| p.precision), ("recall", "#bf3989", |p| p.recall)];
    let series = series
        .into_iter()
        .map(|(name, colour, metric)| Series {
            class: name,
            legend: name,
            colour,
            points: points
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    let (t, v) = (p.threshold, metric(p)?);
                    Some((i, t.to_string(), v, format!("{name} at {t}: {}", pct(Some(v)))))
                })
                .collect(),
        })
        .collect();
    let chart = Chart {
        id: "sweep",
        label: "precision and recall by threshold",
        width: 420.0,
        height: 256.0,
        below: 30.0,
        legend_width: 90.0,
        positions: points.iter().map(|p| (f64::from(p.threshold) / 100.0, vec![p.threshold.to_string()])).collect(),
        key: "threshold",
        series,
    };
    h.push_str("<h2 id=\"h-sweep\">Precision and recall by threshold</h2>");
    h.push_str(&chart.render());
    sweep_table(h, "sweep-table", points);
    let _ = writeln!(h, "<p class=\"basis\">Each threshold is {}.</p>", escape(basis));
}

/// The sweep counting the survivors the validator judged minor as published too.
fn with_minor(h: &mut String, points: &[Point]) {
    if points.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"h-minor\">By threshold, minor findings counted as published</h2>");
    sweep_table(h, "sweep-minor-table", points);
}

fn sweep_table(h: &mut String, id: &str, points: &[Point]) {
    let _ = writeln!(
        h,
        "<table id=\"{id}\"><tr><th>threshold</th><th>published</th><th>precision</th>\
                <th>recall</th><th>FP per case</th><th>silent clean</th></tr>",
    );
    for p in points {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            p.threshold,
            p.published,
            pct(p.precision),
            pct(p.recall),
            number::ratio(p.fp_per_case),
            pct(p.silent_clean_share)
        );
    }
    h.push_str("</table>");
}

fn reviewers(h: &mut String, b: &Backtest) {
    h.push_str(
        "<h2 id=\"h-reviewers\">Noise per reviewer</h2><table id=\"reviewers\"><tr><th>reviewer</th>\
         <th>candidates</th><th>published</th><th>true positives</th><th>published / candidates</th></tr>\n",
    );
    for r in &b.reviewers {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&r.reviewer),
            r.candidates,
            r.published,
            r.true_positives,
            pct(crate::score::ratio(r.published, r.candidates))
        );
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_carries_the_policy_for_the_stylesheet_it_carries() {
        let meta = crate::report::Meta {
            corpus: "c".into(),
            provider: "p".into(),
            tolerance: 3,
            max_span: crate::score::DEFAULT_MAX_SPAN,
            threshold: 75,
            baseline: false,
            shard: None,
            notes: vec![],
        };
        let page = render(&crate::report::summarise(meta, Vec::new()));
        let style = page.split("<style>").nth(1).and_then(|r| r.split("</style>").next()).unwrap();
        let csp = gauntlet_report::html::content_security_policy(style);
        assert!(page.contains(&format!("content=\"{}\"", escape(&csp))), "{page}");
        assert_eq!(page.matches("<style>").count(), 1, "one stylesheet, the hashed one");
        assert!(!page.contains("style=\""), "no style attribute: the policy would block it");
    }
}
