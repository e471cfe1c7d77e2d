//! One file per command.

pub mod backtest;
pub mod ci;
pub mod fix;
pub mod init;
pub mod manual;
#[cfg(feature = "local")]
pub mod model;
pub mod refine;
pub mod review;
pub mod reviewers;
pub mod rules;
pub mod stats;
mod stats_html;
mod web;
