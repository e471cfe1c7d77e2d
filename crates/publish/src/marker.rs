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
    /// Findings an earlier overview held that a later run no longer found, newest
    /// last: the overview is edited in place, so this is the only trace of them
    /// the record ([`crate::history`]) can read. Empty in an older overview.
    pub gone: Vec<Gone>,
    /// The run left a candidate it could not validate either way
    /// ([`gauntlet_review::Review::undecided`]): the next run reviews the whole
    /// pull request again instead of skipping this head or reviewing only what
    /// came after it, so "Re-run" or one more push never passes what was never
    /// judged. `false` in an older overview.
    pub incomplete: bool,
    /// The findings the pipeline's inline threads showed open when this overview
    /// was written, with the severity the pipeline gave them. Anyone with write
    /// access can edit a thread's comment, its marker included, but not a sealed
    /// overview, so what stands is read from here, never lower than this
    /// ([`crate::standing::bind`]). `None` in an older overview.
    pub open: Option<Vec<Held>>,
}

/// A finding only the overview shows: enough to count it toward `--fail-on`,
/// to tell whether a later run reviewed its file again, and to count its
/// outcome in the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub id: String,
    pub severity: Severity,
    /// [`path_tag`] of the file it is located in.
    pub path: String,
    /// The first line it flags, at the overview's head; `None` in an entry
    /// written before this was recorded.
    pub line: Option<u32>,
    /// Every reviewer that raised it (`raised_by`, or the one reviewer); empty
    /// in an entry written before this was recorded, which the record leaves
    /// out as unreadable.
    pub reviewers: Vec<String>,
    /// [`era_tag`] of the run that raised it, which a later run carrying it
    /// keeps; `None` in an entry written before this was recorded (its outcome
    /// then belongs to no era).
    pub era: Option<String>,
}

/// A held finding a later run reviewed its file again and did not raise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gone {
    pub id: String,
    pub severity: Severity,
    /// The flagged line changed between the run that held it and the run that
    /// dropped it: fixed; otherwise withdrawn.
    pub fixed: bool,
    pub reviewers: Vec<String>,
    /// As [`Held::era`]: the era of the run that raised it.
    pub era: Option<String>,
}

/// A short, stable tag of a path (64-bit FNV-1a, hex): markers hold only
/// ids, commits and digests, and a path may hold any character.
pub fn path_tag(path: &str) -> String {
    let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")
}

impl Held {
    /// `sev.id.path`: all an older gauntlet reads of a held finding.
    fn render(&self) -> String {
        format!("{}.{}.{}", sev_char(self.severity), token(&self.id), token(&self.path))
    }

    /// `id.line.reviewers`, then `.era` when it has one, for the `held_at`
    /// field; `None` without a line.
    fn render_at(&self) -> Option<String> {
        Some(format!("{}.{}.{}{}", token(&self.id), self.line?, names(&self.reviewers), era_part(&self.era)))
    }

    fn parse(text: &str) -> Option<Held> {
        let mut parts = text.split('.');
        let severity = sev_of(parts.next()?)?;
        let (id, path) = (parts.next()?.to_string(), parts.next()?.to_string());
        let (line, reviewers, era) = (None, Vec::new(), None);
        (parts.next().is_none() && !id.is_empty()).then_some(Held { id, severity, path, line, reviewers, era })
    }

    /// The id, line, reviewers and era of a `held_at` entry.
    fn parse_at(text: &str) -> Option<(&str, u32, Vec<String>, Option<String>)> {
        let (id, line, reviewers, era) = match text.split('.').collect::<Vec<_>>()[..] {
            [id, line, reviewers] => (id, line, reviewers, None),
            [id, line, reviewers, era] if !era.is_empty() => (id, line, reviewers, Some(era.to_string())),
            _ => return None,
        };
        let reviewers = unnames(reviewers)?;
        (!reviewers.is_empty()).then_some((id, line.parse().ok()?, reviewers, era))
    }
}

impl Gone {
    /// How many characters this entry takes in the marker.
    pub fn rendered_len(&self) -> usize {
        self.render().len()
    }

    /// `{f|w}sev.id.reviewers`, then `.era` when it has one.
    fn render(&self) -> String {
        let how = if self.fixed { 'f' } else { 'w' };
        let era = era_part(&self.era);
        format!("{how}{}.{}.{}{era}", sev_char(self.severity), token(&self.id), names(&self.reviewers))
    }

    fn parse(text: &str) -> Option<Gone> {
        let (head, id, reviewers, era) = match text.split('.').collect::<Vec<_>>()[..] {
            [head, id, reviewers] => (head, id, reviewers, None),
            [head, id, reviewers, era] if !era.is_empty() => (head, id, reviewers, Some(era.to_string())),
            _ => return None,
        };
        let mut head = head.chars();
        let fixed = match head.next()? {
            'f' => true,
            'w' => false,
            _ => return None,
        };
        let severity = sev_of(head.as_str())?;
        let reviewers = unnames(reviewers)?;
        (!id.is_empty() && !reviewers.is_empty()).then(|| Gone { id: id.to_string(), severity, fixed, reviewers, era })
    }
}

/// An entry's era as its optional last part (`.era`); nothing without one.
fn era_part(era: &Option<String>) -> String {
    era.as_deref().map(token).filter(|e| !e.is_empty()).map(|e| format!(".{e}")).unwrap_or_default()
}

fn sev_char(severity: Severity) -> char {
    match severity {
        Severity::High => 'h',
        Severity::Medium => 'm',
        Severity::Low => 'l',
    }
}

fn sev_of(text: &str) -> Option<Severity> {
    match text {
        "h" => Some(Severity::High),
        "m" => Some(Severity::Medium),
        "l" => Some(Severity::Low),
        _ => None,
    }
}

/// An id or tag as one part of a held or gone entry: without the `.` and `+`
/// that separate parts and entries.
fn token(value: &str) -> String {
    clean(value).replace(['.', '+'], "")
}

/// Reviewer names, which are rule names and may hold any character, as one
/// part of an entry: each name keeps its ASCII letters, digits and `-`, every
/// other byte becomes `_` and two hex digits, and `:` joins the names. What
/// comes out is left alone by [`clean`] and holds neither `.` nor `+`.
fn names(reviewers: &[String]) -> String {
    let one = |name: &String| {
        name.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' => char::from(b).to_string(),
                _ => format!("_{b:02x}"),
            })
            .collect::<String>()
    };
    reviewers.iter().map(one).collect::<Vec<_>>().join(":")
}

/// The names [`names`] wrote; `None` when `text` is not what it writes.
fn unnames(text: &str) -> Option<Vec<String>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(':')
        .map(|name| {
            let mut bytes = Vec::new();
            let mut rest = name.as_bytes();
            while let Some((&b, tail)) = rest.split_first() {
                if b == b'_' {
                    let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
                    bytes.push(u8::from_str_radix(hex, 16).ok()?);
                    rest = &tail[2..];
                } else if b.is_ascii_alphanumeric() || b == b'-' {
                    bytes.push(b);
                    rest = tail;
                } else {
                    return None;
                }
            }
            String::from_utf8(bytes).ok().filter(|n| !n.is_empty())
        })
        .collect()
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
    /// The held findings go last, as `held=-` when there are none, then their
    /// lines and reviewers (`held_at`) and the gone findings when there are any:
    /// an older gauntlet reading this marker sees the fields it knows, in the
    /// form it knows.
    pub fn render(&self) -> String {
        let mut held = match &self.held {
            None => String::new(),
            Some(list) if list.is_empty() => " held=-".to_string(),
            Some(list) => format!(" held={}", list.iter().map(Held::render).collect::<Vec<_>>().join("+")),
        };
        let at: Vec<String> = self.held.iter().flatten().filter_map(Held::render_at).collect();
        if !at.is_empty() {
            held.push_str(&format!(" held_at={}", at.join("+")));
        }
        if !self.gone.is_empty() {
            held.push_str(&format!(" gone={}", self.gone.iter().map(Gone::render).collect::<Vec<_>>().join("+")));
        }
        match &self.open {
            None => {}
            Some(list) if list.is_empty() => held.push_str(" open=-"),
            Some(list) => {
                held.push_str(&format!(" open={}", list.iter().map(Held::render).collect::<Vec<_>>().join("+")))
            }
        }
        let mut era = self.era.as_deref().map(|e| format!(" era={}", clean(e))).unwrap_or_default();
        if self.incomplete {
            era.push_str(" incomplete=1");
        }
        format!(
            "<!-- {OVERVIEW} v1 head={} rules={} config={}{era}{held} -->\n\n",
            clean(&self.head),
            clean(&self.rules),
            clean(&self.config)
        )
    }

    pub fn parse(body: &str) -> Option<OverviewMarker> {
        let fields = fields(body, OVERVIEW)?;
        let mut held: Option<Vec<Held>> = field(&fields, "held").map(|h| match h {
            "-" => Vec::new(),
            list => list.split('+').filter_map(Held::parse).collect(),
        });
        let at = field(&fields, "held_at").unwrap_or_default().split('+').filter_map(Held::parse_at);
        for (id, line, reviewers, era) in at {
            if let Some(h) = held.iter_mut().flatten().find(|h| h.id == id) {
                (h.line, h.reviewers, h.era) = (Some(line), reviewers, era);
            }
        }
        let gone = field(&fields, "gone").map(|g| g.split('+').filter_map(Gone::parse).collect());
        Some(OverviewMarker {
            head: field(&fields, "head")?.to_string(),
            rules: field(&fields, "rules").unwrap_or_default().to_string(),
            config: field(&fields, "config").unwrap_or_default().to_string(),
            held,
            era: field(&fields, "era").map(str::to_string),
            gone: gone.unwrap_or_default(),
            incomplete: field(&fields, "incomplete") == Some("1"),
            open: field(&fields, "open").map(|o| match o {
                "-" => Vec::new(),
                list => list.split('+').filter_map(Held::parse).collect(),
            }),
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
            gone: Vec::new(),
            incomplete: false,
            open: None,
        };
        assert_eq!(OverviewMarker::parse(&format!("{}body", o.render())), Some(o.clone()));
        let incomplete = OverviewMarker { incomplete: true, ..o.clone() };
        assert!(incomplete.render().contains(" incomplete=1 "), "{}", incomplete.render());
        assert_eq!(OverviewMarker::parse(&incomplete.render()), Some(incomplete));
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
            gone: Vec::new(),
            incomplete: false,
            open: None,
        };
        assert_eq!(OverviewMarker::parse(&o.render()).unwrap().rules, "v3+lock:9f86d081884c");
    }

    #[test]
    fn held_findings_round_trip_and_an_older_marker_says_nothing_about_them() {
        let held = vec![
            Held {
                id: "5e0c1d2b3a4f6e7d".into(),
                severity: Severity::High,
                path: path_tag("src/a b.rs"),
                line: None,
                reviewers: vec![],
                era: None,
            },
            Held {
                id: "0011".into(),
                severity: Severity::Low,
                path: path_tag("lib/c.py"),
                line: None,
                reviewers: vec![],
                era: None,
            },
        ];
        let o = OverviewMarker {
            head: "abc".into(),
            rules: "v3+lock:9f".into(),
            config: "c".into(),
            held: Some(held),
            era: None,
            gone: Vec::new(),
            incomplete: false,
            open: None,
        };
        assert_eq!(OverviewMarker::parse(&o.render()), Some(o.clone()));
        let none = OverviewMarker { held: Some(vec![]), ..o.clone() };
        assert_eq!(OverviewMarker::parse(&none.render()).unwrap().held, Some(vec![]));
        let old = "<!-- gauntlet:overview v1 head=abc rules=r config=c -->\n\nbody";
        assert_eq!(OverviewMarker::parse(old).unwrap().held, None, "unknown, not empty");
        assert_ne!(path_tag("src/a.rs"), path_tag("src/b.rs"));
    }

    /// Reviewer names are rule names: whatever they hold, the marker stays one
    /// line of fields and gives the names back as they were.
    #[test]
    fn held_and_gone_entries_keep_lines_and_any_reviewer_name() {
        let odd: Vec<String> =
            ["logic", "a.b+c", "x --> y=z", "naïve_rule:v2", "_5f", "-"].iter().map(|s| s.to_string()).collect();
        let o = OverviewMarker {
            head: "abc".into(),
            rules: "r".into(),
            config: "c".into(),
            held: Some(vec![
                Held {
                    id: "aa".into(),
                    severity: Severity::Medium,
                    path: path_tag("a"),
                    line: Some(12),
                    reviewers: odd.clone(),
                    era: Some("e0".into()),
                },
                Held {
                    id: "bb".into(),
                    severity: Severity::Low,
                    path: path_tag("b"),
                    line: None,
                    reviewers: vec![],
                    era: None,
                },
            ]),
            era: Some("e1".into()),
            gone: vec![
                Gone {
                    id: "cc".into(),
                    severity: Severity::High,
                    fixed: true,
                    reviewers: odd.clone(),
                    era: Some("e0".into()),
                },
                Gone {
                    id: "dd".into(),
                    severity: Severity::Low,
                    fixed: false,
                    reviewers: vec!["logic".into()],
                    era: None,
                },
            ],
            incomplete: false,
            open: None,
        };
        let line = o.render();
        assert_eq!(line.lines().next().unwrap().matches("-->").count(), 1, "{line}");
        assert_eq!(OverviewMarker::parse(&line), Some(o.clone()));
        // An older gauntlet reads `held` entries of exactly three parts.
        let held = format!(" held=m.aa.{}+l.bb.{} ", path_tag("a"), path_tag("b"));
        assert!(line.contains(&held), "{line}");
        // A gone list written without a held one, and an overview with neither.
        let only_gone = OverviewMarker { held: None, ..o.clone() };
        assert_eq!(OverviewMarker::parse(&only_gone.render()), Some(only_gone));
        let old = "<!-- gauntlet:overview v1 head=abc rules=r config=c held=h.aa.0f -->\n\n";
        let parsed = OverviewMarker::parse(old).unwrap();
        assert_eq!(parsed.held.unwrap()[0].line, None);
        assert!(parsed.gone.is_empty());
    }

    /// Each entry names the era of the run that raised it, after its other
    /// parts; an entry written before that has none.
    #[test]
    fn an_entry_keeps_its_own_era_and_an_older_one_has_none() {
        let text = "<!-- gauntlet:overview v1 head=abc rules=r config=c era=e9 held=h.aa.0f+m.bb.0f \
                    held_at=aa.3.logic.e1+bb.4.logic gone=wl.cc.logic.e2+fh.dd.logic+fh.ee.logic.e3.x -->\n\n";
        let m = OverviewMarker::parse(text).unwrap();
        let held: Vec<(&str, Option<&str>)> =
            m.held.as_ref().unwrap().iter().map(|h| (h.id.as_str(), h.era.as_deref())).collect();
        assert_eq!(held, vec![("aa", Some("e1")), ("bb", None)]);
        let gone: Vec<(&str, Option<&str>)> = m.gone.iter().map(|g| (g.id.as_str(), g.era.as_deref())).collect();
        assert_eq!(gone, vec![("cc", Some("e2")), ("dd", None)], "an entry of five parts is dropped");
        assert_eq!(OverviewMarker::parse(&m.render()), Some(m));
    }

    #[test]
    fn a_malformed_held_or_gone_entry_is_dropped_not_misread() {
        let bad = "<!-- gauntlet:overview v1 head=abc rules=r config=c held=h.aa.0f+m.bb.0f+l.cc.0f+h.dd.0f.3 \
                   held_at=aa.x.logic+bb.3.lo_zz+cc.4.ok+zz.5.ghost gone=fh.dd.+xh.ee.a+wl.ff.b_2ec -->\n\n";
        let m = OverviewMarker::parse(bad).unwrap();
        let held: Vec<(&str, Option<u32>)> = m.held.as_ref().unwrap().iter().map(|h| (h.id.as_str(), h.line)).collect();
        // A line that is no number, a broken escape: no line or reviewers; an
        // entry of too many parts is dropped, one for no held finding ignored.
        assert_eq!(held, vec![("aa", None), ("bb", None), ("cc", Some(4))]);
        let gone: Vec<(&str, &[String])> = m.gone.iter().map(|g| (g.id.as_str(), &g.reviewers[..])).collect();
        assert_eq!(gone, vec![("ff", &["b.c".to_string()][..])], "no reviewers, an unknown outcome");
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
