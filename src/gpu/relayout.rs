//! The entry points of a [`Relayout`]: prepared ahead of time, recorded into the caller's
//! encoder, or run as a host round trip. All plan every part first, so a refused part
//! leaves nothing recorded.

use std::borrow::Cow;

use super::{Permuter, captured, serial};
use crate::PermuteError;
use crate::plan::{self, DeviceCaps, Kernel, Plan, Request};
use crate::relayout::Relayout;
use crate::work::Work;

/// A [`Relayout`] planned for one permuter's device, its first-use work done (autotuning,
/// the memory model's traces) and its pipelines compiled: recording it plans nothing
/// again. Made by [`Permuter::prepare`]; read its [`Prepared::plans`] to see what runs.
#[derive(Clone, Debug)]
pub struct Prepared {
    op: Relayout,
    plans: Vec<Plan>,
    /// What the plans were made for: another device plans again.
    caps: DeviceCaps,
}

impl Prepared {
    /// The operation prepared.
    pub fn relayout(&self) -> &Relayout {
        &self.op
    }

    /// One plan per part of the operation, in order (one for all but crops, concats and
    /// permutes that run in parts, `plan::with_edges`).
    pub fn plans(&self) -> &[Plan] {
        &self.plans
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Relayout {}
    impl Sealed for super::Prepared {}
}

/// What [`Permuter::record`] and [`Permuter::run`] take: a [`Relayout`] (planned on the
/// spot) or a [`Prepared`] one (planned once, ahead of time). Sealed.
pub trait Operation: sealed::Sealed {
    /// The movement itself.
    fn relayout(&self) -> &Relayout;

    /// The plans `permuter` records for it.
    #[doc(hidden)]
    fn plans_on<'a>(&'a self, permuter: &Permuter) -> Result<Cow<'a, [Plan]>, PermuteError>;
}

impl Operation for Relayout {
    fn relayout(&self) -> &Relayout {
        self
    }

    fn plans_on<'a>(&'a self, permuter: &Permuter) -> Result<Cow<'a, [Plan]>, PermuteError> {
        permuter.plan_op(self).map(Cow::Owned)
    }
}

impl Operation for Prepared {
    fn relayout(&self) -> &Relayout {
        &self.op
    }

    fn plans_on<'a>(&'a self, permuter: &Permuter) -> Result<Cow<'a, [Plan]>, PermuteError> {
        if &self.caps == permuter.caps() {
            Ok(Cow::Borrowed(&self.plans))
        } else {
            permuter.plan_op(&self.op).map(Cow::Owned)
        }
    }
}

impl Permuter {
    /// Plans `op` for this device and does every first-use job ahead of time: timing the
    /// candidate kernels with autotuning on, tracing them for the memory model on GPUs,
    /// compiling the pipelines. Recording the result plans nothing again.
    pub fn prepare(&self, op: &Relayout) -> Result<Prepared, PermuteError> {
        let _serial = serial(&self.device);
        let plans = self.plan_op(op)?;
        // Row copies' plans compile their kernel too, for buffers that do not allow copies.
        for shader in plans.iter().filter_map(|plan| Work::of_kernel(plan).shader) {
            self.pipelines
                .get(&self.device, &shader)
                .map_err(|e| self.or_lost(e))?;
        }
        Ok(Prepared {
            op: op.clone(),
            plans,
            caps: self.caps().clone(),
        })
    }

    /// Records `op` from `src` into `dst` (at the operation's byte offsets) into the
    /// caller's encoder: every movement the crate does, rearrangements with padding and
    /// crops included, batches with the caller's own GPU work, and nothing runs until the
    /// caller submits. The buffers are checked against every plan before anything is
    /// recorded.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        op: &impl Operation,
    ) -> Result<(), PermuteError> {
        let _serial = serial(&self.device);
        self.check_device()?;
        let plans = op.plans_on(self)?;
        self.check_buffers(&plans, src, dst)?;
        for plan in plans.iter() {
            self.record_plan(encoder, src, dst, plan)?;
        }
        Ok(())
    }

    /// Host round trip of `op`: `data` is the source region (`src_len()` elements of
    /// `elem_size()` bytes, any `Pod` type whose size divides its bytes); returns the
    /// destination region (`dst_len()` elements of `dst_elem_size()` bytes, zero where no
    /// part writes) as `D`s, any `Pod` type whose size divides its bytes: the source's type
    /// for a move, the destination type for a conversion (`Vec<half::f16>` from `&[f32]`).
    /// One upload, one submission, one read back.
    pub fn run<S: bytemuck::Pod, D: bytemuck::Pod>(
        &self,
        op: &impl Operation,
        data: &[S],
    ) -> Result<Vec<D>, PermuteError> {
        let relayout = op.relayout();
        let (bytes, elem): (&[u8], usize) = (bytemuck::cast_slice(data), relayout.elem_size());
        if relayout.src_len().checked_mul(elem) != Some(bytes.len()) {
            return Err(PermuteError::DataLength {
                need: relayout.src_len(),
                have: bytes.len() / elem,
            });
        }
        let size = size_of::<D>();
        let out_bytes = relayout.dst_len() * relayout.dst_elem_size();
        if size == 0 || !out_bytes.is_multiple_of(size) {
            return Err(PermuteError::ElemSize(size));
        }
        let _serial = serial(&self.device);
        self.check_device()?;
        let plans = op.plans_on(self)?;
        let mut out = Vec::new();
        self.round_trip(&plans, relayout, bytes, |got| {
            out = bytemuck::pod_collect_to_vec(got)
        })
        .map_err(|e| self.or_lost(e))?;
        Ok(out)
    }

    /// The plans of every part of `op` ([`plan::plan_op`], the one way in), first-use work
    /// done: while a plan has kernels to time (autotuning) or to trace (the memory model),
    /// that is done for the permute it is, recorded as a fact about the device, and `op`
    /// is planned again.
    pub(super) fn plan_op(&self, op: &Relayout) -> Result<Vec<Plan>, PermuteError> {
        loop {
            let plans =
                plan::plan_op(op, self.caps(), &self.learned()).map_err(|e| self.or_lost(e))?;
            let Some(pending) = plans.iter().find(|p| p.pending_first_use()) else {
                return Ok(plans);
            };
            let permute = Request {
                conversion: pending.conversion.as_ref(),
                ..Request::new(&pending.shape, &pending.perm, pending.elem_size)
                    .with_offsets(pending.src_offset, pending.dst_offset)
                    .with_options(op.options())
            };
            self.first_use(&permute, pending)
                .map_err(|e| self.or_lost(e))?;
        }
    }

    /// The one host round trip: `data` uploaded at the source offset of `op`, the plans
    /// recorded into a zeroed destination, and its region handed to `take` while mapped
    /// (so callers copy it once, straight where they want it).
    fn round_trip(
        &self,
        plans: &[Plan],
        op: &Relayout,
        data: &[u8],
        take: impl FnOnce(&[u8]),
    ) -> Result<(), PermuteError> {
        let (src_offset, dst_offset) = op.offsets();
        let out_bytes = (op.dst_len() * op.dst_elem_size()) as u64;
        if plans.iter().all(|p| p.kernel == Kernel::Empty) {
            take(&vec![0; out_bytes as usize]);
            return Ok(());
        }
        let end = |offset: u64, bytes: u64| {
            offset
                .checked_add(bytes)
                .and_then(|end| end.checked_next_multiple_of(4))
                .map(|end| end.max(16))
                .ok_or(PermuteError::SizeOverflow)
        };
        let sizes = [
            end(src_offset, data.len() as u64)?,
            end(dst_offset, out_bytes)?,
        ];
        for (what, size) in [
            ("a buffer holding the input", sizes[0]),
            ("a buffer holding the output", sizes[1]),
        ] {
            self.check_buffer_size(what, size)?;
        }
        let (src, dst) = captured(&self.device, || {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            // At least one 16-byte unit: a padded view that reads nothing still binds one.
            let src = self.buffer(
                "wgpu-permute input",
                sizes[0],
                usage | wgpu::BufferUsages::COPY_DST,
            );
            self.queue
                .write_buffer(&src, src_offset, &padded_to_words(data));
            let dst = self.buffer(
                "wgpu-permute output",
                sizes[1],
                usage | wgpu::BufferUsages::COPY_DST,
            );
            (src, dst)
        })?;
        self.check_buffers(plans, &src, &dst)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for plan in plans {
            self.record_plan(&mut encoder, &src, &dst, plan)?;
        }
        drop(src);
        let mut take = Some(take);
        self.read_back(encoder, &[(&dst, dst_offset, out_bytes)], |_, got| {
            if let Some(take) = take.take() {
                take(got);
            }
        })
    }

    /// A buffer of `size` bytes (wgpu zeroes it), not mapped.
    pub(super) fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// Finishes a host round trip: copies each `(buffer, offset, bytes)` into a readback
    /// buffer at the end of `encoder`, submits it, and hands each one's bytes to `take` (by
    /// its index) while mapped.
    pub(super) fn read_back(
        &self,
        mut encoder: wgpu::CommandEncoder,
        outputs: &[(&wgpu::Buffer, u64, u64)],
        mut take: impl FnMut(usize, &[u8]),
    ) -> Result<(), PermuteError> {
        let readbacks = captured(&self.device, || {
            let readbacks: Vec<wgpu::Buffer> = outputs
                .iter()
                .map(|&(buffer, offset, bytes)| {
                    let size = bytes
                        .next_multiple_of(4)
                        .min(buffer.size().saturating_sub(offset));
                    let readback = self.buffer(
                        "wgpu-permute readback",
                        size.max(4),
                        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    );
                    encoder.copy_buffer_to_buffer(buffer, offset, &readback, 0, size);
                    readback
                })
                .collect();
            self.queue.submit([encoder.finish()]);
            readbacks
        })?;
        for (i, (readback, &(_, _, bytes))) in readbacks.iter().zip(outputs).enumerate() {
            super::read_mapped(&self.device, readback, bytes, |got| take(i, got))?;
        }
        Ok(())
    }
}

/// `data` padded with zeros to whole 32-bit words (what `write_buffer` takes).
fn padded_to_words(data: &[u8]) -> Cow<'_, [u8]> {
    if data.len().is_multiple_of(4) {
        Cow::Borrowed(data)
    } else {
        let mut words = data.to_vec();
        words.resize(data.len().next_multiple_of(4), 0);
        Cow::Owned(words)
    }
}
