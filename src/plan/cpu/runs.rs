//! How many blocks a micro invocation moves along its run (CPU devices): the usual run, and
//! a shorter one over short input rows.

use crate::plan::tuning::{LANE_GROUP, MICRO_RUNS, MICRO_SHORT_ROW_BYTES};
use crate::plan::{Block, Plan};

/// The usual run of `blocks` blocks along it: the first of [`MICRO_RUNS`] that divides
/// them, else 1.
pub(in crate::plan) fn usual_run(blocks: u64) -> u32 {
    MICRO_RUNS
        .into_iter()
        .find(|&run| blocks.is_multiple_of(run as u64))
        .unwrap_or(1)
}

/// The run of a square block over short input rows (see [`MICRO_SHORT_ROW_BYTES`]), where
/// it is shorter than the usual one: as many blocks as keep a SIMD group's [`LANE_GROUP`]
/// runs within the row blocks of one column of blocks. Wide blocks of 2- or 4-byte units of
/// a plain permute whose input rows lie back to back, over at most two batch dims: the
/// layouts measured. `None` leaves the usual run.
pub(in crate::plan) fn short_rows_run(plan: &Plan, block: &Block) -> Option<u32> {
    let (_, rows, cols) = plan.batch_rows_cols()?;
    let a = plan.row_dim()?;
    let square = block.strip.is_none() && !block.flat && block.access_bytes == 16;
    let plain = plan.view.is_none() && plan.conversion.is_none() && plan.batch_dims().len() <= 2;
    let short = (2..=4).contains(&plan.unit)
        && plan.in_strides()[a] == cols
        && cols * plan.unit as u64 <= MICRO_SHORT_ROW_BYTES;
    let along = rows / block.rows() as u64;
    let most = along / LANE_GROUP as u64;
    let run = MICRO_RUNS
        .into_iter()
        .find(|&run| run as u64 <= most && along.is_multiple_of(run as u64))
        .unwrap_or(1);
    (plan.cpu.runs && square && plain && short && run < usual_run(along)).then_some(run)
}
