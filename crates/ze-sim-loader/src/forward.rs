//! How a generated export reaches the simulator: one copy of each table the simulator fills,
//! and the answer for what it does not implement.

use crate::generated::api_exports::{Tables, fill};
use level_zero_sys::{Unsupported, ze_api_version_t, ze_major_version, ze_result_t};
use std::sync::OnceLock;

/// The simulator's tables at this crate's spec version, filled on first use.
pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables = Tables::default();
        fill(&mut tables, ze_api_version_t::ZE_API_VERSION_CURRENT);
        tables
    })
}

/// What a function the simulator does not implement returns (the shared answer); the call is
/// counted.
pub(crate) fn unsupported<T: Unsupported>(name: &'static str) -> T {
    ze_sim::record_unsupported_call(name);
    T::unsupported()
}

/// What the tracer's functions return: the loader's answer when its tracing layer is not loaded
/// (`zel_tracing_libapi.cpp` and `ze_tracing_register_cb_libapi.cpp` of the loader v1.32.0), as
/// the stand-in has none; the call is counted as unsupported.
pub(crate) fn no_tracing_layer(name: &'static str) -> ze_result_t {
    ze_sim::record_unsupported_call(name);
    ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
}

/// A getter of a table the simulator implements nothing of: checks what a getter checks and
/// writes nothing (callers of the stand-in look each function up by name afterwards).
pub(crate) fn acknowledge(version: ze_api_version_t, table_is_null: bool) -> ze_result_t {
    if table_is_null {
        ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
    } else if ze_major_version(version.0) != 1 {
        ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_VERSION
    } else {
        ze_result_t::ZE_RESULT_SUCCESS
    }
}
