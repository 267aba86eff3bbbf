//! Per-platform entry points for the Level Zero functions that take no handle.
//!
//! `zeInit`, `zeDriverGet`, `zeInitDrivers`, `zesInit` and `zesDriverGet` cannot tell which
//! in-process platform they are meant for, so each platform gets a slot and these functions are
//! instantiated once per slot; every other entry point finds its platform through the handle it
//! is given.

use crate::abi::entry::{driver, sysman};
use crate::engine::platform::Inner;
use level_zero_sys::ze_init_driver_type_desc_t;
use level_zero_sys::{ze_driver_handle_t, ze_init_flags_t, ze_result_t, zes_init_flags_t};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, Weak};

/// How many in-process platforms may exist at once.
pub const SLOT_COUNT: usize = 128;

static SLOTS: Mutex<Vec<Option<Weak<Inner>>>> = Mutex::new(Vec::new());

pub(crate) fn acquire() -> Option<usize> {
    let mut slots = SLOTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if slots.is_empty() {
        slots.resize(SLOT_COUNT, None);
    }
    let free = slots.iter().position(Option::is_none)?;
    slots[free] = Some(Weak::new());
    Some(free)
}

pub(crate) fn bind(slot: usize, platform: &Arc<Inner>) {
    let mut slots = SLOTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    slots[slot] = Some(Arc::downgrade(platform));
}

pub(crate) fn release(slot: usize) {
    let mut slots = SLOTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(entry) = slots.get_mut(slot) {
        *entry = None;
    }
}

fn platform(slot: usize) -> Option<Arc<Inner>> {
    let slots = SLOTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    slots.get(slot)?.as_ref()?.upgrade()
}

unsafe extern "C" fn slot_init<const SLOT: usize>(flags: ze_init_flags_t) -> ze_result_t {
    driver::init(platform(SLOT), flags)
}

unsafe extern "C" fn slot_driver_get<const SLOT: usize>(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    // SAFETY: the caller passes the pointers `zeDriverGet` takes.
    unsafe { driver::driver_get(platform(SLOT), count, drivers) }
}

unsafe extern "C" fn slot_init_drivers<const SLOT: usize>(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
    desc: *mut ze_init_driver_type_desc_t,
) -> ze_result_t {
    // SAFETY: the caller passes the pointers `zeInitDrivers` takes.
    unsafe { driver::init_drivers(platform(SLOT), count, drivers, desc) }
}

unsafe extern "C" fn slot_sysman_init<const SLOT: usize>(flags: zes_init_flags_t) -> ze_result_t {
    sysman::init(platform(SLOT), flags)
}

unsafe extern "C" fn slot_sysman_driver_get<const SLOT: usize>(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    // SAFETY: the caller passes the pointers `zesDriverGet` takes.
    unsafe { sysman::driver_get(platform(SLOT), count, drivers) }
}

macro_rules! slot_tables {
    ($($slot:literal)*) => {
        const INIT: [unsafe extern "C" fn(ze_init_flags_t) -> ze_result_t; SLOT_COUNT] =
            [$(slot_init::<$slot>),*];
        const DRIVER_GET: [unsafe extern "C" fn(*mut u32, *mut ze_driver_handle_t) -> ze_result_t;
            SLOT_COUNT] = [$(slot_driver_get::<$slot>),*];
        #[allow(clippy::type_complexity)]
        const INIT_DRIVERS: [unsafe extern "C" fn(
            *mut u32,
            *mut ze_driver_handle_t,
            *mut ze_init_driver_type_desc_t,
        ) -> ze_result_t; SLOT_COUNT] = [$(slot_init_drivers::<$slot>),*];
        const SYSMAN_INIT: [unsafe extern "C" fn(zes_init_flags_t) -> ze_result_t; SLOT_COUNT] =
            [$(slot_sysman_init::<$slot>),*];
        const SYSMAN_DRIVER_GET: [unsafe extern "C" fn(*mut u32, *mut ze_driver_handle_t)
            -> ze_result_t; SLOT_COUNT] = [$(slot_sysman_driver_get::<$slot>),*];
    };
}

slot_tables!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127);

/// The slot-specific entry point called `name`, if it is one of them.
pub(crate) fn resolve(slot: usize, name: &str) -> Option<*const c_void> {
    match name {
        "zeInit" => Some(INIT[slot] as *const c_void),
        "zeDriverGet" => Some(DRIVER_GET[slot] as *const c_void),
        "zeInitDrivers" => Some(INIT_DRIVERS[slot] as *const c_void),
        "zesInit" => Some(SYSMAN_INIT[slot] as *const c_void),
        "zesDriverGet" => Some(SYSMAN_DRIVER_GET[slot] as *const c_void),
        _ => None,
    }
}
