//! Progress on stderr while long work runs; stdout carries only the report.
//!
//! How much is shown is chosen once per process ([`Mode`], from `--quiet`, the
//! environment and whether stderr is a terminal): a live display on a terminal,
//! one plain line per finished step in CI or when stderr is a pipe or a file, and
//! nothing at all with `--quiet`, where only errors still reach stderr. The
//! pipeline only emits events ([`gauntlet_review::progress`]); this module turns
//! them into text.

mod inert;
mod live;
mod tally;

use crate::settings::Env;
use gauntlet_review::progress::{Event, Observer, Progress};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

pub use inert::log_safe;
pub use tally::Tally;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--quiet`: nothing but the report, and errors.
    Quiet,
    /// One line per finished step (CI, or stderr is not a terminal).
    Plain,
    /// A live display redrawn in place (stderr is a terminal, outside CI).
    Live,
}

impl Mode {
    /// The mode for these circumstances. A CI log is never a place for redrawing,
    /// even when the runner gives the job a pseudo-terminal.
    pub fn choose(quiet: bool, env: &Env, stderr_tty: bool) -> Mode {
        let set = |name: &str| {
            env(name).is_some_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false"))
        };
        let dumb = env("TERM").is_some_and(|t| t == "dumb");
        if quiet {
            Mode::Quiet
        } else if set("CI") || set("TF_BUILD") || dumb || !stderr_tty {
            Mode::Plain
        } else {
            Mode::Live
        }
    }
}

static MODE: OnceLock<Mode> = OnceLock::new();

/// Fix the process's mode (once, at start; later calls change nothing).
pub fn init(mode: Mode) {
    let _ = MODE.set(mode);
}

/// The process's mode (plain until [`init`] says otherwise).
pub fn mode() -> Mode {
    MODE.get().copied().unwrap_or(Mode::Plain)
}

/// Whether `--quiet` silences everything but the report and errors.
pub fn quiet() -> bool {
    mode() == Mode::Quiet
}

/// `eprintln!` for what a user may want to see but need not: what is about to
/// happen, notes, skips. Silent under `--quiet`; warnings and errors do not use it.
macro_rules! say {
    ($($arg:tt)*) => {
        if !$crate::progress::quiet() {
            $crate::progress::eprint_line(&format!($($arg)*));
        }
    };
}
pub use live::eprint_line;
pub(crate) use say;

/// Where a display writes.
enum Out {
    Plain(Mutex<Box<dyn Write + Send>>),
    Live(live::Bar),
}

/// Turns one run's events into text as they arrive.
struct Sink {
    started: Instant,
    tally: Mutex<Tally>,
    out: Out,
}

impl Progress for Sink {
    fn event(&self, event: &Event<'_>) {
        let mut tally = self.tally.lock().expect("tally lock");
        let line = tally.apply(event, self.started.elapsed());
        match &self.out {
            Out::Plain(w) => {
                if let Some(line) = line {
                    // A closed stderr must not stop the review.
                    let _ = writeln!(w.lock().expect("stderr lock"), "gauntlet: {line}");
                }
            }
            Out::Live(bar) => {
                if let Some(line) = line {
                    bar.println(&format!("gauntlet: {line}"));
                }
                let step = tally.current().map(|s| (s.total, s.done));
                bar.update(step, &tally.live_line());
            }
        }
    }
}

/// Shows one run's progress while it lasts. [`Display::finish`] (or dropping it)
/// clears a live display, so the report that follows starts on a clean screen.
pub struct Display {
    sink: Option<Arc<Sink>>,
}

impl Display {
    /// A display in the process's mode, writing to stderr.
    pub fn start() -> Display {
        match mode() {
            Mode::Quiet => Display { sink: None },
            Mode::Plain => Display::plain(Box::new(std::io::stderr())),
            Mode::Live => Display::live(live::Bar::stderr()),
        }
    }

    fn plain(out: Box<dyn Write + Send>) -> Display {
        Display::with(Out::Plain(Mutex::new(out)))
    }

    fn live(bar: live::Bar) -> Display {
        Display::with(Out::Live(bar))
    }

    fn with(out: Out) -> Display {
        Display { sink: Some(Arc::new(Sink { started: Instant::now(), tally: Mutex::default(), out })) }
    }

    /// The observer to hand the pipeline (silent under `--quiet`).
    pub fn observer(&self) -> Observer {
        match &self.sink {
            Some(sink) => Observer::new(sink.clone()),
            None => Observer::default(),
        }
    }

    pub fn finish(self) {}
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(Out::Live(bar)) = self.sink.as_ref().map(|s| &s.out) {
            bar.finish();
        }
    }
}

/// Cases of a backtest as they finish: `[done/total]` before each case's line, with
/// the tokens and cost of every case so far, and on a terminal a bar of cases done.
/// Called from every worker thread; as the cases' [`Progress`], it hears only usage.
pub struct Cases {
    total: usize,
    /// Cases done; held while a line is written, so counts reach the log in order.
    done: Mutex<usize>,
    /// Spending of all cases together (their steps overlap, so only usage is kept).
    spent: Mutex<Tally>,
    bar: Option<live::Bar>,
}

impl Cases {
    pub fn start(total: usize) -> Arc<Cases> {
        let bar = (mode() == Mode::Live).then(live::Bar::stderr);
        Arc::new(Cases::with(total, bar))
    }

    fn with(total: usize, bar: Option<live::Bar>) -> Cases {
        if let Some(bar) = &bar {
            bar.update(Some((total, 0)), &format!("0/{total} cases"));
        }
        Cases { total, done: Mutex::new(0), spent: Mutex::default(), bar }
    }

    /// One more case finished; `text` says how it went.
    pub fn finished(&self, text: &str) {
        if quiet() {
            return;
        }
        let mut done = self.done.lock().expect("cases lock");
        *done += 1;
        let spent = self.spent.lock().expect("spent lock").spent();
        let line = format!("gauntlet: [{}/{}] {text}; {spent} so far", *done, self.total);
        match &self.bar {
            Some(bar) => {
                bar.println(&line);
                bar.update(Some((self.total, *done)), &format!("{}/{} cases · {spent}", *done, self.total));
            }
            None => eprint_line(&line),
        }
    }

    /// Clear the bar (the cases' pipelines may hold this a little longer).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

impl Progress for Cases {
    fn event(&self, event: &Event<'_>) {
        if let Event::Usage { .. } = event {
            self.spent.lock().expect("spent lock").apply(event, std::time::Duration::ZERO);
        }
    }
}

impl Drop for Cases {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests;
