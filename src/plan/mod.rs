//! Planning: turns a request (shape, permutation, element size, offsets) and what is known
//! of the device into a [`Plan`]: simplified dims, movement size, index width, kernel,
//! dispatch geometry, and the reason for each choice. Pure: no wgpu types, so every rule is
//! unit-testable without a GPU.
//!
//! The flow: `simplify` (validation, size-1 dims, merging, movement size), `select`
//! (index width, kernel, shape specialisation, each with its reason), `windows` (binding
//! windows and grid folding), `explain` (prints what was recorded).

mod channels;
#[doc(hidden)]
pub mod cpu;
mod explain;
mod geometry;
#[doc(hidden)]
pub mod lower;
mod operation;
pub(crate) use operation::PartRequest;
mod planned;
mod reasons;
mod select;
mod simplify;
mod specialize;
mod strips;
#[cfg(test)]
mod tests;
#[doc(hidden)]
pub mod tuning;
mod variant;
mod view_plan;
mod windows;

pub use crate::options::{IndexMath, Kernel, Options};
pub use planned::Plan;
pub use reasons::KernelReason;

// The planner's internals, for this crate's tests and tools. Not API.
#[doc(hidden)]
pub use crate::view::{Bound, ELEM_SIZES, MAX_BOUNDS, MAX_RANK, View, check_perm, element_count};
#[doc(hidden)]
pub use channels::Channels;
pub(crate) use cpu::prefers_access64;
#[doc(hidden)]
pub use cpu::{
    edge_parts, flat_blocks, flat_box_blocks, flat_pairs, flat_planned, flat_tail, micro_block,
    with_edges,
};
#[doc(hidden)]
pub use geometry::*;
#[doc(hidden)]
pub use planned::*;
#[doc(hidden)]
pub use reasons::{
    Figures, IndexReason, Learned, Measured, Misfit, Modelling, OrderReason, Reasons, ShapeKey,
    SpecializeReason, Tuning, ViewKey,
};
#[doc(hidden)]
pub use select::modelled_best;
pub(crate) use simplify::{movement_unit, pack_of, simplify};
pub(crate) use specialize::race_specialize;
pub(crate) use strips::tiled_strip;
use tuning::*;
#[doc(hidden)]
pub use variant::*;
#[doc(hidden)]
pub use view_plan::*;
#[doc(hidden)]
pub use windows::fold_grid;

use crate::PermuteError;
use crate::convert::Conversion;
use crate::relayout::Relayout;

/// What the planner needs to know about a device. Built from wgpu limits and features by
/// the `gpu` module; [`Default`] gives the WebGPU defaults, the weakest common device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceCaps {
    /// `max_compute_workgroups_per_dimension`: larger dispatches fold into 2-D/3-D grids.
    pub max_workgroups_per_dim: u32,
    /// `max_compute_workgroup_storage_size`, in bytes: bounds the tiled kernel's tile.
    pub max_workgroup_storage: u32,
    /// `max_compute_invocations_per_workgroup`: bounds the tiled kernel's threads.
    pub max_invocations: u32,
    /// `max_storage_buffer_binding_size`, in bytes: larger tensors split into windows.
    pub max_storage_binding: u64,
    /// `min_storage_buffer_offset_alignment`: where a binding window may start.
    pub storage_offset_alignment: u32,
    /// The device supports native 64-bit integers in shaders.
    pub int64: bool,
    /// The device is a CPU (lavapipe, SwiftShader, WARP); see `prefer_micro`.
    pub cpu: bool,
    /// Moving data as 64-bit components was measured faster than as 32-bit ones on this
    /// (CPU) device. Which is faster depends on the host CPU, not on anything the device
    /// reports, so a `Permuter` on a CPU device with `SHADER_INT64` times a copy both ways
    /// (once per adapter and process); [`crate::caps_of`] leaves it false.
    pub access64_faster: bool,
}

impl DeviceCaps {
    /// Whether the device is in the CPU-adapter family ([`cpu`]): the one place the planner
    /// asks. Errs towards the GPU path on any device not known to be a CPU, whose kernels
    /// were built for GPUs (`cpu` comes from the adapter's reported type).
    pub(crate) fn cpu_family(&self) -> bool {
        self.cpu
    }

    /// The WebGPU profile: WebGPU's default limits (what a browser page gets without asking
    /// for more: 128 MiB per storage binding, 256 invocations, 16 KiB of workgroup storage,
    /// 65,535 workgroups per dimension, 256-byte offset alignment) and no optional feature
    /// (no `SHADER_INT64`; `SHADER_F16` is never needed). A plan for it runs on any WebGPU
    /// device, so it is what recorded work for browsers is planned for.
    pub const fn webgpu() -> Self {
        DeviceCaps {
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 16384,
            max_invocations: 256,
            max_storage_binding: 128 << 20,
            storage_offset_alignment: 256,
            int64: false,
            cpu: false,
            access64_faster: false,
        }
    }
}

impl Default for DeviceCaps {
    /// [`DeviceCaps::webgpu`], the weakest common device.
    fn default() -> Self {
        DeviceCaps::webgpu()
    }
}

#[doc(hidden)]
/// A permute request: contiguous row-major tensors, output dim `i` is input dim `perm[i]`.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// Input shape, outermost dim first.
    pub shape: &'a [usize],
    /// Output dim `i` is input dim `perm[i]` (numpy's and PyTorch's convention).
    pub perm: &'a [usize],
    /// Bytes per element: 1, 2, 4, 8 or 16.
    pub elem_size: usize,
    /// Byte offset of the tensor in the source buffer (multiple of 4).
    pub src_offset: u64,
    /// Byte offset of the tensor in the destination buffer (multiple of 4).
    pub dst_offset: u64,
    /// Choices forced instead of the heuristics.
    pub options: Options,
    /// Elements converted on the way (`elem_size` is the source type's).
    pub conversion: Option<&'a Conversion>,
}

impl<'a> Request<'a> {
    /// A request at offset 0 of both buffers, with nothing forced.
    pub fn new(shape: &'a [usize], perm: &'a [usize], elem_size: usize) -> Self {
        Request {
            shape,
            perm,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            options: Options::default(),
            conversion: None,
        }
    }

    /// The same request at these byte offsets (multiples of 4) in the two buffers.
    pub fn with_offsets(self, src_offset: u64, dst_offset: u64) -> Self {
        Request {
            src_offset,
            dst_offset,
            ..self
        }
    }

    /// The same request with these choices forced.
    pub fn with_options(self, options: Options) -> Self {
        Request { options, ..self }
    }
}

#[doc(hidden)]
/// Plans every part of `op` for a device with `caps` and what has been learnt of it: the
/// one way into the planner (for [`Relayout::plan`], a permuter's `prepare`, `record` and
/// `run`, and `diagnostics::plan`). A permute is planned as the permute it is; every other
/// part as its view, from its first destination element on (a view that is a permute
/// plans as that permute). A plan may run in parts (`cpu::with_edges`: odd sides' edges,
/// a flat strip's tail); a plan with first-use work pending (kernels to time or trace) is
/// returned alone, whole, for the permuter to do that work and plan again.
pub(crate) fn plan_op(
    op: &Relayout,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Vec<Plan>, PermuteError> {
    let mut plans = Vec::new();
    for req in op.requests()? {
        let (plan, options) = match req {
            PartRequest::Permute(req) => (plan_with(&req, caps, learned)?, req.options),
            PartRequest::View(req) => (plan_view(&req, caps, learned)?, req.options),
        };
        match plan.pending_first_use() {
            true => plans.push(plan),
            false => plans.extend(cpu::with_edges(plan, options, caps, learned)?),
        }
    }
    Ok(plans)
}

/// Plans a permute for a device, with nothing learnt at run time (see [`plan_with`]).
pub fn plan(req: &Request, caps: &DeviceCaps) -> Result<Plan, PermuteError> {
    plan_with(req, caps, &Learned::default())
}

#[doc(hidden)]
/// Plans a permute for a device and what has been learnt of it while running (autotuning
/// winners, shapes with their own pipelines). Validates the request; forced options that
/// cannot apply (see [`Request::options`]) return [`PermuteError::ForcedChoice`].
pub fn plan_with(
    req: &Request,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Plan, PermuteError> {
    let opts = &req.options;
    let rank = req.shape.len();
    if rank > MAX_RANK {
        return Err(PermuteError::RankTooLarge {
            rank,
            max: MAX_RANK,
        });
    }
    check_perm(rank, req.perm)?;
    if !ELEM_SIZES.contains(&req.elem_size) {
        return Err(PermuteError::ElemSize(req.elem_size));
    }
    for (which, offset) in [("source", req.src_offset), ("destination", req.dst_offset)] {
        if offset % 4 != 0 {
            return Err(PermuteError::UnalignedOffset { which, offset });
        }
    }
    let n = element_count(req.shape)? as u64;
    let bytes = n
        .checked_mul(req.elem_size as u64)
        .ok_or(PermuteError::SizeOverflow)?;
    for offset in [req.src_offset, req.dst_offset] {
        offset
            .checked_add(bytes)
            .and_then(|end| end.checked_add(4))
            .ok_or(PermuteError::SizeOverflow)?;
    }

    if let Some(c) = req.conversion
        && c.from().size() != req.elem_size
    {
        return Err(PermuteError::InvalidConversion(format!(
            "the source type {} has {} bytes but the elements have {}",
            c.from().name(),
            c.from().size(),
            req.elem_size
        )));
    }
    let mut plan = Plan {
        conversion: req.conversion.cloned(),
        shape: req.shape.to_vec(),
        perm: req.perm.to_vec(),
        elem_size: req.elem_size,
        src_offset: req.src_offset,
        dst_offset: req.dst_offset,
        dims: req.shape.iter().map(|&d| d as u64).collect(),
        dims_perm: req.perm.to_vec(),
        unit: req.elem_size as u32,
        kernel: Kernel::Empty,
        index: IndexMath::U32,
        bytes,
        chunks: Vec::new(),
        tile: None,
        specialized: false,
        quads: false,
        cpu: CpuChoices::default(),
        plain_boxes: false,
        view: None,
        reasons: Reasons::empty(),
    };
    if n == 0 {
        return Ok(plan);
    }

    if plan.conversion.is_some() {
        // Element by element: the two sides' elements differ in size.
        let shape: Vec<u64> = req.shape.iter().map(|&d| d as u64).collect();
        (plan.dims, plan.dims_perm) = simplify(&shape, req.perm);
        (plan.index, plan.reasons.index) = select::choose_index(&plan, caps, opts)?;
        (plan.kernel, plan.reasons.kernel) =
            select::choose_convert_kernel(&plan, caps, opts, binding_limit(caps, opts))?;
        return finish(plan, caps, opts, learned);
    }
    let (dims, dims_perm, unit) = simplify::in_units(
        req.shape,
        req.perm,
        req.elem_size,
        req.src_offset,
        req.dst_offset,
    );
    plan.dims = dims;
    plan.dims_perm = dims_perm;
    plan.unit = unit;

    (plan.index, plan.reasons.index) = select::choose_index(&plan, caps, opts)?;
    let limit = binding_limit(caps, opts);
    let (kernel, reason, tuning, model) = select::choose_kernel(&plan, caps, opts, learned, limit)?;
    plan.kernel = kernel;
    plan.reasons.kernel = reason;
    plan.reasons.tuning = tuning;
    plan.reasons.model = model;
    if plan.kernel == Kernel::Copy {
        return Ok(plan);
    }
    finish(plan, caps, opts, learned)
}

/// The largest window of a buffer one binding may take.
fn binding_limit(caps: &DeviceCaps, opts: &Options) -> u64 {
    caps.max_storage_binding
        .min(opts.binding_limit.unwrap_or(u64::MAX))
        .min(MAX_WINDOW_BYTES)
}

/// What every plan of a shader kernel does once the kernel is chosen, permutes and views
/// alike: the chunks (one, or boxes over binding windows) and shape specialisation, with
/// the CPU-adapter family's choices before the windows are cut (runs, walks, batch tiles,
/// column runs: they set the boxes' grain) and after (wide stores, the walk, 64-bit
/// accesses, row copies); see [`cpu`].
fn finish(
    mut plan: Plan,
    caps: &DeviceCaps,
    opts: &Options,
    learned: &Learned,
) -> Result<Plan, PermuteError> {
    let limit = binding_limit(caps, opts);
    let one_binding = plan.src_extent() <= limit && plan.dst_extent() <= limit;
    let converting = plan.conversion.is_some();
    // A padded view splits into boxes of whole words of its output rows: packed rows must
    // be whole words; a conversion's padded or strided output stays in one box (its
    // windows may start anywhere: a flat strip's tail at the end of a large buffer).
    let inner = plan.dims_perm.last().map_or(1, |&d| plan.dims[d]);
    let whole_words = inner.is_multiple_of(plan.pack() as u64);
    let one_box = !one_binding
        && plan.kernel == Kernel::Generic
        && plan.generic_padded()
        && (converting || !whole_words);
    if plan.kernel == Kernel::Tiled && !converting {
        plan.tile = Some(Tile::for_unit(plan.unit));
    }
    plan.quads = select::choose_quads(&plan, one_binding);
    cpu::before_windows(&mut plan, caps, opts, learned, limit)?;
    if one_binding {
        let total = plan.whole_workgroups();
        plan.chunks = vec![Chunk {
            lo: vec![0; plan.dims.len()],
            hi: plan.dims.clone(),
            src_window: (0, plan.src_extent()),
            dst_window: (0, plan.dst_extent()),
            total_workgroups: total,
            workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
        }];
    } else {
        // Boxes of whole runs or tiles may need more windows than units would: then the
        // units move one by one.
        plan.chunks = match windows::split_into_chunks(&plan, caps, limit) {
            Err(_) if plan.kernel == Kernel::Generic && plan.cpu.runs => {
                (plan.cpu.runs, plan.cpu.walk_tiles) = (false, None);
                windows::split_into_chunks(&plan, caps, limit)?
            }
            chunks => chunks?,
        };
        if one_box && plan.chunks.len() > 1 {
            return Err(PermuteError::DeviceLimit {
                what: "a padded view of packed rows that are not whole words, or a padded or strided output of converted elements, larger than one binding window (these are not split into binding windows yet)",
                limit: "max_storage_buffer_binding_size",
                need: plan.src_extent().max(plan.dst_extent()),
                have: limit,
            });
        }
        // One box is the whole tensor: it runs as in one binding (only its windows move), so
        // it takes that many workgroups (a padded box counts its source units, not the
        // destination words one binding walks).
        let total = plan.whole_workgroups();
        if let [chunk] = plan.chunks.as_mut_slice() {
            chunk.total_workgroups = total;
            chunk.workgroups = fold_grid(total, caps.max_workgroups_per_dim)?;
        }
        plan.plain_boxes = windows::plain_boxes(&plan);
    }
    if let Some((on, why)) = specialize::choose_specialize(&plan, opts, learned) {
        plan.specialized = on;
        plan.reasons.specialize = Some(why);
    }
    cpu::after_windows(&mut plan, caps, opts, limit)?;
    Ok(plan)
}
