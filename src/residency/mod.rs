//! Residency: which devices an allocation is resident on, decided by policy, and what that costs
//! the host. Bookkeeping only: every Level Zero call goes through the safe core.

#![deny(unsafe_code)]

mod accounting;
mod by_pointer;
mod device_set;
mod manager;
mod pin;
mod policy;

pub use accounting::{DeviceCost, HostCost};
pub use by_pointer::PointerTarget;
pub use device_set::{DeviceSet, MAX_DEVICES};
pub(crate) use manager::{AllocationState, LinkState, Request, Shared};
pub use manager::{DeviceAllocation, ResidencyHandle, ResidencyManager, Resident};
pub(crate) use pin::residency_of;
pub use policy::{EngineChoice, MAX_STAGING_CHUNK, Policy, ResidencyConfig, SelfTest};
