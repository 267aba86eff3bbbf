//! The tools' integration tests, one binary.

mod probe;
