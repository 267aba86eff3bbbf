//! The manager's allocations found by a raw pointer, for bindings that hold nothing else: what
//! a pointer points into, and residency by pointer.

use super::manager::{AllocationState, Request};
use super::{DeviceSet, Policy, ResidencyManager};
use crate::error::{Error, Result};
use crate::ze::device::Device;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The allocation a pointer points into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointerTarget {
    /// Start of the allocation (for pool memory: of the pool segment holding the block, the
    /// unit residency is tracked in).
    pub base: usize,
    /// Its size in bytes.
    pub size: usize,
    /// The pointer's offset from `base`.
    pub offset: usize,
    /// Index of the owning device.
    pub owner: u32,
    /// The devices it is resident on now.
    pub resident: DeviceSet,
    /// Its residency policy.
    pub policy: Policy,
}

impl ResidencyManager {
    /// The allocation containing `address`, for residency by pointer: pool memory is refused,
    /// since its segment's residency belongs to every block of the segment, as the pool counts.
    fn allocation_at(&self, address: usize) -> Result<Arc<AllocationState>> {
        let state = self
            .shared
            .registry
            .find(address)
            .map(|entry| entry.value)
            .ok_or(Error::UnknownPointer { address })?;
        if state.pooled.load(Ordering::Acquire) {
            return Err(Error::PoolMemory { address });
        }
        Ok(state)
    }

    /// The live allocation of this manager (or of a pool over it) that contains `address`, at
    /// any offset; `None` for memory it did not hand out.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[1], 4096)?;
    /// let target = manager.find(allocation.address() + 100).unwrap();
    /// assert_eq!((target.base, target.size, target.offset), (allocation.address(), 4096, 100));
    /// assert_eq!(target.owner, 1);
    /// assert!(manager.find(allocation.address() + 4096).is_none());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn find(&self, address: usize) -> Option<PointerTarget> {
        self.shared
            .registry
            .find_map(address, |entry| PointerTarget {
                base: entry.value.address,
                size: entry.value.size,
                offset: address - entry.value.address,
                owner: entry.value.owner,
                resident: entry.value.resident.load(),
                policy: entry.value.policy,
            })
    }

    /// [`ResidencyManager::ensure_resident_on`] for the allocation containing `address`. Pool
    /// memory is refused ([`Error::PoolMemory`]): make the block itself resident.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[0], 4096)?;
    /// manager.ensure_resident_at(allocation.address() + 8, &devices[1])?;
    /// assert!(allocation.resident().contains(1));
    /// assert!(matches!(manager.ensure_resident_at(0x10, &devices[1]),
    ///                  Err(Error::UnknownPointer { address: 0x10 })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn ensure_resident_at(&self, address: usize, device: &Device) -> Result<()> {
        let index = self.index_of(device)?;
        let state = self.allocation_at(address)?;
        // A drop that races this call marks the record freed under the state lock, which the
        // slow path below checks: a freed range is never made resident.
        self.shared
            .make_resident(&state, index, Request::Explicit, false)?;
        Ok(())
    }

    /// [`ResidencyManager::evict_from`] for the allocation containing `address`. Pool memory is
    /// refused ([`Error::PoolMemory`]): its segment may be shared by other live blocks.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[0], 4096)?;
    /// manager.ensure_resident_at(allocation.address(), &devices[1])?;
    /// manager.evict_at(allocation.address() + 4095, &devices[1])?;
    /// assert_eq!(manager.host_cost().current_bytes, 0);
    /// assert!(manager.evict_at(allocation.address(), &devices[0]).is_err(), "not from its owner");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn evict_at(&self, address: usize, device: &Device) -> Result<()> {
        let index = self.index_of(device)?;
        let allocation = self.allocation_at(address)?;
        if index == allocation.owner {
            return Err(Error::invalid(format!(
                "device {index} owns the allocation at {address:#x}; only peers can be evicted"
            )));
        }
        let mut state = self.shared.lock();
        if self
            .shared
            .try_evict_locked(&mut state, &allocation, index, &|| false)?
        {
            Ok(())
        } else {
            Err(Error::InUse {
                pins: allocation.pins.load(Ordering::SeqCst),
            })
        }
    }
}
