//! The human report for a terminal. Plain text; ANSI colour only when asked.
//! Model-provided text is printed with control characters escaped, so a claim
//! cannot move the cursor, clear the screen or forge colour.

use crate::Options;
use crate::fmt::{self, USAGE_HEADERS, USAGE_NUMERIC, clean, one_line};
use gauntlet_review::Review;
use gauntlet_review::contract::Severity;
use gauntlet_review::finding::Dropped;
use gauntlet_review::review::{Gap, Published};
use std::fmt::Write as _;

const RED: &str = "31";
const YELLOW: &str = "33";
const BLUE: &str = "34";
const BOLD: &str = "1";
const DIM: &str = "2";

/// Writes lines, colouring only when enabled.
struct Out {
    buf: String,
    color: bool,
}

impl Out {
    fn paint(&self, text: &str, code: &str) -> String {
        if self.color && !text.is_empty() { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }

    fn line(&mut self, text: &str) {
        self.buf.push_str(text);
        self.buf.push('\n');
    }

    /// A blank line, then a bold section heading.
    fn heading(&mut self, text: &str) {
        let h = self.paint(text, BOLD);
        self.line("");
        self.line(&h);
    }

    /// Every line of `text`, prefixed.
    fn block(&mut self, prefix: &str, text: &str) {
        for l in clean(text).lines() {
            self.line(format!("{prefix}{l}").trim_end());
        }
    }
}

pub(crate) fn render(review: &Review, opts: &Options) -> String {
    let mut out = Out { buf: String::new(), color: opts.color };
    header(&mut out, review);
    if let Some(verdict) = crate::coverage::empty_verdict(review) {
        out.line("");
        out.line(&verdict);
    }
    if !review.published.is_empty() {
        let n = review.published.len();
        out.heading(&fmt::plural(n, "finding", "findings"));
        for p in &review.published {
            finding(&mut out, p);
        }
    }
    if !review.minor.is_empty() {
        out.heading(&format!("{} {}", review.minor.len(), fmt::MINOR_HEADING));
        for p in &review.minor {
            out.line(&format!("  - {}", fmt::minor_line(p, one_line, one_line)));
        }
    }
    if !review.unverified.is_empty() {
        out.heading("could not be verified either way (not published; check by hand)");
        for p in &review.unverified {
            finding(&mut out, p);
        }
    }
    gaps(&mut out, &review.gaps);
    lists(&mut out, review);
    if opts.verbose {
        dropped(&mut out, &review.dropped);
    }
    usage(&mut out, review);
    out.buf
}

fn header(out: &mut Out, review: &Review) {
    let title = out.paint("gauntlet review", BOLD);
    let range = format!("{}..{}", fmt::short_rev(&one_line(&review.base)), fmt::short_rev(&one_line(&review.head)));
    out.line(&format!("{title} {range}"));
    if let Some(line) = fmt::provider_line(review, one_line) {
        out.line(&line);
    }
    if !review.reviewers.is_empty() {
        out.line(&format!("reviewers {}", one_line(&review.reviewers.join(", "))));
    }
    if let Some(skip) = &review.skipped {
        let s = out.paint("skipped:", YELLOW);
        out.line(&format!("{s} {}", one_line(&skip.reason)));
    }
    out.line(&fmt::funnel(&review.funnel));
}

fn severity(out: &Out, s: Severity) -> String {
    let label = format!("{:<6}", s.as_str().to_uppercase());
    let code = match s {
        Severity::High => RED,
        Severity::Medium => YELLOW,
        Severity::Low => BLUE,
    };
    // Pad outside the escape codes so columns line up either way.
    let painted = out.paint(label.trim_end(), &format!("{BOLD};{code}"));
    format!("{painted}{}", &label[label.trim_end().len()..])
}

/// The widest a finding's header line gets: it fits a 100-column terminal.
const HEADER_COLUMNS: usize = 100;

fn finding(out: &mut Out, p: &Published) {
    let outside = if p.inline { "" } else { " (outside the diff: overview)" };
    let id = format!("[{}]", one_line(&p.id));
    let confidence = format!("confidence {}", p.confidence);
    // `SEVERITY location  confidence N  [id]`: the location gives way when long.
    let fixed = 7 + outside.chars().count() + 2 + confidence.chars().count() + 2 + id.chars().count();
    let location = fmt::cut_left(&one_line(&p.location), HEADER_COLUMNS.saturating_sub(fixed));
    let head = format!("{} {location}{outside}  {confidence}  {}", severity(out, p.severity), out.paint(&id, DIM));
    out.line("");
    out.line(&head);
    out.line(&format!("  raised by {} · {}", one_line(&fmt::raised_by(p)), p.lens.as_str()));
    out.block("  ", &p.claim);
    out.block("    │ ", &p.evidence);
    let (answer, gap_label) = fmt::validator_label(p);
    labelled(out, answer, &p.validator_evidence);
    if let Some(gap) = &p.gap {
        labelled(out, gap_label, gap);
    }
    if !p.read.is_empty() {
        labelled(out, "read", &p.read.join(", "));
    }
    if !p.also_at.is_empty() {
        labelled(out, "also at", &p.also_at.join(", "));
    }
    for line in &p.unvalidated {
        labelled(out, "also raised, not validated", line);
    }
}

/// `  label: first line`, continuation lines indented under it.
fn labelled(out: &mut Out, label: &str, text: &str) {
    let text = clean(text);
    let mut lines = text.lines();
    out.line(format!("  {label}: {}", lines.next().unwrap_or("")).trim_end());
    for l in lines {
        out.line(format!("    {l}").trim_end());
    }
}

fn gaps(out: &mut Out, gaps: &[Gap]) {
    if gaps.is_empty() {
        return;
    }
    let title = format!("coverage gaps ({}): these parts did not run; do not assume they are clean", gaps.len());
    let h = out.paint(&title, &format!("{BOLD};{YELLOW}"));
    out.line("");
    out.line(&h);
    for (g, reviewers, times) in fmt::repeated_gaps(gaps) {
        let mut what = one_line(&g.step);
        match reviewers.as_slice() {
            [] => {}
            [one] => {
                let _ = write!(what, " · reviewer {}", one_line(one));
            }
            many => {
                let _ = write!(what, " · reviewers {}", one_line(&many.join(", ")));
            }
        }
        if let Some(f) = &g.finding {
            let _ = write!(what, " · finding {}", one_line(f));
        }
        out.line(&format!("  - {what}: {}{}", one_line(&g.message), fmt::times(times)));
    }
}

fn lists(out: &mut Out, review: &Review) {
    if !review.not_reviewed.is_empty() {
        out.heading(&format!("not reviewed ({})", review.not_reviewed.len()));
        for n in &review.not_reviewed {
            out.line(&format!("  - {}: {}", one_line(&n.path), one_line(&n.reason)));
        }
    }
    if !review.notes.is_empty() {
        out.heading("notes");
        for n in &review.notes {
            out.line(&format!("  - {}", one_line(n)));
        }
    }
}

fn dropped(out: &mut Out, dropped: &[Dropped]) {
    out.heading(&format!("dropped ({})", dropped.len()));
    for d in dropped {
        let confidence = d.confidence.map(|c| format!(", confidence {c}")).unwrap_or_default();
        out.line(&format!(
            "  - {}  {}  {}  ({}{confidence})",
            fmt::drop_reason(&d.reason),
            one_line(&d.location),
            one_line(&d.reviewer),
            d.severity.as_str(),
        ));
        out.block("      ", &d.claim);
        out.block("      why: ", &d.detail);
    }
}

fn usage(out: &mut Out, review: &Review) {
    out.heading("usage");
    let rows = fmt::usage_rows(review);
    if rows.is_empty() {
        out.line("  no model calls");
    } else {
        let cells: Vec<Vec<String>> = std::iter::once(USAGE_HEADERS.map(String::from))
            .chain(rows)
            .map(|r| r.iter().map(|c| one_line(c)).collect())
            .collect();
        for l in table(&cells) {
            out.line(format!("  {l}").trim_end());
        }
    }
    out.line("");
    if let Some(line) = fmt::sessions(review) {
        out.line(&line);
    }
    out.line(&format!("total wall time {}", fmt::wall(review.wall_ms)));
}

/// Aligned columns: text left, numbers right.
fn table(rows: &[Vec<String>]) -> Vec<String> {
    let cols = USAGE_HEADERS.len();
    let widths: Vec<usize> = (0..cols).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = (0..cols)
                .map(|i| match USAGE_NUMERIC[i] {
                    true => format!("{:>w$}", r[i], w = widths[i]),
                    false => format!("{:<w$}", r[i], w = widths[i]),
                })
                .collect();
            cells.join("  ")
        })
        .collect()
}
