//! The backtest: does gauntlet catch the defects that escaped, and stay quiet on
//! clean changes, better than a naive single-pass reviewer?
//!
//! A corpus is a folder of cases ([`corpus`]); each case is a repository (usually a
//! git bundle) at a base and a head revision, labelled `escape` (with its known
//! defects, in head lines) or `clean`. [`run::run_all`] reviews each case in a
//! temporary checkout with the real pipeline, print-only and with the gate's verdict
//! only reported, optionally runs the single-pass [`baseline`] on the same change,
//! and scores both with the pure functions of [`score`]; with `--judge`, a blind
//! [`judge`] answers for the findings of either side that match nothing known.
//! [`report::summarise`] adds the cases up; [`markdown::render`] and `serde_json`
//! print the result.
//!
//! ```no_run
//! # fn setup() -> gauntlet_backtest::run::Setup { unimplemented!() }
//! let cases = gauntlet_backtest::corpus::load(std::path::Path::new("corpus")).unwrap();
//! let runtime = tokio::runtime::Runtime::new().unwrap();
//! let results = gauntlet_backtest::run::run_all(&cases, &setup(), runtime.handle(), &|_| {});
//! ```
//!
//! This crate depends on no publisher: a backtest cannot post anywhere.

pub mod baseline;
pub mod checkout;
pub mod corpus;
pub mod html;
mod html_cases;
pub mod judge;
pub mod markdown;
pub mod mine;
pub mod report;
pub mod run;
pub mod score;
pub mod shard;
pub mod sweep;
