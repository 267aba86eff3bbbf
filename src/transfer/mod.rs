//! Copies and launches through the residency manager: each is a use that makes memory resident
//! where it runs (by policy), pins it until the work is done, and picks the path (P2P, staged).
//! Level Zero is reached through the safe core (`ze`) only; copies are safe code, and a launch
//! is `unsafe` only as a contract passed on to the caller (what the kernel touches).

pub(crate) mod copy;
pub(crate) mod launch;

pub use copy::{CopyPath, CopyReport};
pub use launch::LaunchReport;
