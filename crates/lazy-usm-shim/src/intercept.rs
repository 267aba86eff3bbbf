//! The functions the shim intercepts: device allocations and frees, peer residency calls (not
//! forwarded under the lazy policy), and the first use of a peer's allocation by a copy, a fill
//! or a kernel launch on another device (made resident there, once; under a host budget, the
//! least recently used residency the shim made goes first, once no queued work uses it).

use crate::budget::{Budget, oldest_first, size_text};
use crate::real::Real;
use crate::state::{Allocation, ListLife, ListRecord, ListUse, PeerUse, Peers, lock, say, shim};
use lazy_usm_spirv::Parameter;
use level_zero_sys::*;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};

const SUCCESS: ze_result_t = ze_result_t::ZE_RESULT_SUCCESS;
const UNSUPPORTED: ze_result_t = ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;

/// The real loader's function `$name`, of type `$type`, or `UNSUPPORTED` from the caller.
macro_rules! real {
    ($name:literal, $type:ty) => {{
        static REAL: Real = Real::new($name);
        // SAFETY: the real loader's function of this name has the headers' signature `$type`.
        match unsafe { REAL.get::<$type>() } {
            Some(function) => function,
            None => return UNSUPPORTED,
        }
    }};
}

type MakeResident = unsafe extern "C" fn(
    ze_context_handle_t,
    ze_device_handle_t,
    *mut c_void,
    usize,
) -> ze_result_t;

/// The record of `list`, for an append under a host budget (see [`appending`]).
pub(crate) fn list_for_append(list: ze_command_list_handle_t) -> Option<Arc<ListRecord>> {
    let shim = shim();
    shim.budget.as_ref()?;
    shim.list_record(list as usize)
}

/// An append in progress under a host budget (see [`appending`]).
pub(crate) struct Appending<'a>(&'a ListRecord);

impl Drop for Appending<'_> {
    fn drop(&mut self) {
        self.0.appending_since.store(0, Ordering::SeqCst);
    }
}

/// Marks an append to the list in progress, from before any of its residency is looked at
/// until the driver has its work: a residency used since (its last use is later) is this
/// append's, and stays.
pub(crate) fn appending(record: &Option<Arc<ListRecord>>) -> Option<Appending<'_>> {
    let record = record.as_deref()?;
    let budget = shim().budget.as_ref()?;
    record
        .appending_since
        .store(budget.tick(), Ordering::SeqCst);
    Some(Appending(record))
}

/// Read-holds the list's [`ListRecord::driver_calls`] lock while the append goes to the
/// driver, so that the budget's question whether the list's work is done never runs beside it.
pub(crate) fn forwarding<'a>(
    appending: &'a Option<Appending<'_>>,
) -> Option<RwLockReadGuard<'a, ListLife>> {
    appending
        .as_ref()
        .map(|appending| read(&appending.0.driver_calls))
}

/// [`forwarding`] for any other call on a list (`record` from [`list_for_append`]).
pub(crate) fn calling(record: &Option<Arc<ListRecord>>) -> Option<RwLockReadGuard<'_, ListLife>> {
    record.as_deref().map(|record| read(&record.driver_calls))
}

/// `lock` read-held (a poisoned lock is taken: its data is whole).
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poison| poison.into_inner())
}

/// `lock` write-held.
fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|poison| poison.into_inner())
}

/// `lock` write-held if no other thread holds it.
fn try_write<T>(lock: &RwLock<T>) -> Option<RwLockWriteGuard<'_, T>> {
    match lock.try_write() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poison)) => Some(poison.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// The use of a residency by work on `list` now, kept only under a host budget.
fn list_user(list: usize) -> Option<ListUse> {
    let shim = shim();
    shim.budget.as_ref()?;
    shim.list_record(list).map(|record| record.use_now(list))
}

/// A driver's answer by its name in the headers (its number if it has none).
fn result_name(result: ze_result_t) -> String {
    ze_result_name(result).map_or_else(|| format!("{:#x}", result.0), str::to_string)
}

/// `mutex` locked if no other thread holds it (a poisoned lock is taken: its data is whole).
fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poison)) => Some(poison.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Makes `allocation` resident on `device` through the real loader, once; `user`: the list
/// whose work uses it (recorded under a host budget). Under a budget, room is made first.
fn make_resident(allocation: &Allocation, device: usize, user: Option<ListUse>) -> ze_result_t {
    let shim = shim();
    let Some(budget) = &shim.budget else {
        return resident_on(allocation, device, &mut lock(&allocation.peers), None);
    };
    {
        let mut peers = lock(&allocation.peers);
        if let Some(known) = peers.resident.get_mut(&device) {
            known.used(budget, user);
            return SUCCESS;
        }
        if device == allocation.owner || allocation.freeing.load(Ordering::Acquire) {
            return SUCCESS;
        }
    }
    // A first use here: room is made before its residency, both under the budget's lock (no
    // allocation's lock is held meanwhile, so every other one may be evicted).
    let _room = lock(&budget.room);
    make_room(budget, allocation.size as u64);
    resident_on(
        allocation,
        device,
        &mut lock(&allocation.peers),
        Some((budget, user)),
    )
}

/// Makes `allocation` resident on `device` once, `peers` being its locked residency; under a
/// budget (`budget`), the residency's use by `user` is recorded and the budget charged.
fn resident_on(
    allocation: &Allocation,
    device: usize,
    peers: &mut Peers,
    budget: Option<(&Budget, Option<ListUse>)>,
) -> ze_result_t {
    let shim = shim();
    if let Some(known) = peers.resident.get_mut(&device) {
        if let Some((budget, user)) = budget {
            known.used(budget, user);
        }
        return SUCCESS;
    }
    // Being freed: the program is done with it (a pass over the context's allocations found it
    // before the free).
    if device == allocation.owner || allocation.freeing.load(Ordering::Acquire) {
        return SUCCESS;
    }
    let function = real!(c"zeContextMakeMemoryResident", MakeResident);
    // SAFETY: an allocation of that context that is not being freed (a free marks it under
    // this lock first), made resident on one of its devices.
    let result = unsafe {
        function(
            allocation.context as _,
            device as _,
            allocation.base as *mut c_void,
            allocation.size,
        )
    };
    if result == SUCCESS {
        let mut residency = PeerUse::default();
        if let Some((budget, user)) = budget {
            residency.used(budget, user);
            let reimport = peers.evicted.remove(&device);
            budget.made(allocation.size as u64, reimport);
        }
        peers.resident.insert(device, residency);
        shim.stats.made_calls.fetch_add(1, Ordering::Relaxed);
        shim.stats
            .made_bytes
            .fetch_add(allocation.size as u64, Ordering::Relaxed);
        shim.log(|| {
            format!(
                "made {:#x} ({} bytes) resident on device {device:#x} on first use",
                allocation.base, allocation.size
            )
        });
    }
    result
}

/// Evicts the least recently used residency the shim made until `bytes` more fit in `budget`,
/// passing over any that queued work may still use (and any the driver refused to evict); if
/// that is not enough, the residency is made past the budget, and the first time says so.
fn make_room(budget: &Budget, bytes: u64) {
    let shim = shim();
    if budget.excess_with(bytes) == 0 {
        return;
    }
    let allocations: Vec<Arc<Allocation>> = lock(&shim.allocations)
        .values()
        .filter(|allocation| !allocation.imported)
        .cloned()
        .collect();
    let mut candidates = Vec::new();
    let mut in_use = 0;
    for allocation in &allocations {
        // Held by another thread: in use this very moment.
        let Some(peers) = try_lock(&allocation.peers) else {
            in_use += 1;
            continue;
        };
        candidates.extend(
            peers
                .resident
                .iter()
                .filter(|(_, residency)| !residency.refused)
                .map(|(&device, residency)| (residency.last_use, (Arc::clone(allocation), device))),
        );
    }
    let mut kept = Vec::new();
    for (allocation, device) in oldest_first(candidates) {
        if budget.excess_with(bytes) == 0 {
            return;
        }
        if let Err(why) = evict_if_idle(budget, &allocation, device) {
            kept.push(why);
        }
    }
    if budget.excess_with(bytes) == 0 {
        return;
    }
    if in_use > 0 {
        kept.push(format!("{in_use} allocations in use this moment"));
    }
    let why = if kept.is_empty() {
        "nothing the shim made is resident, or the driver refused to evict it".to_string()
    } else {
        kept.join("; ")
    };
    let message = || {
        format!(
            "host budget passed: {} held and {} more needed, beyond the {} budget ({why})",
            size_text(budget.held()),
            size_text(bytes),
            size_text(budget.limit),
        )
    };
    if budget.passed() {
        say(message());
    } else {
        shim.log(message);
    }
}

/// Evicts `allocation` from `device` for the budget if no queued work may use it there: every
/// list whose work used it is done with it (and, where every peer allocation was made resident
/// for kernels that read through pointers, every list that launched there). Otherwise, or if
/// the driver refuses, says why it stays.
fn evict_if_idle(budget: &Budget, allocation: &Allocation, device: usize) -> Result<(), String> {
    let shim = shim();
    let place = || format!("{:#x} on device {device:#x}", allocation.base);
    let Some(mut peers) = try_lock(&allocation.peers) else {
        return Err(format!("{} is in use", place()));
    };
    let Some(residency) = peers.resident.get_mut(&device) else {
        return Ok(());
    };
    if allocation.freeing.load(Ordering::Acquire) {
        return Err(format!("{} is being freed", place()));
    }
    if residency.refused {
        return Err(format!("the driver refused to evict {}", place()));
    }
    let last_use = residency.last_use;
    residency.users.retain(|user| !list_done(user, last_use));
    if !residency.users.is_empty() {
        return Err(format!("{} is used by queued work", place()));
    }
    let mut marks = lock(&shim.everything_resident);
    let mark = marks.get_mut(&(allocation.context, device));
    if let Some(mark) = mark {
        // A list being appended to may be launching a kernel that reads it.
        mark.users.retain(|user| !list_done(user, u64::MAX));
        if !mark.users.is_empty() {
            return Err(format!(
                "{} may be read by queued kernels (LAZY_USM_INDIRECT=all)",
                place()
            ));
        }
        // The next launch there makes every peer allocation resident again. Cleared before the
        // eviction, under the marks' lock: a launch after it runs the pass, which waits for this
        // allocation's lock (held here) and finds it evicted; if the driver refuses, that pass
        // only finds everything resident still.
        mark.complete = false;
    }
    drop(marks);
    static EVICT: Real = Real::new(c"zeContextEvictMemory");
    // SAFETY: the real loader's function of this name has this signature.
    let Some(evict) = (unsafe { EVICT.get::<MakeResident>() }) else {
        residency.refused = true;
        return Err(format!(
            "{}: the loader has no zeContextEvictMemory",
            place()
        ));
    };
    // SAFETY: an allocation of that context that is not being freed (its lock is held), resident
    // on that device, which no queued work uses.
    let result = unsafe {
        evict(
            allocation.context as _,
            device as _,
            allocation.base as *mut c_void,
            allocation.size,
        )
    };
    if result != SUCCESS {
        // Released drivers up to 26.31 refuse a peer's memory (see ze-sim's
        // `peer_eviction_refused`): it stays resident, and is never asked again.
        residency.refused = true;
        let message = || {
            format!(
                "the driver refused to evict {} ({}): it stays resident, and the host \
                 budget cannot be kept by evicting it",
                place(),
                result_name(result)
            )
        };
        if budget.refused() {
            say(message());
        } else {
            shim.log(message);
        }
        return Err(format!("{} could not be evicted", place()));
    }
    peers.resident.remove(&device);
    peers.evicted.insert(device);
    budget.released(allocation.size as u64, true);
    shim.log(|| {
        format!(
            "evicted {} ({} bytes) for the host budget",
            place(),
            allocation.size
        )
    });
    Ok(())
}

/// Whether the work `user` recorded, of a residency last used at `last_use`, is done: its
/// list was reset or destroyed since (the program waited for it first, as the specification
/// requires), or it is an immediate list with nothing left to run. A residency an append in
/// progress used (after it began) is busy until the driver has the append's work.
fn list_done(user: &ListUse, last_use: u64) -> bool {
    let Some(record) = shim().list_record(user.list) else {
        return true;
    };
    let since = record.appending_since.load(Ordering::SeqCst);
    if since != 0 && last_use >= since {
        return false;
    }
    // The program waited for the list since this use.
    if record.immediate
        && record.done_until.load(Ordering::Acquire) > user.at
        && record.generation.load(Ordering::Acquire) == user.generation
    {
        return true;
    }
    // In the driver, reset or destroyed this moment: busy, for now.
    let Some(life) = try_write(&record.driver_calls) else {
        return false;
    };
    if *life == ListLife::Destroyed || record.generation.load(Ordering::Acquire) != user.generation
    {
        return true;
    }
    if !record.immediate {
        return false;
    }
    type Synchronize = unsafe extern "C" fn(ze_command_list_handle_t, u64) -> ze_result_t;
    static SYNCHRONIZE: Real = Real::new(c"zeCommandListHostSynchronize");
    // SAFETY: the real loader's function of this name has this signature.
    let Some(synchronize) = (unsafe { SYNCHRONIZE.get::<Synchronize>() }) else {
        return false;
    };
    let now = shim().budget.as_ref().map_or(0, Budget::tick);
    // SAFETY: a live immediate list, which no other call, reset or destruction touches while
    // its lock is held here; asked without waiting.
    if unsafe { synchronize(user.list as ze_command_list_handle_t, 0) } != SUCCESS {
        return false;
    }
    // Every use handed to the driver before now is done: remembered, so that the list's later
    // work does not hold those again (an append that began and is not in the driver yet has
    // uses from its start on).
    let since = record.appending_since.load(Ordering::SeqCst);
    let until = if since == 0 { now } else { since.min(now) };
    record.done_until.fetch_max(until, Ordering::AcqRel);
    true
}

/// Makes `allocation` resident on `device` if it is a use the shim answers for: of `context`,
/// not an opened IPC handle (the driver's to make resident; memory of another context, a copy's
/// source from there, is the driver's too).
fn use_allocation(
    allocation: &Allocation,
    context: usize,
    device: usize,
    user: Option<ListUse>,
) -> ze_result_t {
    if allocation.context == context && !allocation.imported {
        make_resident(allocation, device, user)
    } else {
        SUCCESS
    }
}

/// A use of the `len` bytes at `address` by work on `list`: every peer allocation or mapping
/// the range touches becomes resident on the list's device first (a range over a reservation
/// may run from one device's memory into another's).
fn use_on_list(list: ze_command_list_handle_t, address: *const c_void, len: usize) -> ze_result_t {
    let shim = shim();
    if !shim.config.lazy || address.is_null() {
        return SUCCESS;
    }
    let Some((context, device)) = shim.list(list as usize) else {
        return SUCCESS;
    };
    let address = address as usize;
    // Where the range starts; a start in no allocation is host memory.
    let Some(first) = shim
        .registry
        .find_map(address, |entry| std::sync::Arc::clone(&entry.value))
    else {
        return SUCCESS;
    };
    let user = list_user(list as usize);
    let result = use_allocation(&first, context, device, user);
    // Most ranges end in the allocation they start in: no search beyond it.
    let end = address.saturating_add(len.max(1));
    if result != SUCCESS || end <= first.base.saturating_add(first.size) {
        return result;
    }
    shim.starting_within(context, address, len)
        .iter()
        .map(|allocation| use_allocation(allocation, context, device, user))
        .find(|&result| result != SUCCESS)
        .unwrap_or(SUCCESS)
}

/// [`use_on_list`] for each operand (its address and length), stopping at the first failure.
pub(crate) fn use_all_on_list(
    list: ze_command_list_handle_t,
    operands: &[(*const c_void, usize)],
) -> ze_result_t {
    operands
        .iter()
        .map(|&(operand, len)| use_on_list(list, operand, len))
        .find(|&result| result != SUCCESS)
        .unwrap_or(SUCCESS)
}

/// The bytes from `start` that a region copy's side reaches: up to the end of its region's
/// last row (`region` null: nothing is known, the start only).
///
/// # Safety
/// `region` must be null or point to a `ze_copy_region_t`.
pub(crate) unsafe fn region_extent(
    region: *const ze_copy_region_t,
    pitch: u32,
    slice_pitch: u32,
) -> usize {
    if region.is_null() {
        return 1;
    }
    // SAFETY: the caller's promise.
    let region = unsafe { region.read_unaligned() };
    let last_row = |origin: u32, extent: u32| u64::from(origin) + u64::from(extent.max(1)) - 1;
    let end = last_row(region.originZ, region.depth)
        .saturating_mul(u64::from(slice_pitch))
        .saturating_add(last_row(region.originY, region.height).saturating_mul(u64::from(pitch)))
        .saturating_add(u64::from(region.originX))
        .saturating_add(u64::from(region.width));
    usize::try_from(end).unwrap_or(usize::MAX)
}

/// A launch on `list`: the kernel's pointer arguments (and, with `LAZY_USM_INDIRECT=all`,
/// every peer allocation of the context) become resident on the list's device first.
fn launch_on_list(list: ze_command_list_handle_t, kernel: ze_kernel_handle_t) -> ze_result_t {
    if !shim().config.lazy {
        return SUCCESS;
    }
    let arguments: Vec<usize> = shim()
        .kernels
        .get(&(kernel as usize))
        .map(|arguments| arguments.pointers().collect())
        .unwrap_or_default();
    launch_with_pointers(list, &arguments)
}

/// A launch on `list` whose arguments hold `pointers`: those (and, with
/// `LAZY_USM_INDIRECT=all`, every peer allocation of the context) become resident on the
/// list's device first.
fn launch_with_pointers(list: ze_command_list_handle_t, pointers: &[usize]) -> ze_result_t {
    let shim = shim();
    if !shim.config.lazy {
        return SUCCESS;
    }
    let Some((context, device)) = shim.list(list as usize) else {
        return SUCCESS;
    };
    let user = list_user(list as usize);
    if shim.config.indirect_all {
        let result = everything_resident(context, device, user);
        if result != SUCCESS {
            return result;
        }
    }
    for &address in pointers {
        // A pointer into a reservation may reach any mapping of it: the kernel's object is
        // the reservation, not the mapping it points into.
        let result = match shim.reservation_of(context, address) {
            Some((base, size)) => shim
                .starting_within(context, base.saturating_sub(1), size.saturating_add(1))
                .iter()
                .map(|allocation| use_allocation(allocation, context, device, user))
                .find(|&result| result != SUCCESS)
                .unwrap_or(SUCCESS),
            None => use_on_list(list, address as *const c_void, 1),
        };
        if result != SUCCESS {
            return result;
        }
    }
    SUCCESS
}

/// The pointer-sized words of an argument value of `size` bytes that point into device
/// allocations the shim knows (every word, so that a struct passed by value with pointers
/// inside, a SYCL functor's members, is seen too; up to 64 words).
///
/// # Safety
/// `value` must be null or valid for reads of `size` bytes.
unsafe fn pointers_in(value: *const c_void, size: usize) -> Vec<usize> {
    // SAFETY: the caller's promise.
    unsafe { known_pointers(value, size) }.collect()
}

/// [`pointers_in`], as they are read.
///
/// # Safety
/// `value` must be null or valid for reads of `size` bytes while the iterator is used.
unsafe fn known_pointers(value: *const c_void, size: usize) -> impl Iterator<Item = usize> {
    let shim = shim();
    let words = if value.is_null() {
        0
    } else {
        (size / size_of::<usize>()).min(64)
    };
    (0..words)
        // SAFETY: word `word` lies inside the caller's `size` bytes (read unaligned: any
        // alignment).
        .map(move |word| unsafe { (value as *const usize).add(word).read_unaligned() })
        .filter(|&address| address != 0 && shim.registry.find_map(address, |_| ()).is_some())
}

/// Records argument `index` of `kernel` from its value of `size` bytes, in the list the
/// argument had (setting an argument again allocates nothing). An argument that holds no known
/// pointer, where none was recorded, takes only the map's read lock.
///
/// # Safety
/// `value` must be null or valid for reads of `size` bytes.
unsafe fn record_argument_value(
    kernel: ze_kernel_handle_t,
    index: u32,
    value: *const c_void,
    size: usize,
) {
    let shim = shim();
    // SAFETY: the caller's promise.
    let mut pointers = unsafe { known_pointers(value, size) }.peekable();
    if pointers.peek().is_none()
        && !shim
            .kernels
            .get(&(kernel as usize))
            .is_some_and(|arguments| arguments.holds(index))
    {
        return;
    }
    shim.kernels
        .entry(kernel as usize)
        .or_default()
        .set(index, pointers);
}

/// Records argument `index` of `kernel` as holding `pointers` (none: forgotten).
fn record_argument(kernel: ze_kernel_handle_t, index: u32, pointers: Vec<usize>) {
    shim()
        .kernels
        .entry(kernel as usize)
        .or_default()
        .set(index, pointers);
}

/// Every peer allocation of `context` made resident on `device` now for `user`'s work,
/// stopping at the first failure.
fn all_peers_resident(context: usize, device: usize, user: Option<ListUse>) -> ze_result_t {
    for allocation in shim().peers_of(context, device) {
        let result = make_resident(&allocation, device, user);
        if result != SUCCESS {
            return result;
        }
    }
    SUCCESS
}

/// `LAZY_USM_INDIRECT=all`: every peer allocation of `context` made resident on `device`, and
/// every later one too. The pair is marked before the pass reads the allocations, and
/// `zeMemAllocDevice` records an allocation before it reads the marks, so an allocation made
/// during the pass is made resident by one of the two (or both: `make_resident` does it once).
/// The pair is complete, and later launches skip the pass, only once a pass succeeded with no
/// allocation failing there meanwhile; a failure is tried again at the next launch.
///
/// Under a host budget, `user`'s list is recorded as one whose kernels may read any of them.
fn everything_resident(context: usize, device: usize, user: Option<ListUse>) -> ze_result_t {
    let shim = shim();
    let failures_before = {
        let mut marks = lock(&shim.everything_resident);
        let mark = marks.entry((context, device)).or_default();
        if let (Some(user), Some(budget)) = (user, &shim.budget) {
            // The list's latest launch here stands for its earlier ones.
            mark.users.retain(|known| known.list != user.list);
            mark.users.push(ListUse {
                at: budget.tick(),
                ..user
            });
        }
        if mark.complete {
            return SUCCESS;
        }
        mark.failures
    };
    let result = all_peers_resident(context, device, user);
    if result != SUCCESS {
        return result;
    }
    if let Some(mark) = lock(&shim.everything_resident).get_mut(&(context, device))
        && mark.failures == failures_before
    {
        mark.complete = true;
    }
    SUCCESS
}

/// A launch whose arguments the shim cannot read (they travel with the launch): every peer
/// allocation of the context becomes resident on the list's device, rather than risk one the
/// kernel reads. Only for this launch: its arguments exist before it is appended, so nothing
/// made later needs marking (and the pair stays lazy for later allocations).
fn launch_with_unseen_arguments(list: ze_command_list_handle_t) -> ze_result_t {
    let shim = shim();
    if !shim.config.lazy {
        return SUCCESS;
    }
    let Some((context, device)) = shim.list(list as usize) else {
        return SUCCESS;
    };
    all_peers_resident(context, device, list_user(list as usize))
}

/// Runs `free` (the driver's free or unmap of `records`) with each record marked as being
/// freed under its residency lock, so no residency is asked for them meanwhile; forgets them
/// if the driver succeeded, and unmarks them if it refused.
fn while_freeing(
    records: &[std::sync::Arc<Allocation>],
    free: impl FnOnce() -> ze_result_t,
) -> ze_result_t {
    let mut guards: Vec<_> = records.iter().map(|record| lock(&record.peers)).collect();
    for record in records {
        record.freeing.store(true, Ordering::Release);
    }
    let result = free();
    for (record, peers) in records.iter().zip(&mut guards) {
        record.freeing.store(result == SUCCESS, Ordering::Release);
        if result == SUCCESS {
            shim().residency_gone(record, peers);
        }
    }
    drop(guards);
    if result == SUCCESS {
        for record in records {
            shim().forget(record);
        }
    }
    result
}

/// Makes `allocation`, just recorded, resident on the devices of its context marked to have
/// everything resident (read after it was recorded: see `everything_resident`).
fn resident_where_marked(allocation: &Allocation) {
    let shim = shim();
    let devices: Vec<usize> = lock(&shim.everything_resident)
        .keys()
        .filter(|(list_context, _)| *list_context == allocation.context)
        .map(|(_, device)| *device)
        .collect();
    for peer in devices {
        let made = make_resident(allocation, peer, None);
        if made != SUCCESS {
            // The allocation itself succeeded; the next launch on that device tries again.
            if let Some(mark) = lock(&shim.everything_resident).get_mut(&(allocation.context, peer))
            {
                mark.complete = false;
                mark.failures += 1;
            }
            shim.log(|| {
                format!(
                    "residency of {:#x} on device {peer:#x} failed: {}",
                    allocation.base,
                    result_name(made)
                )
            });
        }
    }
}

/// Intercepted: the allocation is recorded with its owner.
///
/// # Safety
/// As the specification requires of `zeMemAllocDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeMemAllocDevice(
    context: ze_context_handle_t,
    desc: *const ze_device_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    device: ze_device_handle_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    let function = real!(
        c"zeMemAllocDevice",
        unsafe extern "C" fn(
            ze_context_handle_t,
            *const ze_device_mem_alloc_desc_t,
            usize,
            usize,
            ze_device_handle_t,
            *mut *mut c_void,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, desc, size, alignment, device, pointer) };
    let shim = shim();
    if result == SUCCESS && shim.config.lazy && !pointer.is_null() {
        // SAFETY: the real loader wrote the new allocation's address there.
        let base = unsafe { *pointer } as usize;
        let allocation = shim.add(Allocation {
            base,
            size,
            context: context as usize,
            owner: device as usize,
            peers: Default::default(),
            asked: Default::default(),
            imported: false,
            freeing: Default::default(),
        });
        resident_where_marked(&allocation);
    }
    result
}

/// Intercepted: the allocation is freed, then forgotten (only if the driver freed it).
///
/// # Safety
/// As the specification requires of `zeMemFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeMemFree(
    context: ze_context_handle_t,
    pointer: *mut c_void,
) -> ze_result_t {
    let function = real!(
        c"zeMemFree",
        unsafe extern "C" fn(ze_context_handle_t, *mut c_void) -> ze_result_t
    );
    let records: Vec<_> = shim().starting_at(pointer as usize).into_iter().collect();
    // SAFETY: the caller's arguments, passed on.
    while_freeing(&records, || unsafe { function(context, pointer) })
}

/// Intercepted: the allocation is freed, then forgotten (only if the driver freed it).
///
/// # Safety
/// As the specification requires of `zeMemFreeExt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeMemFreeExt(
    context: ze_context_handle_t,
    desc: *const ze_memory_free_ext_desc_t,
    pointer: *mut c_void,
) -> ze_result_t {
    let function = real!(
        c"zeMemFreeExt",
        unsafe extern "C" fn(
            ze_context_handle_t,
            *const ze_memory_free_ext_desc_t,
            *mut c_void,
        ) -> ze_result_t
    );
    let records: Vec<_> = shim().starting_at(pointer as usize).into_iter().collect();
    // SAFETY: the caller's arguments, passed on.
    while_freeing(&records, || unsafe { function(context, desc, pointer) })
}

/// The allocation a residency call on (`context`, `device`) for `size` bytes at `pointer` is
/// about, if the shim decides it: a peer's allocation of that very context, the range inside
/// it. Anything else is the driver's to answer.
fn deferrable(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> Option<std::sync::Arc<Allocation>> {
    let shim = shim();
    if !shim.config.lazy || device.is_null() {
        return None;
    }
    shim.holding(context as usize, pointer as usize, size)
        .filter(|allocation| allocation.owner != device as usize && !allocation.imported)
}

/// Intercepted: under the lazy policy, residency of a device allocation (any range inside it)
/// on a device other than its owner, asked in the allocation's own context, is recorded and not
/// forwarded (the first use makes it); anything else is forwarded.
///
/// # Safety
/// As the specification requires of `zeContextMakeMemoryResident`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeContextMakeMemoryResident(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    let function = real!(c"zeContextMakeMemoryResident", MakeResident);
    let shim = shim();
    if let Some(allocation) = deferrable(context, device, pointer, size) {
        if lock(&allocation.asked).insert(device as usize) {
            shim.stats.asked_calls.fetch_add(1, Ordering::Relaxed);
            shim.stats
                .asked_bytes
                .fetch_add(allocation.size as u64, Ordering::Relaxed);
        }
        shim.log(|| {
            format!(
                "deferred residency of {:#x} ({size} bytes) on device {:#x}",
                pointer as usize, device as usize
            )
        });
        return SUCCESS;
    }
    // SAFETY: the caller's arguments, passed on.
    unsafe { function(context, device, pointer, size) }
}

/// Intercepted: the eviction of a residency the shim deferred and never made only drops the
/// request; one the shim made on first use is forwarded (and forgotten once the driver
/// evicted); anything else is forwarded.
///
/// # Safety
/// As the specification requires of `zeContextEvictMemory`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeContextEvictMemory(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    let function = real!(c"zeContextEvictMemory", MakeResident);
    let Some(allocation) = deferrable(context, device, pointer, size) else {
        // SAFETY: the caller's arguments, passed on.
        return unsafe { function(context, device, pointer, size) };
    };
    let deferred = lock(&allocation.asked).contains(&(device as usize));
    // Held across the call, as `make_resident` holds it: the set says what the driver has. The
    // request is forgotten only once the eviction is done (the `asked` lock is never held while
    // another is taken, so taking it here under `peers` cannot deadlock).
    let mut peers = lock(&allocation.peers);
    if !peers.resident.contains_key(&(device as usize)) && deferred {
        lock(&allocation.asked).remove(&(device as usize));
        return SUCCESS;
    }
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, pointer, size) };
    if result == SUCCESS {
        if peers.resident.remove(&(device as usize)).is_some()
            && let Some(budget) = &shim().budget
        {
            budget.released(allocation.size as u64, false);
        }
        lock(&allocation.asked).remove(&(device as usize));
    }
    result
}

/// Intercepted: what the shim recorded of the context goes with it, once the driver destroyed it.
///
/// # Safety
/// As the specification requires of `zeContextDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeContextDestroy(context: ze_context_handle_t) -> ze_result_t {
    let function = real!(
        c"zeContextDestroy",
        unsafe extern "C" fn(ze_context_handle_t) -> ze_result_t
    );
    let records = shim().records_of(context as usize);
    // SAFETY: the caller's argument, passed on.
    let result = unsafe { function(context) };
    if result == SUCCESS {
        shim().forget_context(context as usize, records);
    }
    result
}

/// Records a list just created (`immediate`: by `zeCommandListCreateImmediate`).
fn record_list(
    result: ze_result_t,
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    list: *mut ze_command_list_handle_t,
    immediate: bool,
) -> ze_result_t {
    if result == SUCCESS && !list.is_null() {
        // SAFETY: the real loader wrote the new list there.
        let handle = unsafe { *list } as usize;
        let record = ListRecord::new(context as usize, device as usize, immediate);
        shim().lists.insert(handle, Arc::new(record));
    }
    result
}

/// Intercepted: the list's device is recorded.
///
/// # Safety
/// As the specification requires of `zeCommandListCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListCreate(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_list_desc_t,
    list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListCreate",
        unsafe extern "C" fn(
            ze_context_handle_t,
            ze_device_handle_t,
            *const ze_command_list_desc_t,
            *mut ze_command_list_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, desc, list) };
    record_list(result, context, device, list, false)
}

/// Intercepted: the list's device is recorded.
///
/// # Safety
/// As the specification requires of `zeCommandListCreateImmediate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListCreateImmediate(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListCreateImmediate",
        unsafe extern "C" fn(
            ze_context_handle_t,
            ze_device_handle_t,
            *const ze_command_queue_desc_t,
            *mut ze_command_list_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, desc, list) };
    record_list(result, context, device, list, true)
}

/// Intercepted: a clone runs where its source runs, so it is recorded with the source's context
/// and device (what it records is copied, so its appends were checked when the source's were).
///
/// # Safety
/// As the specification requires of `zeCommandListCreateCloneExp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListCreateCloneExp(
    list: ze_command_list_handle_t,
    clone: *mut ze_command_list_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListCreateCloneExp",
        unsafe extern "C" fn(
            ze_command_list_handle_t,
            *mut ze_command_list_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(list, clone) };
    if let (SUCCESS, Some((context, device))) = (result, shim().list(list as usize))
        && !clone.is_null()
    {
        record_list(
            result,
            context as ze_context_handle_t,
            device as ze_device_handle_t,
            clone,
            false,
        );
        // SAFETY: the driver wrote the clone there.
        let clone = unsafe { *clone } as usize;
        uses_cloned(list as usize, clone);
    }
    result
}

/// Under a host budget, `clone` (just made from `source`) records what `source`'s commands use,
/// so that it is kept until the clone too is reset or destroyed.
fn uses_cloned(source: usize, clone: usize) {
    let shim = shim();
    let Some(budget) = &shim.budget else {
        return;
    };
    let (Some(source_record), Some(clone_record)) =
        (shim.list_record(source), shim.list_record(clone))
    else {
        return;
    };
    let generation = source_record.generation.load(Ordering::Acquire);
    let copy = |users: &mut Vec<ListUse>| {
        if users
            .iter()
            .any(|user| user.list == source && user.generation == generation)
        {
            users.retain(|user| user.list != clone);
            users.push(ListUse {
                at: budget.tick(),
                ..clone_record.use_now(clone)
            });
        }
    };
    let allocations: Vec<Arc<Allocation>> = lock(&shim.allocations).values().cloned().collect();
    for allocation in allocations {
        for residency in lock(&allocation.peers).resident.values_mut() {
            copy(&mut residency.users);
        }
    }
    for mark in lock(&shim.everything_resident).values_mut() {
        copy(&mut mark.users);
    }
}

/// Intercepted: the list is forgotten once the driver destroyed it.
///
/// # Safety
/// As the specification requires of `zeCommandListDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListDestroy(list: ze_command_list_handle_t) -> ze_result_t {
    let function = real!(
        c"zeCommandListDestroy",
        unsafe extern "C" fn(ze_command_list_handle_t) -> ze_result_t
    );
    let record = shim().list_record(list as usize);
    let mut life = record.as_ref().map(|record| write(&record.driver_calls));
    // SAFETY: the caller's argument, passed on.
    let result = unsafe { function(list) };
    if result == SUCCESS {
        if let Some(life) = life.as_deref_mut() {
            *life = ListLife::Destroyed;
        }
        shim().lists.remove_if(&(list as usize), |_, known| {
            record
                .as_ref()
                .is_some_and(|record| Arc::ptr_eq(known, record))
        });
    }
    result
}

/// Intercepted: under a host budget, a wait that succeeds says the list's work appended before
/// it is done, so a residency that work used is no longer held for it (unless an append was in
/// progress when the wait began: its work may have reached the driver after the wait looked).
///
/// # Safety
/// As the specification requires of `zeCommandListHostSynchronize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListHostSynchronize(
    list: ze_command_list_handle_t,
    timeout: u64,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListHostSynchronize",
        unsafe extern "C" fn(ze_command_list_handle_t, u64) -> ze_result_t
    );
    let shim = shim();
    let record = list_for_append(list);
    let began = shim
        .budget
        .as_ref()
        .zip(record.as_deref())
        .and_then(|(budget, record)| {
            let now = budget.tick();
            (record.immediate && record.appending_since.load(Ordering::SeqCst) == 0).then_some(now)
        });
    let calling = calling(&record);
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(list, timeout) };
    drop(calling);
    if result == SUCCESS
        && let (Some(record), Some(now)) = (&record, began)
    {
        record.done_until.fetch_max(now, Ordering::AcqRel);
    }
    result
}

/// Intercepted: the list's earlier work is done (the program waited for it, as the
/// specification requires), so a residency it used is no longer held for it.
///
/// # Safety
/// As the specification requires of `zeCommandListReset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListReset(list: ze_command_list_handle_t) -> ze_result_t {
    let function = real!(
        c"zeCommandListReset",
        unsafe extern "C" fn(ze_command_list_handle_t) -> ze_result_t
    );
    let record = shim().list_record(list as usize);
    let _exclusive = record.as_ref().map(|record| write(&record.driver_calls));
    // SAFETY: the caller's argument, passed on.
    let result = unsafe { function(list) };
    if result == SUCCESS
        && let Some(record) = &record
    {
        record
            .generation
            .store(ListRecord::fresh_generation(), Ordering::Release);
    }
    result
}

/// Intercepted: a pointer-sized argument that points into a device allocation is recorded for
/// the kernel's launches.
///
/// # Safety
/// As the specification requires of `zeKernelSetArgumentValue`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeKernelSetArgumentValue(
    kernel: ze_kernel_handle_t,
    index: u32,
    size: usize,
    value: *const c_void,
) -> ze_result_t {
    let function = real!(
        c"zeKernelSetArgumentValue",
        unsafe extern "C" fn(ze_kernel_handle_t, u32, usize, *const c_void) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(kernel, index, size, value) };
    if result == SUCCESS && shim().config.lazy {
        // SAFETY: the caller's value of `size` bytes (or null).
        unsafe { record_argument_value(kernel, index, value, size) };
    }
    result
}

/// Intercepted: the kernel's recorded arguments are forgotten once the driver destroyed it.
///
/// # Safety
/// As the specification requires of `zeKernelDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeKernelDestroy(kernel: ze_kernel_handle_t) -> ze_result_t {
    let function = real!(
        c"zeKernelDestroy",
        unsafe extern "C" fn(ze_kernel_handle_t) -> ze_result_t
    );
    // SAFETY: the caller's argument, passed on.
    let result = unsafe { function(kernel) };
    if result == SUCCESS {
        shim().kernels.remove(&(kernel as usize));
        shim().parameters.remove(&(kernel as usize));
    }
    result
}

type Launch = unsafe extern "C" fn(
    ze_command_list_handle_t,
    ze_kernel_handle_t,
    *const ze_group_count_t,
    ze_event_handle_t,
    u32,
    *mut ze_event_handle_t,
) -> ze_result_t;

/// Exports launch function `$name` (of the `Launch` signature), intercepted: the kernel's peer
/// arguments become resident on the list's device first.
macro_rules! launch {
    ($($name:ident),*) => {
        $(
            /// Intercepted: the kernel's peer arguments become resident on the list's device
            /// first.
            ///
            /// # Safety
            /// As the specification requires of this function.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $name(
                list: ze_command_list_handle_t,
                kernel: ze_kernel_handle_t,
                groups: *const ze_group_count_t,
                signal: ze_event_handle_t,
                wait_count: u32,
                waits: *mut ze_event_handle_t,
            ) -> ze_result_t {
                let name = match std::ffi::CStr::from_bytes_with_nul(
                    concat!(stringify!($name), "\0").as_bytes(),
                ) {
                    Ok(name) => name,
                    Err(_) => return UNSUPPORTED,
                };
                static REAL: std::sync::OnceLock<Real> = std::sync::OnceLock::new();
                let real = REAL.get_or_init(|| Real::new(name));
                // SAFETY: the real loader's function of this name has the `Launch` signature.
                let Some(function) = (unsafe { real.get::<Launch>() }) else {
                    return UNSUPPORTED;
                };
                let record = list_for_append(list);
                let in_progress = appending(&record);
                let result = launch_on_list(list, kernel);
                if result != SUCCESS {
                    return result;
                }
                let _forwarding = forwarding(&in_progress);
                // SAFETY: the caller's arguments, passed on.
                unsafe { function(list, kernel, groups, signal, wait_count, waits) }
            }
        )*
    };
}

launch!(
    zeCommandListAppendLaunchKernel,
    zeCommandListAppendLaunchCooperativeKernel,
    zeCommandListAppendLaunchKernelIndirect
);

/// The pointers among a launch's argument values (`arguments`: a pointer to each), read by the
/// kernel's parameters as its SPIR-V module gives them; `None` when the shim does not know
/// every parameter's size (a native binary, an unsized type), or the array is null.
///
/// # Safety
/// `arguments` must be null or hold a pointer to each argument's value, as the kernel's
/// parameters size them.
unsafe fn pointers_of_arguments(
    kernel: ze_kernel_handle_t,
    arguments: *mut *mut c_void,
) -> Option<Vec<(u32, Vec<usize>)>> {
    let parameters = shim().parameters.get(&(kernel as usize))?.clone();
    if arguments.is_null() && !parameters.is_empty() {
        return None;
    }
    let mut found = Vec::with_capacity(parameters.len());
    for (index, parameter) in parameters.iter().enumerate() {
        // SAFETY: the caller's array holds a pointer per parameter.
        let value = unsafe { *arguments.add(index) } as *const c_void;
        let pointers = match *parameter {
            // SAFETY: the value is the parameter's `size` bytes (the caller's promise).
            Parameter::Pointer { size } | Parameter::Value { size } => unsafe {
                pointers_in(value, size)
            },
            // No address in either: local memory's size, a sampler handle.
            Parameter::Local | Parameter::Sampler => Vec::new(),
            Parameter::Unknown => return None,
        };
        found.push((index as u32, pointers));
    }
    Some(found)
}

/// Intercepted: the arguments travel with the launch. Where the kernel's module said its
/// parameters, their pointers are read and made resident (and recorded, since the launch sets
/// the kernel's arguments as `zeKernelSetArgumentValue` would); otherwise see
/// `launch_with_unseen_arguments`.
///
/// # Safety
/// As the specification requires of `zeCommandListAppendLaunchKernelWithArguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListAppendLaunchKernelWithArguments(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: ze_group_count_t,
    group_size: ze_group_size_t,
    arguments: *mut *mut c_void,
    next: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListAppendLaunchKernelWithArguments",
        unsafe extern "C" fn(
            ze_command_list_handle_t,
            ze_kernel_handle_t,
            ze_group_count_t,
            ze_group_size_t,
            *mut *mut c_void,
            *const c_void,
            ze_event_handle_t,
            u32,
            *mut ze_event_handle_t,
        ) -> ze_result_t
    );
    let record = list_for_append(list);
    let in_progress = appending(&record);
    let read = if shim().config.lazy {
        // SAFETY: the caller's array of argument pointers, as the kernel's parameters size them.
        unsafe { pointers_of_arguments(kernel, arguments) }
    } else {
        None
    };
    let result = match &read {
        Some(found) => {
            let pointers: Vec<usize> = found.iter().flat_map(|(_, p)| p).copied().collect();
            launch_with_pointers(list, &pointers)
        }
        None => launch_with_unseen_arguments(list),
    };
    if result != SUCCESS {
        return result;
    }
    let _forwarding = forwarding(&in_progress);
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe {
        function(
            list, kernel, groups, group_size, arguments, next, signal, wait_count, waits,
        )
    };
    if result == SUCCESS
        && let Some(found) = read
    {
        for (index, pointers) in found {
            record_argument(kernel, index, pointers);
        }
    }
    result
}

/// Intercepted: a SPIR-V module's kernels and their parameters are recorded.
///
/// # Safety
/// As the specification requires of `zeModuleCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeModuleCreate(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_module_desc_t,
    module: *mut ze_module_handle_t,
    build_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeModuleCreate",
        unsafe extern "C" fn(
            ze_context_handle_t,
            ze_device_handle_t,
            *const ze_module_desc_t,
            *mut ze_module_handle_t,
            *mut ze_module_build_log_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, desc, module, build_log) };
    if result != SUCCESS || desc.is_null() || module.is_null() || !shim().config.lazy {
        return result;
    }
    // SAFETY: the caller's descriptor, which the driver accepted.
    let desc = unsafe { &*desc };
    if desc.format != ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV || desc.pInputModule.is_null() {
        return result;
    }
    // SAFETY: the caller's module of `inputSize` bytes, which the driver just read.
    let bytes = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
    if let Ok(kernels) = lazy_usm_spirv::kernels(bytes) {
        let kernels = kernels
            .into_iter()
            .map(|kernel| (kernel.name, kernel.parameters.into()))
            .collect();
        // SAFETY: the driver wrote the new module there.
        let handle = unsafe { *module } as usize;
        shim().modules.insert(handle, std::sync::Arc::new(kernels));
    }
    result
}

/// Intercepted: the module's kernels are forgotten once the driver destroyed it.
///
/// # Safety
/// As the specification requires of `zeModuleDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeModuleDestroy(module: ze_module_handle_t) -> ze_result_t {
    let function = real!(
        c"zeModuleDestroy",
        unsafe extern "C" fn(ze_module_handle_t) -> ze_result_t
    );
    // SAFETY: the caller's argument, passed on.
    let result = unsafe { function(module) };
    if result == SUCCESS {
        shim().modules.remove(&(module as usize));
    }
    result
}

/// Intercepted: the kernel's parameters, where its module said them, are recorded.
///
/// # Safety
/// As the specification requires of `zeKernelCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeKernelCreate(
    module: ze_module_handle_t,
    desc: *const ze_kernel_desc_t,
    kernel: *mut ze_kernel_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeKernelCreate",
        unsafe extern "C" fn(
            ze_module_handle_t,
            *const ze_kernel_desc_t,
            *mut ze_kernel_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(module, desc, kernel) };
    if result != SUCCESS || desc.is_null() || kernel.is_null() {
        return result;
    }
    let shim = shim();
    let Some(kernels) = shim
        .modules
        .get(&(module as usize))
        .map(|entry| entry.clone())
    else {
        return result;
    };
    // SAFETY: the caller's descriptor, which the driver accepted.
    let name = unsafe { (*desc).pKernelName };
    if name.is_null() {
        return result;
    }
    // SAFETY: the caller's NUL-terminated kernel name.
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
    if let Some(parameters) = kernels.get(name.as_ref()) {
        // SAFETY: the driver wrote the new kernel there.
        let handle = unsafe { *kernel } as usize;
        shim.parameters.insert(handle, parameters.clone());
    }
    result
}

/// Intercepted: its extension parameters may carry arguments, unseen; see
/// `launch_with_unseen_arguments` (the kernel's recorded arguments are made resident too).
///
/// # Safety
/// As the specification requires of `zeCommandListAppendLaunchKernelWithParameters`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListAppendLaunchKernelWithParameters(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    next: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListAppendLaunchKernelWithParameters",
        unsafe extern "C" fn(
            ze_command_list_handle_t,
            ze_kernel_handle_t,
            *const ze_group_count_t,
            *const c_void,
            ze_event_handle_t,
            u32,
            *mut ze_event_handle_t,
        ) -> ze_result_t
    );
    let record = list_for_append(list);
    let in_progress = appending(&record);
    let result = launch_on_list(list, kernel);
    if result != SUCCESS {
        return result;
    }
    // Only an extension chain can carry arguments the shim does not see; without one this is a
    // plain launch, and the pass over every peer allocation is not needed.
    if !next.is_null() {
        let result = launch_with_unseen_arguments(list);
        if result != SUCCESS {
            return result;
        }
    }
    let _forwarding = forwarding(&in_progress);
    // SAFETY: the caller's arguments, passed on.
    unsafe { function(list, kernel, groups, next, signal, wait_count, waits) }
}

/// Intercepted: every kernel's recorded arguments are made resident first.
///
/// # Safety
/// As the specification requires of `zeCommandListAppendLaunchMultipleKernelsIndirect`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListAppendLaunchMultipleKernelsIndirect(
    list: ze_command_list_handle_t,
    kernel_count: u32,
    kernels: *mut ze_kernel_handle_t,
    count_buffer: *const u32,
    groups: *const ze_group_count_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListAppendLaunchMultipleKernelsIndirect",
        unsafe extern "C" fn(
            ze_command_list_handle_t,
            u32,
            *mut ze_kernel_handle_t,
            *const u32,
            *const ze_group_count_t,
            ze_event_handle_t,
            u32,
            *mut ze_event_handle_t,
        ) -> ze_result_t
    );
    let record = list_for_append(list);
    let in_progress = appending(&record);
    if !kernels.is_null() {
        for index in 0..kernel_count as usize {
            // SAFETY: the caller's array of `kernel_count` kernels.
            let kernel = unsafe { *kernels.add(index) };
            let result = launch_on_list(list, kernel);
            if result != SUCCESS {
                return result;
            }
        }
    }
    let _forwarding = forwarding(&in_progress);
    // SAFETY: the caller's arguments, passed on.
    unsafe {
        function(
            list,
            kernel_count,
            kernels,
            count_buffer,
            groups,
            signal,
            wait_count,
            waits,
        )
    }
}

/// Intercepted: device physical memory is recorded with its device, the owner of its mappings.
///
/// # Safety
/// As the specification requires of `zePhysicalMemCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zePhysicalMemCreate(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *mut ze_physical_mem_desc_t,
    physical: *mut ze_physical_mem_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zePhysicalMemCreate",
        unsafe extern "C" fn(
            ze_context_handle_t,
            ze_device_handle_t,
            *mut ze_physical_mem_desc_t,
            *mut ze_physical_mem_handle_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, desc, physical) };
    if result == SUCCESS && !desc.is_null() && !physical.is_null() {
        let on_host = ze_physical_mem_flag_t::ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST.0;
        // SAFETY: the caller's descriptor, which the driver accepted.
        if unsafe { (*desc).flags } & on_host == 0 {
            // SAFETY: the driver wrote the new handle there.
            let handle = unsafe { *physical } as usize;
            shim()
                .physical
                .insert(handle, (context as usize, device as usize));
        }
    }
    result
}

/// Intercepted: the physical memory is forgotten once the driver destroyed it.
///
/// # Safety
/// As the specification requires of `zePhysicalMemDestroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zePhysicalMemDestroy(
    context: ze_context_handle_t,
    physical: ze_physical_mem_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zePhysicalMemDestroy",
        unsafe extern "C" fn(ze_context_handle_t, ze_physical_mem_handle_t) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, physical) };
    if result == SUCCESS {
        shim().physical.remove(&(physical as usize));
    }
    result
}

/// Intercepted: a mapping of device physical memory is recorded as a device allocation of the
/// physical memory's device (its residency on peers then deferred and made on use).
///
/// # Safety
/// As the specification requires of `zeVirtualMemMap`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeVirtualMemMap(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
    physical: ze_physical_mem_handle_t,
    offset: usize,
    access: ze_memory_access_attribute_t,
) -> ze_result_t {
    let function = real!(
        c"zeVirtualMemMap",
        unsafe extern "C" fn(
            ze_context_handle_t,
            *const c_void,
            usize,
            ze_physical_mem_handle_t,
            usize,
            ze_memory_access_attribute_t,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, pointer, size, physical, offset, access) };
    let shim = shim();
    if result == SUCCESS
        && shim.config.lazy
        && let Some(owner) = shim.physical.get(&(physical as usize)).map(|entry| entry.1)
    {
        let allocation = shim.add(Allocation {
            base: pointer as usize,
            size,
            context: context as usize,
            owner,
            peers: Default::default(),
            asked: Default::default(),
            imported: false,
            freeing: Default::default(),
        });
        resident_where_marked(&allocation);
    }
    result
}

/// Intercepted: the mappings in the range are forgotten once the driver unmapped them.
///
/// # Safety
/// As the specification requires of `zeVirtualMemUnmap`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeVirtualMemUnmap(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
) -> ze_result_t {
    let function = real!(
        c"zeVirtualMemUnmap",
        unsafe extern "C" fn(ze_context_handle_t, *const c_void, usize) -> ze_result_t
    );
    let records = shim().inside(context as usize, pointer as usize, size);
    // SAFETY: the caller's arguments, passed on.
    while_freeing(&records, || unsafe { function(context, pointer, size) })
}

/// Intercepted: the reservation is recorded, so that a kernel's pointer into one of its
/// mappings makes every mapping of it resident (the kernel may reach any of them).
///
/// # Safety
/// As the specification requires of `zeVirtualMemReserve`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeVirtualMemReserve(
    context: ze_context_handle_t,
    start: *const c_void,
    size: usize,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    let function = real!(
        c"zeVirtualMemReserve",
        unsafe extern "C" fn(
            ze_context_handle_t,
            *const c_void,
            usize,
            *mut *mut c_void,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, start, size, pointer) };
    if result == SUCCESS && !pointer.is_null() {
        // SAFETY: the driver wrote the reservation's start there.
        let base = unsafe { *pointer } as usize;
        lock(&shim().reservations).insert(base, (size, context as usize));
        shim().any_reservation.store(true, Ordering::Release);
    }
    result
}

/// Intercepted: the reservation's mappings are forgotten once the driver freed it.
///
/// # Safety
/// As the specification requires of `zeVirtualMemFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeVirtualMemFree(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
) -> ze_result_t {
    let function = real!(
        c"zeVirtualMemFree",
        unsafe extern "C" fn(ze_context_handle_t, *const c_void, usize) -> ze_result_t
    );
    let records = shim().inside(context as usize, pointer as usize, size);
    // SAFETY: the caller's arguments, passed on.
    let result = while_freeing(&records, || unsafe { function(context, pointer, size) });
    if result == SUCCESS {
        let mut reservations = lock(&shim().reservations);
        if reservations
            .get(&(pointer as usize))
            .is_some_and(|&(_, owner)| owner == context as usize)
        {
            reservations.remove(&(pointer as usize));
        }
    }
    result
}

/// Intercepted: memory opened from an IPC handle is recorded as another process's allocation
/// (owner: the opening device; never deferred, never made resident by the shim), so it is
/// never mistaken for one of the program's own.
///
/// # Safety
/// As the specification requires of `zeMemOpenIpcHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeMemOpenIpcHandle(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    handle: ze_ipc_mem_handle_t,
    flags: ze_ipc_memory_flags_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    let function = real!(
        c"zeMemOpenIpcHandle",
        unsafe extern "C" fn(
            ze_context_handle_t,
            ze_device_handle_t,
            ze_ipc_mem_handle_t,
            ze_ipc_memory_flags_t,
            *mut *mut c_void,
        ) -> ze_result_t
    );
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { function(context, device, handle, flags, pointer) };
    let shim = shim();
    if result == SUCCESS && shim.config.lazy && !pointer.is_null() {
        // The size is the driver's to know; the range's start is what the program uses.
        let mut base = std::ptr::null_mut();
        let mut size = 0usize;
        type Range = unsafe extern "C" fn(
            ze_context_handle_t,
            *const c_void,
            *mut *mut c_void,
            *mut usize,
        ) -> ze_result_t;
        static RANGE: Real = Real::new(c"zeMemGetAddressRange");
        // SAFETY: the driver wrote the opened address there.
        let opened = unsafe { *pointer };
        // SAFETY: the real loader's function of this name has this signature; a live opened
        // range of this context, and outputs that are locals. Without it nothing is recorded:
        // the open's own success stands.
        let found = unsafe { RANGE.get::<Range>() }.is_some_and(
            |range| unsafe { range(context, opened, &mut base, &mut size) } == SUCCESS,
        );
        if found && size > 0 {
            shim.add(Allocation {
                base: base as usize,
                size,
                context: context as usize,
                owner: device as usize,
                peers: Default::default(),
                asked: Default::default(),
                imported: true,
                freeing: Default::default(),
            });
        }
    }
    result
}

/// Intercepted: the opened range is forgotten once the driver closed it.
///
/// # Safety
/// As the specification requires of `zeMemCloseIpcHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeMemCloseIpcHandle(
    context: ze_context_handle_t,
    pointer: *const c_void,
) -> ze_result_t {
    let function = real!(
        c"zeMemCloseIpcHandle",
        unsafe extern "C" fn(ze_context_handle_t, *const c_void) -> ze_result_t
    );
    let records: Vec<_> = shim().starting_at(pointer as usize).into_iter().collect();
    // SAFETY: the caller's arguments, passed on.
    while_freeing(&records, || unsafe { function(context, pointer) })
}

/// Intercepted: its results land at `dst` plus each offset (`offsets`, when given), which may
/// lie in other allocations than `dst`'s; each becomes resident on the list's device first.
///
/// # Safety
/// As the specification requires of `zeCommandListAppendQueryKernelTimestamps`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeCommandListAppendQueryKernelTimestamps(
    list: ze_command_list_handle_t,
    count: u32,
    events: *mut ze_event_handle_t,
    dst: *mut c_void,
    offsets: *const usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let function = real!(
        c"zeCommandListAppendQueryKernelTimestamps",
        unsafe extern "C" fn(
            ze_command_list_handle_t,
            u32,
            *mut ze_event_handle_t,
            *mut c_void,
            *const usize,
            ze_event_handle_t,
            u32,
            *mut ze_event_handle_t,
        ) -> ze_result_t
    );
    // Each result is a timestamp record; without offsets they lie one after another.
    let record = size_of::<ze_kernel_timestamp_result_t>();
    let mut operands = vec![(
        dst as *const c_void,
        if offsets.is_null() {
            record.saturating_mul(count as usize)
        } else {
            record
        },
    )];
    if !dst.is_null() && !offsets.is_null() {
        for index in 0..count as usize {
            // SAFETY: the caller's array of `count` offsets (the spec's range).
            let offset = unsafe { *offsets.add(index) };
            // An offset that overflows lands nowhere the shim knows; the driver answers it.
            if let Some(address) = (dst as usize).checked_add(offset) {
                operands.push((address as *const c_void, record));
            }
        }
    }
    let record = list_for_append(list);
    let in_progress = appending(&record);
    let result = use_all_on_list(list, &operands);
    if result != SUCCESS {
        return result;
    }
    let _forwarding = forwarding(&in_progress);
    // SAFETY: the caller's arguments, passed on.
    unsafe { function(list, count, events, dst, offsets, signal, wait_count, waits) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An argument that pointed into an allocation and is set again to a value that points
    /// nowhere known is forgotten; a scalar never recorded leaves the kernel's other arguments
    /// as they were.
    #[test]
    fn an_argument_set_from_a_pointer_to_a_scalar_is_forgotten() {
        let base = 0x7e00_0000_0000usize;
        let allocation = shim().add(Allocation::for_tests(base, 4096));
        let key = 0x5a5a_0000usize;
        let kernel = key as ze_kernel_handle_t;
        let (pointer, other, scalar) = (base + 100, base + 200, 7usize);
        let value = |word: &usize| word as *const usize as *const c_void;
        let holds = |index| {
            shim()
                .kernels
                .get(&key)
                .is_some_and(|arguments| arguments.holds(index))
        };
        // SAFETY: each value is a live usize, read as the 8 bytes it is.
        unsafe {
            record_argument_value(kernel, 2, value(&pointer), size_of::<usize>());
            record_argument_value(kernel, 4, value(&other), size_of::<usize>());
        }
        assert!(holds(2) && holds(4));
        // SAFETY: as above.
        unsafe { record_argument_value(kernel, 2, value(&scalar), size_of::<usize>()) };
        assert!(!holds(2), "the scalar replaced the pointer");
        // SAFETY: as above.
        unsafe { record_argument_value(kernel, 3, value(&scalar), size_of::<usize>()) };
        assert!(holds(4) && !holds(3));
        let pointers: Vec<usize> = shim().kernels.get(&key).unwrap().pointers().collect();
        assert_eq!(pointers, [other]);
        shim().kernels.remove(&key);
        shim().forget(&allocation);
    }
}
