//! einops `rearrange` on the permute engine. Without padding, rearranging a contiguous
//! tensor is one permute: the input viewed as its elementary axes (`split_shape`, a reshape
//! that moves nothing) permuted by `perm`, whose bytes are the output in `out_shape`. So
//! each call here is one pass of [`Permuter::permute`], planned like any other permute.

use super::Permuter;
use crate::PermuteError;
use crate::plan::{self, Plan, Request};
use crate::rearrange::{Rearrangement, rearrange};

impl Permuter {
    /// Rearranges `src` into `dst` as `einops.rearrange(x, pattern, **axes)` does, where
    /// `src` holds a contiguous tensor of `shape` with elements of `elem_size` bytes: one
    /// permute, recorded and submitted like [`Permuter::permute`] (an identity pattern
    /// still copies, and its plan says so). Returns the plan and the output's shape.
    ///
    /// Pattern syntax and errors are those of [`crate::rearrange`]. Padding is not
    /// supported yet, so every split dim must divide exactly.
    pub fn rearrange(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
    ) -> Result<(Plan, Vec<usize>), PermuteError> {
        let r = resolve(pattern, shape, axes)?;
        let plan = self.permute(src, dst, &Request::new(&r.split_shape, &r.perm, elem_size))?;
        Ok((plan, r.out_shape))
    }

    /// Host convenience: [`Permuter::rearrange`] of `data` (contiguous, of `shape`) into a
    /// new vector, returned with its shape. A pattern that moves nothing returns the data
    /// as it is, with no GPU work.
    pub fn rearrange_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
    ) -> Result<(Vec<T>, Vec<usize>), PermuteError> {
        let r = resolve(pattern, shape, axes)?;
        let out = if r.is_identity() {
            self.check_unmoved(&r, size_of_val(data), size_of::<T>())?;
            data.to_vec()
        } else {
            self.permute_slice(data, &r.split_shape, &r.perm)?
        };
        Ok((out, r.out_shape))
    }

    /// [`Permuter::rearrange_slice`] on raw bytes holding elements of `elem_size` bytes.
    pub fn rearrange_bytes(
        &self,
        data: &[u8],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
        elem_size: usize,
    ) -> Result<(Vec<u8>, Vec<usize>), PermuteError> {
        let r = resolve(pattern, shape, axes)?;
        let out = if r.is_identity() {
            self.check_unmoved(&r, data.len(), elem_size)?;
            data.to_vec()
        } else {
            self.permute_bytes(data, &r.split_shape, &r.perm, elem_size)?
        };
        Ok((out, r.out_shape))
    }

    /// Refuses, without touching the GPU, what the permute that an identity rearrangement
    /// skips would refuse (element size, rank, data length), so that skipping it changes
    /// nothing but the time taken.
    fn check_unmoved(
        &self,
        r: &Rearrangement,
        bytes: usize,
        elem_size: usize,
    ) -> Result<(), PermuteError> {
        let plan = self.plan(&Request::new(&r.split_shape, &r.perm, elem_size))?;
        if bytes as u64 != plan.bytes {
            return Err(PermuteError::DataLength {
                need: plan::element_count(&r.split_shape)?,
                have: bytes / elem_size,
            });
        }
        Ok(())
    }
}

/// The pattern resolved against `shape`, without padding (which needs a fill this API does
/// not have yet).
fn resolve(
    pattern: &str,
    shape: &[usize],
    axes: &[(&str, usize)],
) -> Result<Rearrangement, PermuteError> {
    Ok(rearrange(pattern, shape, axes, false)?)
}
