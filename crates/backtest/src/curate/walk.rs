//! `gauntlet backtest curate`: one case at a time, a person reads what the miner
//! claims (the fix, the blamed lines inside the introducing commit, who wrote
//! both and when) and accepts, rejects (with a reason) or skips it. Each decision
//! is written to the case's `case.toml` at once, so quitting keeps every earlier
//! one. Reads answers line by line, so a pipe drives it as well as a person.

use super::{CurateError, Decision, Selection, Status, record};
use crate::corpus::{self, Case, CorpusError, Kind};
use crate::mine::diffs::{CHANGE_FILE, FIX_FILE, INTRO_FILE, MARK};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Which cases to walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Every case in one of these statuses.
    Status(Vec<Status>),
    /// One case, by folder name, whatever its status.
    Case(String),
}

/// How to walk.
#[derive(Clone, Debug)]
pub struct Options {
    pub filter: Filter,
    /// Who decides (`curated_by`).
    pub by: String,
    /// The date recorded (`curated_at`, `YYYY-MM-DD`).
    pub today: String,
    /// A person at a terminal: each case starts on a clean screen.
    pub tty: bool,
    /// Lines of one diff shown at most (the rest is in the file named); 0 shows all.
    pub max_lines: usize,
}

/// What the walk did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub accepted: usize,
    pub rejected: usize,
    pub skipped: usize,
    /// The person quit (or the input ended) before the last case.
    pub quit: bool,
    /// The statuses of the whole corpus afterwards.
    pub corpus: Selection,
}

#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("no corpus at {path}: mine one with `gauntlet backtest mine --out {path}`, or name the corpus folder")]
    NoCorpus { path: String },
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("no case named `{name}` in {corpus}; its cases are: {some}")]
    NoCase { name: String, corpus: String, some: String },
    #[error(transparent)]
    Record(#[from] CurateError),
    #[error("cannot talk to the terminal: {0}")]
    Io(#[from] std::io::Error),
}

enum Answer {
    Accept(Option<String>),
    Reject(Option<String>),
    Skip,
    Quit,
}

/// Walk the cases of the corpus at `root` that `options.filter` picks, asking on
/// `input` and showing on `out`.
pub fn walk(root: &Path, options: &Options, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<Tally, WalkError> {
    if !root.is_dir() {
        return Err(WalkError::NoCorpus { path: root.display().to_string() });
    }
    let cases = corpus::load(root)?;
    let picked: Vec<&Case> = match &options.filter {
        Filter::Case(name) => {
            let Some(case) = cases.iter().find(|c| &c.name == name) else {
                let mut some: Vec<&str> = cases.iter().take(5).map(|c| c.name.as_str()).collect();
                if cases.len() > 5 {
                    some.push("...");
                }
                return Err(WalkError::NoCase {
                    name: name.clone(),
                    corpus: root.display().to_string(),
                    some: some.join(", "),
                });
            };
            vec![case]
        }
        Filter::Status(statuses) => cases.iter().filter(|c| statuses.contains(&c.curation.status)).collect(),
    };
    let mut tally = Tally::default();
    if picked.is_empty() {
        let s = Selection::of_cases(&cases);
        writeln!(
            out,
            "Nothing to curate in {}: {} accepted, {} rejected, {} unreviewed. Revisit with --status rejected, \
             --status all, or one case with --case NAME.",
            root.display(),
            s.accepted,
            s.rejected,
            s.unreviewed
        )?;
        tally.corpus = s;
        return Ok(tally);
    }
    for (i, case) in picked.iter().enumerate() {
        if options.tty {
            // Clear the screen and go home: one case per screen.
            write!(out, "\x1b[2J\x1b[H")?;
        }
        // Everything on the screen comes from the mined repository (subjects,
        // authors, diffs): its control sequences are shown, never obeyed.
        writeln!(out, "{}", gauntlet_report::plain::shown(&screen(case, i + 1, picked.len(), options.max_lines)))?;
        let (status, reason) = match answer(input, out)? {
            Answer::Quit => {
                tally.quit = true;
                break;
            }
            Answer::Skip => {
                tally.skipped += 1;
                writeln!(out, "Skipped: {} stays {}.\n", case.name, case.curation.status)?;
                continue;
            }
            Answer::Accept(reason) => (Status::Accepted, reason),
            Answer::Reject(reason) => (Status::Rejected, reason),
        };
        let decision = Decision { status, reason, by: options.by.clone(), at: options.today.clone() };
        record(&case.dir, &decision)?;
        match decision.status {
            Status::Rejected => tally.rejected += 1,
            _ => tally.accepted += 1,
        }
        writeln!(out, "Recorded: {} {} by {} on {}.\n", case.name, decision.status, decision.by, decision.at)?;
    }
    tally.corpus = Selection::of_cases(&corpus::load(root)?);
    Ok(tally)
}

/// A line of input, trimmed; `None` at the end of the input.
fn read_line(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str) -> Result<Option<String>, WalkError> {
    write!(out, "{prompt}")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        writeln!(out, "\nEnd of input: stopping here; every decision so far is recorded.")?;
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

/// Accept or reject with the reason (asked for when not on the answer's line:
/// optional for an acceptance, required for a rejection), skip, or quit (also at
/// the end of the input).
fn answer(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<Answer, WalkError> {
    Ok(match ask(input, out)? {
        Answer::Accept(None) => match read_line(input, out, "Why (optional, Enter for none): ")? {
            Some(reason) => Answer::Accept(Some(reason)),
            None => Answer::Quit,
        },
        Answer::Reject(None) => match required_reason(input, out)? {
            Some(reason) => Answer::Reject(Some(reason)),
            None => Answer::Quit,
        },
        other => other,
    })
}

/// Accept, reject, skip or quit, asked until the answer is one of them. A reason
/// may follow on the same line (`r not a bug`).
fn ask(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<Answer, WalkError> {
    loop {
        let Some(line) = read_line(input, out, "[a]ccept, [r]eject, [s]kip or [q]uit? ")? else {
            return Ok(Answer::Quit);
        };
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((&line, ""));
        let rest = rest.trim().trim_start_matches(':').trim();
        let reason = (!rest.is_empty()).then(|| rest.to_string());
        match word.trim_end_matches(':').to_lowercase().as_str() {
            "a" | "accept" | "y" | "yes" => return Ok(Answer::Accept(reason)),
            "r" | "reject" | "n" | "no" => return Ok(Answer::Reject(reason)),
            "s" | "skip" => return Ok(Answer::Skip),
            "q" | "quit" => return Ok(Answer::Quit),
            _ => writeln!(out, "`{line}`: answer a (accept), r (reject, with why), s (skip) or q (quit).")?,
        }
    }
}

/// A rejection's reason, asked until one is given; `None` at the end of input.
fn required_reason(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<Option<String>, WalkError> {
    loop {
        match read_line(input, out, "Why is it wrong (required)? ")? {
            None => return Ok(None),
            Some(r) if !r.is_empty() => return Ok(Some(r)),
            Some(_) => writeln!(out, "A rejection needs a reason: say what the miner got wrong.")?,
        }
    }
}

/// One case as a person reads it.
fn screen(case: &Case, n: usize, of: usize, max_lines: usize) -> String {
    let kind = match (case.kind, case.confidence) {
        (Kind::Escape, Some(c)) => format!("escape, confidence {c:?}"),
        (Kind::Escape, None) => "escape".to_string(),
        (Kind::Clean, _) => "clean".to_string(),
    };
    let mut s = format!("Case {n} of {of}: {} ({kind}, {})\n", case.name, case.curation.label());
    s.push_str(&format!("{}\n", case.description));
    if let Some(by) = &case.curation.curated_by {
        s.push_str(&format!("  last decided by {by} on {}\n", case.curation.curated_at.as_deref().unwrap_or("?")));
    }
    let read = |file: &str| std::fs::read_to_string(case.dir.join(file)).ok();
    let (fix, intro, change) = (read(FIX_FILE), read(INTRO_FILE), read(CHANGE_FILE));
    let own = if case.kind == Kind::Escape { intro.as_deref() } else { change.as_deref() };
    let head_line = own.and_then(|t| commits(t).into_iter().next());
    let label = if case.kind == Kind::Escape { "introduced by" } else { "the change" };
    match head_line {
        Some(c) => s.push_str(&format!("  {label:<14}{c}\n")),
        None => s.push_str(&format!("  {label:<14}{}\n", short(&case.head))),
    }
    let fixes = fix.as_deref().map(commits).unwrap_or_default();
    for (i, f) in case.fix.iter().enumerate() {
        let who = fixes.get(i).cloned().unwrap_or_else(|| short(&f.sha).to_string());
        s.push_str(&format!("  {:<14}{who}\n    {}\n", "fixed by", f.subject));
    }
    s.push_str(&blamed(case));
    let missing = |file: &str| {
        format!(
            "  (no {file} beside case.toml: mined by an older gauntlet or written by hand; `gauntlet backtest mine` \
             writes it)\n"
        )
    };
    match case.kind {
        Kind::Escape => {
            s.push_str(&format!("\n--- the fix ({}) ---\n", case.dir.join(FIX_FILE).display()));
            match &fix {
                Some(text) => s.push_str(&capped(&body(text), max_lines, &case.dir.join(FIX_FILE))),
                None if case.fix.is_empty() => s.push_str("  (no fixing commit is recorded for this case)\n"),
                None => s.push_str(&missing(FIX_FILE)),
            }
            s.push_str(&format!(
                "\n--- the blamed lines ({MARK}) in the introducing commit ({}) ---\n",
                case.dir.join(INTRO_FILE).display()
            ));
            match &intro {
                Some(text) => s.push_str(&capped(&blamed_hunks(text), max_lines, &case.dir.join(INTRO_FILE))),
                None => s.push_str(&missing(INTRO_FILE)),
            }
        }
        Kind::Clean => {
            s.push_str(&format!("\n--- the change ({}) ---\n", case.dir.join(CHANGE_FILE).display()));
            match &change {
                Some(text) => s.push_str(&capped(&body(text), max_lines, &case.dir.join(CHANGE_FILE))),
                None => s.push_str(&missing(CHANGE_FILE)),
            }
        }
    }
    s
}

fn short(sha: &str) -> &str {
    gauntlet_report::plain::prefix(sha, 12)
}

/// `id  author  date` of every commit a diff file shows.
fn commits(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(sha) = line.strip_prefix("commit ") else { continue };
        let author = lines.next_if(|l| l.starts_with("Author: ")).map(|l| l["Author: ".len()..].trim().to_string());
        let date = lines.next_if(|l| l.starts_with("Date: ")).map(|l| l["Date: ".len()..].trim().to_string());
        out.push(format!("{}  {}  {}", short(sha.trim()), author.unwrap_or_default(), date.unwrap_or_default()));
    }
    out
}

/// A diff file without its `#` header.
fn body(text: &str) -> String {
    text.lines().skip_while(|l| l.starts_with('#') || l.is_empty()).map(|l| format!("{l}\n")).collect()
}

/// Lines shown around each blamed line of the introducing diff.
const AROUND: usize = 3;

/// The introducing commit's message and, of its diff, only the hunks that hold
/// a blamed line (with their file's `diff --git` line), cut to the blamed lines
/// and [`AROUND`] lines either side; the hunks left out are counted.
fn blamed_hunks(text: &str) -> String {
    let text = body(text);
    let (message, diff) = match text.find("\ndiff --git ") {
        Some(i) => text.split_at(i + 1),
        None => (text.as_str(), ""),
    };
    let mut out = message.to_string();
    let (mut left_out, mut file_line) = (0, None::<&str>);
    let mut hunk: Vec<&str> = Vec::new();
    let mut flush = |hunk: &mut Vec<&str>, file_line: &mut Option<&str>, out: &mut String| {
        let Some((header, lines)) = hunk.split_first() else { return };
        let marked: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with(MARK)).collect();
        if marked.is_empty() {
            left_out += 1;
        } else {
            if let Some(f) = file_line.take() {
                out.push_str(f);
                out.push('\n');
            }
            out.push_str(header);
            out.push('\n');
            let near = |i: usize| marked.iter().any(|&m| i.abs_diff(m) <= AROUND);
            let mut gap = false;
            for (i, l) in lines.iter().enumerate() {
                if near(i) {
                    out.push_str(l);
                    out.push('\n');
                    gap = false;
                } else if !gap {
                    out.push_str("   ...\n");
                    gap = true;
                }
            }
        }
        hunk.clear();
    };
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            flush(&mut hunk, &mut file_line, &mut out);
            file_line = Some(line);
        } else if line.starts_with("@@") {
            flush(&mut hunk, &mut file_line, &mut out);
            hunk.push(line);
        } else if !hunk.is_empty() {
            hunk.push(line);
        }
    }
    flush(&mut hunk, &mut file_line, &mut out);
    if left_out > 0 {
        out.push_str(&format!("({left_out} hunk(s) without a blamed line not shown)\n"));
    }
    if !diff.is_empty() && !out.contains(&format!("\n{MARK}")) {
        out.push_str("(no blamed line is among the changed lines: see the header of the file)\n");
    }
    out
}

/// The blamed lines, one row per file (`a.py:3, 9-11`), and each distinct
/// description once.
fn blamed(case: &Case) -> String {
    let mut rows: Vec<(&str, Vec<String>)> = Vec::new();
    let mut said: Vec<&str> = Vec::new();
    for d in &case.defects {
        for at in std::iter::once(&d.at).chain(&d.also) {
            let lines = if at.start == at.end { at.start.to_string() } else { format!("{}-{}", at.start, at.end) };
            match rows.iter_mut().find(|(p, _)| *p == at.path) {
                Some((_, all)) => all.push(lines),
                None => rows.push((&at.path, vec![lines])),
            }
        }
        if !said.contains(&d.description.as_str()) {
            said.push(&d.description);
        }
    }
    let mut s: String =
        rows.iter().map(|(path, lines)| format!("  {:<14}{path}:{}\n", "blamed lines", lines.join(", "))).collect();
    for d in said {
        s.push_str(&format!("    {d}\n"));
    }
    s
}

/// `text` cut to `max` lines, saying where the rest is.
fn capped(text: &str, max: usize, file: &Path) -> String {
    let total = text.lines().count();
    if max == 0 || total <= max {
        return text.to_string();
    }
    let mut out: String = text.lines().take(max).map(|l| format!("{l}\n")).collect();
    out.push_str(&format!("... {} more line(s) in {}\n", total - max, PathBuf::from(file).display()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_hunks_with_blamed_lines_are_shown_and_the_others_counted() {
        let long: String = (1..=12).map(|i| format!("+line {i}\n")).collect();
        let intro = format!(
            "# header\n\ncommit abc\nAuthor: Dev <d@x>\nDate:   2021-01-05T00:00:00+00:00\n\n    Add paging\n\n\
             diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n@@ -9 +9,13 @@\n-p\n>>+q\n{long}\
             diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-u\n+v\n"
        );
        let intro = intro.as_str();
        let shown = blamed_hunks(intro);
        assert!(shown.starts_with("commit abc\n"), "{shown}");
        let near = "diff --git a/a.py b/a.py\n@@ -9 +9,13 @@\n-p\n>>+q\n+line 1\n+line 2\n+line 3\n   ...\n(";
        assert!(shown.contains(near), "three lines either side of a blamed line: {shown}");
        assert!(!shown.contains("b.py") && !shown.contains("+y"), "{shown}");
        assert!(shown.contains("(2 hunk(s) without a blamed line not shown)"), "{shown}");
        assert_eq!(commits(intro), vec!["abc  Dev <d@x>  2021-01-05T00:00:00+00:00"]);
    }

    #[test]
    fn a_long_diff_is_cut_and_says_where_the_rest_is() {
        let text: String = (0..10).map(|i| format!("line {i}\n")).collect();
        let cut = capped(&text, 4, Path::new("c/fix.diff"));
        assert!(cut.ends_with("line 3\n... 6 more line(s) in c/fix.diff\n"), "{cut}");
        assert_eq!(capped(&text, 0, Path::new("x")), text);
    }
}
