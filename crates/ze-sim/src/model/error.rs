//! Why a platform could not be made.

use crate::model::config::{ConfigError, PRESET_NAMES};

/// Why a platform could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The configuration is unreadable or inconsistent.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No preset has this name.
    #[error("no simulator preset `{0}`; presets: {presets}", presets = PRESET_NAMES.join(", "))]
    UnknownPreset(String),
    /// Every in-process platform slot is taken.
    #[error("{0} in-process simulated platforms exist already; drop one first")]
    TooManyPlatforms(usize),
    /// The loader-driven platform could not be made.
    #[error("the loader-driven simulated platform is unavailable: {0}")]
    Global(String),
}
