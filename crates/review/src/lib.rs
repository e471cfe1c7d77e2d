//! The review pipeline.
//!
//! ```text
//! Change ─► Plan (rules) ─► Find (reviewers, parallel) ─► Ground ─► Validate ─► Adjudicate ─► Review
//! ```
//!
//! Models only generate claims ([`contract::RawFinding`]) and try to disprove them
//! ([`contract::Verdict`]); every other decision is plain code: grounding
//! ([`ground`]), the disproof check ([`ground::check_disproof`]) and adjudication
//! ([`adjudicate::adjudicate`]) are pure functions over data.

pub mod adjudicate;
pub mod contract;
pub mod cost;
pub mod fence;
pub mod finding;
pub mod gate;
pub mod ground;
pub mod guidance;
pub mod pipeline;
pub mod prompt;
pub mod review;
pub mod rules;
pub mod shown;

pub use review::Review;
