//! One file per command.

pub mod init;
pub mod review;
pub mod reviewers;
