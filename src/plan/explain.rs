//! Plans for people: [`Plan::explain`] prints the reasons the planner recorded, one
//! sentence per decision, and `Display` prints the plan on one line. Nothing here decides.

use std::fmt;

use super::{
    Figures, IndexReason, Kernel, KernelReason, MAX_MODELLED, MIN_TILED_EXTENT, Modelling, Plan,
    SPECIALIZE_MIN_BYTES, SPECIALIZE_PAYBACK_BYTES, SpecializeReason, Strip, Tile, Tuning,
    simplify,
};

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
        why.extend(self.row_copy_sentence());
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
                Kernel::Micro => why.extend(self.micro_sentences(b, r, c)),
                _ => {}
            }
        }
        why.extend(self.store_sentences());
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
        why.extend(self.run_sentences());
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
        self.fmt_row_copies(f)?;
        if self.specialized {
            write!(f, " (compiled for this shape)")?;
        }
        self.fmt_cpu(f)?;
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
