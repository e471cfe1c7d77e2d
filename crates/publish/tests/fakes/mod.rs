//! Stateful in-process fakes of the three code hosts: each keeps the pull
//! request's comments in memory and answers the REST (and GitHub's GraphQL)
//! calls the publisher makes, so a test can run the publisher many times and
//! then look at what a person would see.
#![allow(dead_code)]

pub mod azure;
pub mod github;
pub mod gitlab;
pub mod repo;

use gauntlet_publish::CodeHost;
use serde_json::Value;
use std::sync::{Arc, Mutex, MutexGuard};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate, matchers::any};

/// Who wrote a note: the pipeline's token, or a person.
pub const PIPELINE: &str = "pipeline";
/// A person with write access to the repository.
pub const PERSON: &str = "alice";
/// A person without write access.
pub const READER: &str = "mallory";
/// Who opened the pull request (no write access).
pub const AUTHOR: &str = "paul";

#[derive(Clone, Debug)]
pub struct Note {
    pub id: u64,
    pub author: String,
    pub body: String,
    /// Azure DevOps' record of a status change.
    pub system: bool,
    /// Who last edited it, when someone did.
    pub edited_by: Option<String>,
}

/// A thread on the pull request; `path` is `None` for a general comment.
#[derive(Clone, Debug)]
pub struct FakeThread {
    pub id: u64,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub resolved: bool,
    /// Azure DevOps' status word; the other hosts only use `resolved`.
    pub status: String,
    /// Who resolved it (GitHub, GitLab; Azure DevOps keeps a system note instead).
    pub resolved_by: Option<String>,
    /// Who gave the first note the host's negative reaction.
    pub thumbs_down: Vec<String>,
    pub notes: Vec<Note>,
}

#[derive(Debug)]
pub struct State {
    next: u64,
    pub threads: Vec<FakeThread>,
    /// Writes answered 403, as a fork's read-only token gets.
    pub deny_writes: bool,
    /// Requests that changed something.
    pub writes: usize,
    /// Problems with request shapes the fake noticed; a test asserts it stays empty.
    pub errors: Vec<String>,
    /// Requests answered so far, faults included.
    pub requests: usize,
    /// `METHOD path` of each request, in order.
    pub log: Vec<String>,
    /// A failure to answer with instead of the real answer.
    pub fault: Option<Fault>,
    /// The next write takes effect and is then answered with this status.
    pub store_then_fail: Option<u16>,
    /// Refusals for a rate limit the next writes get, in order, each a status
    /// and its headers; a refused write changes nothing.
    pub rate_limited: std::collections::VecDeque<(u16, Vec<(&'static str, String)>)>,
    /// Who opened the pull request.
    pub author: String,
    /// Who may write to the repository.
    pub writers: Vec<String>,
    /// Whose write access the publisher asked about, in order.
    pub permission_checks: Vec<String>,
    /// GitHub check runs, as created and updated.
    pub check_runs: Vec<CheckRun>,
    /// Check-run requests answered 403, as a token without `checks: write` gets.
    pub deny_checks: bool,
    /// Azure DevOps pull request statuses, each request body as posted.
    pub statuses: Vec<Value>,
    /// Azure DevOps: the files the pull request's latest iteration changes.
    pub changed: Vec<String>,
    /// GitLab: the GraphQL query for who last edited each note is answered
    /// with errors instead of the list.
    pub editors_withheld: bool,
}

/// A GitHub check run as the fake keeps it.
#[derive(Clone, Debug, Default)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub head_sha: String,
    pub external_id: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub title: String,
    pub summary: String,
    pub details_url: Option<String>,
    /// Every annotation added, in order (the Checks API only ever adds).
    pub annotations: Vec<Value>,
    /// How many annotations each request that carried some added.
    pub batches: Vec<usize>,
}

impl Default for State {
    fn default() -> State {
        State {
            next: 0,
            threads: Vec::new(),
            deny_writes: false,
            writes: 0,
            errors: Vec::new(),
            requests: 0,
            log: Vec::new(),
            fault: None,
            store_then_fail: None,
            rate_limited: Default::default(),
            author: AUTHOR.into(),
            writers: vec![PERSON.into(), "erin".into()],
            permission_checks: Vec::new(),
            check_runs: Vec::new(),
            deny_checks: false,
            statuses: Vec::new(),
            changed: ["src/a.rs", "src/b.rs", "lib/c.py"].map(String::from).to_vec(),
            editors_withheld: false,
        }
    }
}

/// Answer request number `at` (counted from 0) with `status`, or every request from
/// there on when `storm` is set. A failed request changes nothing.
#[derive(Clone, Copy, Debug)]
pub struct Fault {
    pub at: usize,
    pub status: u16,
    pub storm: bool,
}

impl State {
    pub fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    pub fn add(&mut self, path: Option<String>, line: Option<u32>, author: &str, body: &str) -> u64 {
        let (thread, note) = (self.id(), self.id());
        let n = Note { id: note, author: author.into(), body: body.into(), system: false, edited_by: None };
        let status = "active".to_string();
        let (resolved_by, thumbs_down) = (None, Vec::new());
        self.threads.push(FakeThread {
            id: thread,
            path,
            line,
            resolved: false,
            status,
            resolved_by,
            thumbs_down,
            notes: vec![n],
        });
        thread
    }

    /// Whether `name` may write to the repository, noting that it was asked.
    pub fn may_write(&mut self, name: &str) -> bool {
        self.permission_checks.push(name.to_string());
        self.writers.iter().any(|w| w == name)
    }

    pub fn note_mut(&mut self, note: u64) -> Option<&mut Note> {
        self.threads.iter_mut().flat_map(|t| t.notes.iter_mut()).find(|n| n.id == note)
    }

    pub fn thread_mut(&mut self, id: u64) -> Option<&mut FakeThread> {
        self.threads.iter_mut().find(|t| t.id == id)
    }
}

/// A host-specific wire format over the shared [`State`].
pub trait Wire: Send + Sync + 'static {
    fn answer(&self, state: &mut State, method: &str, path: &str, query: &str, body: &Value) -> ResponseTemplate;
}

struct Responder<W: Wire> {
    wire: W,
    state: Arc<Mutex<State>>,
}

impl<W: Wire> Respond for Responder<W> {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let mut state = self.state.lock().unwrap();
        let index = state.requests;
        state.requests += 1;
        let line = format!("{} {}", request.method, request.url.path());
        state.log.push(line);
        if let Some(f) = state.fault.filter(|f| index == f.at || (f.storm && index > f.at)) {
            return ResponseTemplate::new(f.status)
                .set_body_json(serde_json::json!({"message": format!("injected fault {}", f.status)}));
        }
        let method = request.method.as_str().to_string();
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let write = method != "GET"
            && !(method == "POST"
                && request.url.path().ends_with("/graphql")
                && !body["query"].as_str().unwrap_or("").starts_with("mutation"));
        if write {
            if let Some((status, headers)) = state.rate_limited.pop_front() {
                let refusal =
                    headers.into_iter().fold(ResponseTemplate::new(status), |r, (k, v)| r.insert_header(k, v));
                return refusal.set_body_json(serde_json::json!({"message": "API rate limit exceeded"}));
            }
            if state.deny_writes {
                return ResponseTemplate::new(403)
                    .set_body_json(serde_json::json!({"message": "Resource not accessible by integration"}));
            }
            state.writes += 1;
        }
        let answer =
            self.wire.answer(&mut state, &method, request.url.path(), request.url.query().unwrap_or(""), &body);
        match state.store_then_fail.filter(|_| write) {
            Some(status) => {
                state.store_then_fail = None;
                ResponseTemplate::new(status).set_body_string("upstream timed out")
            }
            None => answer,
        }
    }
}

/// Builds the publisher's client for a fake at the given base URL.
type MakeHost = Box<dyn Fn(&str) -> Box<dyn CodeHost> + Send + Sync>;

/// A running fake host.
pub struct Fake {
    pub server: MockServer,
    pub state: Arc<Mutex<State>>,
    make: MakeHost,
    /// Marks a thread resolved by a person, the way this host records it.
    resolve: fn(&mut State, u64, &str),
}

impl Fake {
    pub async fn start<W: Wire>(
        wire: W,
        make: impl Fn(&str) -> Box<dyn CodeHost> + Send + Sync + 'static,
        resolve: fn(&mut State, u64, &str),
    ) -> Fake {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State::default()));
        Mock::given(any()).respond_with(Responder { wire, state: state.clone() }).mount(&server).await;
        Fake { server, state, make: Box::new(make), resolve }
    }

    pub fn host(&self) -> Box<dyn CodeHost> {
        (self.make)(&self.server.uri())
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// General comments by the pipeline that carry the overview marker.
    pub fn overviews(&self) -> Vec<String> {
        let s = self.state();
        s.threads
            .iter()
            .filter(|t| t.path.is_none() && t.notes[0].author == PIPELINE)
            .filter(|t| t.notes[0].body.starts_with("<!-- gauntlet:overview"))
            .map(|t| t.notes[0].body.clone())
            .collect()
    }

    /// Inline threads, in creation order.
    pub fn inline(&self) -> Vec<FakeThread> {
        self.state().threads.iter().filter(|t| t.path.is_some()).cloned().collect()
    }

    /// Resolve `thread` as the person with write access.
    pub fn dismiss(&self, thread: u64) {
        self.resolve_as(thread, PERSON);
    }

    pub fn resolve_as(&self, thread: u64, who: &str) {
        (self.resolve)(&mut self.state(), thread, who);
    }

    pub fn reply(&self, thread: u64, text: &str) {
        self.reply_as(thread, PERSON, text);
    }

    pub fn reply_as(&self, thread: u64, who: &str, text: &str) {
        let mut s = self.state();
        let id = s.id();
        let note = Note { id, author: who.into(), body: text.into(), system: false, edited_by: None };
        s.thread_mut(thread).unwrap().notes.push(note);
    }

    /// Replace the text of the last note on `thread` as `who` (an edit).
    pub fn edit_last(&self, thread: u64, who: &str, text: &str) {
        let mut s = self.state();
        let note = s.thread_mut(thread).unwrap().notes.last_mut().unwrap();
        note.body = text.into();
        note.edited_by = Some(who.into());
    }

    /// Give the pipeline's comment on `thread` the host's negative reaction.
    pub fn react(&self, thread: u64, who: &str) {
        self.state().thread_mut(thread).unwrap().thumbs_down.push(who.into());
    }

    pub fn errors(&self) -> Vec<String> {
        self.state().errors.clone()
    }
}

/// The number in a path segment after `after` (`.../comments/17` -> 17).
pub fn id_after(path: &str, after: &str) -> Option<u64> {
    let mut parts = path.split('/');
    parts.by_ref().find(|p| *p == after)?;
    parts.next()?.parse().ok()
}

pub fn json(value: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(value)
}

pub fn created(value: Value) -> ResponseTemplate {
    ResponseTemplate::new(201).set_body_json(value)
}

pub fn not_found(what: &str) -> ResponseTemplate {
    ResponseTemplate::new(404).set_body_json(serde_json::json!({"message": format!("no route for {what}")}))
}

/// One `#[tokio::test]` per host for each async fn named, each given a fresh
/// fake of that host (declare the module with `#[macro_use] mod fakes;`).
#[allow(unused_macros)]
macro_rules! on_every_host {
    ($($name:ident),* $(,)?) => {
        mod github {
            $(#[tokio::test] async fn $name() { super::$name(crate::fakes::github::start().await).await })*
        }
        mod gitlab {
            $(#[tokio::test] async fn $name() { super::$name(crate::fakes::gitlab::start(crate::common::HEAD).await).await })*
        }
        mod azure {
            $(#[tokio::test] async fn $name() { super::$name(crate::fakes::azure::start(crate::common::HEAD).await).await })*
        }
    };
}
