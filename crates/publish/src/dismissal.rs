//! What "dismissed" means: the one definition every feature that asks whether a
//! person set a finding aside (sync, the exit code, statistics) uses.
//!
//! A finding's thread is dismissed when someone allowed to dismiss did one of
//! three explicit things on it, as the host recorded them:
//! - replied with a command as the reply's first line: `/gauntlet dismiss
//!   [reason]` or `/gauntlet false-positive [reason]`;
//! - resolved the thread (the pipeline's own resolutions never count: hosts
//!   leave [`Thread::resolved_by`] empty for them);
//! - left the host's negative reaction on the pipeline's comment.
//!
//! A finding without a thread of its own (the overview lists it: it is outside
//! the diff, or over the comment cap) is dismissed by a comment anywhere on the
//! pull request whose first line is `/gauntlet dismiss <finding id> [reason]`
//! (or `false-positive`), under the same rules of who may.
//!
//! Free text never dismisses, whatever it says, and a command reply that someone
//! other than its author edited never counts: the words would no longer be the
//! author's. Only GitHub says who last edited a comment; GitLab's REST notes and
//! Azure DevOps comments do not. Azure DevOps lets only a comment's author edit
//! it; where GitLab's roles let someone else edit a note, that edit goes unseen
//! (a known limit). Allowed means: the host reports
//! the person as able to write to the repository ([`CodeHost::may_write`]),
//! asked once per person per run; the pull request's author only when
//! [`Policy::author_may_dismiss`] is set, and then for all three forms.
//!
//! [`assess`] is the pure decision over recorded events and a permission oracle;
//! [`check`] asks the host about the people involved and then calls it.

use crate::host::{CodeHost, Edited, Existing, Person, Thread};
use crate::marker::FindingMarker;
use std::collections::BTreeMap;
use std::fmt;

/// Who may dismiss besides people with write access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `[ci] author_may_dismiss`: the pull request's author may dismiss findings
    /// on their own pull request (off by default: an author asking to skip review
    /// of their own change is what review is there to catch).
    pub author_may_dismiss: bool,
}

/// The way a dismissal was expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// A reply whose first line is `/gauntlet dismiss` or `/gauntlet false-positive`.
    Command(Verb),
    /// The thread was resolved.
    Resolution,
    /// The host's negative reaction on the pipeline's comment.
    Reaction,
}

/// The two command words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    Dismiss,
    FalsePositive,
}

impl Verb {
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Dismiss => "dismiss",
            Verb::FalsePositive => "false-positive",
        }
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Form::Command(verb) => write!(f, "replied `/gauntlet {}`", verb.as_str()),
            Form::Resolution => f.write_str("resolved the thread"),
            Form::Reaction => f.write_str("reacted with a thumbs-down"),
        }
    }
}

/// A dismissal command read from a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub verb: Verb,
    /// The rest of the command line, when there is any.
    pub reason: Option<String>,
}

/// Longest reason kept from a command; the rest of a long line is cut.
pub const MAX_REASON_CHARS: usize = 200;

/// The command in `reply`, when its first non-blank line is one: `/gauntlet`
/// at the very start of the line, then `dismiss` or `false-positive` as a whole
/// word, then an optional reason, the words separated by ASCII spaces (or tabs).
/// Anything else is no command: prose that mentions the words, a line indented
/// into a code block (Markdown renders four spaces as code, which no one would
/// read as a command), or words joined by a non-breaking or ideographic space
/// (they look like a command and are not the text a person types).
pub fn command(reply: &str) -> Option<Command> {
    let line = reply.lines().find(|l| !l.trim().is_empty())?;
    let rest = line.strip_prefix("/gauntlet")?;
    let rest = rest.strip_prefix(is_space)?.trim_start_matches(is_space);
    let (word, reason) = rest.split_once(is_space).unwrap_or((rest, ""));
    let verb = match word.trim_end_matches('\r').to_ascii_lowercase().as_str() {
        "dismiss" => Verb::Dismiss,
        "false-positive" => Verb::FalsePositive,
        _ => return None,
    };
    let reason = reason.trim();
    let reason = (!reason.is_empty()).then(|| reason.chars().take(MAX_REASON_CHARS).collect());
    Some(Command { verb, reason })
}

/// The spaces that separate a command's words: the ones a keyboard types.
fn is_space(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The finding a command outside the pipeline's threads names: the first word
/// of its reason is the id, the rest is the reason. `None` when it names none.
pub fn by_finding(reply: &crate::host::Reply) -> Option<ByFinding> {
    let c = command(&reply.body)?;
    let rest = c.reason?;
    let (id, reason) = rest.split_once(char::is_whitespace).unwrap_or((&rest, ""));
    let id = id.trim_matches('`');
    if id.is_empty() || !id.chars().all(|ch| ch.is_ascii_alphanumeric()) {
        return None;
    }
    let reason = Some(reason.trim().to_string()).filter(|r| !r.is_empty());
    Some(ByFinding { id: id.to_string(), by: reply.author.clone(), verb: c.verb, reason })
}

/// One act on a thread that dismisses it if its author may dismiss.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event<'t> {
    pub by: &'t Person,
    pub form: Form,
    pub reason: Option<String>,
    /// Someone other than `by` edited the reply that holds the command.
    pub edited: Option<Why>,
}

/// Every dismissing act recorded on `thread`: commands in reply order, then the
/// resolution, then reactions.
pub fn events(thread: &Thread) -> Vec<Event<'_>> {
    let commands = thread.replies.iter().filter_map(|r| {
        let edited = match &r.edited {
            Edited::NotByOthers => None,
            Edited::By(editor) if editor.id == r.author.id => None,
            Edited::By(editor) => Some(Why::EditedBy(editor.name.clone())),
            Edited::ByUnknown => Some(Why::EditedBy("someone the host does not name".into())),
        };
        command(&r.body).map(|c| Event { by: &r.author, form: Form::Command(c.verb), reason: c.reason, edited })
    });
    let resolution = thread.resolved_by.iter().filter(|_| thread.resolved).map(|by| Event {
        by,
        form: Form::Resolution,
        reason: None,
        edited: None,
    });
    let reactions = thread.thumbs_down.iter().map(|by| Event { by, form: Form::Reaction, reason: None, edited: None });
    commands.chain(resolution).chain(reactions).collect()
}

/// What the host said about a person's right to write to the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    Write,
    NoWrite,
    /// The host could not be asked or did not answer; the message says why.
    Unknown(String),
}

/// A dismissal that counts: its thread's finding is not raised again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    /// Index into the threads [`assess`] was given.
    pub thread: usize,
    pub by: Person,
    pub form: Form,
    pub reason: Option<String>,
}

/// Why a dismissing act did not count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// The pull request's author, without `[ci] author_may_dismiss = true`.
    Author,
    /// The host does not report the person as able to write to the repository.
    NoWrite,
    /// The host could not say whether the person may write.
    Unchecked(String),
    /// The thread is resolved, but the host did not say by whom.
    Unattributed,
    /// The reply was last edited by someone else (named), so it may not say
    /// what its author wrote.
    EditedBy(String),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Author => f.write_str(
                "they opened this pull request, and an author's dismissals count only with `[ci] author_may_dismiss = true`",
            ),
            Why::NoWrite => f.write_str("the host does not report them as able to write to the repository"),
            Why::Unchecked(message) => write!(f, "the host could not say whether they may write ({message})"),
            Why::Unattributed => {
                f.write_str("the host did not say who resolved it; a `/gauntlet dismiss REASON` reply works instead")
            }
            Why::EditedBy(editor) => write!(f, "the reply was edited by {editor}, not by its author"),
        }
    }
}

/// A dismissing act that did not count, and why: its finding stays raised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    pub thread: usize,
    pub by: Person,
    pub form: Form,
    pub why: Why,
}

/// A command outside any of the pipeline's threads that names a finding by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByFinding {
    pub id: String,
    pub by: Person,
    pub verb: Verb,
    pub reason: Option<String>,
}

/// The verdict on every dismissing act on a pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dismissals {
    pub counted: Vec<Counted>,
    pub ignored: Vec<Ignored>,
    /// Commands naming a finding by id that count.
    pub findings: Vec<ByFinding>,
    /// Commands naming a finding by id that do not count, and why.
    pub findings_ignored: Vec<(ByFinding, Why)>,
}

impl Dismissals {
    /// Whether a command naming finding `id` by id dismissed it.
    pub fn is_finding_dismissed(&self, id: &str) -> bool {
        self.findings.iter().any(|f| f.id == id)
    }

    /// Whether thread `thread` (an index into the threads assessed) is dismissed.
    pub fn is_dismissed(&self, thread: usize) -> bool {
        self.counted.iter().any(|c| c.thread == thread)
    }

    /// The dismissal that counts for `thread`: the first one recorded.
    pub fn of(&self, thread: usize) -> Option<&Counted> {
        self.counted.iter().find(|c| c.thread == thread)
    }
}

/// Whether `person` is the pull request's author.
fn is_author(person: &Person, author: Option<&Person>) -> bool {
    author.is_some_and(|a| a.id == person.id)
}

/// The people whose write access decides some dismissal on `threads`, each once.
/// The author is left out: [`Policy`] alone decides for them.
pub fn to_check<'t>(threads: &'t [Thread], author: Option<&Person>) -> Vec<&'t Person> {
    let mut people: BTreeMap<&str, &Person> = BTreeMap::new();
    for event in threads.iter().flat_map(events) {
        if event.edited.is_none() && !is_author(event.by, author) {
            people.entry(event.by.id.as_str()).or_insert(event.by);
        }
    }
    people.into_values().collect()
}

/// The people whose write access decides some command in `general` (comments
/// outside the pipeline's threads) that names a finding by id; the author is
/// left out, as in [`to_check`]. A person may be named more than once.
pub fn general_to_check<'r>(general: &'r [crate::host::Reply], author: Option<&Person>) -> Vec<&'r Person> {
    general.iter().filter(|r| by_finding(r).is_some()).map(|r| &r.author).filter(|p| !is_author(p, author)).collect()
}

/// Decide every command in `general` (comments outside the pipeline's threads)
/// that names a finding by id, by the same rules as [`assess`]; the verdicts go
/// to `out`.
pub fn assess_general(
    general: &[crate::host::Reply],
    author: Option<&Person>,
    policy: Policy,
    access: impl Fn(&Person) -> Access,
    out: &mut Dismissals,
) {
    for reply in general {
        let Some(act) = by_finding(reply) else { continue };
        let why = match &reply.edited {
            Edited::By(editor) if editor.id != reply.author.id => Some(Why::EditedBy(editor.name.clone())),
            Edited::ByUnknown => Some(Why::EditedBy("someone the host does not name".into())),
            _ if is_author(&act.by, author) => (!policy.author_may_dismiss).then_some(Why::Author),
            _ => match access(&act.by) {
                Access::Write => None,
                Access::NoWrite => Some(Why::NoWrite),
                Access::Unknown(message) => Some(Why::Unchecked(message)),
            },
        };
        match why {
            None => out.findings.push(act),
            Some(why) => out.findings_ignored.push((act, why)),
        }
    }
}

/// Decide every dismissing act on `threads`. `access` answers for anyone
/// [`to_check`] named; the author is not asked about.
pub fn assess(
    threads: &[Thread],
    author: Option<&Person>,
    policy: Policy,
    access: impl Fn(&Person) -> Access,
) -> Dismissals {
    let mut out = Dismissals::default();
    for (t, thread) in threads.iter().enumerate() {
        for Event { by, form, reason, edited } in events(thread) {
            let why = if edited.is_some() {
                edited
            } else if is_author(by, author) {
                (!policy.author_may_dismiss).then_some(Why::Author)
            } else {
                match access(by) {
                    Access::Write => None,
                    Access::NoWrite => Some(Why::NoWrite),
                    Access::Unknown(message) => Some(Why::Unchecked(message)),
                }
            };
            let by = by.clone();
            match why {
                None => out.counted.push(Counted { thread: t, by, form, reason }),
                Some(why) => out.ignored.push(Ignored { thread: t, by, form, why }),
            }
        }
        if unattributed(thread) {
            let by = Person { id: String::new(), name: "someone".into() };
            out.ignored.push(Ignored { thread: t, by, form: Form::Resolution, why: Why::Unattributed });
        }
    }
    out
}

/// Resolved, by nobody the host names, and not by the pipeline (whose marker
/// says so when it resolves a thread).
fn unattributed(thread: &Thread) -> bool {
    thread.resolved && thread.resolved_by.is_none() && FindingMarker::parse(&thread.body).is_some_and(|m| !m.resolved)
}

/// [`assess`] the threads in `existing`, asking `host` once about each person
/// whose access matters. A failed question makes that person's acts not count
/// (and says why), never the run fail.
pub async fn check(host: &dyn CodeHost, existing: &Existing, policy: Policy) -> Dismissals {
    let author = existing.author.as_ref();
    let mut known: BTreeMap<String, Access> = BTreeMap::new();
    let mut people = to_check(&existing.threads, author);
    people.extend(general_to_check(&existing.general, author));
    for person in people {
        if known.contains_key(&person.id) {
            continue;
        }
        let access = match host.may_write(person).await {
            Ok(true) => Access::Write,
            Ok(false) => Access::NoWrite,
            Err(e) => Access::Unknown(e.to_string()),
        };
        known.insert(person.id.clone(), access);
    }
    let unasked = || Access::Unknown("not asked".into());
    let access = |p: &Person| known.get(&p.id).cloned().unwrap_or_else(unasked);
    let mut out = assess(&existing.threads, author, policy, access);
    assess_general(&existing.general, author, policy, access, &mut out);
    out
}

#[cfg(test)]
#[path = "dismissal_tests.rs"]
mod tests;
