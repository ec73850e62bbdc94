//! Plans for people: [`Plan::explain`] prints the reasons the planner recorded, one
//! sentence per decision, and `Display` prints the plan on one line. Nothing here decides.

use std::fmt;

use super::{
    Figures, IndexReason, Kernel, KernelReason, MAX_MODELLED, MIN_TILED_EXTENT, Modelling,
    OrderReason, Plan, SPECIALIZE_MIN_BYTES, SPECIALIZE_PAYBACK_BYTES, SpecializeReason, Strip,
    Tile, Tuning, simplify,
    tuning::{BATCH_TILE_BYTES, LANE_GROUP, MICRO_SHORT_ROW_BYTES},
};

/// How a plan in column runs moves its blocks (the sentence continues with why).
const COLUMN_RUNS: &str =
    "columns (the input's rows; neighbouring invocations take neighbouring row blocks: column runs";

impl KernelReason {
    /// The reason as a sentence (without the kernel's name).
    pub fn sentence(self) -> String {
        match self {
            KernelReason::NoElements => "the tensor has no elements: nothing to do".into(),
            KernelReason::Forced => "forced by the request's options".into(),
            KernelReason::Identity => {
                "the permutation is the identity: a buffer-to-buffer copy".into()
            }
            KernelReason::IdentityOddBytes => {
                "the permutation is the identity, but its byte count is not a multiple of 4 as buffer copies need".into()
            }
            KernelReason::ConversionStrips => {
                "elements are converted on the way between interleaved channels and planes: the tiled kernel's strips, reads and writes coalesced".into()
            }
            KernelReason::Conversion => {
                "elements are converted on the way: the generic kernel converts each one as it gathers it".into()
            }
            KernelReason::InnermostStays => {
                "the innermost dim stays innermost: each thread decodes its output positions and gathers whole rows' units".into()
            }
            KernelReason::Windowed { limit } => format!(
                "the identity of a byte count that is not whole words, beyond one storage binding ({limit} bytes): the generic kernel over windows of the buffers (buffer copies move whole words)"
            ),
            KernelReason::Measured => {
                "autotuning measured it as the fastest for this shape class".into()
            }
            KernelReason::View => {
                "a strided view that is not a permute: each thread decodes its output positions and gathers by the view's strides".into()
            }
            KernelReason::Modelled => {
                "the innermost dim moves, and the memory model of the kernels' traced accesses predicts it the fastest on GPUs".into()
            }
            KernelReason::CpuMicro => {
                "the innermost dim moves, and on a CPU device register micro-tiles fit".into()
            }
            KernelReason::CpuWalkTiles => {
                "the innermost dim moves, and on a CPU device 16-byte units move in runs of a walk in tiles: each invocation a run down its output row, a SIMD group's lanes across neighbouring units of each source row it reads (micro blocks of 16-byte units are 2x2)".into()
            }
            KernelReason::CpuNoMicro(m) => format!(
                "the innermost dim moves, but on a CPU device tiling through workgroup memory does not pay and micro-tiles do not fit: {}",
                m.why()
            ),
            KernelReason::GpuTiled => format!(
                "the innermost dim moves and both tile sides are at least {MIN_TILED_EXTENT}: tiles through workgroup memory, reads and writes coalesced"
            ),
            KernelReason::SmallTile { rows, cols } => format!(
                "the innermost dim moves, but a tile side is below {MIN_TILED_EXTENT} ({rows} x {cols} units), so most of a tile would idle"
            ),
            KernelReason::GpuNoTiled(m) => {
                format!("the innermost dim moves, but the tiled kernel does not fit: {}", m.why())
            }
        }
    }
}

impl Plan {
    /// The plan's decisions, one sentence each, as recorded by the planner
    /// (`wgpu-permute plan` prints them).
    pub fn explain(&self) -> Vec<String> {
        let n: u64 = self.shape.iter().map(|&d| d as u64).product();
        let mut why = vec![format!(
            "{n} elements of {} bytes: {} bytes read and {} written",
            self.elem_size,
            self.bytes,
            self.bytes_written()
        )];
        if let Some(c) = &self.conversion {
            why.push(match c.affine() {
                Some(a) => format!(
                    "converted from {} to {} in one pass, with y = x * scale + bias in f32 ({} value(s), over output axis {})",
                    c.from().name(),
                    c.to().name(),
                    a.scale.len(),
                    a.axis
                ),
                None => format!(
                    "converted from {} to {} in one pass",
                    c.from().name(),
                    c.to().name()
                ),
            });
        }
        if self.kernel == Kernel::Empty {
            why.push(format!("kernel empty: {}", self.reasons.kernel.sentence()));
            return why;
        }
        let original: Vec<u64> = self.shape.iter().map(|&d| d as u64).collect();
        let (dims, perm) = simplify(&original, &self.perm);
        why.push(if dims == original {
            "no size-1 dims and no dims that move together: nothing to simplify".into()
        } else {
            format!(
                "dropping size-1 dims and merging dims that move together gives dims {dims:?}, perm {perm:?}"
            )
        });
        let elem = self.elem_size as u32;
        why.push(if self.unit > elem {
            format!(
                "the innermost dim stays innermost: its rows move in {}-byte units (the widest that divides the row and both offsets)",
                self.unit
            )
        } else if self.unit < elem {
            format!(
                "the offsets allow only {}-byte units: each {elem}-byte element moves as {} units",
                self.unit,
                elem / self.unit
            )
        } else {
            format!("elements move whole, {} bytes at a time", self.unit)
        });
        if self.pack() > 1 {
            why.push(format!(
                "{}-bit data is packed {} to a 32-bit word; each thread owns whole output words (no SHADER_F16 needed)",
                8 * self.unit,
                self.pack()
            ));
        }
        if self.dims != dims {
            why.push(format!(
                "in units: dims {:?}, perm {:?}",
                self.dims, self.dims_perm
            ));
        }
        if self.kernel != Kernel::Copy {
            why.push(
                match self.reasons.index {
                    IndexReason::Forced => "index math forced by the request's options",
                    IndexReason::Fits32 => "every offset fits in 32 bits: u32 index math",
                    IndexReason::Native64 => {
                        "offsets exceed 32 bits: native u64 index math (SHADER_INT64)"
                    }
                    IndexReason::Pair64 => {
                        "offsets exceed 32 bits and the device lacks SHADER_INT64: 64-bit math on u32 pairs"
                    }
                }
                .into(),
            );
        }
        if let Some((rows, bytes)) = self.copied_rows() {
            why.push(format!(
                "each output row moves as a buffer copy ({rows} copies of {bytes} bytes) where the source allows COPY_SRC and the destination COPY_DST (chosen on CPU devices, where a buffer copy runs at memory-copy speed, past binding windows too, for rows of {} bytes or more, whose copies, recorded one by one, still beat the kernel on the wall clock; else forced); on other buffers the kernel below runs",
                super::tuning::ROW_COPY_MIN_BYTES
            ));
        }
        why.push(format!(
            "kernel {}: {}",
            self.kernel.name(),
            self.reasons.kernel.sentence()
        ));
        match &self.reasons.tuning {
            Tuning::Off | Tuning::Winner => {}
            Tuning::Pending(kernels) => why.push(format!(
                "autotuning will time {}{}{} before the first run of this shape class",
                kernels
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                match self.pending_parts() {
                    true => ", and the plan in parts (body micro, edges generic)",
                    false => "",
                },
                match kernels.contains(&Kernel::Micro) {
                    true => " (micro in both orders where column runs apply: on CPU devices)",
                    false => "",
                }
            )),
            Tuning::WinnerMisfits(k) => why.push(format!(
                "autotuning's winner for this shape class, {}, cannot run this shape",
                k.name()
            )),
            Tuning::Parts => why.push(
                "autotuning found this shape class fastest as the heuristic plans it, odd sides in parts (body micro, edges generic)"
                    .into(),
            ),
            Tuning::Failed(e) => why.push(format!(
                "timing this shape class failed earlier ({e}); the heuristic decides"
            )),
        }
        match &self.reasons.model {
            Modelling::Off => {}
            Modelling::Pending(kernels) => why.push(format!(
                "the memory model will trace {} before the first run of this shape",
                kernels
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Modelling::Figures(figures) => {
                for f in figures {
                    why.push(format!("modelled: {}", f.sentence()));
                }
            }
            Modelling::Failed => {
                why.push("tracing this shape failed earlier; the heuristic decides".into())
            }
            Modelling::BudgetSpent => why.push(format!(
                "this permuter has modelled its most shapes ({MAX_MODELLED}); the heuristic decides"
            )),
        }
        if let Some((b, r, c)) = self.batch_rows_cols() {
            match self.kernel {
                Kernel::Tiled if self.conversion.is_some() => {
                    if let Ok(strip) = super::tiled_strip(self) {
                        let (n, how) = match strip {
                            Strip::Cols(n) => (n, "interleaved source to planes"),
                            Strip::Rows(n) => (n, "planes to an interleaved destination"),
                        };
                        why.push(format!(
                            "strips of {} quads ({how}, {n} channels): each invocation moves 4 neighbouring pixels of every channel, one access per plane, the interleaved side's whole words staged in workgroup memory and moved in order, {b} batches",
                            super::tuning::TILED_STRIP_WORKGROUP
                        ));
                    }
                }
                Kernel::Tiled => {
                    let tile = self.tile.unwrap_or(Tile::for_unit(self.unit));
                    why.push(format!(
                        "{0}x{0} tiles over the input's innermost dim ({c}) and the dim that becomes the output's innermost ({r}), {b} tiles' worth of batch",
                        tile.extent()
                    ));
                }
                Kernel::Micro => {
                    if let Ok(block) = super::select::micro_block(self) {
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
                            (None, _) => {
                                "as 32-bit words (rows or offsets not in whole 16 bytes)".into()
                            }
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
                        let short = super::runs::short_rows_run(self, &block);
                        if !block.column_runs && short == Some(run) {
                            why.push(format!(
                                "input rows of at most {MICRO_SHORT_ROW_BYTES} bytes: runs of {run} rather than {}, so that a SIMD group's {LANE_GROUP} runs stay in one column of blocks (a CPU device)",
                                super::runs::usual_run(r / rows as u64)
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
                    }
                }
                _ => {}
            }
        }
        if self.cpu.wide_stores {
            why.push("each run's units are written 16 bytes at a time, gathered into one store: a CPU device pays per access".into());
        }
        if self.quads {
            why.push(format!(
                "the innermost dim stays: each item converts 4 consecutive elements, one {}-byte source access and one {}-byte destination access",
                4 * self.unit,
                4 * self.dst_unit()
            ));
        }
        if self.view.as_ref().is_some_and(|v| v.reversed) {
            why.push(format!(
                "the innermost dim is reversed in the source: it moves in {} B units, read whole, whose {} B elements the kernel puts back in order",
                self.unit, self.elem_size
            ));
        }
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
        if let Some(reason) = self.reasons.specialize {
            let kib = SPECIALIZE_MIN_BYTES >> 10;
            why.push(match (self.specialized, reason) {
                (true, SpecializeReason::Compiled) => "dims and strides are compiled into the pipeline (this shape has a pipeline of its own already)".into(),
                (true, _) => format!(
                    "dims and strides are compiled into the pipeline (the tensor is at least {kib} KiB{}), so its divisions become multiplies and shifts",
                    if reason == SpecializeReason::Forced { ", or forced" } else { "" }
                ),
                (false, SpecializeReason::Forced) => "dims and strides are uniforms (forced)".into(),
                (false, SpecializeReason::Small) => format!(
                    "dims and strides are uniforms: below {kib} KiB a compile per shape would not pay back"
                ),
                (false, SpecializeReason::Unpaid) => format!(
                    "dims and strides are uniforms until this shape has moved {} MiB: a compile per shape pays back only for shapes that recur",
                    SPECIALIZE_PAYBACK_BYTES >> 20
                ),
                (false, SpecializeReason::BudgetSpent) => "dims and strides are uniforms: this permuter has compiled its most shape-specialised pipelines".into(),
                (false, _) => "dims and strides are uniforms: only 32-bit generic permutes and views that gather into a whole output, lane-major strips and square micro blocks of plain permutes, in one binding or in boxes of one shape (micro blocks, walks in tiles, and generic boxes that are contiguous in the output), are compiled per shape".into(),
            });
        }
        match self.chunks.as_slice() {
            [] => {}
            [chunk] => why.push(format!(
                "{} workgroups, dispatched as {}x{}x{}",
                chunk.total_workgroups,
                chunk.workgroups[0],
                chunk.workgroups[1],
                chunk.workgroups[2]
            )),
            chunks => why.push(format!(
                "{} dispatches over windows of the buffers, {} workgroups in all",
                chunks.len(),
                self.total_workgroups()
            )),
        }
        why
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shape {:?} perm {:?} ({} B elements, {} B) -> dims {:?} perm {:?} in {} B units; kernel {}",
            self.shape,
            self.perm,
            self.elem_size,
            self.bytes,
            self.dims,
            self.dims_perm,
            self.unit,
            self.kernel.name()
        )?;
        if let Some((rows, bytes)) = self.copied_rows() {
            write!(
                f,
                " (or {rows} buffer copies of {bytes} B where the buffers allow)"
            )?;
        }
        if self.specialized {
            write!(f, " (compiled for this shape)")?;
        }
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
        if self.quads {
            write!(f, " (quads)")?;
        }
        if self.view.as_ref().is_some_and(|v| v.reversed) {
            write!(f, " (units reversed)")?;
        }
        if let Some(tile) = self.tile {
            write!(
                f,
                " ({}x{} tile, {}x{} threads, {} per word)",
                tile.extent(),
                tile.extent(),
                tile.words,
                tile.rows,
                tile.pack
            )?;
        }
        match self.chunks.as_slice() {
            [] => {}
            [chunk] => write!(
                f,
                ", index {}, {} workgroups as {}x{}x{}",
                self.index.name(),
                chunk.total_workgroups,
                chunk.workgroups[0],
                chunk.workgroups[1],
                chunk.workgroups[2]
            )?,
            chunks => write!(
                f,
                ", index {}, {} dispatches over binding windows, {} workgroups",
                self.index.name(),
                chunks.len(),
                self.total_workgroups()
            )?,
        }
        write!(f, "; because {}", self.reasons.kernel.sentence())
    }
}

impl Figures {
    /// The figures as a phrase: `tiled: loads 1.00, stores 1.00 of their sectors, 1-way bank
    /// access; 1.00x a copy`.
    pub fn sentence(&self) -> String {
        let banks = match self.kernel {
            Kernel::Tiled => format!("{}-way bank access", self.bank_conflict_ways),
            _ => "no workgroup memory".into(),
        };
        format!(
            "{}: loads {:.2}, stores {:.2} of their sectors, {banks}; {:.2}x a copy",
            self.kernel.name(),
            self.load_efficiency,
            self.store_efficiency,
            self.ratio_to_copy()
        )
    }
}
