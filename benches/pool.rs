//! Pool latency: a hit (allocate + free of a cached block) on one pool shared by N threads, at
//! 256 B, 4 KiB, 64 KiB and 1 MiB; side by side, UMF's disjoint pool (the pool inside Intel's
//! runtime) configured as Intel's runtime configures it for device memory, when its library is
//! found, and the simulator's raw `zeMemAllocDevice` + `zeMemFree`.
//!
//! `LAZY_USM_BENCH_THREADS=1,2,4,8,16` picks the thread counts (default `1,2`). UMF comes from
//! `LAZY_USM_UMF_LIB` (a path to `libumf.so.1`), else `$LAZY_USM_SYCL_ROOT/lib`, else the
//! test environment's `target/sycl-venv/lib`; without it its rows say SKIPPED.
//!
//! Criterion's results land in `target/criterion/pool/{hit_Nt,umf_Nt,raw}/<bytes>/`. At the end
//! the bench prints one table measured in one go (median of 7 rounds per cell): nanoseconds per
//! pair as each thread sees it, the ratio to one thread, and UMF's time over lazy-usm's; beside
//! them, the floor: a pop and a push on a stack of each thread's own, timed the same way.

mod common;

use common::slowest_of;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazy_usm::{Context, DevicePool, PoolConfig, ResidencyConfig, ResidencyManager, Runtime};
use std::ffi::c_void;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Barrier;
use std::time::{Duration, Instant};

const SIZES: [usize; 4] = [256, 4096, 64 << 10, 1 << 20];

/// The thread counts to measure.
fn thread_counts() -> Vec<usize> {
    let list = std::env::var("LAZY_USM_BENCH_THREADS").unwrap_or_else(|_| "1,2".into());
    let mut counts: Vec<usize> = list
        .split(',')
        .filter_map(|count| count.trim().parse().ok())
        .filter(|&count| count > 0)
        .collect();
    if !counts.contains(&1) {
        counts.insert(0, 1);
    }
    counts
}

/// Runs `pair` `iterations` times on each of `threads` threads at once, after each thread ran
/// it once (warming its cache); the wall time of the slowest thread, as it saw it.
/// Generic rather than a `dyn` call, so the loop times the pair, not an indirect call.
fn on_threads(threads: usize, iterations: u64, pair: &(impl Fn() + Sync)) -> Duration {
    let barrier = Barrier::new(threads);
    slowest_of(threads, |_| {
        pair();
        barrier.wait();
        let start = Instant::now();
        for _ in 0..iterations {
            pair();
        }
        start.elapsed()
    })
}

/// Nanoseconds per pair: the median of 7 rounds.
fn median_ns(threads: usize, pair: &(impl Fn() + Sync)) -> f64 {
    const ITERATIONS: u64 = 200_000;
    let mut rounds: Vec<f64> = (0..7)
        .map(|_| on_threads(threads, ITERATIONS, pair).as_nanos() as f64 / ITERATIONS as f64)
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[3]
}

thread_local! {
    static FLOOR_STACK: std::cell::RefCell<Vec<usize>> = std::cell::RefCell::new(vec![0; 64]);
}

/// The floor the issue names: a pop and a push on a stack of the thread's own, nothing shared.
/// Timed by the same harness, its ratio to one thread is what the machine itself does to a
/// thread's speed as threads are added (clock, shared cores, the slowest thread's
/// interruptions).
fn floor_pair() {
    FLOOR_STACK.with(|stack| {
        let mut stack = stack.borrow_mut();
        let top = black_box(stack.pop().unwrap_or(0));
        stack.push(black_box(top));
    });
}

/// UMF's disjoint pool over its OS memory provider, through its C API.
struct UmfPool {
    pool: *mut c_void,
    malloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void, *mut c_void) -> i32,
    _library: libloading::Library,
}

// SAFETY: UMF pools are thread-safe (its pool API may be called from any thread).
unsafe impl Send for UmfPool {}
// SAFETY: as above.
unsafe impl Sync for UmfPool {}

type Create = unsafe extern "C" fn(*mut *mut c_void) -> i32;
type Set = unsafe extern "C" fn(*mut c_void, usize) -> i32;

impl UmfPool {
    fn library() -> Option<PathBuf> {
        let candidates = [
            std::env::var_os("LAZY_USM_UMF_LIB").map(PathBuf::from),
            std::env::var_os("LAZY_USM_SYCL_ROOT")
                .map(|root| PathBuf::from(root).join("lib/libumf.so.1")),
            Some(
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sycl-venv/lib/libumf.so.1"),
            ),
        ];
        candidates.into_iter().flatten().find(|path| path.is_file())
    }

    /// Configured as Unified Runtime configures device USM pools by default (its
    /// `disjoint_pool_config_parser`: slabs of at least 64 KiB, pooling up to 4 MiB, 4 unfreed
    /// slabs per bucket, buckets from 512 B), with allocation tracking on, as the runtime's
    /// pools have it (a free finds its pool by pointer). Failures are told apart by the handles
    /// UMF writes (null on failure), so no result constant is restated here.
    fn new() -> Option<Self> {
        let path = Self::library()?;
        // SAFETY: loading UMF runs its initialisers, which have no preconditions.
        let library = unsafe { libloading::Library::new(&path) }.ok()?;
        // SAFETY: each symbol is looked up with the signature UMF 1.x's headers declare
        // (umf/memory_provider.h, umf/providers/provider_os_memory.h, umf/pools/pool_disjoint.h,
        // umf/memory_pool.h), and called with handles UMF itself returned.
        unsafe {
            let get = |name: &[u8]| library.get::<*mut c_void>(name).ok().map(|symbol| *symbol);
            let provider_params_create: Create =
                std::mem::transmute(get(b"umfOsMemoryProviderParamsCreate")?);
            let provider_ops: unsafe extern "C" fn() -> *const c_void =
                std::mem::transmute(get(b"umfOsMemoryProviderOps")?);
            let provider_create: unsafe extern "C" fn(
                *const c_void,
                *const c_void,
                *mut *mut c_void,
            ) -> i32 = std::mem::transmute(get(b"umfMemoryProviderCreate")?);
            let pool_params_create: Create =
                std::mem::transmute(get(b"umfDisjointPoolParamsCreate")?);
            let set_slab: Set = std::mem::transmute(get(b"umfDisjointPoolParamsSetSlabMinSize")?);
            let set_poolable: Set =
                std::mem::transmute(get(b"umfDisjointPoolParamsSetMaxPoolableSize")?);
            let set_capacity: Set = std::mem::transmute(get(b"umfDisjointPoolParamsSetCapacity")?);
            let set_bucket: Set =
                std::mem::transmute(get(b"umfDisjointPoolParamsSetMinBucketSize")?);
            let pool_ops: unsafe extern "C" fn() -> *const c_void =
                std::mem::transmute(get(b"umfDisjointPoolOps")?);
            let pool_create: unsafe extern "C" fn(
                *const c_void,
                *mut c_void,
                *const c_void,
                u32,
                *mut *mut c_void,
            ) -> i32 = std::mem::transmute(get(b"umfPoolCreate")?);
            let malloc = std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
            >(get(b"umfPoolMalloc")?);
            let free = std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*mut c_void, *mut c_void) -> i32,
            >(get(b"umfPoolFree")?);
            let mut provider_params = std::ptr::null_mut();
            provider_params_create(&mut provider_params);
            let mut provider = std::ptr::null_mut();
            provider_create(provider_ops(), provider_params, &mut provider);
            let mut pool_params = std::ptr::null_mut();
            pool_params_create(&mut pool_params);
            if provider.is_null() || pool_params.is_null() {
                return None;
            }
            set_slab(pool_params, 64 << 10);
            set_poolable(pool_params, 4 << 20);
            set_capacity(pool_params, 4);
            set_bucket(pool_params, 512);
            let mut pool = std::ptr::null_mut();
            // No flags: the pool tracks its allocations and does not own the provider (both
            // live until the process exits, as the benchmark's pool does).
            pool_create(pool_ops(), provider, pool_params, 0, &mut pool);
            if pool.is_null() {
                return None;
            }
            let umf = UmfPool {
                pool,
                malloc,
                free,
                _library: library,
            };
            let probe = umf.allocate(4096);
            if probe.is_null() {
                return None;
            }
            umf.release(probe);
            Some(umf)
        }
    }

    fn allocate(&self, size: usize) -> *mut c_void {
        // SAFETY: the pool is live (never destroyed); any size may be asked for.
        unsafe { (self.malloc)(self.pool, size) }
    }

    fn release(&self, pointer: *mut c_void) {
        // SAFETY: `pointer` came from this pool's malloc and is freed once.
        unsafe { (self.free)(self.pool, pointer) };
    }

    fn pair(&self, size: usize) {
        let pointer = black_box(self.allocate(size));
        assert!(!pointer.is_null(), "UMF allocation of {size} bytes failed");
        self.release(pointer);
    }
}

fn pool_benches(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    let manager =
        ResidencyManager::new(context.clone(), ResidencyConfig::default()).expect("manager");
    let pool = &DevicePool::new(&manager, &devices[0], PoolConfig::default()).expect("pool");
    let umf = UmfPool::new();
    if umf.is_none() {
        println!("pool/umf_*: SKIPPED: UMF's library was not found (set LAZY_USM_UMF_LIB)");
    }
    let threads = thread_counts();
    let mut group = c.benchmark_group("pool");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(1));
    for size in SIZES {
        let ours = move || drop(black_box(pool.allocate(size).expect("hit")));
        for &count in &threads {
            group.bench_with_input(
                BenchmarkId::new(format!("hit_{count}t"), size),
                &size,
                |bench, _| {
                    bench.iter_custom(|iterations| on_threads(count, iterations, &ours));
                },
            );
            if let Some(umf) = &umf {
                let theirs = move || umf.pair(size);
                group.bench_with_input(
                    BenchmarkId::new(format!("umf_{count}t"), size),
                    &size,
                    |bench, _| {
                        bench.iter_custom(|iterations| on_threads(count, iterations, &theirs));
                    },
                );
            }
        }
        group.bench_with_input(BenchmarkId::new("raw", size), &size, |bench, &size| {
            bench.iter(|| {
                drop(black_box(
                    context.alloc_device(&devices[0], size, 0).expect("raw"),
                ))
            });
        });
    }
    group.finish();

    println!(
        "\npool hit (allocate + free), ns per pair as each thread sees it, median of 7 rounds, one pool shared by all threads:"
    );
    println!(
        "| size | threads | lazy-usm | ratio to 1 thread | UMF disjoint | ratio to 1 thread | UMF / lazy-usm | floor (thread-local pop + push) | ratio to 1 thread |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for size in SIZES {
        let ours = move || drop(black_box(pool.allocate(size).expect("hit")));
        let (mut ours_one, mut theirs_one, mut floor_one) = (f64::NAN, f64::NAN, f64::NAN);
        for &count in &threads {
            let lazy = median_ns(count, &ours);
            let other = umf
                .as_ref()
                .map(|umf| median_ns(count, &move || umf.pair(size)));
            if count == 1 {
                ours_one = lazy;
                theirs_one = other.unwrap_or(f64::NAN);
            }
            let (other_text, other_ratio, versus) = match other {
                Some(other) => (
                    format!("{other:.1} ns"),
                    format!("{:.2}x", other / theirs_one),
                    format!("{:.1}x", other / lazy),
                ),
                None => ("SKIPPED".into(), "-".into(), "-".into()),
            };
            let floor = median_ns(count, &floor_pair);
            if count == 1 {
                floor_one = floor;
            }
            println!(
                "| {size} B | {count} | {lazy:.1} ns | {:.2}x | {other_text} | {other_ratio} | {versus} | {floor:.1} ns | {:.2}x |",
                lazy / ours_one,
                floor / floor_one
            );
        }
    }
    let stats = pool.stats();
    println!(
        "pool after the run: {} hits, {} misses, {} segments",
        stats.hits, stats.misses, stats.segments
    );
}

criterion_group!(benches, pool_benches);
criterion_main!(benches);
