//! The review pipeline.
//!
//! ```text
//! Change ─► Plan (rules) ─► Find (reviewers, parallel) ─► Ground ─► Validate ─► Adjudicate ─► Review
//! ```
//!
//! Models only generate claims ([`contract::RawFinding`]) and try to disprove them
//! ([`contract::Verdict`]); every other decision is plain code: grounding
//! ([`ground`]), the disproof check ([`ground::check_disproof`]) and adjudication
//! ([`adjudicate::adjudicate`]) are pure functions over data. Sessions on providers
//! with tools read more of the repository through [`tools`], inside the [`sandbox`];
//! the others get the enclosing function or class of each finding ([`enclosing`]).

pub mod adjudicate;
pub mod cluster;
pub mod context;
pub mod contract;
pub mod cost;
pub mod enclosing;
pub mod fence;
pub mod finding;
pub mod gate;
pub mod ground;
pub mod guidance;
pub mod intent;
pub mod limits;
pub mod listing;
pub mod part;
pub mod pipeline;
pub mod progress;
pub mod prompt;
pub mod related;
pub mod repo;
pub mod review;
pub mod rules;
pub mod sandbox;
pub mod secrets;
pub mod shown;
pub mod tools;

pub use review::Review;
