//! Residency policies: when an allocation becomes resident on devices other than its owner.

/// When lazy-usm makes a device allocation resident on a peer device.
///
/// On compute-runtime 26.09+ every peer residency pins a same-sized host allocation, so this
/// choice is the host-memory cost of a multi-GPU program.
///
/// ```
/// use lazy_usm::Policy;
/// assert_eq!(Policy::default(), Policy::Lazy);
/// assert!(Policy::Eager.resident_at_allocation());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Resident on every device of the context at allocation: what SYCL's `malloc_device`
    /// does. For comparison, and for code that needs it.
    Eager,
    /// Resident on the owner at allocation; on a peer at its first cross-device use through
    /// lazy-usm, or when the program asks (`ensure_resident_on`).
    #[default]
    Lazy,
    /// Like `Lazy`, but a peer becomes a residency target only after
    /// `enable_peer_access(peer, owner)`; until then cross-device copies are staged through
    /// host memory and cost no residency.
    PeerEnabled,
    /// Never resident beyond the owner unless the program asks (`ensure_resident_on`).
    Manual,
}

impl Policy {
    /// Every policy, in declaration order.
    pub const ALL: [Policy; 4] = [
        Policy::Eager,
        Policy::Lazy,
        Policy::PeerEnabled,
        Policy::Manual,
    ];

    /// Whether allocations become resident on every context device at once.
    ///
    /// ```
    /// assert!(!lazy_usm::Policy::Lazy.resident_at_allocation());
    /// ```
    pub fn resident_at_allocation(self) -> bool {
        self == Policy::Eager
    }

    /// The lower-case name (`eager`, `lazy`, `peer-enabled`, `manual`).
    ///
    /// ```
    /// assert_eq!(lazy_usm::Policy::PeerEnabled.name(), "peer-enabled");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Policy::Eager => "eager",
            Policy::Lazy => "lazy",
            Policy::PeerEnabled => "peer-enabled",
            Policy::Manual => "manual",
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = crate::Error;

    /// ```
    /// assert_eq!("peer-enabled".parse::<lazy_usm::Policy>()?, lazy_usm::Policy::PeerEnabled);
    /// assert!("sometimes".parse::<lazy_usm::Policy>().is_err());
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Policy::ALL
            .into_iter()
            .find(|policy| policy.name() == text)
            .ok_or_else(|| {
                crate::Error::invalid(format!(
                    "unknown policy `{text}`; policies: eager, lazy, peer-enabled, manual"
                ))
            })
    }
}

/// Whether cross-device copies check a device pair's P2P link before trusting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelfTest {
    /// Before the first P2P copy of each pair (the default).
    #[default]
    OnFirstUse,
    /// Never: the driver's word is taken.
    Off,
}

/// How a residency manager behaves.
///
/// ```
/// use lazy_usm::{Policy, ResidencyConfig};
/// let config = ResidencyConfig { host_budget: Some(8 << 30), ..ResidencyConfig::new(Policy::Lazy) };
/// assert_eq!(config.staging_chunk, 8 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResidencyConfig {
    /// The default policy; allocations may override it.
    pub policy: Policy,
    /// Most host bytes peer residency may cost at once (`None`: no limit). Least recently used
    /// idle peer residencies are evicted to stay within it; a copy that still cannot fit takes
    /// the staged path, and an explicit request fails with `Error::HostBudgetExceeded`.
    pub host_budget: Option<u64>,
    /// Link self-test before the first P2P copy of a pair.
    pub self_test: SelfTest,
    /// Size of each half of the pinned bounce buffer of staged copies (8 MiB: large enough to
    /// amortise the per-command latency, small enough to overlap the two halves well).
    pub staging_chunk: usize,
    /// Which engines run the manager's copies.
    pub engine: EngineChoice,
}

/// Which engines run copies.
///
/// ```
/// assert_eq!(lazy_usm::EngineChoice::default(), lazy_usm::EngineChoice::Copy);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// A copy-only engine (blitter) where the device has one, else a compute engine.
    #[default]
    Copy,
    /// A compute engine.
    Compute,
}

impl ResidencyConfig {
    /// The defaults with `policy`.
    ///
    /// ```
    /// assert_eq!(lazy_usm::ResidencyConfig::new(lazy_usm::Policy::Manual).host_budget, None);
    /// ```
    pub fn new(policy: Policy) -> Self {
        Self {
            policy,
            host_budget: None,
            self_test: SelfTest::OnFirstUse,
            staging_chunk: 8 << 20,
            engine: EngineChoice::Copy,
        }
    }
}

/// Largest half of the staging bounce buffer: each half is pinned host memory.
pub const MAX_STAGING_CHUNK: usize = 1 << 30;

impl ResidencyConfig {
    /// Checks every field; [`crate::ResidencyManager::new`] calls it.
    ///
    /// ```
    /// use lazy_usm::{Error, ResidencyConfig};
    /// assert!(ResidencyConfig::default().validate().is_ok());
    /// let huge = ResidencyConfig { staging_chunk: usize::MAX, ..ResidencyConfig::default() };
    /// assert!(matches!(huge.validate(), Err(Error::BadConfig { field: "staging_chunk", .. })));
    /// ```
    pub fn validate(&self) -> Result<(), crate::Error> {
        if self.staging_chunk == 0 || self.staging_chunk > MAX_STAGING_CHUNK {
            return Err(crate::Error::BadConfig {
                field: "staging_chunk",
                reason: format!(
                    "{} bytes; must be between 1 and {MAX_STAGING_CHUNK}",
                    self.staging_chunk
                ),
            });
        }
        Ok(())
    }
}

impl Default for ResidencyConfig {
    fn default() -> Self {
        Self::new(Policy::Lazy)
    }
}
