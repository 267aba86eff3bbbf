//! What `scripts/generate-exports.py` writes from level-zero-sys's bindings.

#[allow(clippy::all, missing_docs, non_snake_case)]
#[rustfmt::skip]
pub(crate) mod api_exports;
