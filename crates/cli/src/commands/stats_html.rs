//! `gauntlet stats --format html`: the figures as one self-contained page (no
//! script, no network asset) under the same Content-Security-Policy as the
//! backtest report (`gauntlet_report::html`). Every text that came from the host
//! (repository name, reviewer names, severities, months, file paths, user names)
//! is escaped.
//!
//! Sections: totals, the trend per month (an SVG chart of precision in the wild
//! and action rate, and a table), per reviewer, per severity, then what was left
//! out and the dismissals that did not count.

use gauntlet_publish::history::Read;
use gauntlet_publish::outcome::{Figures, Outcome, Tally};
use gauntlet_report::html::{Chart, Series, escape, head};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1f24}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #d0d7de;padding:.25rem .6rem;\
text-align:left;vertical-align:top}th{background:#f6f8fa}td.n{text-align:right}\
code{background:#f6f8fa;padding:0 .2rem}svg text{font-size:11px}";

fn share(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"))
}

/// The whole page.
pub fn render(what: &str, read: &Read, f: &Figures) -> String {
    let title = format!("gauntlet stats: {what}");
    let mut h = head(&title, STYLE);
    let _ = writeln!(h, "<h1>{}</h1><p id=\"covers\">{}.</p>", escape(&title), escape(&read.covers()));
    totals(&mut h, &f.total);
    let _ = writeln!(h, "<h2>Trend by month</h2>");
    chart(&mut h, &f.per_month);
    table(&mut h, "per-month", "month", &f.per_month);
    let _ = writeln!(h, "<h2>Per reviewer</h2>");
    table(&mut h, "per-reviewer", "reviewer", &f.per_reviewer);
    let _ = writeln!(h, "<h2>Per severity</h2>");
    table(&mut h, "per-severity", "severity", &f.per_severity);
    if read.edited + read.unreadable > 0 {
        let _ = writeln!(
            h,
            "<p id=\"left-out\">Left out: {} comment(s) someone other than the pipeline edited, {} finding(s) whose \
             comment header or overview entry could not be read.</p>",
            read.edited, read.unreadable
        );
    }
    if !read.not_counted.is_empty() {
        h.push_str("<h2>Dismissals that did not count</h2><ul id=\"not-counted\">");
        for line in &read.not_counted {
            let _ = write!(h, "<li>{}</li>", escape(line));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body></html>\n");
    h
}

fn totals(h: &mut String, t: &Tally) {
    h.push_str("<h2>Totals</h2><table id=\"totals\">");
    let _ = write!(h, "<tr><th>published</th><td class=\"n\">{}</td></tr>", t.published());
    for o in Outcome::ALL {
        let _ = write!(h, "<tr><th>{}</th><td class=\"n\">{}</td></tr>", o.as_str(), t.count(o));
    }
    let _ = writeln!(
        h,
        "<tr><th>precision in the wild</th><td class=\"n\">{} ({} fixed of {} fixed or dismissed)</td></tr>\
         <tr><th>action rate</th><td class=\"n\">{} ({} fixed of {} published)</td></tr></table>",
        share(t.precision()),
        t.fixed,
        t.decided(),
        share(t.action_rate()),
        t.fixed,
        t.published()
    );
}

fn table(h: &mut String, id: &str, first: &str, map: &BTreeMap<String, Tally>) {
    let _ = write!(h, "<table id=\"{id}\"><tr><th>{first}</th><th>published</th>");
    for o in Outcome::ALL {
        let _ = write!(h, "<th>{}</th>", o.as_str());
    }
    h.push_str("<th>precision</th><th>action rate</th></tr>\n");
    for (name, t) in map {
        let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{}</td>", escape(name), t.published());
        for o in Outcome::ALL {
            let _ = write!(h, "<td class=\"n\">{}</td>", t.count(o));
        }
        let _ = writeln!(
            h,
            "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            share(t.precision()),
            share(t.action_rate())
        );
    }
    h.push_str("</table>\n");
}

/// Precision in the wild and action rate per month of the close, as an SVG line
/// chart (0-100%); findings on open pull requests have no month and stay out.
fn chart(h: &mut String, per_month: &BTreeMap<String, Tally>) {
    let months: Vec<(&String, &Tally)> = per_month.iter().filter(|(m, _)| m.as_str() != "open").collect();
    let n = months.len().max(1) as f64;
    let positions = months
        .iter()
        .enumerate()
        .map(|(i, (m, t))| ((i as f64 + 0.5) / n, vec![m.to_string(), format!("{} published", t.published())]))
        .collect();
    type Metric = fn(&Tally) -> Option<f64>;
    let series: [(&str, &str, &str, Metric); 2] = [
        ("precision", "precision in the wild", "#0969da", |t| t.precision()),
        ("action-rate", "action rate", "#bf3989", |t| t.action_rate()),
    ];
    let series = series
        .into_iter()
        .map(|(class, legend, colour, metric)| Series {
            class,
            legend,
            colour,
            points: months
                .iter()
                .enumerate()
                .filter_map(|(i, (m, t))| {
                    let v = metric(t)?;
                    Some((i, m.to_string(), v, format!("{legend} in {m}: {:.0}%", v * 100.0)))
                })
                .collect(),
        })
        .collect();
    let chart = Chart {
        id: "trend",
        label: "precision in the wild and action rate by month",
        width: (80.0 * n + 80.0_f64).max(420.0),
        height: 270.0,
        below: 44.0,
        legend_width: 150.0,
        positions,
        key: "month",
        series,
    };
    h.push_str(&chart.render());
}

#[cfg(test)]
mod tests {
    use super::*;
    use gauntlet_publish::outcome::{Record, figures};

    fn record(closed: &str, reviewer: &str, outcome: Outcome) -> Record {
        Record {
            pr: 1,
            finding: "f".into(),
            severity: "high".into(),
            reviewers: vec![reviewer.into()],
            closed_at: closed.into(),
            outcome,
            era: None,
        }
    }

    #[test]
    fn host_text_is_escaped_and_open_findings_stay_off_the_chart() {
        let hostile = "<img src=x onerror=alert(1)></script>";
        let records = vec![
            record("2024-01-05T00:00:00Z", hostile, Outcome::Fixed),
            record("2024-02-05T00:00:00Z", "logic", Outcome::Dismissed),
            record("", "logic", Outcome::Open),
        ];
        let read = Read {
            records: records.clone(),
            pulls: vec![(2, "2024-02-05T00:00:00Z".into()), (1, "2024-01-05T00:00:00Z".into())],
            edited: 0,
            unreadable: 0,
            partial: None,
            not_counted: vec![format!("#1 {hostile}: x, not counted: y")],
            ..Read::default()
        };
        let page = render("GitHub o/\"r\"", &read, &figures(&records));
        assert!(!page.contains("<img") && !page.contains("</script>"), "{page}");
        assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;"), "{page}");
        assert!(page.contains("<title>gauntlet stats: GitHub o/&quot;r&quot;</title>"), "{page}");
        assert!(page.contains("class=\"precision\" data-month=\"2024-01\" data-value=\"1.0000\""), "{page}");
        assert!(page.contains("class=\"precision\" data-month=\"2024-02\" data-value=\"0.0000\""), "{page}");
        assert!(!page.contains("data-month=\"open\""), "{page}");
        assert!(page.contains("<tr><td>open</td>"), "the month table keeps the open row");
        assert_eq!(page.matches("<style>").count(), 1);
        assert!(!page.contains("style=\""), "no style attribute: the policy would block it");
    }
}
