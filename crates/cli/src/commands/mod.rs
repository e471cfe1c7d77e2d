//! One file per command.

pub mod init;
#[cfg(feature = "local")]
pub mod model;
pub mod review;
pub mod reviewers;
