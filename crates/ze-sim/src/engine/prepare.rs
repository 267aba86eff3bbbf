//! Command preparation: each recorded command checked against the platform's memory and
//! turned into the operation its engine performs.

use crate::engine::checks::{Access, Place, check_range, nanos};
use crate::engine::commands::{Command, Engine};
use crate::engine::kernels::prepare_launch;
use crate::engine::ops::Op;
use crate::engine::platform::{Inner, State};
use crate::model::config::LinkKind;
use crate::objects::event::Event;
use level_zero_sys::ze_result_t;
use std::sync::Arc;

pub(crate) fn prepare(
    platform: &Inner,
    state: &mut State,
    context: usize,
    engine: Engine,
    commands: &[Command],
) -> Result<Vec<Op>, ze_result_t> {
    let mut ops = Vec::with_capacity(commands.len());
    for command in commands {
        ops.push(match command {
            Command::Copy {
                dst,
                src,
                size,
                src_context,
            } => {
                let mut touched = Vec::new();
                let (to, to_access) = check_range(
                    platform,
                    state,
                    context,
                    engine,
                    (*dst, *size),
                    true,
                    &mut touched,
                )?;
                let source_context = src_context.unwrap_or(context);
                let (from, from_access) = check_range(
                    platform,
                    state,
                    source_context,
                    engine,
                    (*src, *size),
                    true,
                    &mut touched,
                )?;
                let corrupt = [&to_access, &from_access]
                    .iter()
                    .any(|access| matches!(access, Some(Access::Peer(LinkKind::Corrupt))));
                let counters = &mut state.counters;
                if to == Place::DevicePeer || from == Place::DevicePeer {
                    counters.p2p_copies += 1;
                    counters.corrupt_copies += u64::from(corrupt);
                } else if to == Place::HostPageable || from == Place::HostPageable {
                    counters.host_staged_copies += 1;
                } else if to == Place::HostDirect || from == Place::HostDirect {
                    counters.host_direct_copies += 1;
                } else {
                    counters.device_copies += 1;
                }
                Op::Copy {
                    dst: *dst,
                    src: *src,
                    size: *size,
                    corrupt,
                    nanos: nanos(platform, &[&to, &from], *size),
                    touched,
                }
            }
            Command::Fill { dst, pattern, size } => {
                state.counters.fills += 1;
                let range = (*dst, *size);
                fill_op(
                    platform,
                    state,
                    (context, engine),
                    range,
                    pattern.clone(),
                    None,
                )?
            }
            Command::KernelTimestamp { dst, event } => {
                let size = size_of::<level_zero_sys::ze_kernel_timestamp_result_t>();
                let timestamp_of = Some(Arc::clone(event));
                let range = (*dst, size);
                fill_op(
                    platform,
                    state,
                    (context, engine),
                    range,
                    vec![0; size],
                    timestamp_of,
                )?
            }
            Command::Launch(launch) => prepare_launch(platform, state, context, engine, launch)?,
            Command::Barrier => continue,
            Command::Signal(event) => Op::Signal(Arc::clone(event), 0),
            Command::Wait(events) => {
                Op::Wait(events.iter().map(|event| (event.clone(), 0)).collect())
            }
            Command::Reset(event) => Op::Reset(Arc::clone(event)),
        });
    }
    Ok(ops)
}

pub(crate) fn fill_op(
    platform: &Inner,
    state: &mut State,
    (context, engine): (usize, Engine),
    (dst, size): (usize, usize),
    pattern: Vec<u8>,
    timestamp_of: Option<Arc<Event>>,
) -> Result<Op, ze_result_t> {
    let mut touched = Vec::new();
    let (to, _) = check_range(
        platform,
        state,
        context,
        engine,
        (dst, size),
        true,
        &mut touched,
    )?;
    Ok(Op::Fill {
        dst,
        pattern,
        size,
        nanos: nanos(platform, &[&to], size),
        touched,
        timestamp_of,
    })
}
