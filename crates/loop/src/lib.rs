//! The adversarial loop behind `gauntlet fix` and `gauntlet refine`.
//!
//! A primary session (the creator) and an adversary session (the critic) take turns
//! on one piece of work, a patch or a document, until the adversary is satisfied or
//! the loop stops being useful:
//!
//! ```text
//!  primary ─► work ─► inspect (apply, check) ─► adversary ─► converged? ─► done
//!     ▲                     │ does not apply                     │ no
//!     └──── issues ◄────────┴────────────────────────────────────┘
//! ```
//!
//! - [`contract`]: the adversary's `{"verdict", "issues"}` and the primary's
//!   `{"patch" | "document", "addressed"}`, parsed strictly.
//! - [`converge`]: the exit reasons and the escalation of the adversary's brief,
//!   pure functions of the rounds so far.
//! - [`round`]: one round's record and the summary of earlier rounds each fresh
//!   adversary is given.
//! - [`engine`]: the loop, generic over a [`engine::Task`]; [`fix`] and [`refine`]
//!   are its two tasks.
//! - [`meter`]: model calls under the run's budget, with usage and cost.
//!
//! ```no_run
//! # async fn demo(task: &dyn gauntlet_loop::engine::Task, meter: &gauntlet_loop::meter::Meter) {
//! use gauntlet_loop::engine::{Flow, Settings, run};
//! let settings = Settings { rounds: 10, flow: Flow::Standard, tier: gauntlet_model::Tier::Standard };
//! let outcome = run(task, &settings, meter, None).await;
//! println!("{} after {} rounds", outcome.exit, outcome.rounds.len());
//! # }
//! ```

pub mod contract;
pub mod converge;
pub mod engine;
pub mod fix;
pub mod meter;
pub mod prompt;
pub mod refine;
pub mod round;
