//! Samplers: created, destroyed and passed to kernels, where a kernel that runs for real gets
//! an OpenCL sampler of the same addressing, filtering and coordinates. Images are not
//! implemented, so no kernel here can sample with one; the argument itself is real.

use super::{guard, input, out};
use crate::abi::registry::{self, Object};
use crate::objects::sampler::Sampler;
use level_zero_sys::*;

pub(crate) unsafe extern "C" fn sampler_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_sampler_desc_t,
    sampler: *mut ze_sampler_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let sampler = unsafe { out(sampler) }?;
        let known_address =
            desc.addressMode.0 <= ze_sampler_address_mode_t::ZE_SAMPLER_ADDRESS_MODE_MIRROR.0;
        let known_filter =
            desc.filterMode.0 <= ze_sampler_filter_mode_t::ZE_SAMPLER_FILTER_MODE_LINEAR.0;
        if !known_address || !known_filter {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let object = Object::Sampler(std::sync::Arc::new(Sampler {
            context: context as usize,
            address_mode: desc.addressMode,
            filter_mode: desc.filterMode,
            normalized: desc.isNormalized != 0,
            destroyed: Default::default(),
        }));
        let mut state = platform.lock();
        state.counters.live_samplers += 1;
        *state
            .uses
            .context_children
            .entry(context as usize)
            .or_default() += 1;
        drop(state);
        *sampler = registry::register(&platform, object) as ze_sampler_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn sampler_destroy(sampler: ze_sampler_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::sampler(sampler as usize)?;
        object
            .destroyed
            .store(true, std::sync::atomic::Ordering::Release);
        registry::unregister(sampler as usize);
        let mut state = platform.lock();
        state.counters.live_samplers = state.counters.live_samplers.saturating_sub(1);
        if let Some(children) = state.uses.context_children.get_mut(&object.context) {
            *children = children.saturating_sub(1);
        }
        Ok(())
    })
}
