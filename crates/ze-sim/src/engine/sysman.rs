//! What the system-management interface (Sysman) reads of a device: its memory's size and use,
//! and the processes using it. compute-runtime reads these from the kernel driver
//! (`level_zero/sysman/source/api/memory/linux/sysman_os_memory_imp_xe.cpp`: the VRAM region's
//! usable size and what every client allocated in it; `.../global_operations/linux/`: each
//! process's `drm-total-vram*` fdinfo keys); the simulator reads its own figures, the machine's
//! where this process shares one.

use crate::engine::platform::Inner;

/// A device memory region as Sysman reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoryRegionState {
    /// What can be allocated in it.
    pub size: u64,
    /// What every process has allocated in it.
    pub used: u64,
}

/// A process using a device, as Sysman lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceProcess {
    pub pid: u32,
    /// Device memory it allocated on the device, touched or not (what compute-runtime sums
    /// from the `drm-total-vram*` keys: every object the client owns there).
    pub memory: u64,
}

impl Inner {
    /// Device `device`'s memory region: whole-device figures, all processes of the machine
    /// included, as the kernel driver's region query reports them.
    pub(crate) fn memory_region_state(&self, device: u32) -> MemoryRegionState {
        let size = self.device_limit(device);
        let used = match self.machine {
            Some(machine) => {
                let on_machine = self.machine_devices[device as usize];
                machine.machine().reap_vanished();
                machine.machine().allocated_bytes(on_machine)
            }
            None => self.lock().memory.usage[device as usize].allocated_bytes,
        };
        MemoryRegionState {
            size,
            used: used.min(size),
        }
    }

    /// The running processes of the machine, this one included, by pid (compute-runtime's
    /// order), with the device memory each allocated on device `device`. Every process that
    /// uses the simulator opens every device it sees, as every Level Zero process opens each
    /// device's render node; one whose `ZE_AFFINITY_MASK` hides the device is listed too, with
    /// nothing there.
    pub(crate) fn device_processes(&self, device: u32) -> Vec<DeviceProcess> {
        let Some(machine) = self.machine else {
            return vec![DeviceProcess {
                pid: std::process::id(),
                memory: self.lock().memory.usage[device as usize].allocated_bytes,
            }];
        };
        let on_machine = self.machine_devices[device as usize];
        machine.machine().reap_vanished();
        let mut processes: Vec<DeviceProcess> = machine
            .machine()
            .running_allocations(on_machine)
            .into_iter()
            .map(|(pid, memory)| DeviceProcess { pid, memory })
            .collect();
        processes.sort_by_key(|process| process.pid);
        processes
    }
}
