//! Ctrl-C (SIGINT) and SIGTERM during `review`, `ci` and `fix`: the run stops
//! at the next safe point instead of dying wherever it stands.
//!
//! Dying on the spot could leave a fix worktree registered in the user's
//! repository, or half of a pull request's comments posted. So the first signal
//! only raises a flag: model calls and fix loops in flight are dropped (each fix
//! worktree removes itself as it is dropped), nothing is posted or written after
//! that, and the command ends with exit code 130. Posting, once begun, is short
//! and finishes first, so the pull request is never left half-updated. A second
//! signal quits at once, for a user who would rather not wait.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::watch;

/// Exit code of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

static RAISED: AtomicBool = AtomicBool::new(false);
/// Set while comments are being posted: a signal then lets the post finish.
static POSTING: AtomicBool = AtomicBool::new(false);
static WATCH: OnceLock<watch::Receiver<bool>> = OnceLock::new();

/// A command stopped by a signal; `state` says what was (not) done, for the
/// user.
#[derive(Debug)]
pub struct Interrupted {
    pub state: &'static str,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted: {}", self.state)
    }
}

impl std::error::Error for Interrupted {}

/// Take over SIGINT and SIGTERM for the rest of the process. Returns once the
/// handlers are in place, so no signal can slip through to the default action
/// after this.
pub fn install() {
    let (tx, rx) = watch::channel(false);
    if WATCH.set(rx).is_err() {
        return;
    }
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    // A thread and runtime of their own: the commands build and drop runtimes as they go.
    let spawned = std::thread::Builder::new().name("gauntlet-signals".into()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            let _ = ready_tx.send(false);
            return;
        };
        runtime.block_on(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut int), Ok(mut term)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
                let _ = ready_tx.send(false);
                return;
            };
            let _ = ready_tx.send(true);
            loop {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                let again = RAISED.swap(true, Ordering::SeqCst);
                if POSTING.load(Ordering::SeqCst) {
                    // CI systems follow SIGINT with SIGTERM within seconds; quitting
                    // then would leave the pull request with part of the comments.
                    crate::progress::eprint_line("gauntlet: interrupted while posting: the post finishes first (a few requests), then gauntlet stops");
                } else if again {
                    crate::progress::eprint_line("gauntlet: interrupted again: quitting at once, without cleaning up");
                    std::process::exit(i32::from(EXIT_CODE));
                } else {
                    crate::progress::eprint_line(
                        "gauntlet: interrupted: stopping at the next safe point; nothing more will be posted or written (interrupt again to quit at once)"
                    );
                }
                let _ = tx.send(true);
            }
        });
    });
    if spawned.is_ok() && ready_rx.recv() == Ok(true) {
        return;
    }
    eprintln!("gauntlet: warning: cannot handle interrupts; Ctrl-C will stop gauntlet without cleaning up");
}

/// Marks the time comments are being posted (see [`POSTING`]) for as long as the
/// guard lives.
pub fn posting() -> impl Drop {
    struct Posting;
    impl Drop for Posting {
        fn drop(&mut self) {
            POSTING.store(false, Ordering::SeqCst);
        }
    }
    POSTING.store(true, Ordering::SeqCst);
    Posting
}

/// Whether a signal has arrived.
pub fn raised() -> bool {
    RAISED.load(Ordering::SeqCst)
}

/// `Err` once a signal has arrived: a checkpoint before anything is posted or written.
pub fn check(state: &'static str) -> Result<(), Interrupted> {
    if raised() { Err(Interrupted { state }) } else { Ok(()) }
}

/// Run `work` on `runtime` until it finishes or a signal arrives, whichever is
/// first. On a signal `work` is dropped unfinished (its worktrees and requests
/// with it) and the answer is `Err`.
pub fn block_on<F: Future>(
    runtime: &tokio::runtime::Runtime,
    state: &'static str,
    work: F,
) -> Result<F::Output, Interrupted> {
    check(state)?;
    runtime.block_on(async {
        tokio::select! {
            biased;
            () = stopped() => Err(Interrupted { state }),
            out = work => Ok(out),
        }
    })
}

/// Resolves when a signal arrives; never without [`install`].
async fn stopped() {
    match WATCH.get() {
        Some(rx) => {
            let mut rx = rx.clone();
            if rx.wait_for(|raised| *raised).await.is_err() {
                // The signal task is gone (it could not start): no signal will come.
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}
