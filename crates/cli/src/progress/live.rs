//! The live display on a terminal: one line redrawn in place (a spinner, the time
//! since the run began, a bar of the current step's units and what the tally
//! says), with finished steps printed above it as they end.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

/// How often the spinner and the elapsed time move while nothing else happens.
const TICK: Duration = Duration::from_millis(120);

pub struct Bar {
    bar: ProgressBar,
}

/// The display on stderr now, if any: other lines written meanwhile (an interrupt's
/// message, a note) are printed above it instead of through it.
static ON_SCREEN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Write `line` to stderr, above the live display when one is showing.
pub fn eprint_line(line: &str) {
    match ON_SCREEN.lock().ok().as_deref().and_then(Option::as_ref) {
        Some(bar) => bar.println(line),
        None => eprintln!("{line}"),
    }
}

impl Bar {
    pub fn stderr() -> Bar {
        let bar = Bar::to(ProgressDrawTarget::stderr());
        bar.bar.enable_steady_tick(TICK);
        if let Ok(mut shown) = ON_SCREEN.lock() {
            *shown = Some(bar.bar.clone());
        }
        bar
    }

    /// A display drawn to `target` (tests draw to an in-memory terminal).
    pub fn to(target: ProgressDrawTarget) -> Bar {
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {bar:20} {wide_msg}")
            .expect("the template is valid")
            .progress_chars("=> ");
        let bar =
            ProgressBar::with_draw_target(Some(0), target).with_style(style).with_finish(ProgressFinish::AndClear);
        Bar { bar }
    }

    /// Redraw: the bar shows `(total, done)` of the step under way (empty between
    /// steps), the message the rest.
    pub fn update(&self, step: Option<(usize, usize)>, message: &str) {
        let (total, done) = step.unwrap_or((0, 0));
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar.set_message(message.to_string());
    }

    /// A line that stays, printed above the live one.
    pub fn println(&self, line: &str) {
        self.bar.println(line);
    }

    /// Clear the live line; what was printed above it stays.
    pub fn finish(&self) {
        // One display shows at a time, so the one ending is the one on screen.
        if let Ok(mut shown) = ON_SCREEN.lock() {
            *shown = None;
        }
        self.bar.finish_and_clear();
    }
}
