//! Turning the index of a change into ranked entries, each with its reasons.

use super::scan::{Scan, Touched, UsedAt};
use gauntlet_code::{Definition, FileSymbols, Kind, Lang, Role, spellings};
use std::collections::BTreeSet;

/// A definition's whole region is shown up to this many lines; past it, its first
/// lines (the signature).
const MAX_BODY: u32 = 40;
const SIGNATURE: u32 = 6;
/// Lines shown on each side of a use whose enclosing function is too long.
const WINDOW: u32 = 4;
/// A definition of a used name is looked up only when the name has at most this
/// many definitions (more: too ambiguous to pick one).
const MAX_DEFINITIONS: usize = 3;
/// Places shown per touched name at most.
const MAX_USES_PER_NAME: usize = 12;
/// Other places shown per field the change uses (its other readers and writers).
const MAX_CO_USES: usize = 4;

/// One block of related code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub start: u32,
    pub lines: Vec<String>,
    /// Why it is shown ("defines `ShipmentStatus` used at Shipment.cs:7").
    pub why: Vec<String>,
    /// The changed files it is related to.
    pub about: BTreeSet<String>,
    /// Rank: kind of relation first (lower is more important), then distance.
    rank: (u8, u32),
}

impl Entry {
    pub fn end(&self) -> u32 {
        self.start + self.lines.len().max(1) as u32 - 1
    }

    pub fn location(&self) -> String {
        if self.lines.len() <= 1 {
            format!("{}:{}", self.path, self.start)
        } else {
            format!("{}:{}-{}", self.path, self.start, self.end())
        }
    }
}

/// How far `path` is from `from`: 0 the same file, 1 the same folder, then one more
/// for every folder between them.
fn distance(path: &str, from: &str) -> u32 {
    if path == from {
        return 0;
    }
    let a: Vec<&str> = path.split('/').collect();
    let b: Vec<&str> = from.split('/').collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    (a.len() - common + b.len() - common).saturating_sub(1) as u32
}

/// The lines `start..=end` of `text` (clamped to it).
fn slice(text: &str, start: u32, end: u32) -> (u32, Vec<String>) {
    let all: Vec<&str> = text.lines().collect();
    let s = start.max(1).min(all.len().max(1) as u32);
    let e = end.min(all.len() as u32).max(s);
    (s, all[(s - 1) as usize..(e as usize).min(all.len())].iter().map(|l| l.to_string()).collect())
}

/// The region shown for a definition: the enclosing type of a field or member, the
/// body of a small definition, else its signature.
fn definition_region(file: &FileSymbols, d: &Definition) -> (u32, u32) {
    let of = match d.kind {
        Kind::Field | Kind::Member => file.enclosing(d.line).filter(|t| t.kind == Kind::Type).unwrap_or(d),
        _ => d,
    };
    if of.lines() <= MAX_BODY {
        (of.start, of.end)
    } else if of.kind == Kind::Type && of.name != d.name {
        (d.line.saturating_sub(2).max(of.start), (d.line + 2).min(of.end))
    } else {
        (of.start, (of.line + SIGNATURE).min(of.end))
    }
}

/// The region shown around a use: its enclosing function or method when small,
/// else a window.
fn use_region(file: &FileSymbols, line: u32) -> (u32, u32) {
    match file.enclosing(line) {
        Some(d) if d.kind.is_callable() && d.lines() <= MAX_BODY => (d.start, d.end),
        _ => (line.saturating_sub(WINDOW).max(1), line + WINDOW),
    }
}

fn entry(
    scan: &Scan,
    path: &str,
    (start, end): (u32, u32),
    why: String,
    about: &str,
    rank: (u8, u32),
) -> Option<Entry> {
    if scan.changed.contains(path) {
        return None;
    }
    let text = scan.texts.get(path)?;
    let (start, lines) = slice(text, start, end);
    Some(Entry {
        path: path.to_string(),
        start,
        lines,
        why: vec![why],
        about: BTreeSet::from([about.to_string()]),
        rank,
    })
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once('.').map_or(name, |(s, _)| s)
}

/// Whether the file `user` shows it depends on the file `defining`: they share a
/// folder in a language whose folder is the unit of code (a Go, Java or C#
/// package), or `user` names the defining module or package (`audience::`,
/// `from ..catalog.models import`), or one of its top-level definitions other than
/// `except` (the name being resolved proves nothing about itself).
fn knows(scan: &Scan, user: &str, defining: &str, except: &str) -> bool {
    let (Some(u), Some(d)) = (scan.index.file(user), scan.index.file(defining)) else { return false };
    let folder_is_unit = |f: &FileSymbols| matches!(f.lang, Some(Lang::Go | Lang::Java | Lang::CSharp));
    if user == defining || (folder(user) == folder(defining) && folder_is_unit(u) && folder_is_unit(d)) {
        return true;
    }
    // Across a wire (a Python model, a JavaScript client) nothing is imported; a
    // name of several words (`display_name`) is distinctive enough to follow.
    let across = u.lang.is_some() && d.lang.is_some() && family(u.lang) != family(d.lang);
    if across && gauntlet_code::words(except).len() > 1 {
        return true;
    }
    let package = folder(defining).rsplit('/').next().unwrap_or("");
    let top: BTreeSet<&str> = d
        .definitions
        .iter()
        .filter(|x| {
            matches!(x.kind, Kind::Type | Kind::Function | Kind::Constant) && x.name != except && x.name.len() >= 3
        })
        .map(|x| x.name.as_str())
        .chain([stem(defining), package].into_iter().filter(|n| n.len() >= 3))
        .collect();
    u.uses.iter().any(|x| top.contains(x.name.as_str()))
}

/// Languages that import each other's modules directly count as one.
fn family(lang: Option<Lang>) -> Option<Lang> {
    match lang {
        Some(Lang::Tsx | Lang::JavaScript) => Some(Lang::TypeScript),
        other => other,
    }
}

/// Whether a definition can be what a use of its name on a changed line means: a
/// member use (`o.total`) means a field, member or method of a file the user
/// depends on; a plain or type use means a function, type, constant or enum member.
fn resolves(scan: &Scan, u: &UsedAt, path: &str, d: &Definition) -> bool {
    match u.role {
        Role::Member => {
            matches!(d.kind, Kind::Field | Kind::Member | Kind::Method) && knows(scan, &u.path, path, &u.name)
        }
        _ => matches!(d.kind, Kind::Function | Kind::Type | Kind::Constant | Kind::Member),
    }
}

/// Definitions of the names changed lines use, outside the hunk that uses them.
fn definitions(scan: &Scan, u: &UsedAt, out: &mut Vec<Entry>) {
    let found: Vec<_> = scan.index.definitions(&u.name).filter(|f| resolves(scan, u, f.path, f.definition)).collect();
    if found.is_empty() || found.len() > MAX_DEFINITIONS {
        return;
    }
    for f in found {
        let d = f.definition;
        let inside = f.path == u.path && d.start <= u.hunk.1 && d.end >= u.hunk.0;
        let Some(file) = scan.index.file(f.path) else { continue };
        if inside {
            continue;
        }
        if d.kind == Kind::Field {
            co_users(scan, u, f.path, out);
        }
        let rank = if d.kind.is_callable() { 4 } else { 3 };
        let why = format!("defines {} `{}` used at {}:{}", d.kind.as_str(), d.name, u.path, u.line);
        out.extend(entry(scan, f.path, definition_region(file, d), why, &u.path, (rank, distance(f.path, &u.path))));
    }
}

/// Other code that uses a field the changed lines use, in files that depend on the
/// field's file: the other holders of a lock, the other writers of a counter.
fn co_users(scan: &Scan, u: &UsedAt, defining: &str, out: &mut Vec<Entry>) {
    let mut shown: Vec<(&str, (u32, u32))> = Vec::new();
    let mut found: Vec<(u32, &str, u32)> = scan
        .index
        .uses(&u.name)
        .filter(|x| x.role == Role::Member && !scan.changed.contains(x.path) && knows(scan, x.path, defining, &u.name))
        .map(|x| (distance(x.path, &u.path), x.path, x.line))
        .collect();
    found.sort();
    for (dist, path, line) in found {
        let Some(file) = scan.index.file(path) else { continue };
        if shown.len() >= MAX_CO_USES {
            break;
        }
        if shown.iter().any(|(p, r)| *p == path && r.0 <= line && line <= r.1) {
            continue;
        }
        let region = use_region(file, line);
        shown.push((path, region));
        let why = format!("also uses field `{}`, as the change does at {}:{} (line {line})", u.name, u.path, u.line);
        out.extend(entry(scan, path, region, why, &u.path, (5, dist)));
    }
}

/// What a use of a touched name does, for its reason.
fn verb(t: &Touched, role: Role, line_text: &str) -> String {
    let at = format!("{}:{}", t.path, t.line);
    let name = &t.name;
    match t.kind {
        None => format!("still uses `{name}`, removed at {at}"),
        Some(Kind::Field) => format!("reads or writes field `{name}` changed at {at}"),
        Some(Kind::Member) => format!("uses enum member `{name}` changed at {at}"),
        Some(Kind::Constant) => format!("reads `{name}` changed at {at}"),
        Some(Kind::Function | Kind::Method) if role != Role::Type => format!("calls `{name}` changed at {at}"),
        Some(Kind::Type) if ["match ", "switch", "case "].iter().any(|k| line_text.contains(k)) => {
            format!("matches on `{name}` changed at {at}")
        }
        _ => format!("uses `{name}` changed at {at}"),
    }
}

/// Definitions of the same shape in another language (a TypeScript enum that
/// mirrors a C# one, a client interface for a server's DTO): the other side of a
/// wire, which imports nothing from this side.
fn mirrors(scan: &Scan, t: &Touched, names: &[String], rank: u8, out: &mut Vec<Entry>) {
    let Some(changed) = scan.index.file(&t.path) else { return };
    let single = gauntlet_code::words(&t.name).len() < 2;
    for n in names {
        for f in scan.index.definitions(n) {
            let Some(file) = scan.index.file(f.path) else { continue };
            // A one-word field (`status`) is too common to be a mirror; types are not.
            let distinctive = f.definition.kind == Kind::Type || !single;
            if family(file.lang) == family(changed.lang) || file.lang.is_none() || !distinctive {
                continue;
            }
            let d = f.definition;
            let why = format!(
                "defines {} `{}` on the other side of `{}` changed at {}:{}",
                d.kind.as_str(),
                d.name,
                t.name,
                t.path,
                t.line
            );
            out.extend(entry(
                scan,
                f.path,
                definition_region(file, d),
                why,
                &t.path,
                (rank, distance(f.path, &t.path)),
            ));
        }
    }
}

/// Places that use what a hunk defines, modifies or removes.
fn uses(scan: &Scan, t: &Touched, out: &mut Vec<Entry>) {
    if t.kind.is_none() && scan.common.contains(&t.name) {
        return;
    }
    let names = if matches!(t.kind, Some(Kind::Field) | None) { spellings(&t.name) } else { vec![t.name.clone()] };
    let rank = match t.kind {
        None => 0,
        Some(Kind::Function | Kind::Method) => 2,
        _ => 1,
    };
    if matches!(t.kind, Some(Kind::Type | Kind::Field | Kind::Member) | None) {
        mirrors(scan, t, &names, rank, out);
    }
    // Type and constant names are distinctive enough on their own; a field, member
    // or function name counts only where the file depends on the changed one.
    let needs_evidence = !matches!(t.kind, Some(Kind::Type | Kind::Constant));
    // A field (or a removed name) is used as a member: `o.total`, `{total: 1}`; a
    // local variable of the same name is something else.
    let members_only = matches!(t.kind, Some(Kind::Field) | None);
    let mut found: Vec<(u32, &str, u32, Role)> = Vec::new();
    for n in &names {
        for u in scan.index.uses(n) {
            if (members_only && u.role != Role::Member)
                || scan.changed.contains(u.path)
                || (needs_evidence && !knows(scan, u.path, &t.path, &t.name))
            {
                continue;
            }
            found.push((distance(u.path, &t.path), u.path, u.line, u.role));
        }
    }
    found.sort();
    let mut shown: Vec<(&str, (u32, u32))> = Vec::new();
    for (dist, path, line, role) in found {
        let Some(file) = scan.index.file(path) else { continue };
        let region = use_region(file, line);
        if shown.iter().any(|(p, r)| *p == path && r.0 <= line && line <= r.1) {
            continue;
        }
        if shown.len() >= MAX_USES_PER_NAME {
            break;
        }
        shown.push((path, region));
        let line_text = scan.texts.get(path).and_then(|t| t.lines().nth(line as usize - 1)).unwrap_or("");
        let why = format!("{} (line {line})", verb(t, role, line_text));
        out.extend(entry(scan, path, region, why, &t.path, (rank, dist)));
    }
}

/// Merge entries of one file whose lines overlap or touch: one block, every reason.
fn merge(mut all: Vec<Entry>) -> Vec<Entry> {
    all.sort_by(|a, b| a.path.cmp(&b.path).then(a.start.cmp(&b.start)));
    let mut out: Vec<Entry> = Vec::new();
    for e in all {
        match out.last_mut() {
            Some(last) if last.path == e.path && e.start <= last.end() + 1 => {
                let end = e.end();
                if end > last.end() {
                    let skip = (last.end() + 1 - e.start) as usize;
                    last.lines.extend(e.lines.into_iter().skip(skip));
                }
                for w in e.why {
                    if !last.why.contains(&w) {
                        last.why.push(w);
                    }
                }
                last.about.extend(e.about);
                last.rank = last.rank.min(e.rank);
            }
            _ => out.push(e),
        }
    }
    out
}

/// Every entry of a change, best first. Code of the changed files is left out: the
/// change listing shows it already.
pub fn ranked(scan: &Scan) -> Vec<Entry> {
    let mut all = Vec::new();
    for t in &scan.touched {
        uses(scan, t, &mut all);
    }
    for u in &scan.used {
        definitions(scan, u, &mut all);
    }
    let mut merged = merge(all);
    merged.sort_by(|a, b| a.rank.cmp(&b.rank).then(a.path.cmp(&b.path)).then(a.start.cmp(&b.start)));
    merged
}
