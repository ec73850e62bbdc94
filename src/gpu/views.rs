//! Materialising views ([`View`]): a strided (sliced, flipped, broadcast, padded) view of a
//! buffer's elements written out contiguously, or into a strided window of the destination,
//! in one pass. A view that is a permute runs exactly as the permute.

use super::{Permuter, captured, read_buffer, upload};
use crate::PermuteError;
use crate::plan::{self, Options, Plan, Request, View, ViewRequest};

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
        self.record(encoder, src, dst, &plan)?;
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
        self.check_device()?;
        let dst_len = output_len(view);
        let req = ViewRequest {
            view,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            src_len: data.len() / elem_size.max(1),
            dst_len,
            fill,
            options,
        };
        let plan = self.plan_view(&req)?;
        let out_bytes = (dst_len * elem_size) as u64;
        if view.is_empty() {
            return Ok(vec![0; out_bytes as usize]);
        }
        let size = out_bytes.next_multiple_of(4);
        let (src, dst, readback) = captured(&self.device, || {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
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
        self.record(&mut encoder, &src, &dst, &plan)?;
        encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
        captured(&self.device, || self.queue.submit([encoder.finish()]))?;
        read_buffer(&self.device, &readback, out_bytes).map_err(|e| self.or_lost(e))
    }
}

/// Elements of a view's output: its length when contiguous, else the span of its
/// destination strides.
pub fn output_len(view: &View) -> usize {
    match &view.dst_strides {
        _ if view.is_empty() => 0,
        None => view.len(),
        Some(d) => {
            1 + view
                .shape
                .iter()
                .zip(d)
                .map(|(&e, &s)| (e - 1) * s)
                .sum::<usize>()
        }
    }
}
