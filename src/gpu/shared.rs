//! One [`Permuter`] per device for the one-call entry point ([`super::gpu_permute`]), so
//! that a program calling it again and again compiles each pipeline once and plans each
//! operation once, as a program holding a permuter and its prepared operations does.

use std::sync::{Arc, Mutex};

use super::{Permuter, Prepared, captured, serial};
use crate::PermuteError;
use crate::plan::SpecializeReason;
use crate::relayout::Relayout;

/// Devices whose shared permuter is kept at once; the least recently used goes first. A
/// program has one device, or a few; each kept permuter holds its device alive.
const MAX_SHARED: usize = 4;

/// Prepared operations each shared permuter keeps, the least recently used going first.
const MAX_PREPARED: usize = 16;

/// A kept permuter and the operations it prepared for [`super::gpu_permute`].
struct Shared {
    permuter: Arc<Permuter>,
    prepared: Mutex<Vec<Prepared>>,
}

/// The kept permuters, the most recently used last.
static SHARED: Mutex<Vec<Arc<Shared>>> = Mutex::new(Vec::new());

impl Permuter {
    /// The permuter [`super::gpu_permute`] uses for `device`: made on its first use (as
    /// [`Permuter::new`] makes one) and kept, with its pipeline cache and what it learnt,
    /// for the next calls on the same device. It holds a clone of `device` and `queue`, so
    /// they stay alive while it is kept: until [`Permuter::release_shared`] of the device,
    /// until four other devices have been used through this since it was last used
    /// (`MAX_SHARED`), or until the process ends. With it go the last 16 operations
    /// `gpu_permute` prepared on it.
    pub fn shared(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Arc<Permuter>, PermuteError> {
        Ok(shared(device, queue)?.permuter.clone())
    }

    /// Drops the shared permuter of `device`, if one is kept (its pipelines, and its clones
    /// of the device and queue, go once no caller holds it either). Returns whether one was
    /// kept.
    pub fn release_shared(device: &wgpu::Device) -> bool {
        let mut kept = SHARED.lock().unwrap_or_else(|p| p.into_inner());
        let before = kept.len();
        kept.retain(|s| !same_device(s.permuter.device(), device));
        kept.len() < before
    }
}

/// The kept entry of `device`, made if there is none.
fn shared(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Arc<Shared>, PermuteError> {
    let mut kept = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = kept
        .iter()
        .position(|s| same_device(s.permuter.device(), device))
    {
        let entry = kept.remove(i);
        kept.push(entry.clone());
        return Ok(entry);
    }
    let entry = Arc::new(Shared {
        permuter: Arc::new(Permuter::new(device, queue)?),
        prepared: Mutex::new(Vec::new()),
    });
    if kept.len() >= MAX_SHARED {
        kept.remove(0);
    }
    kept.push(entry.clone());
    Ok(entry)
}

/// `op` prepared on `device`'s shared permuter: as kept from an earlier call, or prepared
/// now and kept once its plans are settled (a plan whose shape is still earning its own
/// pipeline, `SpecializeReason::Unpaid`, is planned again next time, as a held permuter
/// would plan it).
pub(super) fn prepared(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    op: &Relayout,
) -> Result<(Arc<Permuter>, Prepared), PermuteError> {
    let entry = shared(device, queue)?;
    let mut kept = entry.prepared.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = kept.iter().position(|p| p.relayout() == op) {
        let found = kept.remove(i);
        kept.push(found.clone());
        return Ok((entry.permuter.clone(), found));
    }
    let made = entry.permuter.prepare(op)?;
    let settled = made
        .plans()
        .iter()
        .all(|p| p.reasons.specialize != Some(SpecializeReason::Unpaid));
    if settled {
        if kept.len() >= MAX_PREPARED {
            kept.remove(0);
        }
        kept.push(made.clone());
    }
    Ok((entry.permuter.clone(), made))
}

/// One-call permute of `src` into `dst` (both contiguous row-major; output dim `i` is input
/// dim `perm[i]`). Submits on `queue` and returns what was submitted without waiting: its
/// [`Prepared::plans`] (several for a permute that runs in parts, `plan::with_edges`).
/// Plans and records on the device's shared permuter ([`Permuter::shared`]), which keeps
/// its pipelines and the operations it prepared, so a repeated call compiles and plans
/// nothing again; record into your own encoder with [`Permuter::record`] to batch the work
/// with your own.
pub fn gpu_permute(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
) -> Result<Prepared, PermuteError> {
    let op = Relayout::permute(shape, perm, elem_size)?;
    let _serial = serial(device);
    let (permuter, op) = prepared(device, queue, &op)?;
    let mut encoder = device.create_command_encoder(&Default::default());
    permuter.record(&mut encoder, src, dst, &op)?;
    captured(device, || queue.submit([encoder.finish()])).map_err(|e| permuter.or_lost(e))?;
    Ok(op)
}

/// Whether `a` and `b` are one device. wgpu compares devices by id, and the ids of two
/// `wgpu::Instance`s' devices coincide; so where the ids agree, an error made on `a` shows
/// where it goes: into a scope pushed on `b` after one on `a` if they share their error
/// scopes (one device), else into `a`'s own. Both scopes are pushed before the error is
/// made, so it never reaches an uncaptured-error handler, and nothing is printed.
fn same_device(a: &wgpu::Device, b: &wgpu::Device) -> bool {
    if a != b {
        return false;
    }
    let _serial = (serial(a), serial(b));
    let on_a = a.push_error_scope(wgpu::ErrorFilter::Validation);
    let on_b = b.push_error_scope(wgpu::ErrorFilter::Validation);
    // A buffer without usages is a validation error on the device that makes it.
    drop(a.create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgpu-permute device probe"),
        size: 4,
        usage: wgpu::BufferUsages::empty(),
        mapped_at_creation: false,
    }));
    let caught_on_b = pollster::block_on(on_b.pop()).is_some();
    drop(pollster::block_on(on_a.pop()));
    caught_on_b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each a device of its own instance: their ids coincide, they are not one device.
    #[test]
    fn devices_of_two_instances_are_told_apart() {
        if std::env::var("WGPU_PERMUTE_SKIP_GPU").is_ok_and(|v| v == "1") {
            eprintln!("skipped: WGPU_PERMUTE_SKIP_GPU=1 is set, GPU test not run");
            return;
        }
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
        let device = || super::super::device_on(backends).expect("an adapter").1;
        let (a, b) = (device(), device());
        assert!(a == b, "the first devices of two instances share an id");
        assert!(!same_device(&a, &b) && !same_device(&b, &a));
        assert!(same_device(&a, &a.clone()));
    }
}
