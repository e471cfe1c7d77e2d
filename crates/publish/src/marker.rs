//! The hidden markers that let a later run find gauntlet's own comments.
//!
//! A marker is an HTML comment on the first line of a comment body, followed by
//! a blank line; hosts render neither. Only the first line is ever read, and
//! every model text in a body is escaped (`<` becomes `&lt;`), so a marker
//! smuggled into a claim is inert text further down the body.

/// What the overview comment remembers between runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverviewMarker {
    /// The head commit the last run reviewed.
    pub head: String,
    pub rules: String,
    /// A digest of the configuration that changes a review's outcome.
    pub config: String,
}

/// What an inline comment remembers: which finding it is, and whether the
/// pipeline itself marked it resolved (so a resolution by anyone else reads as
/// a dismissal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindingMarker {
    pub id: String,
    pub resolved: bool,
}

const OVERVIEW: &str = "gauntlet:overview";
const FINDING: &str = "gauntlet:finding";

impl OverviewMarker {
    /// The first line of an overview body, blank line included.
    pub fn render(&self) -> String {
        format!(
            "<!-- {OVERVIEW} v1 head={} rules={} config={} -->\n\n",
            clean(&self.head),
            clean(&self.rules),
            clean(&self.config)
        )
    }

    pub fn parse(body: &str) -> Option<OverviewMarker> {
        let fields = fields(body, OVERVIEW)?;
        Some(OverviewMarker {
            head: field(&fields, "head")?.to_string(),
            rules: field(&fields, "rules").unwrap_or_default().to_string(),
            config: field(&fields, "config").unwrap_or_default().to_string(),
        })
    }
}

impl FindingMarker {
    pub fn render(&self) -> String {
        let state = if self.resolved { " state=resolved" } else { "" };
        format!("<!-- {FINDING} v1 id={}{state} -->\n\n", clean(&self.id))
    }

    pub fn parse(body: &str) -> Option<FindingMarker> {
        let fields = fields(body, FINDING)?;
        Some(FindingMarker {
            id: field(&fields, "id")?.to_string(),
            resolved: field(&fields, "state") == Some("resolved"),
        })
    }
}

/// The body after its marker line and blank line (the whole body when it has none).
pub fn strip(body: &str) -> &str {
    let body = body.trim_start_matches('\u{feff}');
    match body.split_once('\n') {
        Some((first, rest)) if first.trim_end().starts_with("<!-- gauntlet:") => rest.trim_start_matches(['\r', '\n']),
        _ => body,
    }
}

/// The `key=value` fields of a marker of `kind` on the body's first line.
fn fields<'a>(body: &'a str, kind: &str) -> Option<Vec<(&'a str, &'a str)>> {
    // Hosts may hand bodies back with a byte-order mark or CRLF line ends.
    let first = body.trim_start_matches('\u{feff}').lines().next()?.trim();
    let inner = first.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    let mut words = inner.split_whitespace();
    if words.next()? != kind || words.next()? != "v1" {
        return None;
    }
    words.map(|w| w.split_once('=')).collect()
}

fn field<'a>(fields: &[(&'a str, &'a str)], key: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).filter(|v| !v.is_empty())
}

/// Values are ids, commits and digests; anything else is dropped so a value can
/// never end the comment or add a field.
fn clean(value: &str) -> String {
    // `+` joins a rules channel's tag and the lock hash in a rules version (`v3+lock:…`).
    value.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-' | '+')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        let o = OverviewMarker { head: "abc123".into(), rules: "sha256:9f86".into(), config: "c0ffee".into() };
        assert_eq!(OverviewMarker::parse(&format!("{}body", o.render())), Some(o));
        let f = FindingMarker { id: "3f2a9c01".into(), resolved: true };
        assert_eq!(FindingMarker::parse(&f.render()), Some(f));
    }

    #[test]
    fn a_channel_rules_version_keeps_its_tag_and_lock_hash_in_the_marker() {
        let o = OverviewMarker { head: "abc".into(), rules: "v3+lock:9f86d081884c".into(), config: "c".into() };
        assert_eq!(OverviewMarker::parse(&o.render()).unwrap().rules, "v3+lock:9f86d081884c");
    }

    #[test]
    fn only_the_first_line_counts() {
        let body = "Hello\n\n<!-- gauntlet:overview v1 head=abc rules=x config=y -->";
        assert_eq!(OverviewMarker::parse(body), None);
        assert_eq!(FindingMarker::parse("<!-- gauntlet:overview v1 head=abc -->"), None);
    }

    #[test]
    fn values_cannot_break_out_of_the_marker() {
        let f = FindingMarker { id: "x --> <b>hi</b> state=resolved".into(), resolved: false };
        let parsed = FindingMarker::parse(&f.render()).unwrap();
        assert!(!parsed.resolved);
        assert_eq!(parsed.id, "x--bhibstateresolved");
    }

    #[test]
    fn strip_removes_the_marker_line() {
        let f = FindingMarker { id: "a".into(), resolved: false };
        assert_eq!(strip(&format!("{}text", f.render())), "text");
        assert_eq!(strip("plain\ntext"), "plain\ntext");
    }
}
