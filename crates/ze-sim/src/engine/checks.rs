//! Range checks: where a command's bytes live (which allocation, device, mapping) and whether
//! the executing device may reach them; what moving them costs in modelled time.

use crate::engine::commands::Engine;
use crate::engine::platform::{Inner, State};
use crate::model::config::LinkKind;
use crate::model::memory_kind::MemKind;
use level_zero_sys::ze_result_t;

/// Device-memory access of one command on the executing device.
pub(crate) enum Access {
    Local,
    Peer(LinkKind),
}

/// Where a byte range lives, for costing and counting.
#[derive(PartialEq)]
pub(crate) enum Place {
    DeviceLocal,
    DevicePeer,
    HostDirect,
    HostPageable,
}

/// How a place costs a command, as the copy counters rank them (a corrupting link last).
pub(crate) fn cost_rank((place, access): &(Place, Option<Access>)) -> u8 {
    let corrupt = matches!(access, Some(Access::Peer(LinkKind::Corrupt)));
    let place = match place {
        Place::DeviceLocal => 0,
        Place::HostDirect => 1,
        Place::HostPageable => 2,
        Place::DevicePeer => 3,
    };
    place * 2 + u8::from(corrupt)
}

/// The parts of `address..address + size` in each mapping, where the range starts in a mapping
/// of a reservation and runs on through mappings that follow one another with no gap, inside
/// that reservation; `None` for a range inside one allocation, or not so covered.
pub(crate) fn mapping_parts(
    state: &State,
    address: usize,
    size: usize,
) -> Option<Vec<(usize, usize)>> {
    let end = address.checked_add(size)?;
    let (&first, allocation) = state.memory.allocations.range(..=address).next_back()?;
    let first_end = first.checked_add(allocation.size)?;
    if address >= first_end || end <= first_end || !state.memory.mapped_from.contains_key(&first) {
        return None;
    }
    let (&reserved, reservation) = state.memory.reservations.range(..=first).next_back()?;
    if end > reserved.checked_add(reservation.size)? {
        return None;
    }
    let mut parts = vec![(address, first_end - address)];
    let mut at = first_end;
    while at < end {
        let next = state.memory.allocations.get(&at)?;
        if !state.memory.mapped_from.contains_key(&at) {
            return None;
        }
        let part_end = at.checked_add(next.size)?.min(end);
        parts.push((at, part_end - at));
        at = part_end;
    }
    Some(parts)
}

/// Checks one range for a command on `engine` in `context`: bounds, context, residency and P2P.
pub(crate) fn check_range(
    platform: &Inner,
    state: &mut State,
    context: usize,
    engine: Engine,
    (address, size): (usize, usize),
    // A copy or fill (a copy engine can stage what a kernel cannot reach).
    copy: bool,
    touched: &mut Vec<usize>,
) -> Result<(Place, Option<Access>), ze_result_t> {
    // A caller's range that wraps around the address space is no memory at all.
    if address.checked_add(size).is_none() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
    }
    if let Some(parts) = mapping_parts(state, address, size) {
        // Virtual memory: one range over adjacent mappings of a reservation, as the GPU's
        // address space has it (level-zero-tests fills and copies a reservation mapped to
        // several devices' physical memory). Each part is checked as its own range; the
        // costliest place answers for the whole.
        let mut whole: Option<(Place, Option<Access>)> = None;
        for part in parts {
            let answer = check_range(platform, state, context, engine, part, copy, touched)?;
            whole = Some(match whole {
                Some(kept) if cost_rank(&kept) >= cost_rank(&answer) => kept,
                _ => answer,
            });
        }
        return whole.ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    let Some(base) = Inner::find_allocation(state, address, size)? else {
        // The import of greatest base at or below the range, as compute-runtime finds a host
        // pointer's (an ordered map searched from below): under an import that covers an
        // older one inside it, a range past the inner one is pageable there too.
        let registered = state
            .memory
            .imports
            .range(..=address)
            .next_back()
            .is_some_and(|(&base, &length)| address + size <= base.saturating_add(length))
            || state
                .memory
                .module_globals
                .range(..=address)
                .next_back()
                .is_some_and(|(&base, &(length, _))| address + size <= base.saturating_add(length));
        return Ok((
            if registered {
                Place::HostDirect
            } else {
                Place::HostPageable
            },
            None,
        ));
    };
    let allocation = &state.memory.allocations[&base];
    if allocation.context != context {
        // Another context's memory: compute-runtime keeps allocations per driver, not per
        // context, and uses them (level-zero-tests' event timeout test copies one context's
        // memory on another's list). Checking mode refuses it; otherwise it is counted.
        if !platform.config.implicit_peer_import {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        state.counters.cross_context_uses += 1;
    }
    let allocation = &state.memory.allocations[&base];
    touched.push(base);
    match allocation.kind {
        MemKind::Host | MemKind::Shared { .. } => Ok((Place::HostDirect, None)),
        MemKind::Device { owner } if owner == engine.device => {
            // Device memory is committed lazily; first use on its owner commits it.
            platform.make_resident(state, base, owner)?;
            Ok((Place::DeviceLocal, Some(Access::Local)))
        }
        MemKind::Device { .. }
            if !platform.config.peer_access_reported
                && copy
                && allocation.resident & (1 << engine.device) == 0 =>
        {
            // Peer access reported absent: the driver stages the copy through host memory.
            Ok((Place::HostPageable, None))
        }
        MemKind::Device { owner } => {
            if allocation.resident & (1 << engine.device) == 0 {
                if !platform.config.peer_access_reported {
                    // No peer access reported: a kernel cannot reach it, nor will the driver
                    // import it for one (assumed).
                    state.counters.residency_violations += 1;
                    return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                }
                if platform.config.implicit_peer_import {
                    platform.import_on_use(state, base, engine.device)?;
                } else {
                    state.counters.residency_violations += 1;
                    if platform.config.strict_residency {
                        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                    }
                }
            }
            let link = platform.config.link(engine.device, owner);
            if link == LinkKind::Refused {
                state.counters.refused_copies += 1;
                return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
            }
            Ok((Place::DevicePeer, Some(Access::Peer(link))))
        }
    }
}

pub(crate) fn nanos(platform: &Inner, places: &[&Place], size: usize) -> u64 {
    let timing = &platform.config.timing;
    let rate = places
        .iter()
        .map(|place| match place {
            Place::DeviceLocal => timing.same_device_gbps,
            Place::DevicePeer if timing.p2p_gbps > 0.0 => timing.p2p_gbps,
            Place::DevicePeer | Place::HostPageable => timing.staged_gbps,
            Place::HostDirect => timing.host_link_gbps,
        })
        .fold(f64::INFINITY, f64::min);
    // 1 GB/s moves one byte per nanosecond.
    // A huge size saturates the conversion; the sum must not wrap.
    timing
        .latency_ns
        .saturating_add((size as f64 / rate) as u64)
}
