//! einops `rearrange` on the permute engine. Without padding, rearranging a contiguous
//! tensor is one permute: the input viewed as its elementary axes (`split_shape`, a reshape
//! that moves nothing) permuted by `perm`, whose bytes are the output in `out_shape`. So
//! each call here is one pass of [`Permuter::permute`], planned like any other permute.
//! With padding it is one padded view ([`Rearrangement::view`]); cropped, a few views that
//! write disjoint parts of the output ([`Rearrangement::cropped_views`]): one pass still.

use super::{Permuter, captured, serial};
use crate::PermuteError;
use crate::plan::{self, Options, Plan, Request, View, element_count};
use crate::rearrange::{Rearrangement, rearrange};

impl Permuter {
    /// Rearranges `src` into `dst` as `einops.rearrange(x, pattern, **axes)` does, where
    /// `src` holds a contiguous tensor of `shape` with elements of `elem_size` bytes: one
    /// permute, recorded and submitted like [`Permuter::permute`] (an identity pattern
    /// still copies, and its plan says so). Returns the plan and the output's shape.
    ///
    /// Pattern syntax and errors are those of [`crate::rearrange`]. Every split dim must
    /// divide exactly here; [`Permuter::rearrange_padded`] pads one that does not.
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

    /// [`Permuter::rearrange`] where a split that does not divide rounds its inferred axis
    /// up and the tail reads `fill` (one element's bytes): `n (cb c) h w -> n cb h w c`
    /// with `c = 4` on 6 channels gives `cb = 2`, channels 6 and 7 filled (NCHW -> NCHW4c).
    /// One pass, recorded and submitted; a pattern that needs no padding runs as the
    /// permute. Returns the plan and the output's shape.
    #[allow(clippy::too_many_arguments)]
    pub fn rearrange_padded(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
        fill: &[u8],
    ) -> Result<(Plan, Vec<usize>), PermuteError> {
        let r = rearrange(pattern, shape, axes, true)?;
        if !r.is_padded() {
            let req = Request::new(&r.split_shape, &r.perm, elem_size);
            return Ok((self.permute(src, dst, &req)?, r.out_shape));
        }
        let view = r.view(&contiguous(shape))?;
        let lens = (element_count(shape)?, view.len());
        let mut plans = self.submit_parts(src, dst, &[(view, 0)], elem_size, fill, lens)?;
        Ok((plans.remove(0), r.out_shape))
    }

    /// [`Permuter::rearrange`] with the output cropped to `crop` (the first `crop[j]`
    /// indices of output dim `j`): the way back from a padded layout, e.g.
    /// `n cb h w c -> n (cb c) h w` cropped to `[n, 6, h, w]` (NCHW4c -> NCHW). One pass:
    /// each output element is read and written once, by one of the views of
    /// [`Rearrangement::cropped_views`], all recorded and submitted together. Returns their
    /// plans.
    #[allow(clippy::too_many_arguments)]
    pub fn rearrange_cropped(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
        crop: &[usize],
    ) -> Result<Vec<Plan>, PermuteError> {
        let r = resolve(pattern, shape, axes)?;
        let parts = r.cropped_views(&contiguous(shape), crop)?;
        let lens = (element_count(shape)?, element_count(crop)?);
        self.submit_parts(src, dst, &parts, elem_size, &[], lens)
    }

    /// Plans views of `src` writing parts of `dst` (see [`Permuter::plan_parts`]), then
    /// records them in one encoder and submits it.
    fn submit_parts(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        parts: &[(View, usize)],
        elem_size: usize,
        fill: &[u8],
        lens: (usize, usize),
    ) -> Result<Vec<Plan>, PermuteError> {
        let _serial = serial(&self.device);
        let plans = self.plan_parts(parts, elem_size, fill, lens, (0, 0), Options::default())?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for plan in &plans {
            self.record_plan(&mut encoder, src, dst, plan)?;
        }
        captured(&self.device, || self.queue.submit([encoder.finish()]))?;
        Ok(plans)
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

    /// Host convenience: [`Permuter::rearrange_padded`] of `data` (contiguous, of `shape`),
    /// padding with `fill`, into a new vector, returned with its shape.
    pub fn rearrange_padded_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
        fill: T,
    ) -> Result<(Vec<T>, Vec<usize>), PermuteError> {
        let fill = bytemuck::bytes_of(&fill);
        let (out, shape) = self.rearrange_padded_bytes(
            bytemuck::cast_slice(data),
            shape,
            pattern,
            axes,
            size_of::<T>(),
            fill,
        )?;
        Ok((bytemuck::pod_collect_to_vec(&out), shape))
    }

    /// [`Permuter::rearrange_padded_slice`] on raw bytes holding elements of `elem_size`
    /// bytes; `fill` is one element's bytes.
    pub fn rearrange_padded_bytes(
        &self,
        data: &[u8],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
        elem_size: usize,
        fill: &[u8],
    ) -> Result<(Vec<u8>, Vec<usize>), PermuteError> {
        let r = rearrange(pattern, shape, axes, true)?;
        if !r.is_padded() {
            return self.rearrange_bytes(data, shape, pattern, axes, elem_size);
        }
        check_length(data.len(), shape, elem_size)?;
        let view = r.view(&contiguous(shape))?;
        let out = self.materialize_bytes(data, &view, elem_size, fill, Options::default())?;
        Ok((out, r.out_shape))
    }

    /// Host convenience: [`Permuter::rearrange_cropped`] of `data` (contiguous, of
    /// `shape`) into a new vector of shape `crop`.
    pub fn rearrange_cropped_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
        crop: &[usize],
    ) -> Result<Vec<T>, PermuteError> {
        let out = self.rearrange_cropped_bytes(
            bytemuck::cast_slice(data),
            shape,
            pattern,
            axes,
            size_of::<T>(),
            crop,
        )?;
        Ok(bytemuck::pod_collect_to_vec(&out))
    }

    /// [`Permuter::rearrange_cropped_slice`] on raw bytes holding elements of `elem_size`
    /// bytes.
    pub fn rearrange_cropped_bytes(
        &self,
        data: &[u8],
        shape: &[usize],
        pattern: &str,
        axes: &[(&str, usize)],
        elem_size: usize,
        crop: &[usize],
    ) -> Result<Vec<u8>, PermuteError> {
        let r = resolve(pattern, shape, axes)?;
        check_length(data.len(), shape, elem_size)?;
        let parts = r.cropped_views(&contiguous(shape), crop)?;
        let len = element_count(crop)?;
        self.materialize_parts(data, &parts, elem_size, &[], len, Options::default())
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

/// Row-major element strides of a contiguous tensor of `shape`, as a view takes them.
fn contiguous(shape: &[usize]) -> Vec<isize> {
    plan::view::row_major(shape)
        .into_iter()
        .map(|s| s as isize)
        .collect()
}

/// Refuses data whose length is not `shape`'s elements of `elem_size` bytes.
fn check_length(bytes: usize, shape: &[usize], elem_size: usize) -> Result<(), PermuteError> {
    if !plan::ELEM_SIZES.contains(&elem_size) {
        return Err(PermuteError::ElemSize(elem_size));
    }
    let need = element_count(shape)?;
    if need
        .checked_mul(elem_size)
        .ok_or(PermuteError::SizeOverflow)?
        != bytes
    {
        return Err(PermuteError::DataLength {
            need,
            have: bytes / elem_size,
        });
    }
    Ok(())
}
