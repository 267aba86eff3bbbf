//! What the shim knows: device allocations by address with their owner, the peer residency the
//! program asked for (not forwarded under the lazy policy) and the residency the shim made on
//! first use (with, under a host budget, when each was last used and by which lists), each
//! command list's device, each kernel's pointer arguments.

#![deny(unsafe_code)]

use crate::budget::Budget;
use lazy_usm_registry::PointerRegistry;
use lazy_usm_spirv::Parameter;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

/// `LAZY_USM_POLICY`, `LAZY_USM_INDIRECT`, `LAZY_USM_HOST_BUDGET`, `LAZY_USM_LOG`.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// `lazy` (default): peer residency on first use. `eager`: everything forwarded as is.
    pub lazy: bool,
    /// `all`: a device's first kernel launch makes every peer allocation of the context
    /// resident there (kernels may read through pointers the arguments do not show). `args`
    /// (default): only the pointer arguments.
    pub indirect_all: bool,
    /// Trace each decision on stderr.
    pub log: bool,
    /// `LAZY_USM_HOST_BUDGET`, in bytes: the most peer residency made on first use that the
    /// shim holds at once (under the lazy policy).
    pub host_budget: Option<u64>,
}

impl Config {
    fn from_env() -> Self {
        let value = |name: &str| std::env::var(name).unwrap_or_default();
        let policy = value("LAZY_USM_POLICY");
        let indirect = value("LAZY_USM_INDIRECT");
        let config = Self {
            lazy: policy != "eager",
            indirect_all: indirect == "all",
            log: !matches!(value("LAZY_USM_LOG").as_str(), "" | "0"),
            // A bad value stopped the process when the shim was loaded (`lib.rs`).
            host_budget: crate::budget::from_env().ok().flatten(),
        };
        if !matches!(policy.as_str(), "" | "lazy" | "eager") {
            say(format!(
                "LAZY_USM_POLICY={policy} is not lazy or eager; using lazy"
            ));
        }
        if !matches!(indirect.as_str(), "" | "args" | "all") {
            say(format!(
                "LAZY_USM_INDIRECT={indirect} is not args or all; using args"
            ));
        }
        if config.host_budget.is_some() && !config.lazy {
            say(
                "LAZY_USM_HOST_BUDGET bounds the residency made on first use, which the eager \
                 policy never defers: ignored"
                    .into(),
            );
        }
        config
    }
}

/// A module's kernels by name, with their parameters.
pub type ModuleKernels = HashMap<String, Arc<[Parameter]>>;

/// A device allocation the program made.
#[derive(Debug)]
pub struct Allocation {
    pub base: usize,
    pub size: usize,
    pub context: usize,
    pub owner: usize,
    /// Where the shim made it resident on use, and where the budget evicted it.
    pub peers: Mutex<Peers>,
    /// Peers the program asked for and the shim did not forward.
    pub asked: Mutex<HashSet<usize>>,
    /// Another process's allocation, opened from an IPC handle: the driver's to make resident
    /// (never deferred, never made resident by the shim).
    pub imported: bool,
    /// Set, under `peers`' lock, while the program frees or unmaps it: residency is not asked
    /// for a range the driver may be taking back.
    pub freeing: std::sync::atomic::AtomicBool,
}

/// An allocation's residency on its peers, as the shim made it.
#[derive(Debug, Default)]
pub struct Peers {
    /// The devices it is resident on (made by the shim on use), each with its uses.
    pub resident: HashMap<usize, PeerUse>,
    /// The devices the host budget evicted it from: made there again, it is a re-import.
    pub evicted: HashSet<usize>,
}

/// The uses of one residency, which the host budget reads (kept only under a budget).
#[derive(Debug, Default)]
pub struct PeerUse {
    /// When it was last used ([`Budget::tick`]).
    pub last_use: u64,
    /// The lists whose work used it, as each was then: until each is done with it, it stays.
    pub users: Vec<ListUse>,
    /// The driver refused to evict it: it is never a candidate again.
    pub refused: bool,
}

/// A list as it was when its work used a residency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListUse {
    pub list: usize,
    /// [`ListRecord::generation`] then.
    pub generation: u64,
    /// When ([`Budget::tick`]).
    pub at: u64,
}

impl PeerUse {
    /// A use now by `user` (none: a use no list makes, such as a residency made at allocation).
    pub fn used(&mut self, budget: &Budget, user: Option<ListUse>) {
        self.last_use = budget.tick();
        if let Some(user) = user {
            // A list's latest use stands for its earlier ones: its work runs in order, or is
            // waited for as a whole.
            self.users.retain(|known| known.list != user.list);
            self.users.push(ListUse {
                at: self.last_use,
                ..user
            });
        }
    }
}

/// A command list the shim saw created.
#[derive(Debug)]
pub struct ListRecord {
    pub context: usize,
    pub device: usize,
    /// Immediate: its work runs as it is appended, and `zeCommandListHostSynchronize` says when
    /// it is done. A regular list's commands may run at any execution until it is reset or
    /// destroyed (the specification has the program wait for the device first).
    pub immediate: bool,
    /// Fresh at creation and at each reset, from one counter for the process, so that a use
    /// recorded before a reset, or under a destroyed list's reused handle, never matches.
    pub generation: AtomicU64,
    /// Under a host budget, while an append to the list is in progress (from before the
    /// shim's residency checks until the driver has its work): the time it began, 0 when none.
    pub appending_since: AtomicU64,
    /// Every use of the immediate list's work before this time is done: a
    /// `zeCommandListHostSynchronize` that began then, with no append in progress, succeeded.
    pub done_until: AtomicU64,
    /// Under a host budget: read-held while any of the program's calls on the list is in the
    /// driver (appends, waits, queries), write-held across its reset and destruction, and tried
    /// for writing by the budget while it asks the driver whether the list's work is done, so
    /// that the question never runs beside another call on the list (compute-runtime's answer
    /// recycles the list's resources, unguarded against a concurrent append).
    pub driver_calls: RwLock<ListLife>,
}

/// Whether a list is still the driver's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLife {
    Live,
    Destroyed,
}

/// The counter of list generations.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

impl ListRecord {
    /// A list just created.
    pub fn new(context: usize, device: usize, immediate: bool) -> Self {
        ListRecord {
            context,
            device,
            immediate,
            generation: AtomicU64::new(Self::fresh_generation()),
            appending_since: AtomicU64::new(0),
            done_until: AtomicU64::new(0),
            driver_calls: RwLock::new(ListLife::Live),
        }
    }

    /// A generation no list had.
    pub fn fresh_generation() -> u64 {
        GENERATIONS.fetch_add(1, Ordering::Relaxed)
    }

    /// A use by this list now (its time set when it is recorded).
    pub fn use_now(&self, list: usize) -> ListUse {
        ListUse {
            list,
            generation: self.generation.load(Ordering::Acquire),
            at: 0,
        }
    }
}

#[cfg(test)]
impl Allocation {
    /// A record of context 1's allocation on device 2, resident nowhere else.
    pub(crate) fn for_tests(base: usize, size: usize) -> Self {
        Allocation {
            base,
            size,
            context: 1,
            owner: 2,
            peers: Default::default(),
            asked: Default::default(),
            imported: false,
            freeing: Default::default(),
        }
    }
}

/// A (context, device) pair that has every peer allocation resident: marked before its first
/// pass over the allocations starts, so that an allocation recorded during the pass is made
/// resident there by its own call; complete once a pass found nothing missing.
#[derive(Debug, Default, Clone)]
pub struct EverythingResident {
    /// A pass succeeded and no allocation failed to become resident since (nor did the host
    /// budget evict one here).
    pub complete: bool,
    /// Allocations that failed to become resident here: a pass that saw this change while it
    /// ran does not mark the pair complete.
    pub failures: u64,
    /// The lists that launched kernels here since: under a host budget, a residency here stays
    /// while any of them may still run a kernel that reads it through a pointer.
    pub users: Vec<ListUse>,
}

/// Counters for the exit report.
#[derive(Debug, Default)]
pub struct Stats {
    pub asked_calls: AtomicU64,
    pub asked_bytes: AtomicU64,
    pub made_calls: AtomicU64,
    pub made_bytes: AtomicU64,
}

/// A kernel's arguments that hold pointers into device allocations: each one's index and its
/// pointers. A kernel has a few, so a list (a tree's search cost a tenth of a recorded
/// argument).
#[derive(Debug, Default)]
pub struct KernelArguments {
    set: Vec<(u32, Vec<usize>)>,
}

impl KernelArguments {
    /// Argument `index` holds `pointers` now (none: it is forgotten); its list is reused, so
    /// setting an argument again allocates nothing.
    pub fn set(&mut self, index: u32, pointers: impl IntoIterator<Item = usize>) {
        let mut pointers = pointers.into_iter().peekable();
        match self.set.iter().position(|(known, _)| *known == index) {
            Some(position) => {
                let list = &mut self.set[position].1;
                list.clear();
                list.extend(pointers);
                if list.is_empty() {
                    self.set.swap_remove(position);
                }
            }
            None if pointers.peek().is_some() => self.set.push((index, pointers.collect())),
            None => {}
        }
    }

    /// Whether argument `index` holds pointers.
    pub fn holds(&self, index: u32) -> bool {
        self.set.iter().any(|(known, _)| *known == index)
    }

    /// Every pointer the arguments hold.
    pub fn pointers(&self) -> impl Iterator<Item = usize> + '_ {
        self.set
            .iter()
            .flat_map(|(_, pointers)| pointers.iter().copied())
    }
}

/// The shim's state, one per process.
pub struct Shim {
    pub config: Config,
    pub registry: PointerRegistry<Arc<Allocation>>,
    pub allocations: Mutex<BTreeMap<usize, Arc<Allocation>>>,
    /// Reservations of virtual addresses by start: (size, context). A kernel's pointer into a
    /// mapping may reach any mapping of its reservation.
    pub reservations: Mutex<BTreeMap<usize, (usize, usize)>>,
    /// Whether any reservation was ever made: a launch's pointers take the reservations' lock
    /// only then.
    pub any_reservation: std::sync::atomic::AtomicBool,
    /// Each command list's record, looked up on every append from every thread.
    pub lists: dashmap::DashMap<usize, Arc<ListRecord>, rustc_hash::FxBuildHasher>,
    /// Each kernel's arguments that hold pointers into device allocations.
    pub kernels: dashmap::DashMap<usize, KernelArguments, rustc_hash::FxBuildHasher>,
    /// Each SPIR-V module's kernels and their parameters.
    pub modules: dashmap::DashMap<usize, Arc<ModuleKernels>, rustc_hash::FxBuildHasher>,
    /// Each device physical memory object's (context, device), for its mappings' owner.
    pub physical: dashmap::DashMap<usize, (usize, usize), rustc_hash::FxBuildHasher>,
    /// Each kernel's parameters, where its module said (not for native binaries).
    pub parameters: dashmap::DashMap<usize, Arc<[Parameter]>, rustc_hash::FxBuildHasher>,
    /// (context, device) pairs where `LAZY_USM_INDIRECT=all` (or a launch whose arguments
    /// the shim cannot see) makes every peer allocation resident.
    pub everything_resident: Mutex<HashMap<(usize, usize), EverythingResident>>,
    /// `LAZY_USM_HOST_BUDGET`, under the lazy policy.
    pub budget: Option<Budget>,
    pub stats: Stats,
}

/// A line on stderr that never panics (a closed stderr is ignored).
pub fn say(message: String) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "lazy-usm shim: {message}");
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The process's shim state.
pub fn shim() -> &'static Shim {
    static SHIM: OnceLock<Shim> = OnceLock::new();
    SHIM.get_or_init(|| Shim::new(Config::from_env()))
}

impl Shim {
    /// A shim state with nothing recorded yet.
    pub fn new(config: Config) -> Self {
        Shim {
            config,
            registry: PointerRegistry::new(),
            allocations: Mutex::new(BTreeMap::new()),
            reservations: Mutex::new(BTreeMap::new()),
            any_reservation: std::sync::atomic::AtomicBool::new(false),
            lists: dashmap::DashMap::with_hasher(rustc_hash::FxBuildHasher),
            kernels: dashmap::DashMap::with_hasher(rustc_hash::FxBuildHasher),
            modules: dashmap::DashMap::with_hasher(rustc_hash::FxBuildHasher),
            parameters: dashmap::DashMap::with_hasher(rustc_hash::FxBuildHasher),
            physical: dashmap::DashMap::with_hasher(rustc_hash::FxBuildHasher),
            everything_resident: Mutex::new(HashMap::new()),
            budget: config.host_budget.filter(|_| config.lazy).map(Budget::new),
            stats: Stats::default(),
        }
    }

    pub fn log(&self, message: impl FnOnce() -> String) {
        if self.config.log {
            say(message());
        }
    }

    pub fn add(&self, allocation: Allocation) -> Arc<Allocation> {
        let allocation = Arc::new(allocation);
        let (base, size) = (allocation.base, allocation.size.max(1));
        let end = base.saturating_add(size);
        // The allocations lock orders every change of the registry, so a record is never
        // half made or half forgotten.
        let mut allocations = lock(&self.allocations);
        // Stale records the new range overlaps (ranges freed behind the shim's back, or whose
        // free it has not forgotten yet): the driver's new allocation is the truth. Records do
        // not overlap each other, so those are the ones starting inside the range and the one
        // before it, if it reaches in.
        let before = allocations
            .range(..base)
            .next_back()
            .filter(|(start, stale)| **start + stale.size.max(1) > base)
            .map(|(start, _)| *start);
        let stale: Vec<usize> = allocations
            .range(base..end)
            .map(|(start, _)| *start)
            .chain(before)
            .collect();
        let mut gone = Vec::new();
        for start in stale {
            gone.extend(allocations.remove(&start));
            self.registry.remove(start);
        }
        match self.registry.insert(base, size, Arc::clone(&allocation)) {
            Ok(()) => {
                allocations.insert(base, Arc::clone(&allocation));
            }
            Err(error) => say(format!(
                "cannot record the allocation at {base:#x}: {error:?}"
            )),
        }
        drop(allocations);
        // Their residency went with their memory. Outside the allocations lock: a free holds
        // its record's residency lock while it takes that one.
        for record in gone {
            let mut peers = lock(&record.peers);
            // Its memory is gone: a late use through an old reference makes nothing resident.
            record.freeing.store(true, Ordering::Release);
            self.residency_gone(&record, &mut peers);
        }
        allocation
    }

    /// The allocation starting at `base`.
    pub fn starting_at(&self, base: usize) -> Option<Arc<Allocation>> {
        lock(&self.allocations).get(&base).cloned()
    }

    /// Forgets `allocation`, if it is still the record at its address (a new allocation at the
    /// same address, made once the driver freed this one, stays).
    pub fn forget(&self, allocation: &Arc<Allocation>) {
        let mut allocations = lock(&self.allocations);
        if allocations
            .get(&allocation.base)
            .is_some_and(|current| Arc::ptr_eq(current, allocation))
        {
            allocations.remove(&allocation.base);
            self.registry.remove(allocation.base);
        }
    }

    /// The allocation containing `address`.
    pub fn containing(&self, address: usize) -> Option<Arc<Allocation>> {
        self.registry
            .find_map(address, |entry| Arc::clone(&entry.value))
    }

    /// The allocation of `context` whose range holds `size` bytes at `address` (checked: an
    /// overflowing range holds nothing).
    pub fn holding(&self, context: usize, address: usize, size: usize) -> Option<Arc<Allocation>> {
        let allocation = self.containing(address)?;
        let end = (address - allocation.base).checked_add(size)?;
        (allocation.context == context && end <= allocation.size).then_some(allocation)
    }

    /// The allocations of `context` that start in `(address, address + size)`: with the one
    /// holding `address`, every one a range from `address` touches.
    pub fn starting_within(
        &self,
        context: usize,
        address: usize,
        size: usize,
    ) -> Vec<Arc<Allocation>> {
        let end = address.saturating_add(size);
        let Some(after) = address.checked_add(1).filter(|&after| after < end) else {
            return Vec::new();
        };
        lock(&self.allocations)
            .range(after..end)
            .filter(|(_, allocation)| allocation.context == context)
            .map(|(_, allocation)| Arc::clone(allocation))
            .collect()
    }

    /// The reservation of virtual addresses (`zeVirtualMemReserve`) of `context` holding
    /// `address`: its start and size.
    pub fn reservation_of(&self, context: usize, address: usize) -> Option<(usize, usize)> {
        if !self
            .any_reservation
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return None;
        }
        let reservations = lock(&self.reservations);
        let (&base, &(size, owner)) = reservations.range(..=address).next_back()?;
        (owner == context && address - base < size).then_some((base, size))
    }

    /// The allocations of `context` that lie wholly in `[address, address + size)`.
    pub fn inside(&self, context: usize, address: usize, size: usize) -> Vec<Arc<Allocation>> {
        let Some(end) = address.checked_add(size) else {
            return Vec::new();
        };
        lock(&self.allocations)
            .range(address..end)
            .filter(|(_, allocation)| {
                allocation.context == context && allocation.base + allocation.size <= end
            })
            .map(|(_, allocation)| Arc::clone(allocation))
            .collect()
    }

    /// What the shim recorded of `context`: its allocations and its lists.
    pub fn records_of(&self, context: usize) -> (Vec<Arc<Allocation>>, Vec<usize>) {
        let allocations = lock(&self.allocations)
            .values()
            .filter(|allocation| allocation.context == context)
            .cloned()
            .collect();
        let lists = self
            .lists
            .iter()
            .filter(|entry| entry.value().context == context)
            .map(|entry| *entry.key())
            .collect();
        (allocations, lists)
    }

    /// The driver took `allocation`'s peer residency back (it freed the memory, or destroyed
    /// its context); `peers` is its locked residency. The budget no longer holds it.
    pub fn residency_gone(&self, allocation: &Allocation, peers: &mut Peers) {
        let gone = peers.resident.drain().count() as u64;
        if let Some(budget) = &self.budget {
            budget.released(gone.saturating_mul(allocation.size as u64), false);
        }
    }

    /// Forgets what [`Shim::records_of`] gave, once the driver destroyed the context.
    pub fn forget_context(&self, context: usize, records: (Vec<Arc<Allocation>>, Vec<usize>)) {
        let (allocations, lists) = records;
        for allocation in &allocations {
            self.residency_gone(allocation, &mut lock(&allocation.peers));
            self.forget(allocation);
        }
        for list in lists {
            self.lists
                .remove_if(&list, |_, record| record.context == context);
        }
        lock(&self.everything_resident).retain(|(list_context, _), _| *list_context != context);
        lock(&self.reservations).retain(|_, (_, owner)| *owner != context);
    }

    /// The (context, device) of a list the shim saw created.
    pub fn list(&self, list: usize) -> Option<(usize, usize)> {
        self.lists
            .get(&list)
            .map(|entry| (entry.context, entry.device))
    }

    /// The record of a list the shim saw created.
    pub fn list_record(&self, list: usize) -> Option<Arc<ListRecord>> {
        self.lists.get(&list).map(|entry| Arc::clone(&entry))
    }

    /// The allocations of `context` not owned by `device`.
    pub fn peers_of(&self, context: usize, device: usize) -> Vec<Arc<Allocation>> {
        lock(&self.allocations)
            .values()
            .filter(|allocation| {
                allocation.context == context && allocation.owner != device && !allocation.imported
            })
            .cloned()
            .collect()
    }

    /// The summary `LAZY_USM_REPORT=1` prints at exit.
    pub fn report(&self) -> String {
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let stats = &self.stats;
        let (asked_calls, asked) = (
            stats.asked_calls.load(Ordering::Relaxed),
            stats.asked_bytes.load(Ordering::Relaxed),
        );
        let (made_calls, made) = (
            stats.made_calls.load(Ordering::Relaxed),
            stats.made_bytes.load(Ordering::Relaxed),
        );
        format!(
            "lazy-usm shim ({}): the program asked for {asked_calls} peer residencies ({:.2} GiB), \
             not forwarded; {made_calls} made on first use ({:.2} GiB); host memory spared: \
             {:.2} GiB",
            if self.config.lazy {
                "lazy"
            } else {
                "eager: everything forwarded"
            },
            gib(asked),
            gib(made),
            gib(asked.saturating_sub(made)),
        ) + &self
            .budget
            .as_ref()
            .map_or(String::new(), |budget| format!("; {}", budget.report()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shim() -> Shim {
        Shim::new(Config {
            lazy: true,
            indirect_all: false,
            log: false,
            host_budget: None,
        })
    }

    fn allocation(base: usize, size: usize) -> Allocation {
        Allocation::for_tests(base, size)
    }

    /// An argument set again replaces its pointers, one set to hold none is forgotten, and
    /// the others stay.
    #[test]
    fn kernel_arguments_follow_each_argument_set() {
        let mut arguments = KernelArguments::default();
        arguments.set(1, [0x10]);
        arguments.set(3, [0x30, 0x31]);
        arguments.set(0, []);
        assert!(arguments.holds(1) && arguments.holds(3) && !arguments.holds(0));
        arguments.set(1, [0x11]);
        let mut pointers: Vec<usize> = arguments.pointers().collect();
        pointers.sort();
        assert_eq!(pointers, [0x11, 0x30, 0x31]);
        arguments.set(3, []);
        assert!(!arguments.holds(3));
        assert_eq!(arguments.pointers().collect::<Vec<_>>(), [0x11]);
        arguments.set(1, []);
        assert_eq!(arguments.pointers().count(), 0);
        assert!(arguments.set.is_empty());
    }

    #[test]
    fn a_new_allocation_replaces_every_stale_record_it_overlaps_and_a_late_forget_keeps_it() {
        let shim = shim();
        // Stale records inside the new range (neither at its ends) and one reaching into it.
        let inner = shim.add(allocation(0x2000, 0x100));
        let before = shim.add(allocation(0x0f00, 0x200));
        let new = shim.add(allocation(0x1000, 0x4000));
        for address in [0x1000, 0x2000, 0x2050, 0x4fff] {
            let found = shim.containing(address).expect("recorded");
            assert!(Arc::ptr_eq(&found, &new), "{address:#x}");
        }
        assert!(
            shim.containing(0x0f00).is_none(),
            "the overlapping record went"
        );
        assert_eq!(lock(&shim.allocations).len(), 1);
        // Their frees, forgotten late (after the driver succeeded), leave the new one alone.
        shim.forget(&inner);
        shim.forget(&before);
        assert!(Arc::ptr_eq(&shim.containing(0x2000).unwrap(), &new));
        shim.forget(&new);
        assert!(shim.containing(0x2000).is_none());
        assert!(shim.registry.is_empty());
    }
}
