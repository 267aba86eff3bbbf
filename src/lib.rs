//! lazy-usm: a residency-aware USM allocator for multi-GPU Level Zero programs.
//!
//! The safe layers are being built; today the crate re-exports the generated bindings.

pub use level_zero_sys as sys;
