//! The overview's account of dismissals: who dismissed which finding, and which
//! attempts did not count and why.

use crate::dismissal::{Dismissals, Form, Why};
use crate::host::Thread;
use crate::marker::FindingMarker;
use gauntlet_report::markdown::{code, text};

/// The overview's account of dismissals: one Markdown list item each.
#[derive(Clone, Debug, Default)]
pub struct DismissalLines {
    pub counted: Vec<String>,
    pub ignored: Vec<String>,
}

/// Lines of ignored dismissals shown at most; the rest are counted.
pub const MAX_IGNORED_LINES: usize = 10;

/// Who dismissed which finding, and which attempts did not count and why.
/// Attempts by the same person, in the same form, not counted for the same
/// reason, are one line with the number of findings; at most
/// [`MAX_IGNORED_LINES`] such lines, then how many more. Names and reasons are
/// people's text and are escaped.
pub fn dismissal_lines(threads: &[Thread], dismissals: &Dismissals) -> DismissalLines {
    let what = |t: usize| {
        let thread = &threads[t];
        let id = FindingMarker::parse(&thread.body).map(|m| m.id).unwrap_or_default();
        format!("{} (finding {})", code(&thread.path), code(&id))
    };
    let by_id = |id: &str| format!("finding {} (a pull request comment)", code(id));
    let because = |reason: Option<&str>| reason.map(|r| format!(": {}", text(r))).unwrap_or_default();
    let threads_counted = dismissals
        .counted
        .iter()
        .map(|c| format!("- {}: **{}** {}{}", what(c.thread), text(&c.by.name), c.form, because(c.reason.as_deref())));
    let ids_counted = dismissals.findings.iter().map(|f| {
        let form = Form::Command(f.verb);
        format!("- {}: **{}** {form}{}", by_id(&f.id), text(&f.by.name), because(f.reason.as_deref()))
    });
    let counted = threads_counted.chain(ids_counted).collect();
    let why_text = |why: &Why| match why {
        Why::Unchecked(message) => format!("the host could not say whether they may write ({})", text(message)),
        Why::EditedBy(editor) => format!("the reply was edited by {}, not by its author", text(editor)),
        why => why.to_string(),
    };
    let attempts =
        dismissals.ignored.iter().map(|i| (what(i.thread), &i.by, i.form, &i.why)).chain(
            dismissals.findings_ignored.iter().map(|(f, why)| (by_id(&f.id), &f.by, Form::Command(f.verb), why)),
        );
    // (who, how, why) in first-seen order, with what each attempt was on.
    let mut groups: Vec<((String, String, String), Vec<String>)> = Vec::new();
    for (on, by, form, why) in attempts {
        let key = (text(&by.name), form.to_string(), why_text(why));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(on),
            None => groups.push((key, vec![on])),
        }
    }
    let mut ignored: Vec<String> = groups
        .iter()
        .take(MAX_IGNORED_LINES)
        .map(|((who, how, why), list)| {
            let on = match &list[..] {
                [one] => one.clone(),
                _ => format!("{} findings", list.len()),
            };
            format!("- {on}: {who} {how}, not counted: {why}")
        })
        .collect();
    if groups.len() > MAX_IGNORED_LINES {
        let rest: usize = groups[MAX_IGNORED_LINES..].iter().map(|(_, l)| l.len()).sum();
        ignored.push(format!("- …and {rest} more attempts that did not count: see the pull request's threads."));
    }
    DismissalLines { counted, ignored }
}
