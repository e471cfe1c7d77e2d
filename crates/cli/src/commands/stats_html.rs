//! `gauntlet stats --format html`: the figures as one self-contained page (no
//! script, no network asset) under the same Content-Security-Policy as the
//! backtest report (`gauntlet_report::html`). Every text that came from the host
//! (repository name, reviewer names, severities, months, file paths, user names)
//! is escaped.
//!
//! Sections: totals, the trend per month (an SVG chart of precision in the wild
//! and action rate, and a table), per reviewer, per severity, every finding with
//! its pull request, outcome and a link to its thread (when the repository's web
//! page is known), then what was left out and why, and the dismissals that did
//! not count. Shares are written as the backtest page writes them
//! (`gauntlet_report::number`); code spans in host text show as `<code>`.

use gauntlet_publish::history::Read;
use gauntlet_publish::outcome::{Figures, Outcome, Record, Tally};
use gauntlet_report::html::{Chart, Series, escape, head, with_code};
use gauntlet_report::number::percent as share;
use gauntlet_report::weblink::WebRepo;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1f24}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #d0d7de;padding:.25rem .6rem;\
text-align:left;vertical-align:top}th{background:#f6f8fa}td.n{text-align:right}\
code{background:#f6f8fa;padding:0 .2rem}svg text{font-size:11px}";

/// The whole page; with `web`, pull requests and threads link to the host.
pub fn render(what: &str, read: &Read, f: &Figures, web: Option<&WebRepo>) -> String {
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
    findings(&mut h, &read.records, web);
    if let Some(line) = read.left_out_line() {
        let _ = writeln!(h, "<h2>Left out</h2><p id=\"left-out\">Left out: {}.</p>", escape(&line));
        h.push_str("<ul id=\"left-out-why\">");
        for line in &read.left_out {
            let _ = write!(h, "<li>{}</li>", with_code(line));
        }
        h.push_str("</ul>\n");
    }
    if !read.not_counted.is_empty() {
        h.push_str("<h2>Dismissals that did not count</h2><ul id=\"not-counted\">");
        for line in &read.not_counted {
            let _ = write!(h, "<li>{}</li>", with_code(line));
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

/// Every finding, newest pull request first: its pull request, id, file,
/// severity, every reviewer that raised it, its outcome, and a link to its
/// thread (or, for a finding only the overview showed, to the pull request).
fn findings(h: &mut String, records: &[Record], web: Option<&WebRepo>) {
    h.push_str(
        "<h2>Findings</h2><table id=\"findings\"><tr><th>pull request</th><th>finding</th><th>file</th>\
         <th>severity</th><th>raised by</th><th>outcome</th><th>thread</th></tr>\n",
    );
    for r in records {
        let link = |url: String, text: &str| format!("<a href=\"{}\">{text}</a>", escape(&url));
        let pr = match web {
            Some(w) => link(w.pull(r.pr), &format!("#{}", r.pr)),
            None => format!("#{}", r.pr),
        };
        let thread = match (web, &r.thread) {
            (Some(w), Some(t)) => link(w.thread(r.pr, &t.thread, &t.comment), "thread"),
            (Some(w), None) => link(w.pull(r.pr), "overview"),
            (None, Some(_)) => "thread".into(),
            (None, None) => "overview".into(),
        };
        let path = r.path.as_deref().map_or_else(|| "–".to_string(), |p| format!("<code>{}</code>", escape(p)));
        let _ = writeln!(
            h,
            "<tr data-outcome=\"{}\"><td>{pr}</td><td><code>{}</code></td><td>{path}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{thread}</td></tr>",
            r.outcome.as_str(),
            escape(&r.finding),
            escape(&r.severity),
            escape(&r.reviewers.join(", ")),
            r.outcome.as_str(),
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
                    Some((i, m.to_string(), v, format!("{legend} in {m}: {}", share(Some(v)))))
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
            path: None,
            thread: None,
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
        let page = render("GitHub o/\"r\"", &read, &figures(&records), None);
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

    #[test]
    fn every_finding_has_a_row_linking_its_thread_and_code_spans_are_code() {
        use gauntlet_publish::host::Handle;
        use gauntlet_report::weblink::Host;
        let mut threaded = record("2024-01-05T00:00:00Z", "logic", Outcome::Fixed);
        threaded.path = Some("src/a.rs".into());
        threaded.thread = Some(Handle { thread: "PRRT_1".into(), comment: "55".into() });
        let overview = Record { pr: 2, finding: "g".into(), ..record("", "security", Outcome::Open) };
        let records = vec![threaded, overview];
        let read = Read {
            records: records.clone(),
            not_counted: vec![
                "#1 src/a.rs: mallory commented `/gauntlet dismiss f`, not counted: no write access".into(),
            ],
            unlisted: 1,
            left_out: vec!["#1 src/b.rs: GitHub listed 100 of the comment's 150 edits".into()],
            ..Read::default()
        };
        let web = WebRepo { host: Host::GitHub, base: "https://github.com/o/r".into() };
        let page = render("GitHub o/r", &read, &figures(&records), Some(&web));
        let row = page.split("<tr data-outcome=\"fixed\">").nth(1).unwrap().split("</tr>").next().unwrap();
        assert!(row.contains("<a href=\"https://github.com/o/r/pull/1\">#1</a>"), "{row}");
        assert!(row.contains("<code>src/a.rs</code>") && row.contains("<td>fixed</td>"), "{row}");
        assert!(row.contains("<a href=\"https://github.com/o/r/pull/1#discussion_r55\">thread</a>"), "{row}");
        let row = page.split("<tr data-outcome=\"open\">").nth(1).unwrap().split("</tr>").next().unwrap();
        assert!(row.contains("<a href=\"https://github.com/o/r/pull/2\">overview</a>"), "{row}");
        assert!(page.contains("mallory commented <code>/gauntlet dismiss f</code>, not counted"), "{page}");
        assert!(!page.contains('`'), "no literal backtick: {page}");
        assert!(page.contains("1 comment(s) whose edits the host did not list in full"), "{page}");
        assert!(!page.contains("someone other than the pipeline edited"), "nobody else edited: {page}");
        assert!(page.contains("<td class=\"n\">100% (1 fixed of 1 fixed or dismissed)</td>"), "{page}");
    }
}
