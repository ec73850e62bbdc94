//! The shader copy: 16-byte units moved by a plain WGSL kernel with the generic kernel's
//! thread layout, the ceiling the benchmark compares every kernel against
//! ([`Work::shader_copy`]). Its pipeline is cached with the kernels'.

use super::Permuter;
use crate::PermuteError;
use crate::work::Work;

impl Permuter {
    /// Records a shader copy of the first `bytes` bytes (a multiple of 16) of `src` into
    /// `dst` from `dst_offset` on (see [`Work::shader_copy`]). Moves 16 bytes per access as
    /// the kernels do on this device (64-bit components where they were measured faster,
    /// see `gpu::access`), so that it stays the fastest plain shader copy it has.
    pub(crate) fn record_shader_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
        dst_offset: u64,
    ) -> Result<(), PermuteError> {
        let work = Work::shader_copy(bytes, dst_offset, self.caps())?;
        self.record_work(encoder, src, dst, &work)
    }
}
