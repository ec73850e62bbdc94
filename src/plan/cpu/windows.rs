//! The CPU family's grains of boxes over binding windows: a box holds whole runs, whole
//! tiles of a walk, whole runs of micro blocks (a flat strip's, whole images), so that no
//! invocation's work straddles a box edge.

use super::tuning::LANE_GROUP;
use crate::plan::windows::lcm;
use crate::plan::{Misfit, Plan, Strip};

/// The generic kernel's grain, on top of `grain`: runs' rows in whole runs, lane-major ones
/// in whole SIMD groups' runs (`Plan::lane_major_runs`); a walk in tiles' boxes hold whole
/// tiles (`Plan::walk_tile_dims_of`): of `across` positions of its dim, and `rows` output
/// rows.
fn run_grain(plan: &Plan, grain: &mut [u64]) {
    if let Some(&inner) = plan.dims_perm.last()
        && plan.cpu.runs
    {
        let groups = plan.run_units() * LANE_GROUP as u64;
        grain[inner] = match plan.dims[inner].is_multiple_of(groups) {
            true => groups,
            false => plan.run_units(),
        };
    }
    if let Some(t) = plan.cpu.walk_tiles {
        let (out_rank, perm) = (plan.dims.len(), &plan.dims_perm);
        // Where the innermost is split into runs, its count is the rows' dim.
        if t.dim < out_rank - 1 {
            grain[perm[t.dim]] = lcm(grain[perm[t.dim]], t.across);
        }
        if !t.row_runs && out_rank >= 2 {
            grain[perm[out_rank - 2]] = lcm(grain[perm[out_rank - 2]], t.rows);
        }
    }
}

/// The micro kernel's grain along its rows and columns: a run of blocks (along the columns
/// for a row strip's and column runs). A flat strip's boxes are whole images, as many as
/// start a whole run of blocks, and its rows and columns whole: set in `grain`, `None`.
fn block_grain(plan: &Plan, grain: &mut [u64]) -> Result<Option<(u64, u64)>, Misfit> {
    let block = super::micro_block(plan)?;
    if block.flat {
        let images = super::flat_box_images(plan, &block).ok_or(Misfit::Windowed)?;
        for &d in &plan.batch_dims() {
            grain[d] = images;
        }
        let (a, last) = (plan.row_dim().expect("a block's rows"), plan.dims.len() - 1);
        (grain[a], grain[last]) = (plan.dims[a], plan.dims[last]);
        return Ok(None);
    }
    let run = block.run as u64;
    Ok(Some(
        match block.column_runs || matches!(block.strip, Some(Strip::Rows(_))) {
            true => (block.rows() as u64, block.cols() as u64 * run),
            false => (block.rows() as u64 * run, block.cols() as u64),
        },
    ))
}

impl Plan {
    /// Units each run of the generic kernel moves (`Plan::runs`): `GENERIC_RUN`, or
    /// as many quads ([`Plan::quads`]).
    pub fn run_units(&self) -> u64 {
        super::tuning::GENERIC_RUN as u64 * if self.quads { 4 } else { 1 }
    }
}

impl Plan {
    /// The CPU family's grain of the generic kernel's boxes ([`run_grain`]).
    pub(in crate::plan) fn run_grain(&self, grain: &mut [u64]) {
        run_grain(self, grain)
    }

    /// The micro kernel's grain along its rows and columns ([`block_grain`]).
    pub(in crate::plan) fn block_grain(
        &self,
        grain: &mut [u64],
    ) -> Result<Option<(u64, u64)>, Misfit> {
        block_grain(self, grain)
    }
}
