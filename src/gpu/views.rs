//! Materialising views ([`View`]): a strided (sliced, flipped, broadcast, padded) view of a
//! buffer's elements written out contiguously, or into a strided window of the destination,
//! in one pass. A view that is a permute runs exactly as the permute.

use super::{Permuter, captured, read_buffer, serial, upload};
use crate::PermuteError;
use crate::plan::{self, Kernel, Options, Plan, Request, View, ViewRequest};

impl Permuter {
    /// Plans a view for this device (see [`plan::plan_view`]); a view that is a permute does
    /// the permute's first-use work (timing, tracing) as [`Permuter::prepare`] does.
    pub fn plan_view(&self, req: &ViewRequest) -> Result<Plan, PermuteError> {
        let plan = plan::plan_view(req, self.caps(), &self.learned())?;
        if plan.view.is_none() && plan.kernel != plan::Kernel::Empty {
            let permute = Request::new(&plan.shape, &plan.perm, plan.elem_size)
                .with_offsets(plan.src_offset, plan.dst_offset)
                .with_options(req.options);
            return self.plan_tuned(&permute);
        }
        Ok(plan)
    }

    /// Records the materialisation of `req.view` of `src`'s elements into `dst` (regions at
    /// the request's byte offsets) into the caller's encoder. Returns the plan it recorded.
    pub fn encode_view(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        req: &ViewRequest,
    ) -> Result<Plan, PermuteError> {
        let plan = self.plan_view(req)?;
        self.record_plan(encoder, src, dst, &plan)?;
        Ok(plan)
    }

    /// Materialises `view` of `src`'s elements (`elem_size` bytes each, from byte 0) into
    /// `dst` from byte 0, and submits. `fill` is one element's bytes, read where a padded
    /// view has no source (empty for views without bounds). The buffers' sizes bound the
    /// view: reading or writing outside them is refused with a typed error.
    pub fn materialize(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        view: &View,
        elem_size: usize,
        fill: &[u8],
    ) -> Result<Plan, PermuteError> {
        let _serial = serial(&self.device);
        let req = ViewRequest {
            view,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            src_len: (src.size() / elem_size.max(1) as u64) as usize,
            dst_len: (dst.size() / elem_size.max(1) as u64) as usize,
            fill,
            options: Options::default(),
        };
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let plan = self.encode_view(&mut encoder, src, dst, &req)?;
        captured(&self.device, || self.queue.submit([encoder.finish()]))?;
        Ok(plan)
    }

    /// Host round trip of a view of `data`: uploads, materialises and reads back the output
    /// (contiguous, or `dst_strides`' span of elements, zero where no position writes).
    pub fn materialize_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        view: &View,
        fill: T,
    ) -> Result<Vec<T>, PermuteError> {
        let fill = bytemuck::bytes_of(&fill);
        let fill = if view.bounds.is_empty() {
            &[][..]
        } else {
            fill
        };
        let out = self.materialize_bytes(
            bytemuck::cast_slice(data),
            view,
            std::mem::size_of::<T>(),
            fill,
            Options::default(),
        )?;
        Ok(bytemuck::pod_collect_to_vec(&out))
    }

    /// [`Permuter::materialize_slice`] on bytes holding elements of `elem_size` bytes, with
    /// choices forced by `options`.
    pub fn materialize_bytes(
        &self,
        data: &[u8],
        view: &View,
        elem_size: usize,
        fill: &[u8],
        options: Options,
    ) -> Result<Vec<u8>, PermuteError> {
        let parts = [(view.clone(), 0)];
        self.materialize_parts(data, &parts, elem_size, fill, view.dst_span()?, options)
    }

    /// Plans views of `src` that write disjoint parts of one output of `dst_len` elements,
    /// each from its first destination element (as [`Rearrangement::cropped_views`] gives
    /// them). Checks them together first ([`plan::view::check_parts`]: parts that share an
    /// element are refused) and plans all before anything is recorded, so a refusal
    /// records nothing.
    ///
    /// [`Rearrangement::cropped_views`]: crate::rearrange::Rearrangement::cropped_views
    pub(super) fn plan_parts(
        &self,
        parts: &[(View, usize)],
        elem_size: usize,
        fill: &[u8],
        (src_len, dst_len): (usize, usize),
        (src_offset, dst_base): (u64, u64),
        options: Options,
    ) -> Result<Vec<Plan>, PermuteError> {
        if !plan::ELEM_SIZES.contains(&elem_size) {
            return Err(PermuteError::ElemSize(elem_size));
        }
        plan::view::check_parts(parts, src_len, dst_len)?;
        parts
            .iter()
            .map(|(view, first)| {
                let part = first
                    .checked_mul(elem_size)
                    .ok_or(PermuteError::SizeOverflow)? as u64;
                if !part.is_multiple_of(4) {
                    return Err(PermuteError::InvalidView(format!(
                        "a part of the output starts at element {first}, inside a 32-bit word: \
                         8/16-bit parts must start on whole words"
                    )));
                }
                let dst_offset = dst_base
                    .checked_add(part)
                    .ok_or(PermuteError::SizeOverflow)?;
                self.plan_view(&ViewRequest {
                    view,
                    elem_size,
                    src_offset,
                    dst_offset,
                    src_len,
                    dst_len: dst_len.saturating_sub(*first),
                    fill,
                    options,
                })
            })
            .collect()
    }

    /// Host round trip of views of `data` that write disjoint parts of one output of
    /// `dst_len` elements, each from its first destination element (a concat, or a cropped
    /// rearrangement's boxes): one upload, one submission, one read back. Every part is
    /// planned before anything runs, so a refused part runs none.
    pub fn materialize_parts(
        &self,
        data: &[u8],
        parts: &[(View, usize)],
        elem_size: usize,
        fill: &[u8],
        dst_len: usize,
        options: Options,
    ) -> Result<Vec<u8>, PermuteError> {
        let _serial = serial(&self.device);
        self.check_device()?;
        let src_len = data.len() / elem_size.max(1);
        // The output is one buffer of this device (and one vector): refused before
        // anything is allocated when it cannot be.
        let size = dst_len
            .checked_mul(elem_size)
            .and_then(|b| (b as u64).checked_next_multiple_of(4))
            .ok_or(PermuteError::SizeOverflow)?;
        self.check_buffer_size("a buffer holding the output", size)?;
        let lens = (src_len, dst_len);
        let plans = self.plan_parts(parts, elem_size, fill, lens, (0, 0), options)?;
        let out_bytes = (dst_len * elem_size) as u64;
        if plans.iter().all(|p| p.kernel == Kernel::Empty) {
            return Ok(vec![0; out_bytes as usize]);
        }
        let (src, dst, readback) = captured(&self.device, || {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            // At least one 16-byte unit: a padded view that reads nothing still binds one.
            let mut small = [0u8; 16];
            let data = match data.len() {
                n if n < 16 => {
                    small[..n].copy_from_slice(data);
                    &small[..]
                }
                _ => data,
            };
            let src = upload(&self.device, &self.queue, "view input", data, usage);
            let dst = upload(
                &self.device,
                &self.queue,
                "view output",
                &vec![0; size as usize],
                usage | wgpu::BufferUsages::COPY_DST,
            );
            let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("view readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (src, dst, readback)
        })?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for plan in &plans {
            self.record_plan(&mut encoder, &src, &dst, plan)?;
        }
        encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
        captured(&self.device, || self.queue.submit([encoder.finish()]))?;
        read_buffer(&self.device, &readback, out_bytes).map_err(|e| self.or_lost(e))
    }
}
