//! The entry points of a [`Relayout`]: recorded into the caller's encoder, or run as a host
//! round trip. Both plan every part first, so a refused part leaves nothing recorded.

use super::{Permuter, serial};
use crate::PermuteError;
use crate::plan::Plan;
use crate::relayout::Relayout;

impl Permuter {
    /// Records `op` from `src` into `dst` (at the operation's byte offsets) into the
    /// caller's encoder: every movement the crate does, rearrangements with padding and
    /// crops included, batches with the caller's own GPU work, and nothing runs until the
    /// caller submits. Every part is planned and the buffers checked against every plan
    /// before anything is recorded. Returns the plans, one per part.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        op: &Relayout,
    ) -> Result<Vec<Plan>, PermuteError> {
        let _serial = serial(&self.device);
        self.check_device()?;
        let plans = self.plan_parts(
            op.views(),
            op.elem_size(),
            op.fill(),
            (op.src_len(), op.dst_len()),
            op.offsets(),
            op.options(),
        )?;
        for plan in &plans {
            self.check_buffers(plan, src, dst)?;
        }
        for plan in &plans {
            self.record_plan(encoder, src, dst, plan)?;
        }
        Ok(plans)
    }

    /// Host round trip of `op`: `data` is the source region (`op.src_len()` elements of
    /// `op.elem_size()` bytes); returns the destination region (`op.dst_len()` elements,
    /// zero where no part writes). One upload, one submission, one read back.
    pub fn run<T: bytemuck::Pod>(&self, op: &Relayout, data: &[T]) -> Result<Vec<T>, PermuteError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let elem = op.elem_size();
        if op.src_len().checked_mul(elem) != Some(bytes.len()) {
            return Err(PermuteError::DataLength {
                need: op.src_len(),
                have: bytes.len() / elem,
            });
        }
        let out = self.materialize_parts(
            bytes,
            op.views(),
            elem,
            op.fill(),
            op.dst_len(),
            op.options(),
        )?;
        // Elements of another size are fine where they tile the output's bytes.
        let size = size_of::<T>();
        if size == 0 || !out.len().is_multiple_of(size) {
            return Err(PermuteError::ElemSize(size));
        }
        Ok(bytemuck::pod_collect_to_vec(&out))
    }
}
