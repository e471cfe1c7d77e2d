//! The cases of the HTML report ([`crate::html`]): one row per case in a table
//! ([`case_columns`] and [`case_row`], the one place a column is added), then a
//! section per case, escapes first, with gauntlet's findings beside the
//! baseline's and the known defects missed, located.

use crate::corpus::Kind;
use crate::report::{Backtest, CaseResult};
use crate::score::{CaseScore, Missed, Reported, missed_by_description};
use gauntlet_report::html::escape;
use gauntlet_report::number::{self, cost};
use gauntlet_report::weblink::WebRepo;
use gauntlet_review::contract::Location;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The marks, each an icon and a word, so that nothing rests on colour.
pub const HIT: &str = "✓ hit";
pub const FALSE_POSITIVE: &str = "✗ false positive";
pub const MISSED: &str = "○ missed";

/// Each case's anchor (`case-NAME`, with anything but letters, digits, `-`
/// and `_` made `-`), unique on the page.
pub fn anchors(order: &[&CaseResult]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    order
        .iter()
        .map(|c| {
            let name: String = c
                .name
                .chars()
                .map(|ch| if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' { ch } else { '-' })
                .collect();
            let mut anchor = format!("case-{name}");
            let mut n = 2;
            while !seen.insert(anchor.clone()) {
                anchor = format!("case-{name}-{n}");
                n += 1;
            }
            anchor
        })
        .collect()
}

/// A case's outcome in a mark's class and a few words: every known defect
/// caught, some missed, a clean change left silent or not, or no run at all.
pub fn status(c: &CaseResult) -> (&'static str, String) {
    if c.left_out {
        return ("left-out", format!("– left out ({})", c.curation.status));
    }
    if c.error.is_some() {
        return ("failed", "⚠ failed".into());
    }
    let Some(g) = &c.gauntlet else { return ("failed", "– not run".into()) };
    let s = &g.score;
    match c.kind {
        Kind::Escape if s.caught == s.defects => ("hit", format!("✓ caught {}/{}", s.caught, s.defects)),
        Kind::Escape => ("missed", format!("○ missed {} of {}", s.defects - s.caught, s.defects)),
        Kind::Clean if s.published == 0 => ("hit", "✓ silent".into()),
        Kind::Clean => ("fp", format!("✗ {} false positive(s)", s.false_positives)),
    }
}

/// The per-case table's header, one name per cell [`case_row`] gives.
pub fn case_columns(with_baseline: bool) -> Vec<&'static str> {
    let mut columns = vec![
        "case",
        "kind",
        "curation",
        "outcome",
        "candidates",
        "published",
        "✓ hits",
        "✗ false positives",
        "duplicates",
        "caught",
        "validator sessions",
    ];
    if with_baseline {
        columns.push("baseline ✓ / ✗ / caught");
    }
    columns.extend(["tokens", "billed", "wall", "notes"]);
    columns
}

/// One row of the per-case table: a cell per [`case_columns`] name, each
/// already HTML (every text escaped here). Add a column here and there.
pub fn case_row(c: &CaseResult, anchor: &str, with_baseline: bool) -> Vec<String> {
    let (class, outcome) = status(c);
    let kind = match c.kind {
        Kind::Escape => "escape",
        Kind::Clean => "clean",
    };
    let mut row = vec![
        format!("<a href=\"#{anchor}\">{}</a>", escape(&c.name)),
        kind.to_string(),
        format!("<span class=\"curation {}\">{}</span>", c.curation.status, escape(&c.curation.label())),
        format!("<span class=\"mark {class}\">{}</span>", escape(&outcome)),
    ];
    let none = || number::NONE.to_string();
    match &c.gauntlet {
        Some(g) => {
            let s = &g.score;
            row.extend([
                g.funnel.candidates.to_string(),
                s.published.to_string(),
                s.true_positives.to_string(),
                s.false_positives.to_string(),
                s.duplicates.to_string(),
                format!("{}/{}", s.caught, s.defects),
                g.validator_sessions.run.to_string(),
            ]);
        }
        None => row.extend(std::iter::repeat_with(none).take(7)),
    }
    let mut notes: Vec<String> = Vec::new();
    if with_baseline {
        row.push(c.baseline.as_ref().map_or_else(none, |b| {
            if let Some(e) = &b.error {
                notes.push(format!("baseline: {e}"));
            }
            format!("{} / {} / {}", b.score.true_positives, b.score.false_positives, b.score.caught)
        }));
    }
    match &c.gauntlet {
        Some(g) => row.extend([number::tokens(g.spend.tokens), cost(g.spend.cost), number::seconds(g.spend.wall_ms)]),
        None => row.extend(std::iter::repeat_with(none).take(3)),
    }
    if c.left_out {
        notes.push(format!("left out: {}", c.curation.status));
    }
    if let Some(e) = &c.error {
        notes.push(format!("failed: {e}"));
    }
    if let Some(why) = &c.gate_would_skip {
        notes.push(format!("gate would skip: {why}"));
    }
    if let Some(g) = c.gauntlet.as_ref().filter(|g| !g.gaps.is_empty()) {
        notes.push(format!("{} gap(s)", g.gaps.len()));
    }
    row.push(escape(&notes.join("; ")));
    row
}

/// The per-case table, in reading order.
pub fn table(h: &mut String, b: &Backtest, order: &[&CaseResult], anchors: &[String]) {
    let with_baseline = b.baseline.is_some();
    h.push_str("<h2 id=\"h-case-table\">Cases at a glance</h2><div class=\"wide\"><table id=\"case-table\"><tr>");
    for name in case_columns(with_baseline) {
        let _ = write!(h, "<th>{name}</th>");
    }
    h.push_str("</tr>\n");
    for (c, anchor) in order.iter().zip(anchors) {
        let _ = write!(h, "<tr data-case=\"{}\">", escape(&c.name));
        for cell in case_row(c, anchor, with_baseline) {
            let _ = write!(h, "<td>{cell}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
}

/// Every case's section, in reading order.
pub fn sections(h: &mut String, b: &Backtest, order: &[&CaseResult], anchors: &[String], web: Option<&WebRepo>) {
    h.push_str("<h2 id=\"h-cases\">Cases</h2><div id=\"cases\">\n");
    for (c, anchor) in order.iter().zip(anchors) {
        section(h, c, anchor, b.baseline.is_some(), web);
    }
    h.push_str("</div>\n");
}

/// Links for one case: its head revision's lines, when the web address is
/// known and the revision is a commit id.
struct Links<'a> {
    web: Option<&'a WebRepo>,
    head: &'a str,
}

/// Whether `rev` is a commit id (a host knows it), not a branch name.
fn is_commit(rev: &str) -> bool {
    (7..=64).contains(&rev.len()) && rev.chars().all(|c| c.is_ascii_hexdigit())
}

impl Links<'_> {
    /// `<code>path:lines</code>`, linked to the lines at head when possible.
    fn location(&self, text: &str) -> String {
        let code = format!("<code>{}</code>", escape(text));
        let target = self.web.filter(|_| is_commit(self.head)).zip(Location::parse(text));
        match target {
            Some((web, at)) => {
                format!("<a href=\"{}\">{code}</a>", escape(&web.lines(self.head, &at.path, at.start, at.end)))
            }
            None => code,
        }
    }

    /// A commit id shortened to 12, linked to its page when possible.
    fn commit(&self, sha: &str) -> String {
        let code = format!("<code>{}</code>", escape(gauntlet_report::plain::prefix(sha, 12)));
        match self.web.filter(|_| is_commit(sha)) {
            Some(web) => format!("<a href=\"{}\">{code}</a>", escape(&web.commit(sha))),
            None => code,
        }
    }
}

fn section(h: &mut String, c: &CaseResult, anchor: &str, with_baseline: bool, web: Option<&WebRepo>) {
    let links = Links { web, head: &c.head };
    let failed = if c.error.is_some() { " failed" } else { "" };
    let mut kind = format!("{:?}", c.kind).to_lowercase();
    if let Some(confidence) = c.confidence {
        kind.push_str(&format!(", mined, confidence {confidence:?}"));
    }
    let (class, outcome) = status(c);
    let _ = write!(
        h,
        "<section class=\"case {}{failed}\" id=\"{anchor}\" data-case=\"{}\"><h3><a href=\"#{anchor}\">{}</a> \
         <small>({kind})</small> <span class=\"mark {class}\">{}</span>{}</h3><p>{}</p>",
        if c.kind == Kind::Escape { "escape" } else { "clean" },
        escape(&c.name),
        escape(&c.name),
        escape(&outcome),
        curation_badge(c),
        escape(&c.description)
    );
    if !c.head.is_empty() {
        let _ = write!(h, "<p class=\"head\">Reviewed at {}.</p>", links.commit(&c.head));
    }
    for fix in &c.fix {
        let _ = write!(h, "<p class=\"fix\">Fixed later by {} {}</p>", links.commit(&fix.sha), escape(&fix.subject));
    }
    if let Some(e) = &c.error {
        let _ = write!(
            h,
            "<p class=\"error\"><span class=\"mark failed\">⚠ failed</span> Could not run: {}</p>",
            escape(e)
        );
    }
    if let Some(why) = &c.gate_would_skip {
        let _ = write!(h, "<p>The gate would have skipped it: {}</p>", escape(why));
    }
    let Some(g) = &c.gauntlet else {
        h.push_str("</section>\n");
        return;
    };
    let f = &g.funnel;
    let _ = write!(
        h,
        "<p class=\"funnel\">{} candidates, {} grounded, {} clustered, {} survived, {} published; {}/{} known \
         defect(s) caught; {} duplicate(s); {} validator session(s); {} tokens, {} billed, {}.</p>",
        f.candidates,
        f.grounded,
        f.clustered,
        f.survived,
        f.published,
        g.score.caught,
        g.score.defects,
        g.score.duplicates,
        g.validator_sessions.run,
        number::tokens(g.spend.tokens),
        cost(g.spend.cost),
        number::seconds(g.spend.wall_ms)
    );
    h.push_str("<div class=\"sides\"><div class=\"side\" data-side=\"gauntlet\"><h4>gauntlet</h4>");
    findings(h, &links, &g.findings, &g.score, true, |r| {
        crate::judge::report::html_answer(g.judge.as_ref(), &r.location, &r.claim)
    });
    missed(h, &links, &g.score.missed);
    for gap in &g.gaps {
        let _ = write!(h, "<p class=\"gap\">Not covered: {}</p>", escape(gap));
    }
    h.push_str(&crate::judge::report::html_case("gauntlet", g.judge.as_ref()));
    h.push_str("</div>");
    if with_baseline {
        h.push_str("<div class=\"side\" data-side=\"baseline\"><h4>single-pass baseline</h4>");
        match &c.baseline {
            Some(b) => {
                if let Some(e) = &b.error {
                    let _ = write!(h, "<p class=\"error\">Its answer could not be read: {}</p>", escape(e));
                }
                let judged = b.judge.as_ref();
                findings(h, &links, &b.findings, &b.score, false, |r| {
                    crate::judge::report::html_answer(judged, &r.location, &r.claim)
                });
                missed(h, &links, &b.score.missed);
                h.push_str(&crate::judge::report::html_case("baseline", judged));
            }
            None => h.push_str("<p>Not run.</p>"),
        }
        h.push_str("</div>");
    }
    h.push_str("</div></section>\n");
}

/// One side's published findings, each marked hit or false positive; with
/// `name_reviewers`, every reviewer that raised it.
fn findings(
    h: &mut String,
    links: &Links<'_>,
    found: &[Reported],
    score: &CaseScore,
    name_reviewers: bool,
    judged: impl Fn(&Reported) -> String,
) {
    if found.is_empty() {
        h.push_str("<p class=\"silent\">Published nothing.</p>");
        return;
    }
    h.push_str("<ul class=\"findings\">");
    for r in found {
        let (class, mark) = if score.unmatched.contains(r) { ("fp", FALSE_POSITIVE) } else { ("hit", HIT) };
        let also = if r.also_at.is_empty() {
            String::new()
        } else {
            let places: Vec<String> = r.also_at.iter().map(|a| links.location(a)).collect();
            format!(" <span class=\"also\">also at {}</span>", places.join(", "))
        };
        let by = if name_reviewers {
            format!(" <span class=\"by\">raised by {}</span>", escape(&r.credited().join(", ")))
        } else {
            String::new()
        };
        let _ = write!(
            h,
            "<li class=\"{class}\" data-mark=\"{class}\"><span class=\"mark\">{mark}</span> {}{also} {}{by}{}</li>",
            links.location(&r.location),
            escape(&r.claim),
            judged(r)
        );
    }
    h.push_str("</ul>");
}

/// The known defects a side missed: each description once, each location once.
fn missed(h: &mut String, links: &Links<'_>, missed: &[Missed]) {
    if missed.is_empty() {
        return;
    }
    h.push_str("<ul class=\"missed\">");
    for (description, places) in missed_by_description(missed) {
        let mark = format!("<span class=\"mark\">{MISSED}</span>");
        match places.as_slice() {
            [] => {
                let _ = write!(h, "<li class=\"missed\" data-mark=\"missed\">{mark} {}</li>", escape(description));
            }
            [one] => {
                let _ = write!(
                    h,
                    "<li class=\"missed\" data-mark=\"missed\">{mark} {}: {}</li>",
                    links.location(one),
                    escape(description)
                );
            }
            many => {
                let _ = write!(h, "<li class=\"missed-group\">{}<ul>", escape(description));
                for at in many {
                    let _ = write!(h, "<li class=\"missed\" data-mark=\"missed\">{mark} {}</li>", links.location(at));
                }
                h.push_str("</ul></li>");
            }
        }
    }
    h.push_str("</ul>");
}

/// A case's curation state, in words: `[accepted: why]`, `[unreviewed, left out]`.
fn curation_badge(c: &CaseResult) -> String {
    let left_out = if c.left_out { ", left out" } else { "" };
    format!(" <small class=\"curation {}\">[{}{left_out}]</small>", c.curation.status, escape(&c.curation.label()))
}

#[cfg(test)]
mod tests;
