//! The CPU-adapter family's part of a plan's explanation ([`Plan::explain`]) and of its
//! one-line form (`Display`): the sentences and phrases of its choices, in the order the
//! GPU path's explanation places them. Nothing here decides.

use std::fmt;

use super::tuning::{BATCH_TILE_BYTES, LANE_GROUP, MICRO_SHORT_ROW_BYTES, ROW_COPY_MIN_BYTES};
use crate::plan::{Kernel, OrderReason, Plan, Strip};

/// How a plan in column runs moves its blocks (the sentence continues with why).
const COLUMN_RUNS: &str =
    "columns (the input's rows; neighbouring invocations take neighbouring row blocks: column runs";

#[doc(hidden)]
impl Plan {
    /// The sentence of a plan whose rows move as buffer copies.
    pub(in crate::plan) fn row_copy_sentence(&self) -> Option<String> {
        let (rows, bytes) = self.copied_rows()?;
        Some(format!(
            "each output row moves as a buffer copy ({rows} copies of {bytes} bytes) where the source allows COPY_SRC and the destination COPY_DST (chosen on CPU devices, where a buffer copy runs at memory-copy speed, past binding windows too, for rows of {} bytes or more, whose copies, recorded one by one, still beat the kernel on the wall clock; else forced); on other buffers the kernel below runs",
            ROW_COPY_MIN_BYTES
        ))
    }

    /// The sentences of the micro kernel's block over a batch of `b`, `r` rows and `c`
    /// columns: its shape, run, order, batch decode, short rows and bands.
    pub(in crate::plan) fn micro_sentences(&self, b: u64, r: u64, c: u64) -> Vec<String> {
        let mut why = Vec::new();
        let Ok(block) = self.micro_block() else {
            return why;
        };
        let (rows, cols) = (block.rows(), block.cols());
        // Accesses per block row on each side (a conversion's differ).
        let per_row = |unit| block.side / block.per_access(unit);
        let (ins, outs) = (per_row(self.unit), per_row(self.dst_unit()));
        let how = match (block.strip, block.access_bytes) {
            (Some(Strip::Cols(n)), _) if block.flat => format!(
                "a flat strip: the pixels of every image in one run, {rows} of all {n} columns read as one span of {} 16-byte accesses, each plane's element written alone (the planes' rows and offsets are not whole 16 bytes; a block may end one image and start the next)",
                n * ins
            ),
            (Some(Strip::Rows(n)), _) if block.flat => format!(
                "a flat strip: each plane's {}, the pixels of every image in one run, {cols} of all {n} rows written as one span of {} accesses (a block may end one image and start the next)",
                match block.flat_pairs {
                    true =>
                        "words read two at a time, as 64-bit ones from whichever word the block starts on (the planes' rows and offsets are not whole 16 bytes; a CPU device pays per access; a block across two images reads them one by one)",
                    false =>
                        "element read alone (the planes' rows and offsets are not whole 16 bytes)",
                },
                n * outs
            ),
            (Some(Strip::Cols(n)), _) => format!(
                "a strip: {rows} input rows of all {n} columns read as one span of {} 16-byte accesses, each output row {outs} access(es)",
                n * ins
            ),
            (Some(Strip::Rows(n)), _) => format!(
                "a strip: all {n} rows, each input row {ins} 16-byte access(es), the {cols} output rows written as one span of {} accesses",
                n * outs
            ),
            (None, 16) => "each block row one 16-byte access".into(),
            (None, _) => "as 32-bit words (rows or offsets not in whole 16 bytes)".into(),
        };
        let run = block.run;
        let along = match (block.strip, block.column_runs) {
            (Some(Strip::Rows(_)), _) => "columns".into(),
            (_, true) if self.reasons.order == Some(OrderReason::Rule) => {
                format!(
                    "{COLUMN_RUNS}, for rows too far apart on both sides for a band to stay cached, output rows shorter than a run and apart, or output rows far apart and input rows close)"
                )
            }
            (_, true) => format!("{COLUMN_RUNS})"),
            _ => "output's rows".into(),
        };
        let apart = match block.lane_major {
            true => format!(
                "{LANE_GROUP} apart (at each step {LANE_GROUP} neighbouring invocations, a CPU's SIMD group, take neighbouring blocks)"
            ),
            false => "neighbours".into(),
        };
        let batch = match (block.flat, super::flat_tail(self)) {
            (true, Some((lo, hi, _))) => {
                let left: u64 = lo.iter().zip(&hi).map(|(l, h)| h - l).product();
                format!(
                    "over {b} images, whose last {left} units run as a part of their own (a view on the generic kernel) after the whole runs of blocks"
                )
            }
            (true, None) => format!("over {b} images"),
            (false, _) => format!("{b} blocks' worth of batch"),
        };
        why.push(format!(
                "each invocation moves {run} {rows}x{cols} block(s), {apart} along the {along}, between the input's innermost dim ({c}) and the dim that becomes the output's innermost ({r}), {how}, {batch}"
            ));
        let order = match block.column_runs {
            true => "column runs",
            false => "along the output's rows",
        };
        match self.reasons.order {
                Some(OrderReason::Autotuned) => why.push(format!(
                    "the order ({order}) is the one autotuning timed faster for this shape class, whatever the rule says: which is faster depends on the CPU's caches"
                )),
                Some(OrderReason::Forced) => why.push(format!(
                    "the order ({order}) is forced by the request's options"
                )),
                _ => {}
            }
        if let Some(k) = self.row_continuation() {
            let first = match block.batch_before_columns {
                true => {
                    ", and neighbouring invocations take it right after the row blocks, before the column runs, so that a SIMD group finishes the stretch of each output row it starts"
                }
                false => "",
            };
            why.push(format!(
                    "the batch decodes dim {k} innermost, not the input's order: it continues the output's short rows and lies a page or more away in the input, so that a SIMD group writes neighbouring rows back to back{first} (a CPU device)"
                ));
        }
        if let Some(t) = self.cpu.batch_tiles {
            why.push(format!(
                    "the batch decodes in tiles: dim {} split at {} (at most {BATCH_TILE_BYTES} bytes of the input), with dim {} between its halves, whose neighbours lie within a page in the output, so that a page of output rows is written again before it leaves a CPU's translation caches (a CPU device)",
                    t.outer, t.inner, t.across
                ));
        }
        let short = super::short_rows_run(self, &block);
        if !block.column_runs && short == Some(run) {
            why.push(format!(
                    "input rows of at most {MICRO_SHORT_ROW_BYTES} bytes: runs of {run} rather than {}, so that a SIMD group's {LANE_GROUP} runs stay in one column of blocks (a CPU device)",
                    super::usual_run(r / rows as u64)
                ));
        }
        if let Some(band) = self.micro_band().filter(|&b| b < r / rows as u64) {
            let why_band = match self.one_run_bands(block.run) {
                true => {
                    "one run: the output's short rows lie back to back and the input's far apart, so that a SIMD group reads 128-byte stretches of few input rows"
                }
                false => {
                    "so that the input rows a workgroup reads stay cached until it comes back to them"
                }
            };
            why.push(format!("row blocks in bands of {band}, {why_band}"));
        }
        why
    }

    /// The sentence of the generic kernel's wide stores.
    pub(in crate::plan) fn store_sentences(&self) -> Vec<String> {
        let mut why = Vec::new();
        if self.cpu.wide_stores {
            why.push("each run's units are written 16 bytes at a time, gathered into one store: a CPU device pays per access".into());
        }
        why
    }

    /// The sentences of 64-bit accesses and of the generic kernel's runs and walk.
    pub(in crate::plan) fn run_sentences(&self) -> Vec<String> {
        let mut why = Vec::new();
        if self.cpu.access64 {
            why.push("data moves as 64-bit components (u64, vec2<u64>): a CPU device pays per component of each access (unless forced: a copy was measured faster so on this device)".into());
        }
        if self.cpu.runs && self.kernel == Kernel::Generic {
            let run = self.run_units();
            why.push(match self.cpu.scatter {
                true => format!(
                    "each invocation moves a run of {run} neighbouring source units, decoding where the first goes (a scatter: gathering, a workgroup would read a new 4 KiB page per output row, which a CPU's prefetchers do not follow; scattered, it writes few pages; unless forced)"
                ),
                false if self.stacked_runs() => format!(
                    "each invocation moves a run of {run} output units, one down each row of a stack, decoding the first and stepping through the source (a CPU device: items a workgroup apart pay only on GPUs)"
                ),
                false => format!(
                    "each invocation moves a run of {run} neighbouring output units, decoding the first and stepping through the source (a CPU device: items a workgroup apart pay only on GPUs)"
                ),
            });
            if self.stacked_runs() {
                why.push(format!(
                    "runs are stacked: each SIMD group of {lanes} invocations moves {lanes} neighbouring units of a row, and each step the same units of the next row of a stack of {run}, so that a workgroup streams {run} rows a page or more apart on each side, as a copy streams its items a workgroup apart (rows of a page or more, the stack's rows a page or more apart in the source, or the same row)",
                    lanes = LANE_GROUP
                ));
            } else if self.lane_major_runs() {
                why.push(format!(
                    "runs are lane-major: each SIMD group of {lanes} invocations moves {} neighbouring units of a row, {lanes} at each step, so that each access of the group is one stretch of memory (the row holds whole groups' runs)",
                    LANE_GROUP as u64 * run,
                    lanes = LANE_GROUP
                ));
            }
            match self.cpu.walk_tiles {
                Some(t) if t.row_runs => why.push(format!(
                    "runs walk in tiles: {} neighbouring positions of output dim {} (the nearest in the source), one run of each output row, so that each step of a SIMD group reads neighbouring units of one source row (unless forced)",
                    t.across, t.dim
                )),
                Some(t) => why.push(format!(
                    "runs walk in tiles of {}x{} (positions of output dim {}, the nearest in the source, by output rows) rather than in output order, where neighbouring rows would come from far apart in the source, a new page each: a workgroup reads a few long stretches of the source and writes a few of the output (unless forced)",
                    t.across, t.rows, t.dim
                )),
                None => {}
            }
        }
        why
    }

    /// The one-line form's phrase of row copies.
    pub(in crate::plan) fn fmt_row_copies(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((rows, bytes)) = self.copied_rows() {
            write!(
                f,
                " (or {rows} buffer copies of {bytes} B where the buffers allow)"
            )?;
        }
        Ok(())
    }

    /// The one-line form's phrases of runs, blocks, 64-bit accesses, wide stores, a
    /// scatter and a walk in tiles.
    pub(in crate::plan) fn fmt_cpu(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.cpu.runs && self.kernel == Kernel::Generic {
            let order = match (self.stacked_runs(), self.lane_major_runs()) {
                (true, _) => ", stacked",
                (false, true) => ", lane-major",
                (false, false) => "",
            };
            write!(f, " (runs of {}{order})", self.run_units())?;
        }
        if let Some(b) = self.variant().and_then(|v| v.block()) {
            let strip = match (b.flat, b.strip.is_some()) {
                (true, _) => " flat strip",
                (false, true) => " strip",
                (false, false) => "",
            };
            write!(
                f,
                " ({}x{}{strip} blocks, {} per invocation{})",
                b.rows(),
                b.cols(),
                b.run,
                match (b.lane_major, b.column_runs, b.flat_pairs) {
                    (true, ..) => ", lane-major",
                    (_, true, _) => ", along the columns",
                    (.., true) => ", planes read in pairs",
                    _ => "",
                }
            )?;
        }
        if self.cpu.access64 {
            write!(f, " (64-bit accesses)")?;
        }
        if self.cpu.wide_stores {
            write!(f, " (wide stores)")?;
        }
        if self.cpu.scatter {
            write!(f, " (scatter)")?;
        }
        if let Some(t) = self.cpu.walk_tiles {
            write!(f, " (walk tiles {}x{})", t.across, t.rows)?;
        }
        Ok(())
    }
}
