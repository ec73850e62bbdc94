//! The micro kernel's column runs ([`Block::column_runs`](crate::plan::Block::column_runs)):
//! where they apply, and where they pay; and the bands of its usual order.

use super::micro::micro_block;
use crate::PermuteError;
use crate::plan::select::windows_fit;
use crate::plan::tuning::{
    MICRO_ALIASING_PITCH, MICRO_BAND_BLOCKS, MICRO_BAND_BLOCKS_16B, MICRO_BAND_BLOCKS_SPREAD,
    MICRO_BAND_MAX_SPAN, MICRO_BAND_ROWS, MICRO_BAND_SPAN, MICRO_COLUMN_RUN_MIN_BAND,
    MICRO_FAR_OUT_PITCH, MICRO_NEAR_IN_PITCH, MICRO_ONE_RUN_BAND_PITCH, MICRO_RUN,
    MICRO_SHORT_OUT_ROWS,
};
use crate::plan::{DeviceCaps, Kernel, Learned, Options, OrderReason, Plan};

/// Whether the micro kernel's runs go along the column blocks: where the rows are far
/// apart on both sides, so that a band of the usual order would have to be shorter than
/// [`MICRO_COLUMN_RUN_MIN_BAND`] row blocks to keep its input rows within
/// [`MICRO_BAND_MAX_SPAN`](crate::plan::tuning::MICRO_BAND_MAX_SPAN) (rows more than 128 KiB
/// apart, for 4-byte units) and as many column blocks of output rows would not fit either,
/// and the input's rows are more than fit. Runs of square blocks (CPU devices) of a
/// permute or view without bounds or a conversion, chosen before the plan splits into
/// binding windows, whose boxes then hold whole runs (`windows::Cut`).
///
/// On lavapipe (AMD EPYC, 2 cores; one probe run each, or the median of three, ratios to
/// the shader copy of the same run, 12-14 GB/s), the usual order against column runs, rows far apart
/// on both sides: `[64,64,64,64] (3,2,1,0)` f32 0.43 / 0.70, f16 0.33 / 0.48, 8-byte
/// `[32,64,64,64]` 0.91 / 1.08, `[64,4096,64] (2,1,0)` 0.45 / 0.81, `[256,256,256]
/// (2,1,0)` 0.52 / 0.76; input rows far apart only, the usual order in short bands won or
/// tied (`[64,262144] (1,0)` 1.11 / 0.81, `[256,65536]` 0.64 / 0.62, medians of three), as
/// it did where bands fit (`[4096,4096]` 0.97 / 0.48, `[64,512,512] (0,2,1)` 1.16 / 0.96).
///
/// Also where the output's rows are short and apart ([`short_rows_apart`]): there the
/// usual run is as short as the rows, and a run along the columns is longer. And where the
/// output's rows are far apart and the input's close ([`far_out_near_in`]).
///
/// With autotuning on, where both orders apply, the order measured faster for the plan's
/// shape class decides instead of the rule ([`Learned::column_runs`]). Sets
/// [`Plan::column_runs`] and the reason ([`OrderReason`]).
pub(in crate::plan) fn choose(
    plan: &mut Plan,
    caps: &DeviceCaps,
    opts: &Options,
    learned: &Learned,
    limit: u64,
) -> Result<(), PermuteError> {
    let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
    let applies = plan.kernel == Kernel::Micro
        && plan.cpu.runs
        && plan.conversion.is_none()
        && !padded
        && windows_fit(&along_columns(plan), Kernel::Micro, caps, limit).is_ok();
    // How many row blocks a band may hold (the more of the two sides'), and the rows'.
    let fits = match (applies, plan.batch_rows_cols()) {
        (true, Some((_, r, c))) => micro_block(plan)
            .ok()
            .filter(|block| block.column_run(c).is_some())
            .map(|block| {
                let fit = plan
                    .micro_band_fit(block.rows())
                    .max(plan.micro_out_fit(block.cols()));
                let row_blocks = r / block.rows() as u64;
                let short = short_rows_apart(plan, r, row_blocks, block.column_run(c), block.run);
                (fit, row_blocks, short || far_out_near_in(plan))
            }),
        _ => None,
    };
    let measured = learned
        .autotune
        .then(|| learned.column_runs.get(&plan.shape_class()).copied())
        .flatten();
    (plan.cpu.column_runs, plan.reasons.order) = match (opts.column_runs, fits, measured) {
        (Some(true), None, _) => {
            return Err(PermuteError::ForcedChoice {
                what: "column runs",
                why: "they run the micro kernel's square blocks (CPU devices) of a permute or view without bounds or a conversion, whose column blocks a run divides, in binding windows of whole runs",
            });
        }
        (Some(on), fits, _) => (on, fits.map(|_| OrderReason::Forced)),
        (None, None, _) => (false, None),
        (None, Some(_), Some(on)) => (on, Some(OrderReason::Autotuned)),
        (None, Some((fit, row_blocks, apart)), None) => {
            let on = apart || (fit < MICRO_COLUMN_RUN_MIN_BAND && row_blocks > fit);
            (on, Some(OrderReason::Rule))
        }
    };
    Ok(())
}

/// Whether the output's rows (`r` units, `row_blocks` blocks) are shorter than
/// [`MICRO_RUN`] blocks and not back to back, and a run along the columns (`column_run`)
/// is longer than the run along them (`usual`). The usual order then writes a few blocks of
/// each far-apart output row per invocation and reads a 16-byte piece of each input row;
/// column runs read a line of each. On lavapipe (AMD EPYC, 2 cores; probe runs of 4 MiB
/// f32, ratios to the shader copy of the same run, about 20 GB/s at that size), usual
/// order against column runs:
/// `[8,8,8,8,8,32] (2,5,0,4,1,3)` (output rows of 8 units, 16 KiB apart) 0.36-0.62 /
/// 0.71-0.77; `[A,8,B,32] (0,3,2,1)` for `B` 16 to 1024 (output rows 512 B to 32 KiB
/// apart) 0.63-0.83 / 0.78-0.85, `[32,4,256,32]` 0.67 / 0.84, `[10,12,256,32]` 0.54-0.61 /
/// 0.47-0.82, rows far apart on both sides in two row blocks `[8,32,64,64] (3,2,1,0)`
/// 0.60-0.64 / 0.74-0.75 and at 16 MiB `[8,128,64,64]` 0.32-0.36 / 0.37-0.39; back to
/// back, a tie or worse (`[32,8,3136] (0,2,1)` 0.84-0.87 / 0.54-0.83), so the rule leaves
/// those.
/// It errs towards column runs: no shape measured lost by them there. On another CPU (AMD
/// EPYC family 25) the 6-D permute ran faster in the usual order: autotuning times both
/// orders where this rule decides ([`Learned::column_runs`]).
fn short_rows_apart(
    plan: &Plan,
    r: u64,
    row_blocks: u64,
    column_run: Option<u32>,
    usual: u32,
) -> bool {
    let pitch = plan.out_row_pitch();
    row_blocks < MICRO_RUN as u64
        && pitch > r * plan.dst_unit() as u64
        && column_run.is_some_and(|run| run > usual)
}

/// Whether the output's rows lie at least [`MICRO_FAR_OUT_PITCH`] apart and the input's
/// at most [`MICRO_NEAR_IN_PITCH`], in units of 4 or 8 bytes: NHWC -> NCHW and its kin,
/// `[B,P,C] (0,2,1)` with few channels. In the usual order a SIMD group reads 16 bytes of
/// each of 128 input rows and writes 4 output rows, each on a page of its own; column runs
/// read a line of each of 32 input rows and write 128 bytes of each of 16 output rows.
/// Errs towards column runs: no shape measured lost by them here. See the constants.
fn far_out_near_in(plan: &Plan) -> bool {
    matches!(plan.unit, 4 | 8)
        && plan.out_row_pitch() >= MICRO_FAR_OUT_PITCH
        && plan.in_row_pitch() <= MICRO_NEAR_IN_PITCH
}

/// The plan with column runs: its windows must hold whole runs of columns.
fn along_columns(plan: &Plan) -> Plan {
    let mut plan = plan.clone();
    plan.cpu.column_runs = true;
    plan
}

#[doc(hidden)]
impl Plan {
    /// Row blocks per band of a micro plan's traversal, in whole runs (a dispatch with fewer
    /// has one band; its last band is shorter): the rows a workgroup reads at a time.
    /// With 64-bit components, [`MICRO_BAND_ROWS`] rows; with 32-bit ones
    /// [`MICRO_BAND_BLOCKS`] row blocks where the input's rows alias in L1 sets,
    /// [`MICRO_BAND_BLOCKS_SPREAD`] where they spread ([`MICRO_BAND_BLOCKS_16B`] of
    /// 16-byte units), or more where the rows are close: enough for [`MICRO_BAND_SPAN`]
    /// bytes of them; at most [`MICRO_BAND_MAX_SPAN`] bytes of rows, but never fewer than
    /// [`MICRO_COLUMN_RUN_MIN_BAND`] blocks; or one run where short output rows lie back
    /// to back and the input's far apart (`Plan::one_run_bands`). `None` for other plans
    /// and orders (strips running over images, lane-major and column runs).
    pub fn micro_band(&self) -> Option<u64> {
        let block = self.variant()?.block()?;
        if !block.may_band() {
            return None;
        }
        if self.one_run_bands(block.run) {
            return Some(block.run as u64);
        }
        let rows = block.rows() as u64;
        let blocks = if self.cpu.access64 {
            MICRO_BAND_ROWS as u64 / rows
        } else {
            let pitch = self.in_row_pitch();
            let blocks = match self.unit {
                16 => MICRO_BAND_BLOCKS_16B,
                _ if pitch.is_multiple_of(MICRO_ALIASING_PITCH) => MICRO_BAND_BLOCKS,
                _ => MICRO_BAND_BLOCKS_SPREAD,
            };
            (blocks as u64).max(MICRO_BAND_SPAN / pitch.max(1) / rows)
        };
        // Never shorter than a SIMD group's rows per column block (column runs take those
        // that would need shorter ones, where they can).
        let fit = self.micro_band_fit(block.rows());
        let blocks = blocks.min(fit.max(MICRO_COLUMN_RUN_MIN_BAND));
        Some(blocks.next_multiple_of(block.run as u64))
    }

    /// Whether the micro kernel's bands are one run tall: runs of [`MICRO_RUN`] square
    /// blocks (CPU devices) of a permute or view without bounds or a conversion, 4-byte
    /// units moved as 64-bit components, whose output rows are short and back to back (rows of
    /// [`MICRO_SHORT_OUT_ROWS`] units) and whose input rows lie at least
    /// [`MICRO_ONE_RUN_BAND_PITCH`] apart: NCHW -> NHWC with few channels. A SIMD group then
    /// reads 128 bytes of each of 16 input rows at a time instead of 16-32 bytes of each of
    /// 32 or more, and writes one line of each of 32 neighbouring output rows. Only the
    /// measured widths and runs: errs towards the usual bands. See the constants.
    pub(in crate::plan) fn one_run_bands(&self, run: u32) -> bool {
        let padded = self.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
        self.cpu.runs
            && run == MICRO_RUN
            && self.cpu.access64
            && self.conversion.is_none()
            && !padded
            && self.unit == 4
            && self.dst_unit() == 4
            && self.batch_rows_cols().is_some_and(|(_, r, _)| {
                MICRO_SHORT_OUT_ROWS.contains(&r) && self.out_row_pitch() == r * 4
            })
            && self.in_row_pitch() >= MICRO_ONE_RUN_BAND_PITCH
    }

    /// Row blocks of `rows` input rows each whose rows span at most
    /// [`MICRO_BAND_MAX_SPAN`] bytes: as many as a micro band keeps cached.
    pub fn micro_band_fit(&self, rows: u32) -> u64 {
        MICRO_BAND_MAX_SPAN / (self.in_row_pitch() * rows as u64).max(1)
    }

    /// [`Plan::micro_band_fit`] of the output's side: column blocks of `cols` output rows
    /// each whose rows span at most [`MICRO_BAND_MAX_SPAN`] bytes.
    pub fn micro_out_fit(&self, cols: u32) -> u64 {
        MICRO_BAND_MAX_SPAN / (self.out_row_pitch() * cols as u64).max(1)
    }

    /// Bytes between neighbouring output rows of a micro block (the output's stride of the
    /// input's innermost dim).
    fn out_row_pitch(&self) -> u64 {
        let last = self.dims.len() - 1;
        (self.out_strides_by_input_dim()[last] as i64).unsigned_abs() * self.dst_unit() as u64
    }

    /// Bytes between neighbouring input rows of a micro block (the row dim's stride).
    fn in_row_pitch(&self) -> u64 {
        self.row_dim().map_or(1, |a| {
            (self.in_strides()[a] as i64).unsigned_abs() * self.unit as u64
        })
    }
}
