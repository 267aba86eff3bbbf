//! The names most programs use: `use lazy_usm::prelude::*;`.
//!
//! ```
//! use lazy_usm::prelude::*;
//! let runtime = Runtime::simulated("b70x2")?;
//! let devices = runtime.devices()?;
//! let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::Lazy))?;
//! let allocation = manager.allocate(&devices[0], 1 << 20)?;
//! assert_eq!(allocation.len(), 1 << 20);
//! let pool = DevicePool::new(&manager, &devices[1], PoolConfig::default())?;
//! assert_eq!(pool.allocate(4096)?.len(), 4096);
//! # Ok::<(), Error>(())
//! ```

pub use crate::error::{Error, Result};
pub use crate::pool::{Block, DevicePool, PoolConfig};
pub use crate::residency::{DeviceAllocation, Policy, ResidencyConfig, ResidencyManager, Resident};
pub use crate::ze::{
    Arg, CommandList, Context, Device, DeviceBuffer, Dims, HostBuffer, Kernel, Memory, Module,
    Runtime, SharedBuffer, Unmanaged,
};
