//! The only wgpu code of the library. It executes plans and makes no decision a plan could
//! make: what it measures (autotuning) and compiles (shape-specialised pipelines) goes back
//! to the planner as facts ([`crate::plan::Learned`]).
//!
//! - `device`: adapter and device set-up, and what the planner needs to know of a device.
//! - `pipelines`: the layouts and the pipeline cache.
//! - `autotune`: timing the candidate kernels of a shape class.
//! - `copy`: the shader copy the benchmark compares kernels against.
//! - `diagnostics`: plans without first-use work, the memory model's traces, what was
//!   learnt; for tools and tests.
//! - `permuter`: [`Permuter`]: buffer checks, recording a plan's dispatches.
//! - `shared`: one permuter per device for the one-call entry points.
//! - `timing`: GPU timestamps and statistics, for autotuning and the benchmark.
//! - `relayout`: the entry points of a [`crate::Relayout`] (prepare, record, run) and the
//!   one host round trip.
//!
//! This file holds the small helpers they share: error capture, uploads and readback.

mod access;
mod autotune;
#[cfg(feature = "bench")]
mod copy;
mod device;
pub mod diagnostics;
mod permuter;
mod pipelines;
mod relayout;
mod shared;
#[doc(hidden)]
pub mod timing;

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

pub use device::{WANTED_FEATURES, caps_of, default_device, device_on};
pub use permuter::Permuter;
pub use relayout::{Operation, Prepared};
pub use shared::gpu_permute;

use crate::PermuteError;

/// This crate's device work on GL backends, one call at a time (see [`serialized`]).
static GL_WORK: Mutex<()> = Mutex::new(());

thread_local! {
    /// Whether this thread holds [`GL_WORK`] (the lock is re-entrant on a thread).
    static HOLDS_GL_WORK: Cell<bool> = const { Cell::new(false) };
}

/// Held while this crate works on a GL device; nothing on other backends.
pub(crate) struct Serial(Option<MutexGuard<'static, ()>>);

impl Drop for Serial {
    fn drop(&mut self) {
        if self.0.is_some() {
            HOLDS_GL_WORK.set(false);
        }
    }
}

/// Takes the GL work lock for `device` if it is on a GL backend and this thread does not
/// hold it already. Every path of this crate to a device takes it before any lock of its
/// own (pipeline cache, timer), so the order is always the same.
pub(crate) fn serial(device: &wgpu::Device) -> Serial {
    if HOLDS_GL_WORK.get() || device.adapter_info().backend != wgpu::Backend::Gl {
        return Serial(None);
    }
    let guard = GL_WORK.lock().unwrap_or_else(|p| p.into_inner());
    HOLDS_GL_WORK.set(true);
    Serial(Some(guard))
}

/// Runs `f` under the lock this crate holds around its own work on GL devices, and nothing
/// more on other backends. wgpu's GL backend panics when a thread waits for its context
/// lock for more than a few seconds (6 s on EGL), and a cold shader compile on a software
/// GL holds it longer; so on GL this crate's calls from many threads wait for each other
/// instead. An app that also calls wgpu on the same GL device from other threads while
/// this crate works can wrap those calls in this. Re-entrant.
pub fn serialized<R>(device: &wgpu::Device, f: impl FnOnce() -> R) -> R {
    let _serial = serial(device);
    f()
}

/// Runs `f` with wgpu's errors captured, so that a validation or out-of-memory error in this
/// crate's own calls comes back as a [`PermuteError`] instead of panicking the caller.
pub fn captured<R>(device: &wgpu::Device, f: impl FnOnce() -> R) -> Result<R, PermuteError> {
    let _serial = serial(device);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    let errors = [
        pollster::block_on(validation.pop()),
        pollster::block_on(internal.pop()),
        pollster::block_on(oom.pop()),
    ];
    match errors.into_iter().flatten().next() {
        None => Ok(result),
        Some(wgpu::Error::OutOfMemory { .. }) => Err(PermuteError::OutOfMemory(
            "a buffer or pipeline could not be allocated".into(),
        )),
        Some(e) => Err(PermuteError::Validation(e.to_string())),
    }
}

/// A buffer holding `contents`, padded with zeros to whole words. Made with `write_buffer`
/// rather than wgpu's `create_buffer_init`, which panics when the device is lost.
pub fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let size = (contents.len() as u64).next_multiple_of(4).max(4);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let whole = contents.len() - contents.len() % 4;
    if whole > 0 {
        queue.write_buffer(&buffer, 0, &contents[..whole]);
    }
    if whole < contents.len() {
        let mut tail = [0u8; 4];
        tail[..contents.len() - whole].copy_from_slice(&contents[whole..]);
        queue.write_buffer(&buffer, whole as u64, &tail);
    }
    buffer
}

/// How long this crate waits for the GPU before giving up with [`PermuteError::Timeout`].
/// Generous: lavapipe takes seconds for the largest tensors.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Waits for the device's submitted work, at most [`WAIT_TIMEOUT`]. wgpu reports a lost
/// device during a wait by panicking (its fatal handler); that panic is caught here and
/// returned as [`PermuteError::DeviceLost`].
pub(crate) fn wait_for(device: &wgpu::Device) -> Result<(), PermuteError> {
    let _serial = serial(device);
    let poll = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(WAIT_TIMEOUT),
        })
    }));
    match poll {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(wgpu::PollError::Timeout)) => Err(PermuteError::Timeout(WAIT_TIMEOUT)),
        Ok(Err(e)) => Err(PermuteError::Readback(e.to_string())),
        Err(panic) => Err(PermuteError::DeviceLost(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the device failed while waiting".into()),
        )),
    }
}

/// Maps the first `len` bytes of `buffer` and copies them into a new vector, after waiting
/// for the GPU (at most [`WAIT_TIMEOUT`]). The buffer needs `MAP_READ` usage, must hold
/// `len` bytes and must not be mapped already; otherwise a typed error, never a panic.
pub fn read_buffer(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    len: u64,
) -> Result<Vec<u8>, PermuteError> {
    let mut out = Vec::new();
    read_mapped(device, buffer, len, |bytes| out.extend_from_slice(bytes))?;
    Ok(out)
}

/// Maps the first `len` bytes of `buffer`, hands them to `take` while mapped, then unmaps:
/// the caller copies them where it wants them, with no intermediate vector.
pub(crate) fn read_mapped(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    len: u64,
    take: impl FnOnce(&[u8]),
) -> Result<(), PermuteError> {
    let _serial = serial(device);
    if !buffer.usage().contains(wgpu::BufferUsages::MAP_READ) {
        return Err(PermuteError::MissingUsage {
            which: "readback",
            missing: "MAP_READ",
        });
    }
    if len > buffer.size() {
        return Err(PermuteError::BufferTooSmall {
            which: "readback",
            need: len,
            have: buffer.size(),
        });
    }
    if len == 0 {
        take(&[]);
        return Ok(());
    }
    let end = len.next_multiple_of(4).min(buffer.size());
    let slice = buffer.slice(..end);
    // The callback runs during a poll: ours below, or another thread's on the same device,
    // which may fire it a little after our wait returns.
    let (sender, receiver) = std::sync::mpsc::channel();
    captured(device, || {
        slice.map_async(wgpu::MapMode::Read, move |result| {
            let _ = sender.send(result);
        })
    })?;
    wait_for(device)?;
    receiver
        .recv_timeout(WAIT_TIMEOUT)
        .map_err(|_| PermuteError::Readback("the buffer was not mapped in time".into()))?
        .map_err(|e| PermuteError::Readback(e.to_string()))?;
    {
        let view = slice
            .get_mapped_range()
            .map_err(|e| PermuteError::Readback(e.to_string()))?;
        take(&view[..len as usize]);
    }
    buffer.unmap();
    Ok(())
}

/// A bind-group entry for the `(offset, size)` window of `buffer`.
fn binding(binding: u32, buffer: &wgpu::Buffer, window: (u64, u64)) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: window.0,
            size: wgpu::BufferSize::new(window.1),
        }),
    }
}
