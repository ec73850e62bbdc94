//! The micro kernel's register blocks: which block a plan takes (square, a strip of a
//! short dim, narrow, flat) and how many an invocation moves, and whether the kernel fits.

use super::flat::{flat_blocks, flat_box_blocks, flat_pairs, flat_strip};
use super::runs::{short_rows_run, usual_run};
use crate::plan::select::{view_fits, windows_fit};
use crate::plan::tuning::STRIP_MAX;
use crate::plan::tuning::*;
use crate::plan::{Block, DeviceCaps, IndexMath, Kernel, MicroVariant, Misfit, Plan, Strip};

/// Whether the micro-tile kernel can run this plan: the innermost dim moves, 32-bit index
/// math, binding windows of `limit` bytes (see [`micro_block`]).
pub(in crate::plan) fn micro_fits(
    plan: &Plan,
    caps: &DeviceCaps,
    limit: u64,
) -> Result<(), Misfit> {
    // As it will run: its windows are cut in whole runs of blocks.
    let plan = &{
        let mut plan = plan.clone();
        plan.cpu.runs = caps.cpu_family();
        plan
    };
    micro_block(plan)?;
    if plan.index != IndexMath::U32 {
        return Err(Misfit::Index64);
    }
    // A flat strip's boxes are whole images (`windows::Cut`).
    windows_fit(plan, Kernel::Micro, caps, limit)
}

/// The micro kernel's block for a plan whose innermost dim moves: wide where both block
/// sides divide by its side and every offset and stride of rows and batches is in whole 16
/// bytes (so each block row is aligned `vec4<u32>`s: one, or two for 16-byte units); else a wide strip where one side is
/// a short contiguous dim and the other divides (see [`Strip`]); else narrow for units of
/// up to 4 bytes with both sides divisible by [`crate::plan::MICRO_SIDE`]; else a flat strip
/// (`crate::plan::flat_strip`). Blocks per invocation, where the plan has runs (CPU devices):
/// an aligned column strip's [`MICRO_LANE_MAJOR_RUN`] lane-major where that makes
/// [`MICRO_LANE_MAJOR_MIN_WORKGROUPS`]; else the first of [`MICRO_RUNS`] (for a flat
/// strip, [`MICRO_FLAT_RUN`] first) that divides the blocks along the run, else 1
/// (`usual_run`), unless short input rows shorten it (`short_rows_run`).
pub fn micro_block(plan: &Plan) -> Result<Block, Misfit> {
    let block = micro_block_shape(plan)?;
    let flat_pairs = flat_pairs(plan, &block);
    Ok(Block {
        flat_pairs,
        ..block
    })
}

/// The micro kernel's block for this plan, but whether a flat strip reads its planes in
/// pairs ([`Block::flat_pairs`]).
fn micro_block_shape(plan: &Plan) -> Result<Block, Misfit> {
    let Some((b, r, c)) = plan.batch_rows_cols() else {
        return Err(Misfit::InnermostStays);
    };
    view_fits(plan, true)?;
    // A converting view in blocks: strided and broadcast sources (a crop, say) into a
    // contiguous output, whose positions name the affine's channels; its fill would be
    // converted, and its reversed units are not elements.
    if plan.conversion.is_some()
        && plan
            .view
            .as_ref()
            .is_some_and(|v| !v.bounds.is_empty() || v.reversed || !v.dst_contiguous)
    {
        return Err(Misfit::ViewLayout);
    }
    let (a, last) = (plan.row_dim().unwrap_or(0), plan.dims.len() - 1);
    let ins = plan.in_strides();
    let outs = plan.out_strides_by_input_dim();
    let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
    // A conversion's two sides have elements of different sizes: the block's side is the
    // elements of the smaller in one access, and each side counts its own accesses.
    let (src_unit, dst_unit) = (plan.unit, plan.dst_unit());
    let unit = src_unit.min(dst_unit);
    let fits = |b: &Block| {
        let (q, qd) = (b.per_access(src_unit) as i64, b.per_access(dst_unit) as i64);
        let whole = |s: i64| s.rem_euclid(q) == 0;
        let whole_out = |s: i64| s.rem_euclid(qd) == 0;
        // A strip's span side needs its rows back to back instead of in whole accesses.
        let (span_in, span_out) = match b.strip {
            None => (false, false),
            Some(Strip::Cols(n)) if ins[a] == n as u64 => (true, false),
            Some(Strip::Rows(n)) if outs[last] == n as u64 => (false, true),
            Some(_) => return false,
        };
        r % b.rows() as u64 == 0
            && c % b.cols() as u64 == 0
            && (b.strip.is_none() || !padded)
            && (0..last).all(|d| (d == a && span_in) || whole(ins[d] as i64))
            && (0..=last).all(|d| d == a || (d == last && span_out) || whole_out(outs[d] as i64))
            && plan.src_start().is_multiple_of(b.access_bytes as u64)
            && plan.dst_offset.is_multiple_of(b.access_bytes as u64)
            // The source binding holds one access (a padded view that reads nothing binds
            // one unit).
            && plan.src_extent() >= b.access_bytes as u64
    };
    // A strip of a whole dim of `n` elements that square blocks cannot take: the columns,
    // else the rows (the extents `shaders::all_variants` has).
    let whole_dim = |n: u64, strip: fn(u32) -> Strip| {
        let side = Block::wide(unit)?.side as u64;
        ((2..=STRIP_MAX as u64).contains(&n) && !n.is_multiple_of(side))
            .then(|| Block::wide_strip(unit, strip(n as u32)))
            .flatten()
    };
    let candidates = [
        Block::wide(unit),
        whole_dim(c, Strip::Cols),
        whole_dim(r, Strip::Rows),
        Block::narrow(src_unit.max(dst_unit)),
    ];
    let Some(block) = candidates
        .into_iter()
        .flatten()
        .find(fits)
        .or_else(|| flat_strip(plan))
    else {
        return Err(Misfit::MicroSides);
    };
    // Blocks along the run: row blocks, a row strip's column blocks (a flat strip's over
    // every image).
    let along = match (flat_blocks(plan, &block), block.strip) {
        (Some((blocks, _)), _) => blocks,
        (None, Some(Strip::Rows(_))) => c / block.cols() as u64,
        (None, _) => r / block.rows() as u64,
    };
    if plan.cpu.runs && lane_major(plan, &block, b.saturating_mul(along)) {
        return Ok(block.lane_major(MICRO_LANE_MAJOR_RUN));
    }
    // Runs along the columns (`column_runs::choose` checked that one divides them).
    if plan.cpu.column_runs
        && let Some(run) = block.column_run(c)
    {
        return Ok(plan.batch_first(block.column_runs(run)));
    }
    if !plan.cpu.runs {
        return Ok(block.with_run(1));
    }
    // A flat strip's blocks are whole runs of their own where they can be.
    let run = match block.flat {
        true if along.is_multiple_of(MICRO_FLAT_RUN as u64) => MICRO_FLAT_RUN,
        _ => short_rows_run(plan, &block).unwrap_or_else(|| usual_run(along)),
    };
    Ok(block.with_run(run))
}

/// Whether a block's runs are lane-major ([`MICRO_LANE_MAJOR_RUN`], `blocks` in all): a
/// strip of whole input rows (pixels to planes, not flat) over at most two batch dims (each
/// block finds its bases again; a centre crop has two) that makes
/// [`MICRO_LANE_MAJOR_MIN_WORKGROUPS`] whole workgroups. Errs towards neighbour runs: the
/// other strips measured slower (and the shader has lane-major column strips only).
fn lane_major(plan: &Plan, block: &Block, blocks: u64) -> bool {
    let workgroups = blocks / (MICRO_LANE_MAJOR_RUN * MICRO_WORKGROUP) as u64;
    matches!(block.strip, Some(Strip::Cols(_)))
        && !block.flat
        && plan.batch_dims().len() <= 2
        && workgroups >= MICRO_LANE_MAJOR_MIN_WORKGROUPS
}

#[doc(hidden)]
impl Plan {
    /// The micro kernel's block for this plan: the one chosen when it was made, or while
    /// it is being made, the one [`micro_block`] chooses now.
    pub(in crate::plan) fn micro_block(&self) -> Result<Block, Misfit> {
        match self.cpu.block {
            Some(block) => Ok(block),
            None => micro_block(self),
        }
    }

    /// Whether the micro kernel can run this plan in binding windows of `limit` bytes
    /// ([`micro_fits`]).
    pub(in crate::plan) fn micro_fits(&self, caps: &DeviceCaps, limit: u64) -> Result<(), Misfit> {
        micro_fits(self, caps, limit)
    }

    /// The micro kernel's variant of this plan, if its block fits.
    pub(in crate::plan) fn micro_variant(&self) -> Option<MicroVariant> {
        Some(MicroVariant {
            rank: self.dims.len(),
            unit: self.unit,
            block: self.micro_block().ok()?,
            padded: self.view.as_ref().is_some_and(|v| !v.bounds.is_empty()),
            access64: self.cpu.access64,
            specialized: self.specialized,
            convert: self.block_convert(),
        })
    }

    /// Workgroups of the micro kernel over a box of these extents: its runs of blocks (a
    /// flat strip counting its own blocks in the box; a lane-major run's last blocks may be
    /// past the end).
    pub(in crate::plan) fn micro_box_workgroups(&self, extents: &[u64]) -> u64 {
        let (b, r, c) = self.box_batch_rows_cols(extents).unwrap_or((0, 0, 0));
        let invocations = match self.micro_block() {
            Ok(block) => match flat_box_blocks(self, &block, extents) {
                Some((blocks, _)) => blocks.div_ceil(block.run as u64),
                None => (b * r * c / block.elements()).div_ceil(block.run as u64),
            },
            Err(_) => b * r * c,
        };
        invocations.div_ceil(MICRO_WORKGROUP as u64)
    }
}
