//! The order in which a box of the tiled or micro kernel decodes its batch dims.

use crate::plan::tuning::{BATCH_TILE_BYTES, BATCH_TILE_MIN_PAGES, LANE_GROUP, PAGE_BYTES};
use crate::plan::{BatchTiles, Block, Kernel, MAX_RANK, Plan};

impl BatchTiles {
    /// The tiles for a plan whose dims are not split yet: a micro plan with runs (a CPU
    /// device) of square blocks, a permute without a conversion, whose innermost batch dim
    /// `k` lies a page or more away in the output and another, `j`, less than a page,
    /// where the input's order writes [`BATCH_TILE_MIN_PAGES`] pages of output rows or
    /// more before it comes back to them: `k` split at the most input neighbours that span
    /// at most [`BATCH_TILE_BYTES`] (a divisor of its extent, 2 or more). `None` where
    /// splitting would change the block.
    ///
    /// Ahead of a row continuation ([`Plan::row_continuation`]), which then is off: where
    /// both apply, tiles measured faster (`[16,128,128,64] (3,2,1,0)` f32 0.31-0.35 ->
    /// 0.63, `[32,64,64,64]` 0.47-0.48 -> 0.76-1.10, `[16,64,64,64]` 0.27-0.38 -> 0.61-0.70;
    /// one or two probe runs each). Where tiles alone apply, `[64,16,256,64] (3,2,1,0)`
    /// went from 0.47-0.49 to 0.70-0.86 and `[64,32,32,32,16] (4,3,2,1,0)` from 0.41-0.42
    /// to 0.51-0.57.
    pub(crate) fn choose(plan: &Plan) -> Option<BatchTiles> {
        let block = plan.variant()?.block()?;
        let plain = plan.kernel == Kernel::Micro
            && plan.cpu.runs
            && plan.cpu.batch_tiles.is_none()
            && block.strip.is_none()
            && !block.flat
            && plan.view.is_none()
            && plan.conversion.is_none();
        let batch = plan.batch_dims();
        if !plain || batch.len() < 2 || plan.dims.len() >= MAX_RANK {
            return None;
        }
        let (ins, outs, unit) = (
            plan.in_strides(),
            plan.out_strides_by_input_dim(),
            plan.unit as u64,
        );
        let k = *batch.last()?;
        let j = *batch[..batch.len() - 1].iter().min_by_key(|&&d| outs[d])?;
        // Pages of output rows one batch writes, and how many the input's order writes
        // before it comes back to them (at the next `j`).
        let cols = plan.dims.len() - 1;
        let per_batch = (plan.dims[cols] * outs[cols] * unit).div_ceil(PAGE_BYTES);
        let after_j: u64 = batch
            .iter()
            .filter(|&&d| d > j)
            .map(|&d| plan.dims[d])
            .product();
        let apart = per_batch.min(plan.dims[cols]) * after_j;
        if outs[k] * unit < PAGE_BYTES
            || outs[j] * unit >= PAGE_BYTES
            || apart < BATCH_TILE_MIN_PAGES
        {
            return None;
        }
        let most = BATCH_TILE_BYTES / (ins[k] * unit).max(1);
        let inner = (2..=most.min(plan.dims[k] - 1))
            .rev()
            .find(|&i| plan.dims[k].is_multiple_of(i))?;
        let tiles = BatchTiles {
            outer: k,
            inner,
            across: j,
        };
        let mut split = plan.clone();
        tiles.split(&mut split);
        (split.variant()?.block() == Some(block)).then_some(tiles)
    }

    /// Splits the plan's dim `outer` into its halves and records the tiles. The halves
    /// stay neighbours in both orders, so the permute is the same.
    pub(crate) fn split(self, plan: &mut Plan) {
        let k = self.outer;
        plan.dims[k] /= self.inner;
        plan.dims.insert(k + 1, self.inner);
        plan.dims_perm = plan
            .dims_perm
            .iter()
            .flat_map(|&d| match d.cmp(&k) {
                std::cmp::Ordering::Less => vec![d],
                std::cmp::Ordering::Equal => vec![k, k + 1],
                std::cmp::Ordering::Greater => vec![d + 1],
            })
            .collect();
        plan.cpu.batch_tiles = Some(self);
    }

    /// Dims and a permutation of a plan split by these tiles with the split undone: the
    /// plan's permute as other devices and the shape keys see it.
    pub fn merged(self, dims: &[u64], dims_perm: &[usize]) -> (Vec<u64>, Vec<usize>) {
        let k = self.outer;
        let mut dims = dims.to_vec();
        let inner = dims.remove(k + 1);
        dims[k] *= inner;
        let perm = dims_perm
            .iter()
            .filter(|&&d| d != k + 1)
            .map(|&d| if d > k + 1 { d - 1 } else { d })
            .collect();
        (dims, perm)
    }
}

#[doc(hidden)]
impl Plan {
    /// Batch dims of a tiled plan: all but the row and column dims, in input order.
    pub fn batch_dims(&self) -> Vec<usize> {
        let a = self.row_dim();
        (0..self.dims.len().saturating_sub(1))
            .filter(|&d| Some(d) != a)
            .collect()
    }

    /// Batch dims in the order a tiled or micro box decodes them, innermost last: input
    /// order ([`Plan::batch_dims`]), but with [`Plan::row_continuation`] innermost, or the
    /// batch tiles' dim between the halves ([`BatchTiles`]). Any order covers every block
    /// once; the shader only reads each dim's extent and strides from the parameter words,
    /// in this order (and the innermost extent for [`Block::batch_before_columns`]).
    pub fn box_batch_dims(&self) -> Vec<usize> {
        let mut batch = self.batch_dims();
        if let Some(t) = self.cpu.batch_tiles {
            batch.retain(|&d| d != t.across);
            let at = batch
                .iter()
                .position(|&d| d == t.outer)
                .map_or(0, |i| i + 1);
            batch.insert(at, t.across);
            return batch;
        }
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
        self.row_continuation_of(&self.variant()?.block()?)
    }

    /// [`Plan::row_continuation`] for the micro plan's `block`.
    fn row_continuation_of(&self, block: &Block) -> Option<usize> {
        let plain = self.kernel == Kernel::Micro
            && self.cpu.runs
            && self.cpu.batch_tiles.is_none()
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

    /// The micro kernel's column runs `runs`, taking the batch's innermost dim with the row
    /// blocks ([`Block::batch_before_columns`]) where that dim is the row continuation, in
    /// 4-byte units. In the usual column runs a SIMD group writes a line of each of 32
    /// output rows and moves on along the column runs, coming back to those rows a batch
    /// later; this way it writes two lines of each of 16 and finishes the stretch the
    /// continuation makes of them (256 bytes for output rows of 8 units) first. Column runs
    /// have one band (`Plan::micro_band`): the shader's banded order ignores this one.
    ///
    /// On lavapipe (AMD EPYC family 25, 2 cores; the same buffers in one process, three
    /// processes, times against the usual column runs): `[32,8,8,8,8,32] (2,5,0,4,1,3)` f32
    /// (16 MiB) 0.83-0.85, `[8,32,64,64] (3,2,1,0)` 0.94-0.97, `[8,128,64,64]` 0.93-0.95,
    /// the suite's 6-D permute (4 MiB) 0.98-0.99 (within the noise). In f16 the 6-D permute
    /// tied (1.00 in three), so the rule leaves 2-byte units; 8-byte units were not measured
    /// (their 2x2 blocks take output rows of 8 units in 4 row blocks, too many for column
    /// runs by `short_rows_apart`). Where the continuation is the input's innermost batch dim
    /// anyway (`[16,8,64,32] (0,3,2,1)`: no row continuation) it tied (0.99-1.01).
    pub(in crate::plan) fn batch_first(&self, runs: Block) -> Block {
        match runs.column_runs && self.unit == 4 && self.row_continuation_of(&runs).is_some() {
            true => runs.batch_before_columns(),
            false => runs,
        }
    }
}
