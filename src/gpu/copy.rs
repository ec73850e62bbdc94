//! The shader copy: 16-byte units moved by a plain WGSL kernel with the generic kernel's
//! thread layout, the ceiling the benchmark compares every kernel against. Its pipeline is
//! cached with the kernels'.

use super::{Permuter, binding, captured, upload};
use crate::PermuteError;
use crate::plan::tuning::{GENERIC_ITEMS, GENERIC_WORKGROUP};
use crate::plan::{fold_grid, prefers_access64};
use crate::shaders::{self, CopyWord};

impl Permuter {
    /// Records a shader copy of the first `bytes` bytes (a multiple of 16) of `src` into
    /// `dst`. Moves 16 bytes per access as the kernels do on this device (64-bit components
    /// where they take them), so that it stays the fastest plain shader copy it has.
    pub(crate) fn record_shader_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<(), PermuteError> {
        let access64 = prefers_access64(self.caps());
        let pipeline = self
            .pipelines
            .get_with(&self.device, ("vec4_copy", access64), || {
                shaders::vec4_copy_source(access64)
            })?;
        let units = bytes / 16;
        let total = units.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
        let grid = fold_grid(total, self.caps().max_workgroups_per_dim)?;
        let mut words = [0u32; 4];
        words[CopyWord::TotalWorkgroups as usize] = total as u32;
        words[CopyWord::Units as usize] = units as u32;
        let bind_group = captured(&self.device, || {
            let params = upload(
                &self.device,
                &self.queue,
                "wgpu-permute vec4_copy params",
                bytemuck::cast_slice(&words),
                wgpu::BufferUsages::UNIFORM,
            );
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-permute vec4_copy"),
                layout: self.pipelines.bind_group_layout(),
                entries: &[
                    binding(0, src, (0, bytes)),
                    binding(1, dst, (0, bytes)),
                    binding(2, &params, (0, params.size())),
                ],
            })
        })?;
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        Ok(())
    }
}
