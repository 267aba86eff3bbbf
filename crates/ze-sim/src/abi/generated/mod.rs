//! What the scripts in `scripts/` write: every implemented entry point by name, read from the
//! DDI tables (`generate-names.py`, checked by `cargo xtask generated check`), and how many
//! fields each DDI table has at each API version (`ddi_field_counts.py`, from the loader's
//! release tags, which are not committed: not checked).

#[rustfmt::skip]
pub(crate) mod by_name;
#[rustfmt::skip]
pub(crate) mod ddi_field_counts;
