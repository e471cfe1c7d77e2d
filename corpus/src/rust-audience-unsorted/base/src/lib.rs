//! Who hears about forum activity, and what they are sent.

pub mod admin;
pub mod audience;
pub mod billing;
pub mod digest;
pub mod store;
