//! Synthetic allocation traces for measuring the pool: DDP-like training steps and a serving
//! loop with a KV cache. Deterministic (seeded), so runs compare over time.

/// One step of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceOp {
    /// Allocate `size` bytes as block `id`; `shared` blocks are also read by a peer device.
    Allocate {
        /// Block identifier, unique among live blocks.
        id: usize,
        /// Bytes.
        size: usize,
        /// Whether a peer device reads it (gradient buckets, KV pages exchanged).
        shared: bool,
    },
    /// Free block `id`.
    Free {
        /// Block identifier.
        id: usize,
    },
}

struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }
}

struct Builder {
    ops: Vec<TraceOp>,
    next_id: usize,
}

impl Builder {
    fn allocate(&mut self, size: usize, shared: bool) -> usize {
        let id = self.next_id;
        self.next_id += 1;
        self.ops.push(TraceOp::Allocate { id, size, shared });
        id
    }

    fn free(&mut self, id: usize) {
        self.ops.push(TraceOp::Free { id });
    }
}

/// A data-parallel training rank: parameters allocated once, gradient buckets of 25 MB (what
/// seed 001's reproducer exchanges) shared with the peer, and per-step activations that grow
/// through the forward pass and shrink through the backward pass.
///
/// ```
/// let trace = lazy_usm::trace::ddp(3, 7);
/// assert!(trace.iter().any(|op| matches!(op, lazy_usm::trace::TraceOp::Allocate { shared: true, .. })));
/// ```
pub fn ddp(steps: usize, seed: u64) -> Vec<TraceOp> {
    let mut random = Random(seed.max(1));
    let mut trace = Builder {
        ops: Vec::new(),
        next_id: 0,
    };
    let mut parameters = Vec::new();
    for layer in 0..24 {
        parameters.push(trace.allocate(random.between(2 << 20, 12 << 20) + layer * 4096, false));
        parameters.push(trace.allocate(random.between(4 << 10, 64 << 10), false)); // biases
    }
    let buckets: Vec<usize> = (0..8)
        .map(|_| trace.allocate(25_000_000 * 4 / 4, true))
        .collect();
    for _ in 0..steps {
        let mut activations = Vec::new();
        for _ in 0..24 {
            activations.push(trace.allocate(random.between(1 << 20, 24 << 20), false));
            let scratch = trace.allocate(random.between(256, 256 << 10), false);
            trace.free(scratch);
        }
        while let Some(activation) = activations.pop() {
            let gradient = trace.allocate(random.between(512 << 10, 8 << 20), false);
            trace.free(activation);
            trace.free(gradient);
        }
    }
    for id in buckets.into_iter().chain(parameters) {
        trace.free(id);
    }
    trace.ops
}

/// A serving loop: weights loaded once, then requests that each grow a KV cache page by page
/// (pages shared with the peer device in tensor-parallel serving) and free it when done, with
/// small per-token scratch allocations.
///
/// ```
/// let trace = lazy_usm::trace::serving(50, 3);
/// assert!(trace.len() > 100);
/// ```
pub fn serving(requests: usize, seed: u64) -> Vec<TraceOp> {
    let mut random = Random(seed.max(1));
    let mut trace = Builder {
        ops: Vec::new(),
        next_id: 0,
    };
    let weights: Vec<usize> = (0..32)
        .map(|_| trace.allocate(random.between(8 << 20, 40 << 20), false))
        .collect();
    let mut active: Vec<Vec<usize>> = Vec::new();
    for _ in 0..requests {
        let pages = random.between(4, 64);
        let mut cache = Vec::new();
        for _ in 0..pages {
            cache.push(trace.allocate(2 << 20, true));
            let scratch = trace.allocate(random.between(1 << 10, 512 << 10), false);
            trace.free(scratch);
        }
        active.push(cache);
        if active.len() > 8 {
            let index = random.between(0, active.len() - 1);
            for page in active.swap_remove(index) {
                trace.free(page);
            }
        }
    }
    for page in active.into_iter().flatten().chain(weights) {
        trace.free(page);
    }
    trace.ops
}
