//! Kernel launches: their arguments checked like copy operands, and kernels run, the
//! simulator's built-ins itself and modules' kernels through OpenCL.

use crate::engine::checks::{Place, check_range};
use crate::engine::commands::{Engine, Launch};
use crate::engine::ops::{Op, Run};
use crate::engine::platform::{Inner, State};
use crate::model::memory_kind::MemKind;
use crate::objects::module::{Builtin, Code};
use level_zero_sys::{ze_group_count_t, ze_result_t};
use std::sync::Arc;

/// Checks a launch: every pointer argument that points into memory of the platform is checked
/// like a copy operand (context, residency on the executing device, P2P); a built-in's pointer
/// arguments must also reach all its work items' bytes.
pub(crate) fn prepare_launch(
    platform: &Inner,
    state: &mut State,
    context: usize,
    engine: Engine,
    launch: &Launch,
) -> Result<Op, ze_result_t> {
    let items = launch.groups[0] as usize * launch.group_size[0] as usize;
    if launch
        .kernel_destroyed
        .load(std::sync::atomic::Ordering::Acquire)
    {
        // Destroyed while a recorded list still launches it.
        state.counters.destroy_hazards += 1;
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    let mut touched = Vec::new();
    let mut pointers = Vec::new();
    let mut value = 0;
    let mut run = None;
    let pointer_of = |bytes: &[u8]| usize::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
    if launch.builtin.is_some()
        && (launch.global_offset != [0; 3]
            || launch.groups_at.is_some()
            || launch.launch_if.is_some())
    {
        // The built-ins index their arrays from the first work item, over counts known when
        // they are appended.
        return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    }
    // What the device itself reads when the launch runs (a multiple launch's count, an
    // indirect launch's group counts): memory it reaches, checked like an argument, in device
    // or registered memory and 4-byte aligned.
    let device_reads = [
        launch
            .launch_if
            .map(|(address, _)| (address, size_of::<u32>())),
        launch
            .groups_at
            .map(|address| (address, size_of::<ze_group_count_t>())),
    ];
    for (address, size) in device_reads.into_iter().flatten() {
        let (place, _) = check_range(
            platform,
            state,
            context,
            engine,
            (address, size),
            false,
            &mut touched,
        )?;
        if place == Place::HostPageable || !address.is_multiple_of(4) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
    }
    match launch.builtin {
        Some(builtin) => {
            for (index, &(size, reach)) in builtin.arguments().iter().enumerate() {
                let bytes = launch
                    .arguments
                    .get(index)
                    .cloned()
                    .flatten()
                    .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)?;
                if bytes.len() != size {
                    return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                }
                match reach {
                    Some(per_item) => {
                        let address = pointer_of(&bytes);
                        // Work items read and write whole elements: an unaligned array is
                        // refused (it would be undefined behaviour to run).
                        if !address.is_multiple_of(per_item) {
                            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                        }
                        let span = items
                            .checked_mul(per_item)
                            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
                        if span > 0 {
                            // Kernels reach USM only: pageable host memory is not addressable.
                            let (place, _) = check_range(
                                platform,
                                state,
                                context,
                                engine,
                                (address, span),
                                false,
                                &mut touched,
                            )?;
                            if place == Place::HostPageable {
                                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                            }
                        }
                        pointers.push(address);
                    }
                    None => {
                        value = u32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4]));
                    }
                }
            }
        }
        None => match launch.code.clone() {
            Some(code) => {
                run = prepare_run(platform, state, context, engine, launch, code, &mut touched)?;
            }
            // An unknown kernel: any 8-byte argument that points into the platform's memory is
            // a pointer argument, checked at the byte it points to.
            None => {
                for bytes in launch.arguments.iter().flatten() {
                    check_if_address(platform, state, context, engine, bytes, &mut touched)?;
                }
            }
        },
    }
    state.counters.launches += 1;
    if launch.builtin.is_some() || run.is_some() {
        state.counters.kernels_executed += 1;
    } else {
        state.counters.kernels_not_executed += 1;
    }
    let bytes = items.saturating_mul(8) as f64;
    let timing = &platform.config.timing;
    Ok(Op::Launch {
        kernel: launch.kernel,
        builtin: launch.builtin,
        run,
        items,
        pointers,
        value,
        nanos: timing.latency_ns + (bytes / timing.same_device_gbps) as u64,
        touched,
    })
}

/// An argument of 8 bytes that points into the platform's memory, checked like a copy
/// operand at the byte it points to; any other argument is no address of the platform's.
pub(crate) fn check_if_address(
    platform: &Inner,
    state: &mut State,
    context: usize,
    engine: Engine,
    bytes: &[u8],
    touched: &mut Vec<usize>,
) -> Result<(), ze_result_t> {
    let Ok(raw) = <[u8; 8]>::try_from(bytes) else {
        return Ok(());
    };
    let address = usize::from_le_bytes(raw);
    if Inner::find_allocation(state, address, 1)?.is_some() {
        check_range(
            platform,
            state,
            context,
            engine,
            (address, 1),
            false,
            touched,
        )?;
    }
    Ok(())
}

/// Checks a launch of a kernel with code: every argument set with its parameter's size, and
/// every non-null pointer argument checked like a copy operand at the byte it points to. The
/// run it returns is `None` when the kernel must not run: a pointer argument outside every
/// allocation and registered range (it would fault this process where a GPU faults; counted as
/// a residency violation), or a parameter OpenCL cannot be given (an image, a sampler).
pub(crate) fn prepare_run(
    platform: &Inner,
    state: &mut State,
    context: usize,
    engine: Engine,
    launch: &Launch,
    code: Arc<Code>,
    touched: &mut Vec<usize>,
) -> Result<Option<Run>, ze_result_t> {
    use crate::objects::opencl::Argument;
    use crate::objects::spirv::Parameter;
    let mut arguments = Vec::with_capacity(code.parameters.len());
    let mut runnable = true;
    let mut local_bytes = 0u64;
    for (index, parameter) in code.parameters.iter().enumerate() {
        let bytes = launch
            .arguments
            .get(index)
            .cloned()
            .flatten()
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)?;
        match *parameter {
            Parameter::Pointer { size } => {
                let address = usize::from_le_bytes(
                    bytes
                        .get(..size.min(8))
                        .and_then(|raw| raw.try_into().ok())
                        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)?,
                );
                if address != 0 {
                    let (place, _) = check_range(
                        platform,
                        state,
                        context,
                        engine,
                        (address, 1),
                        false,
                        touched,
                    )?;
                    if place == Place::HostPageable {
                        state.counters.residency_violations += 1;
                        runnable = false;
                    }
                }
                arguments.push(Argument::Pointer(address));
            }
            Parameter::Local => {
                let size = bytes
                    .get(..8)
                    .and_then(|raw| raw.try_into().ok())
                    .map_or(0, u64::from_le_bytes);
                local_bytes = local_bytes.saturating_add(size);
                arguments.push(Argument::Local(usize::try_from(size).unwrap_or(usize::MAX)));
            }
            Parameter::Value { .. } => {
                // A 64-bit value may be an address the kernel uses.
                check_if_address(platform, state, context, engine, &bytes, touched)?;
                arguments.push(Argument::Value(bytes));
            }
            Parameter::Sampler => {
                if bytes.len() < size_of::<usize>() {
                    return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                }
                // Its handle was resolved when the launch was appended (a handle that was no
                // sampler then fails as its lookup did); destroyed since, the driver would
                // read freed state.
                let sampler = launch.samplers.iter().find(|(at, _)| *at == index).map_or(
                    Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
                    |(_, sampler)| sampler.clone(),
                )?;
                if sampler.destroyed.load(std::sync::atomic::Ordering::Acquire) {
                    return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                }
                arguments.push(Argument::sampler(
                    sampler.address_mode,
                    sampler.filter_mode,
                    sampler.normalized,
                ));
            }
            Parameter::Unknown => runnable = false,
        }
    }
    // More local memory than a group has: compute-runtime fails the append ("Size of SLM
    // larger than available", `level_zero/core/source/cmdlist/cmdlist_hw_xehp_and_later.inl`).
    // It also counts the kernel's own local memory and aligns each argument's; not modelled.
    if local_bytes > u64::from(crate::model::config::MAX_SHARED_LOCAL_MEMORY) {
        return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    }
    let mut global = [0usize; 3];
    let mut local = [0usize; 3];
    for axis in 0..3 {
        local[axis] = launch.group_size[axis] as usize;
        global[axis] = (launch.groups[axis] as usize)
            .checked_mul(local[axis])
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    }
    Ok(runnable.then_some(Run {
        code,
        arguments,
        global,
        local,
        offset: launch.global_offset.map(|offset| offset as usize),
        groups_at: launch.groups_at,
        launch_if: launch.launch_if,
    }))
}

/// Runs a kernel with code through OpenCL; a failure is counted in `kernel_failures` (a GPU
/// would fault).
pub(crate) fn run_code(platform: &Inner, run: &Run) {
    if let Some((address, index)) = run.launch_if {
        // SAFETY: 4 aligned bytes inside an allocation checked at submission and kept alive by
        // the pending launch; the program's earlier commands have completed (in order).
        let count = unsafe { (address as *const u32).read_volatile() };
        if index >= count {
            // Counted as executed when it was submitted: it is not, after all.
            let mut state = platform.lock();
            state.counters.kernels_executed = state.counters.kernels_executed.saturating_sub(1);
            state.counters.kernels_not_executed += 1;
            return;
        }
    }
    let mut global = run.global;
    if let Some(address) = run.groups_at {
        // SAFETY: 12 aligned bytes inside an allocation checked at submission and kept alive
        // by the pending launch; the program's earlier commands have completed (in order).
        let counts = unsafe { (address as *const [u32; 3]).read_volatile() };
        for axis in 0..3 {
            match (counts[axis] as usize).checked_mul(run.local[axis]) {
                Some(items) => global[axis] = items,
                None => {
                    let mut state = platform.lock();
                    state.counters.kernel_failures += 1;
                    return;
                }
            }
        }
    }
    // SAFETY: every pointer argument was checked at submission to point into a live
    // allocation or memory the caller registered (and must keep valid until the launch
    // completes); no allocation of the launch's context is released while it is in flight
    // (`State::real_launches` turns frees into zombies), so addresses the kernel reaches
    // through pointer tables stay valid too. Reaching outside its allocations is the kernel's
    // own fault, as on hardware.
    let result = unsafe {
        run.code.program.run(
            &run.code.name,
            &run.arguments,
            global,
            run.local,
            run.offset,
        )
    };
    if result.is_err() {
        let mut state = platform.lock();
        state.counters.kernel_failures += 1;
        // Counted as executed when it was submitted; it was not.
        state.counters.kernels_executed = state.counters.kernels_executed.saturating_sub(1);
        state.counters.kernels_not_executed += 1;
    }
}

/// Runs a built-in's work items. The gather's reads through pointers are checked as they happen
/// (under the platform lock, so nothing is freed under them): a pointer into a device allocation
/// not resident on the executing device is a residency violation, and a pointer outside every
/// allocation reads as zero and is counted too.
pub(crate) fn run_builtin(
    platform: &Inner,
    engine: Engine,
    builtin: Builtin,
    items: usize,
    pointers: &[usize],
    value: u32,
) {
    if items == 0 {
        return;
    }
    // Each pointer argument was checked at append to reach `items` work items' bytes inside a
    // live allocation, which the launch keeps alive while pending.
    match builtin {
        Builtin::Fill => {
            // SAFETY: `items` u32s at the checked destination.
            let dst = unsafe { std::slice::from_raw_parts_mut(pointers[0] as *mut u32, items) };
            dst.fill(value);
        }
        // SAFETY: `items` u32s at the checked source and destination (`copy` allows overlap).
        Builtin::Copy => unsafe {
            std::ptr::copy(pointers[1] as *const u32, pointers[0] as *mut u32, items);
        },
        Builtin::Gather => {
            // SAFETY: `items` pointers in the checked table.
            let table = unsafe { std::slice::from_raw_parts(pointers[1] as *const usize, items) };
            let mut state = platform.lock();
            let mut values = Vec::with_capacity(items);
            for &address in table {
                let found = Inner::find_allocation(&state, address, 4).ok().flatten();
                let Some(base) = found else {
                    state.counters.residency_violations += 1;
                    values.push(0);
                    continue;
                };
                let allocation = &state.memory.allocations[&base];
                let foreign = matches!(allocation.kind, MemKind::Device { owner } if owner != engine.device)
                    && allocation.resident & (1 << engine.device) == 0;
                // Not even the faithful driver imports what a kernel reaches through a pointer:
                // its indirect-access residency covers only the device's own allocations.
                if foreign {
                    state.counters.residency_violations += 1;
                }
                // SAFETY: four bytes inside a live allocation, which the lock keeps alive.
                values.push(unsafe { (address as *const u32).read_unaligned() });
            }
            drop(state);
            // SAFETY: `items` u32s at the checked destination.
            let dst = unsafe { std::slice::from_raw_parts_mut(pointers[0] as *mut u32, items) };
            dst.copy_from_slice(&values);
        }
    }
}
