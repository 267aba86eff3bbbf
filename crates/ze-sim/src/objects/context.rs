//! A context.

/// A context: the devices it spans, as a bit set of device indices.
#[derive(Debug)]
pub(crate) struct Context {
    pub devices: u64,
}
