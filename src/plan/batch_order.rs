//! The order in which a box of the tiled or micro kernel decodes its batch dims.

use super::tuning::{LANE_GROUP, PAGE_BYTES};
use super::{Kernel, Plan};

impl Plan {
    /// Batch dims in the order a tiled or micro box decodes them, innermost last: input
    /// order ([`Plan::batch_dims`]), but with [`Plan::row_continuation`] innermost. Any
    /// order covers every block once; the shader only reads each dim's extent and strides
    /// from the parameter words, in this order.
    pub fn box_batch_dims(&self) -> Vec<usize> {
        let mut batch = self.batch_dims();
        if let Some(k) = self.row_continuation() {
            batch.retain(|&d| d != k);
            batch.push(k);
        }
        batch
    }

    /// The batch dim a micro plan on a CPU device decodes innermost instead of the input's
    /// innermost batch dim: the one that continues the output's rows (its output stride is
    /// their length), where those rows take at most [`LANE_GROUP`] row blocks (so that a
    /// SIMD group's invocations reach past one of them) and it lies at least [`PAGE_BYTES`]
    /// away in the input. A SIMD group then writes neighbouring rows back to back: whole
    /// lines where the input's order wrote pieces of rows far apart, to be finished much
    /// later. Square blocks of permutes and views without bounds or a conversion.
    ///
    /// On lavapipe (AMD EPYC, 2 cores; 16 MiB f32, two probe runs each, ratios to the
    /// shader copy of the same run): `[32,8,8,8,8,32] (2,5,0,4,1,3)` (the suite's 6-D
    /// permute at `--scale 4`, output rows of 8 units) 0.30-0.33 -> 0.47-0.55. Of random
    /// permutes with rows of 4 to 32 units whose continuation lies a page or more away, most
    /// gained (0.24 -> 0.65, 0.27 -> 0.48, 0.27 -> 0.51, 0.48 -> 0.73, 0.35 -> 0.54) and the
    /// rest tied; where it lies nearer (128 to 512 units), every one lost or tied (0.66 ->
    /// 0.33, 0.67 -> 0.38, 0.61 -> 0.45), the input's order then reading rows back to back;
    /// longer rows lost (`[512,16,16,32] (3,2,1,0)` 0.75 -> 0.50, the 4-D reversal 0.56 ->
    /// 0.40) or tied (rows of 64 units).
    pub fn row_continuation(&self) -> Option<usize> {
        let block = self.variant()?.block()?;
        let plain = self.kernel == Kernel::Micro
            && self.runs
            && block.strip.is_none()
            && self.conversion.is_none()
            && self.view.as_ref().is_none_or(|v| v.bounds.is_empty());
        let a = self.row_dim()?;
        let r = self.dims[a];
        if !plain || r.div_ceil(block.rows() as u64) > LANE_GROUP as u64 {
            return None;
        }
        let batch = self.batch_dims();
        let (ins, outs) = (self.in_strides(), self.out_strides_by_input_dim());
        let k = *batch.iter().find(|&&d| outs[d] == r)?;
        let far = (ins[k] as i64).unsigned_abs() * self.unit as u64 >= PAGE_BYTES;
        (far && batch.last() != Some(&k)).then_some(k)
    }
}
