//! The command-queue groups (engines) of a simulated device.

use crate::model::config::DeviceConfig;
use level_zero_sys::ze_command_queue_group_property_flag_t as GroupFlag;

/// One command-queue group of a simulated device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueGroup {
    /// `ze_command_queue_group_property_flags_t`.
    pub flags: u32,
    /// Number of queues (engines) in the group.
    pub queues: u32,
    /// Largest fill pattern its engines take (`maxMemoryFillPatternSize`).
    pub max_fill_pattern_size: usize,
}

/// The command-queue groups of a device, as compute-runtime reports Xe2's
/// (`Device::getCommandQueueGroupProperties`, and `getMaxFillPatternSizeForCopyEngine` for PVC
/// to Xe3P): ordinal 0 computes, copies and runs cooperative kernels, with fill patterns of any
/// size; then, each where the device has its engines, the main copy engine (BCS0) as a group
/// of its own and the linked copy engines as the next group (compute-runtime's `copy` and
/// `linkedCopy` engine groups), both only copying, with one-byte fill patterns. Engines are not
/// shared between groups, so two queues on index 0 of the two copy groups run on different
/// engines. Xe2 presets have BCS0 only; `xelink` has Xe-HPC's eight linked engines too.
///
/// ```
/// let config = ze_sim::SimConfig::preset("b70x2").unwrap();
/// let groups = ze_sim::queue_groups(&config.devices[0]);
/// assert_eq!(groups.len(), 2);
/// assert_eq!(groups[1].queues, 1);
/// assert_eq!((groups[0].max_fill_pattern_size, groups[1].max_fill_pattern_size), (usize::MAX, 1));
/// let xelink = ze_sim::SimConfig::preset("xelink").unwrap();
/// let groups = ze_sim::queue_groups(&xelink.devices[0]);
/// assert_eq!((groups.len(), groups[1].queues, groups[2].queues), (3, 1, 8));
/// ```
pub fn queue_groups(device: &DeviceConfig) -> Vec<QueueGroup> {
    let compute = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0;
    let copy = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY.0;
    let cooperative = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
    let mut groups = vec![QueueGroup {
        flags: compute | copy | cooperative,
        queues: device.compute_queues,
        max_fill_pattern_size: usize::MAX,
    }];
    for queues in [device.copy_queues, device.linked_copy_queues] {
        if queues > 0 {
            groups.push(QueueGroup {
                flags: copy,
                queues,
                max_fill_pattern_size: 1,
            });
        }
    }
    groups
}
