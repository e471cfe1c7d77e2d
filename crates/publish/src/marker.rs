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
    /// The findings the overview lists instead of an inline comment (outside
    /// the diff, over the cap, carried over from an earlier run), so a later
    /// run that does not review them still knows they stand. `None` for an
    /// overview written before this was recorded (the field is absent), or
    /// one still to be filled in ([`crate::sync`] does).
    pub held: Option<Vec<Held>>,
    /// [`era_tag`] of the rules version and the standard-tier model this run
    /// reviewed with; the run's new finding comments carry it too, so a record
    /// of precision can start again when either changes. `None` in an overview
    /// written before this was recorded.
    pub era: Option<String>,
}

/// A finding only the overview shows: enough to count it toward `--fail-on`
/// and to tell whether a later run reviewed its file again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub id: String,
    pub severity: Severity,
    /// [`path_tag`] of the file it is located in.
    pub path: String,
}

/// A short, stable tag of a path (64-bit FNV-1a, hex): markers hold only
/// ids, commits and digests, and a path may hold any character.
pub fn path_tag(path: &str) -> String {
    let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")
}

impl Held {
    fn render(&self) -> String {
        let sev = match self.severity {
            Severity::High => 'h',
            Severity::Medium => 'm',
            Severity::Low => 'l',
        };
        format!("{sev}.{}.{}", clean(&self.id).replace(['.', '+'], ""), clean(&self.path).replace(['.', '+'], ""))
    }

    fn parse(text: &str) -> Option<Held> {
        let mut parts = text.split('.');
        let severity = match parts.next()? {
            "h" => Severity::High,
            "m" => Severity::Medium,
            "l" => Severity::Low,
            _ => return None,
        };
        let (id, path) = (parts.next()?.to_string(), parts.next()?.to_string());
        (parts.next().is_none() && !id.is_empty()).then_some(Held { id, severity, path })
    }
}

use gauntlet_review::contract::Severity;

/// What an inline comment remembers: which finding it is, and whether the
/// pipeline itself marked it resolved (so a resolution by anyone else reads as
/// a dismissal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindingMarker {
    pub id: String,
    pub resolved: bool,
    /// [`era_tag`] of the run that raised the finding; `None` for a comment
    /// written before this was recorded.
    pub era: Option<String>,
}

/// A short tag of the rules version and the standard-tier model a review ran
/// with: findings of one era are measured together.
pub fn era_tag(rules: &str, model: &str) -> String {
    path_tag(&format!("{rules}\n{model}"))
}

/// `body` (a finding comment) with its marker stamped with `era`; unchanged
/// when it has no finding marker.
pub fn stamp_era(body: &str, era: &str) -> String {
    let Some(marker) = FindingMarker::parse(body) else { return body.to_string() };
    let marker = FindingMarker { era: Some(era.to_string()), ..marker };
    format!("{}{}", marker.render(), strip(body))
}

const OVERVIEW: &str = "gauntlet:overview";
const FINDING: &str = "gauntlet:finding";

impl OverviewMarker {
    /// The first line of an overview body, blank line included.
    /// The held findings go last, as `held=-` when there are none, so an
    /// older gauntlet reading this marker sees the fields it knows.
    pub fn render(&self) -> String {
        let held = match &self.held {
            None => String::new(),
            Some(list) if list.is_empty() => " held=-".to_string(),
            Some(list) => format!(" held={}", list.iter().map(Held::render).collect::<Vec<_>>().join("+")),
        };
        let era = self.era.as_deref().map(|e| format!(" era={}", clean(e))).unwrap_or_default();
        format!(
            "<!-- {OVERVIEW} v1 head={} rules={} config={}{era}{held} -->\n\n",
            clean(&self.head),
            clean(&self.rules),
            clean(&self.config)
        )
    }

    pub fn parse(body: &str) -> Option<OverviewMarker> {
        let fields = fields(body, OVERVIEW)?;
        let held = field(&fields, "held").map(|h| match h {
            "-" => Vec::new(),
            list => list.split('+').filter_map(Held::parse).collect(),
        });
        Some(OverviewMarker {
            head: field(&fields, "head")?.to_string(),
            rules: field(&fields, "rules").unwrap_or_default().to_string(),
            config: field(&fields, "config").unwrap_or_default().to_string(),
            held,
            era: field(&fields, "era").map(str::to_string),
        })
    }
}

impl FindingMarker {
    pub fn render(&self) -> String {
        let state = if self.resolved { " state=resolved" } else { "" };
        let era = self.era.as_deref().map(|e| format!(" era={}", clean(e))).unwrap_or_default();
        format!("<!-- {FINDING} v1 id={}{era}{state} -->\n\n", clean(&self.id))
    }

    pub fn parse(body: &str) -> Option<FindingMarker> {
        let fields = fields(body, FINDING)?;
        Some(FindingMarker {
            id: field(&fields, "id")?.to_string(),
            resolved: field(&fields, "state") == Some("resolved"),
            era: field(&fields, "era").map(str::to_string),
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
        let o = OverviewMarker {
            head: "abc123".into(),
            rules: "sha256:9f86".into(),
            config: "c0ffee".into(),
            held: None,
            era: None,
        };
        assert_eq!(OverviewMarker::parse(&format!("{}body", o.render())), Some(o.clone()));
        let f = FindingMarker { id: "3f2a9c01".into(), resolved: true, era: None };
        assert_eq!(FindingMarker::parse(&f.render()), Some(f));
        let f = FindingMarker { id: "3f2a9c01".into(), resolved: true, era: Some(era_tag("v3", "anthropic:x")) };
        assert_eq!(FindingMarker::parse(&f.render()), Some(f));
        let o = OverviewMarker { era: Some("00ff".into()), ..OverviewMarker::parse(&o.render()).unwrap() };
        assert_eq!(OverviewMarker::parse(&o.render()), Some(o));
    }

    #[test]
    fn a_channel_rules_version_keeps_its_tag_and_lock_hash_in_the_marker() {
        let o = OverviewMarker {
            head: "abc".into(),
            rules: "v3+lock:9f86d081884c".into(),
            config: "c".into(),
            held: None,
            era: None,
        };
        assert_eq!(OverviewMarker::parse(&o.render()).unwrap().rules, "v3+lock:9f86d081884c");
    }

    #[test]
    fn held_findings_round_trip_and_an_older_marker_says_nothing_about_them() {
        let held = vec![
            Held { id: "5e0c1d2b3a4f6e7d".into(), severity: Severity::High, path: path_tag("src/a b.rs") },
            Held { id: "0011".into(), severity: Severity::Low, path: path_tag("lib/c.py") },
        ];
        let o = OverviewMarker {
            head: "abc".into(),
            rules: "v3+lock:9f".into(),
            config: "c".into(),
            held: Some(held),
            era: None,
        };
        assert_eq!(OverviewMarker::parse(&o.render()), Some(o.clone()));
        let none = OverviewMarker { held: Some(vec![]), ..o.clone() };
        assert_eq!(OverviewMarker::parse(&none.render()).unwrap().held, Some(vec![]));
        let old = "<!-- gauntlet:overview v1 head=abc rules=r config=c -->\n\nbody";
        assert_eq!(OverviewMarker::parse(old).unwrap().held, None, "unknown, not empty");
        assert_ne!(path_tag("src/a.rs"), path_tag("src/b.rs"));
    }

    #[test]
    fn an_era_stamp_keeps_the_rest_of_the_comment_and_an_older_marker_has_none() {
        let body = "<!-- gauntlet:finding v1 id=ab state=resolved -->\n\n**high** · x\n\nclaim";
        let stamped = stamp_era(body, "e1");
        let m = FindingMarker::parse(&stamped).unwrap();
        assert_eq!((m.id.as_str(), m.resolved, m.era.as_deref()), ("ab", true, Some("e1")));
        assert_eq!(strip(&stamped), strip(body));
        assert_eq!(FindingMarker::parse(body).unwrap().era, None);
        assert_eq!(stamp_era("no marker", "e1"), "no marker");
        assert_ne!(era_tag("v3", "a"), era_tag("v4", "a"));
        assert_ne!(era_tag("v3", "a"), era_tag("v3", "b"));
    }

    #[test]
    fn only_the_first_line_counts() {
        let body = "Hello\n\n<!-- gauntlet:overview v1 head=abc rules=x config=y -->";
        assert_eq!(OverviewMarker::parse(body), None);
        assert_eq!(FindingMarker::parse("<!-- gauntlet:overview v1 head=abc -->"), None);
    }

    #[test]
    fn values_cannot_break_out_of_the_marker() {
        let f = FindingMarker { id: "x --> <b>hi</b> state=resolved".into(), resolved: false, era: None };
        let parsed = FindingMarker::parse(&f.render()).unwrap();
        assert!(!parsed.resolved);
        assert_eq!(parsed.id, "x--bhibstateresolved");
    }

    #[test]
    fn strip_removes_the_marker_line() {
        let f = FindingMarker { id: "a".into(), resolved: false, era: None };
        assert_eq!(strip(&format!("{}text", f.render())), "text");
        assert_eq!(strip("plain\ntext"), "plain\ntext");
    }
}
