//! Progress of a run, as events for whoever shows them.
//!
//! The pipeline reports what it is doing through a [`Progress`] the caller passes
//! in ([`crate::pipeline::Options::progress`]); it never knows whether a terminal,
//! a CI log or nobody is watching. The default observer ignores every event.
//!
//! A run reports, in order: a step starting with its number of units (finder
//! sessions for `find`, findings for `validate` and `revalidate`), each unit as it
//! ends, the usage of each model call as it is paid for, and the step ending. Steps
//! never overlap.

use std::fmt;
use std::sync::Arc;

/// Step names the pipeline reports (the same names its gaps and usage carry).
pub const FIND: &str = "find";
pub const VALIDATE: &str = "validate";
pub const REVALIDATE: &str = "revalidate";

/// One thing that happened during a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<'a> {
    /// A step begins, with this many units of work ahead.
    StepStarted { step: &'a str, total: usize },
    /// A finder session ended: `done` of `total` have now; `answered` is false when
    /// it failed (the report's gaps say why).
    FinderDone { reviewer: &'a str, done: usize, total: usize, answered: bool },
    /// A finding's validation ended: `done` of `total` have now; `judged` is false
    /// when no verdict came back.
    ValidationDone { done: usize, total: usize, judged: bool },
    /// A unit of other long work ended (a finding's fix loop): `done` of `total`
    /// have now; `ok` is false when it failed.
    UnitDone { step: &'a str, done: usize, total: usize, ok: bool },
    /// A model call was paid for: tokens in and out (cache reads and writes
    /// included), and its estimated cost when the price is known.
    Usage { tokens: u64, cost: Option<f64> },
    /// The step ended.
    StepFinished { step: &'a str },
}

/// Receives a run's events. Called from the run's own task, possibly from several
/// sessions in turn; an implementation must be quick and must not block.
pub trait Progress: Send + Sync {
    fn event(&self, event: &Event<'_>);
}

/// The observer that ignores everything.
struct Silent;

impl Progress for Silent {
    fn event(&self, _event: &Event<'_>) {}
}

/// A shared observer, as [`crate::pipeline::Options`] holds it (silent by default).
#[derive(Clone)]
pub struct Observer(Arc<dyn Progress>);

impl Observer {
    pub fn new(progress: Arc<dyn Progress>) -> Observer {
        Observer(progress)
    }

    pub fn event(&self, event: &Event<'_>) {
        self.0.event(event);
    }
}

impl Default for Observer {
    fn default() -> Observer {
        Observer(Arc::new(Silent))
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}

/// Counts the units of one step as they end, for the `done` of each event.
pub(crate) struct Counter {
    done: std::sync::atomic::AtomicUsize,
    pub total: usize,
}

impl Counter {
    pub fn new(total: usize) -> Counter {
        Counter { done: 0.into(), total }
    }

    /// One more unit ended; how many have now.
    pub fn tick(&self) -> usize {
        self.done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    }
}
