//! The CPU-adapter family: how the kernels run where a CPU runs the shaders (lavapipe,
//! SwiftShader, WARP). A CPU executes a SIMD group's lanes one access at a time and pays
//! for each decode, so here invocations move runs of neighbours (the generic kernel's runs,
//! walked in tiles, stacked, or scattering), register blocks replace workgroup-memory tiles
//! (the micro kernel: square blocks, strips of a short dim, flat strips, column runs, bands,
//! batch tiles), odd sides run in parts, long rows move as buffer copies, and 8/16-byte
//! data moves as 64-bit components where that was measured faster. Everything here was
//! fitted by measuring lavapipe; none of it is a GPU's choice, and the GPU path
//! (`plan/*.rs` outside this folder) reads only whether a device is in this family
//! (`family`) and the plan's [`CpuChoices`].

mod batch_order;
mod block;
mod column_runs;
mod edges;
mod explain;
mod flat;
mod micro;
mod row_copies;
mod runs;
#[doc(hidden)]
pub mod tuning;
mod walk;
mod windows;

pub(in crate::plan) use column_runs::choose as choose_column_runs;
pub use edges::{edge_parts, with_edges};
pub(crate) use flat::flat_box_images;
pub use flat::{flat_blocks, flat_box_blocks, flat_pairs, flat_planned, flat_strip, flat_tail};
pub use micro::micro_block;
pub(in crate::plan) use micro::micro_fits;
pub(in crate::plan) use row_copies::choose as choose_row_copies;
pub(in crate::plan) use runs::{short_rows_run, usual_run};
pub(in crate::plan) use walk::{
    choose_scatter, choose_walk_tiles, narrow_tiles, transpose_walks_tiles,
};

use super::{
    BatchTiles, CpuChoices, DeviceCaps, IndexMath, Kernel, KernelReason, Learned, Options, Plan,
    fold_grid, select,
};
use crate::PermuteError;

/// The kernel of a plan whose innermost dim moves, on a device of this family, where
/// nothing was measured or modelled: the generic kernel's runs walking in tiles for a
/// transpose of 16-byte units ([`transpose_walks_tiles`]), else micro blocks where they fit.
impl Plan {
    pub(in crate::plan) fn cpu_kernel(
        &self,
        caps: &DeviceCaps,
        opts: &Options,
        limit: u64,
    ) -> (Kernel, KernelReason) {
        if transpose_walks_tiles(self, caps, opts, limit) {
            (Kernel::Generic, KernelReason::CpuWalkTiles)
        } else {
            match micro_fits(self, caps, limit) {
                Ok(()) => (Kernel::Micro, KernelReason::CpuMicro),
                Err(m) => (Kernel::Generic, KernelReason::CpuNoMicro(m)),
            }
        }
    }
}

/// The family's choices that set the grain of a plan's boxes over binding windows, made
/// before they are cut: runs (past one binding, where a box of whole runs fits), a walk in
/// tiles past one binding (of narrower tiles where wide ones do not fit a window), batch
/// tiles and column runs (in one binding).
pub(super) fn before_windows(
    plan: &mut Plan,
    caps: &DeviceCaps,
    opts: &Options,
    learned: &Learned,
    limit: u64,
) -> Result<(), PermuteError> {
    let one_binding = plan.src_extent() <= limit && plan.dst_extent() <= limit;
    let converting = plan.conversion.is_some();
    plan.cpu.runs = choose_runs(plan, caps, one_binding);
    // Past one binding the generic kernel's boxes hold whole runs (`windows::Cut`): where
    // one such box would not fit a window, its units move one by one. A walk in tiles is
    // chosen before the windows there, so that they cut whole tiles, where those fit.
    let fits = |plan: &Plan| select::windows_fit(plan, Kernel::Generic, caps, limit).is_ok();
    if !one_binding && !converting {
        if plan.cpu.runs && plan.kernel == Kernel::Generic {
            plan.cpu.runs = fits(plan);
        }
        plan.cpu.walk_tiles = choose_walk_tiles(plan, opts, false)?;
        if plan.cpu.walk_tiles.is_some() && !fits(plan) {
            plan.cpu.walk_tiles = narrow_tiles(plan);
        }
        if plan.cpu.walk_tiles.is_some() && !fits(plan) {
            if opts.walk_tiles == Some(true) {
                return Err(PermuteError::ForcedChoice {
                    what: "a walk in tiles",
                    why: "its boxes over binding windows hold whole tiles, and one does not fit a window",
                });
            }
            plan.cpu.walk_tiles = None;
        }
    }
    if one_binding && let Some(tiles) = BatchTiles::choose(plan) {
        tiles.split(plan);
    }
    // Before the windows: a box's grain follows the direction of the runs.
    choose_column_runs(plan, caps, opts, learned, limit)
}

/// The family's choices made once the windows are cut and the shape specialised: wide
/// stores, a walk in tiles in one binding, else a scatter, 64-bit accesses and row copies.
pub(super) fn after_windows(
    plan: &mut Plan,
    caps: &DeviceCaps,
    opts: &Options,
    limit: u64,
) -> Result<(), PermuteError> {
    let one_binding = plan.src_extent() <= limit && plan.dst_extent() <= limit;
    if plan.conversion.is_some() {
        plan.cpu.scatter = choose_scatter(plan, opts)?;
    } else {
        plan.cpu.wide_stores = choose_wide_stores(plan, opts)?;
        if one_binding {
            plan.cpu.walk_tiles = choose_walk_tiles(plan, opts, true)?;
        }
        plan.cpu.scatter = plan.cpu.walk_tiles.is_none() && choose_scatter(plan, opts)?;
    }
    plan.cpu.access64 = choose_access64(plan, caps, opts)?;
    // Never for a conversion (a copy cannot convert): refused where forced.
    plan.cpu.row_copies = choose_row_copies(plan, caps, opts)?;
    // Last: the block follows the runs, their order and the access width.
    plan.cpu.block = match plan.kernel {
        Kernel::Micro => micro_block(plan).ok(),
        _ => None,
    };
    Ok(())
}

/// Whether invocations move runs of neighbours, on CPU devices only: the micro kernel's
/// blocks along the output's rows (on GPUs they would spread neighbouring lanes'
/// accesses), and the generic kernel's consecutive output units, for a tensor in one
/// binding (or, of unpacked units unconverted, in boxes over binding windows) written
/// contiguously (no bounds or destination strides) with 32-bit index math, whose innermost
/// output dim is whole runs of `GENERIC_RUN`, so that a run never leaves its output row
/// and its source offsets step by one stride; or, in one binding, whose rows stack
/// ([`Plan::rows_stack`]), whatever their length: a stack's run steps down its column
/// ([`Plan::stacked_runs`], the only order such rows take). A CPU adapter gains nothing
/// from spacing a thread's items a workgroup apart (its lanes access memory one at a time)
/// and pays for each decode; on GPUs the spaced items are what coalesces.
pub fn choose_runs(plan: &Plan, caps: &DeviceCaps, one_binding: bool) -> bool {
    if plan.kernel == Kernel::Micro {
        return caps.cpu_family();
    }
    let whole = plan
        .view
        .as_ref()
        .is_none_or(|v| v.bounds.is_empty() && v.dst_contiguous);
    // Past one binding, runs go through boxes (`GenericLayout::Boxed`: each run's first
    // unit decodes both offsets), of unpacked, unconverted units.
    let boxes = plan.pack() == 1 && plan.conversion.is_none();
    // Converting runs fill whole destination words (a run's length is a multiple of any
    // packing); other runs move unpacked units; runs of quads, quads.
    caps.cpu_family()
        && plan.kernel == Kernel::Generic
        && plan.index == IndexMath::U32
        && (one_binding || boxes)
        && (plan.pack() == 1 || plan.conversion.is_some())
        && whole
        && (plan.rows_hold_whole_runs()
            || (one_binding && plan.conversion.is_none() && plan.rows_stack()))
}

/// Whether the generic kernel's runs write 16 bytes at a time: runs of 4 or 8-byte units
/// into a destination that starts on 16 bytes (a run of `GENERIC_RUN` units starts on
/// whole 32 bytes of it). A CPU adapter loops over its lanes once per access whatever the
/// access's width, so one store of four words costs what one word did.
pub fn choose_wide_stores(plan: &Plan, opts: &Options) -> Result<bool, PermuteError> {
    let applies = plan.cpu.runs
        && plan.kernel == Kernel::Generic
        && matches!(plan.unit, 4 | 8)
        && plan.dst_offset.is_multiple_of(16)
        && plan.rows_hold_whole_runs()
        && !plan.boxed()
        && plan.cpu.walk_tiles.is_none();
    match opts.wide_stores {
        Some(true) if !applies => Err(PermuteError::ForcedChoice {
            what: "wide stores",
            why: "they write the generic kernel's runs (CPU devices) of 4/8-byte units into a destination that starts on 16 bytes",
        }),
        Some(on) => Ok(on),
        // A forced scatter walks the source: its runs have no output words to gather.
        None => Ok(applies && opts.scatter != Some(true)),
    }
}

/// Whether to access storage as 64-bit components: where the units are 8 or 16 bytes, the
/// stores wide or a conversion's quads 8 or 16 bytes on a side (the generic kernel), or the
/// micro kernel's block rows are 16-byte accesses, with 32-bit index math, on CPU devices
/// with `SHADER_INT64`. lavapipe loads and stores each component of an access in a loop
/// over its SIMD lanes, so a `vec2<u64>` costs about half a `vec4<u32>`: a shader copy
/// moved 64 MiB in 38.5 ms instead of 64 ms. GPUs keep 32-bit components.
pub fn choose_access64(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
) -> Result<bool, PermuteError> {
    let applies = plan.index == IndexMath::U32
        && match plan.kernel {
            Kernel::Generic => {
                plan.unit >= 8
                    || plan.cpu.wide_stores
                    || (plan.quads && plan.unit.max(plan.dst_unit()) >= 2)
            }
            Kernel::Micro => micro_block(plan).is_ok_and(|b| b.access_bytes == 16),
            _ => false,
        };
    let refuse = |why| PermuteError::ForcedChoice {
        what: "64-bit accesses",
        why,
    };
    match opts.access64 {
        Some(true) if !caps.int64 => Err(refuse("the device lacks SHADER_INT64")),
        Some(true) if !applies => Err(refuse(
            "they move the generic kernel's 8/16-byte units, a conversion's quads of 8 or 16 bytes and wide micro blocks, with 32-bit index math",
        )),
        Some(on) => Ok(on),
        None => Ok(applies && prefers_access64(caps)),
    }
}

/// Whether a device moves data fastest as 64-bit components: CPU devices with
/// `SHADER_INT64` where a copy was measured faster so (see [`choose_access64`] and
/// [`DeviceCaps::access64_faster`]). The bench's shader copy follows it too.
pub fn prefers_access64(caps: &DeviceCaps) -> bool {
    caps.cpu_family() && caps.int64 && caps.access64_faster
}

#[doc(hidden)]
impl Plan {
    /// This plan as a GPU runs it: without the CPU-device choices (runs, 64-bit accesses),
    /// its dispatch sized again for items a workgroup apart. What the GPU memory model
    /// traces.
    pub fn on_gpu(&self) -> Result<Plan, PermuteError> {
        let mut plan = Plan {
            cpu: CpuChoices::default(),
            // Constants of micro runs or of a box's walk (CPU devices) are not a GPU's.
            specialized: self.specialized
                && self.kernel != Kernel::Micro
                && !(self.cpu.walk_tiles.is_some() && self.boxed()),
            ..self.clone()
        };
        if let Some(t) = self.cpu.batch_tiles {
            // A GPU plans the permute unsplit (batch tiles run in one binding: one chunk).
            (plan.dims, plan.dims_perm) = t.merged(&self.dims, &self.dims_perm);
            for chunk in &mut plan.chunks {
                (chunk.lo, chunk.hi) = (vec![0; plan.dims.len()], plan.dims.clone());
            }
        }
        if self.cpu.runs {
            // Each box counts its own blocks, or (the generic kernel's runs: unpacked units)
            // its items a workgroup apart.
            let totals: Vec<u64> = plan
                .chunks
                .iter()
                .map(|chunk| {
                    let extents = chunk.extents();
                    match plan.kernel {
                        Kernel::Micro => plan.box_workgroups(&extents),
                        _ => plan.generic_box_workgroups(&extents),
                    }
                })
                .collect();
            for (chunk, total) in plan.chunks.iter_mut().zip(totals) {
                chunk.total_workgroups = total;
                chunk.workgroups = fold_grid(total, DeviceCaps::default().max_workgroups_per_dim)?;
            }
        }
        Ok(plan)
    }
}
