//! What `scripts/generate-forwarders.py` writes from level-zero-sys's bindings (`cargo xtask
//! generated write`; CI checks it is current with `cargo xtask generated check`). The tables the
//! loader's getters fill are included by `tables.rs`, whose macro they use.

#[allow(clippy::all, non_snake_case)]
#[rustfmt::skip]
pub(crate) mod forwarders;
