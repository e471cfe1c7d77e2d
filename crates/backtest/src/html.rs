//! `--format html`: the backtest as one page a person reads, self-contained (no
//! script, no network asset), every text escaped, under a Content-Security-Policy
//! that allows nothing but the page's own stylesheet (by its hash) and inline
//! images.
//!
//! Sections: totals beside the baseline, precision and recall by threshold (an
//! SVG chart of the sweep), per-reviewer noise, then every case with its funnel,
//! published findings and missed defects.

use crate::report::{Backtest, CaseResult, Side};
use crate::sweep::Point;
use gauntlet_report::html::{Chart, Series, escape, head};
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1f24}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #d0d7de;padding:.25rem .6rem;\
text-align:left;vertical-align:top}th{background:#f6f8fa}.case{border:1px solid #d0d7de;border-radius:6px;\
padding:.5rem 1rem;margin:1rem 0}.failed{border-color:#cf222e}.tp{color:#1a7f37}.fp{color:#cf222e}\
code{background:#f6f8fa;padding:0 .2rem}svg text{font-size:11px}";

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{:.0}%", v * 100.0))
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"))
}

/// Render the whole report.
pub fn render(b: &Backtest) -> String {
    let mut h = String::new();
    let title = format!("Backtest of {}", b.corpus);
    h.push_str(&head(&title, STYLE));
    let _ = writeln!(
        h,
        "<h1>{}</h1><p>{} on {} case(s), threshold {}, tolerance {} line(s){}.</p>",
        escape(&title),
        escape(&b.provider),
        b.cases.len(),
        b.threshold,
        b.tolerance,
        b.shard.as_ref().map(|s| format!(", shard {}", escape(s))).unwrap_or_default()
    );
    for note in &b.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(note));
    }
    let _ = writeln!(h, "<p class=\"note curation\">{}</p>", escape(&b.curation.sentence()));
    totals(&mut h, b);
    chart(&mut h, &b.threshold_sweep.points, &b.threshold_sweep.basis);
    with_minor(&mut h, &b.threshold_sweep.with_minor);
    reviewers(&mut h, b);
    let _ = writeln!(h, "<h2>Cases</h2><div id=\"cases\">");
    for c in &b.cases {
        case(&mut h, c);
    }
    h.push_str("</div></body></html>\n");
    h
}

fn totals(h: &mut String, b: &Backtest) {
    let side = |s: &Side| {
        let t = &s.totals;
        [
            format!("{} ({}/{})", pct(t.precision), t.true_positives, t.published),
            format!("{} ({}/{})", pct(t.recall), t.caught, t.defects),
            format!("{} ({}/{})", pct(s.candidate_recall), s.candidates_caught, t.defects),
            format!("{} ({}/{})", num(t.comments_per_caught_defect), t.defect_comments, t.caught),
            format!("{} ({} per case)", t.false_positives, num(t.fp_per_case)),
            format!("{}/{}", t.silent_clean, t.clean_cases),
            s.spend.tokens.to_string(),
            s.spend.cost.map_or_else(|| "unknown".into(), |c| format!("${c:.4}")),
        ]
    };
    let rows = [
        "precision",
        "recall",
        "candidate recall (before validation)",
        "comments per caught defect",
        "false positives",
        "silent clean cases",
        "tokens",
        "cost",
    ];
    let ours = side(&b.gauntlet);
    let theirs = b.baseline.as_ref().map(side);
    h.push_str("<h2>Totals</h2><table id=\"totals\"><tr><th></th><th>gauntlet</th>");
    if theirs.is_some() {
        h.push_str("<th>single-pass baseline</th>");
    }
    h.push_str("</tr>\n");
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(h, "<tr><th>{row}</th><td>{}</td>", escape(&ours[i]));
        if let Some(t) = &theirs {
            let _ = write!(h, "<td>{}</td>", escape(&t[i]));
        }
        h.push_str("</tr>\n");
    }
    h.push_str(&crate::judge::report::html_totals(b).unwrap_or_default());
    let f = &b.funnel;
    let _ = writeln!(
        h,
        "</table><p>Funnel over the scored cases: {} candidates, {} grounded, {} survived, {} published; {} case(s) failed.</p>",
        f.candidates, f.grounded, f.survived, f.published, b.failed
    );
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
                    Some((i, t.to_string(), v, format!("{name} at {t}: {:.0}%", v * 100.0)))
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
    h.push_str("<h2>Precision and recall by threshold</h2>");
    h.push_str(&chart.render());
    sweep_table(h, "sweep-table", points);
    let _ = writeln!(h, "<p class=\"basis\">Each threshold is {}.</p>", escape(basis));
}

/// The sweep counting the survivors the validator judged minor as published too.
fn with_minor(h: &mut String, points: &[Point]) {
    if points.is_empty() {
        return;
    }
    h.push_str("<h2>By threshold, minor findings counted as published</h2>");
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
            num(p.fp_per_case),
            pct(p.silent_clean_share)
        );
    }
    h.push_str("</table>");
}

fn reviewers(h: &mut String, b: &Backtest) {
    h.push_str(
        "<h2>Noise per reviewer</h2><table id=\"reviewers\"><tr><th>reviewer</th><th>candidates</th>\
                <th>published</th><th>true positives</th></tr>\n",
    );
    for r in &b.reviewers {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.reviewer),
            r.candidates,
            r.published,
            r.true_positives
        );
    }
    h.push_str("</table>\n");
}

fn case(h: &mut String, c: &CaseResult) {
    let failed = if c.error.is_some() { " failed" } else { "" };
    let mut kind = format!("{:?}", c.kind).to_lowercase();
    if let Some(confidence) = c.confidence {
        kind.push_str(&format!(", mined, confidence {confidence:?}"));
    }
    let _ = write!(
        h,
        "<section class=\"case{failed}\" data-case=\"{}\"><h3>{} <small>({kind})</small>{}</h3><p>{}</p>",
        escape(&c.name),
        escape(&c.name),
        curation_badge(c),
        escape(&c.description)
    );
    for fix in &c.fix {
        let short = &fix.sha[..fix.sha.len().min(12)];
        let _ =
            write!(h, "<p class=\"fix\">Fixed later by <code>{}</code> {}</p>", escape(short), escape(&fix.subject));
    }
    if let Some(e) = &c.error {
        let _ = write!(h, "<p class=\"error\">Could not run: {}</p>", escape(e));
    }
    if let Some(why) = &c.gate_would_skip {
        let _ = write!(h, "<p>The gate would have skipped it: {}</p>", escape(why));
    }
    if let Some(g) = &c.gauntlet {
        let f = &g.funnel;
        let _ = write!(
            h,
            "<p class=\"funnel\">{} candidates, {} grounded, {} survived, {} published; {}/{} known defect(s) caught.</p>",
            f.candidates, f.grounded, f.survived, f.published, g.score.caught, g.score.defects
        );
        if !g.findings.is_empty() {
            h.push_str("<ul class=\"findings\">");
            for r in &g.findings {
                let hit = !g.score.unmatched.contains(r);
                let _ = write!(
                    h,
                    "<li class=\"{}\"><code>{}</code> {} <em>({})</em>{}</li>",
                    if hit { "tp" } else { "fp" },
                    escape(&r.location),
                    escape(&r.claim),
                    escape(&r.reviewer),
                    crate::judge::report::html_answer(g.judge.as_ref(), &r.location, &r.claim)
                );
            }
            h.push_str("</ul>");
        }
        h.push_str(&crate::judge::report::html_case("gauntlet", g.judge.as_ref()));
        h.push_str(&crate::judge::report::html_case("baseline", c.baseline.as_ref().and_then(|b| b.judge.as_ref())));
        if !g.score.missed.is_empty() {
            h.push_str("<p>Missed:</p><ul class=\"missed\">");
            for m in &g.score.missed {
                let _ = write!(h, "<li>{}</li>", escape(m));
            }
            h.push_str("</ul>");
        }
    }
    h.push_str("</section>\n");
}

/// A case's curation state, in words: `[accepted: why]`, `[unreviewed, left out]`.
fn curation_badge(c: &CaseResult) -> String {
    let left_out = if c.left_out { ", left out" } else { "" };
    format!(" <small class=\"curation {}\">[{}{left_out}]</small>", c.curation.status, escape(&c.curation.label()))
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
