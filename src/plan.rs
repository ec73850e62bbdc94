//! Planning: turns a request (shape, permutation, element size, offsets) and a description of
//! the device into a [`Plan`]: simplified dims, movement size, index width, kernel, and
//! dispatch geometry. Pure: no wgpu types, so every rule here is unit-testable without a GPU.

use std::fmt;

use crate::PermuteError;

/// Highest rank accepted. The kernels are generated per rank; simplification usually brings
/// real tensors far below this.
pub const MAX_RANK: usize = 16;

/// Element sizes the kernels move, in bytes.
pub const ELEM_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

/// Threads per workgroup of the generic kernel.
pub const GENERIC_WORKGROUP: u32 = 256;

/// Output items (units, or packed words) each thread of the generic kernel writes. More items
/// per thread amortise the workgroup bookkeeping; 4 keeps enough threads for small tensors.
pub const GENERIC_ITEMS: u32 = 4;

/// Smallest row and column extent (in elements) for which the tiled batch transpose is chosen
/// automatically. Below it most of a tile is idle and the generic gather is as good; errs
/// towards the generic kernel for thin matrices, which on real GPUs may cost some bandwidth.
pub const MIN_TILED_EXTENT: u64 = 16;

/// Which kernel executes a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Nothing to move: the tensor has no elements.
    Empty,
    /// The permutation is the identity after simplification: a buffer-to-buffer copy.
    Copy,
    /// One thread per group of output items, gathering from the input (`shaders/generic.wgsl`).
    Generic,
    /// Workgroup-memory tiles over the input's and the output's innermost dims
    /// (`shaders/tiled.wgsl`).
    Tiled,
    /// 4x4 register micro-tiles over the same two dims, no workgroup memory
    /// (`shaders/micro.wgsl`).
    Micro,
}

impl Kernel {
    /// The kernel's name, the same in its shader file, its entry point and the tests.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Empty => "empty",
            Kernel::Copy => "copy",
            Kernel::Generic => "generic",
            Kernel::Tiled => "tiled",
            Kernel::Micro => "micro",
        }
    }
}

/// How the kernels do index arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexMath {
    /// 32-bit: every offset (in movement units) fits in `u32`. The fast path.
    U32,
    /// 64-bit with native `u64` (needs the `SHADER_INT64` feature).
    U64,
    /// 64-bit emulated with pairs of `u32`, for devices without `SHADER_INT64`.
    U32Pair,
}

impl IndexMath {
    /// Short name used in printed plans and pipeline labels.
    pub fn name(self) -> &'static str {
        match self {
            IndexMath::U32 => "u32",
            IndexMath::U64 => "u64",
            IndexMath::U32Pair => "u32-pair",
        }
    }
}

/// What the planner needs to know about a device. Built from wgpu limits and features by
/// the `gpu` module; [`Default`] gives the WebGPU defaults, the weakest common device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceCaps {
    pub max_workgroups_per_dim: u32,
    pub max_workgroup_storage: u32,
    pub max_invocations: u32,
    pub max_storage_binding: u64,
    /// `min_storage_buffer_offset_alignment`: where a binding window may start.
    pub storage_offset_alignment: u32,
    /// The device supports native 64-bit integers in shaders.
    pub int64: bool,
    /// The device is a CPU (lavapipe, SwiftShader, WARP); see [`prefer_tiled`].
    pub cpu: bool,
}

impl Default for DeviceCaps {
    fn default() -> Self {
        DeviceCaps {
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 16384,
            max_invocations: 256,
            max_storage_binding: 128 << 20,
            storage_offset_alignment: 256,
            int64: false,
            cpu: false,
        }
    }
}

/// Choices a caller may force instead of the heuristics: used by tests to run every shader
/// variant on small inputs, and by benchmarks to compare kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub kernel: Option<Kernel>,
    pub index: Option<IndexMath>,
    /// Split the work as if storage bindings held at most this many bytes (tests use it to
    /// run the windowed path on small tensors).
    pub binding_limit: Option<u64>,
    /// Force baking the shape into the generic kernel (on or off) instead of
    /// [`specialize_shape`]'s choice.
    pub specialize: Option<bool>,
}

/// A permute request: contiguous row-major tensors, output dim `i` is input dim `perm[i]`.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub shape: &'a [usize],
    pub perm: &'a [usize],
    pub elem_size: usize,
    /// Byte offset of the tensor in the source buffer (multiple of 4).
    pub src_offset: u64,
    /// Byte offset of the tensor in the destination buffer (multiple of 4).
    pub dst_offset: u64,
    /// Choices forced instead of the heuristics.
    pub options: Options,
}

impl<'a> Request<'a> {
    pub fn new(shape: &'a [usize], perm: &'a [usize], elem_size: usize) -> Self {
        Request {
            shape,
            perm,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            options: Options::default(),
        }
    }

    pub fn with_offsets(self, src_offset: u64, dst_offset: u64) -> Self {
        Request {
            src_offset,
            dst_offset,
            ..self
        }
    }

    pub fn with_options(self, options: Options) -> Self {
        Request { options, ..self }
    }
}

/// Geometry of the tiled kernel for one movement size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    /// Tile width in 32-bit words (or vector units): threads along x.
    pub words: u32,
    /// Threads along y; each walks the tile's rows with this stride.
    pub rows: u32,
    /// Elements per storage word: 4 for 8-bit, 2 for 16-bit ("half2"), else 1.
    pub pack: u32,
}

impl Tile {
    /// Tile geometry per movement size. A tile covers `words * pack` rows and columns of
    /// elements: 32x32 for 4/8-byte units, 64x64 for 16-bit pairs (as in OneFlow's half2
    /// kernel), 64x64 for 8-bit quads and 16x16 for 16-byte units (whose padded tile would
    /// otherwise exceed the 16 KiB default workgroup memory).
    pub fn for_unit(unit: u32) -> Tile {
        match unit {
            1 => Tile {
                words: 16,
                rows: 16,
                pack: 4,
            },
            2 => Tile {
                words: 32,
                rows: 8,
                pack: 2,
            },
            16 => Tile {
                words: 16,
                rows: 16,
                pack: 1,
            },
            _ => Tile {
                words: 32,
                rows: 8,
                pack: 1,
            },
        }
    }

    /// Elements along each side of the tile.
    pub fn extent(&self) -> u64 {
        (self.words * self.pack) as u64
    }

    /// Workgroup memory the tile needs: `pack` planes of `words` rows, each padded by one
    /// unit so that reading a column hits different banks.
    pub fn storage_bytes(&self, unit: u32) -> u64 {
        let word_bytes = unit.max(4) as u64;
        (self.pack * self.words * (self.words + 1)) as u64 * word_bytes
    }
}

/// Identifies one generated shader: everything that changes the WGSL text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub kernel: Kernel,
    /// Rank of the simplified tensor.
    pub rank: usize,
    pub unit: u32,
    pub index: IndexMath,
    /// The work is split into boxes over binding windows (generic kernel only).
    pub boxed: bool,
    /// Dims and strides are pipeline constants rather than uniforms (generic kernel only):
    /// the compiler turns divisions by them into multiplies and shifts.
    pub specialized: bool,
}

/// One dispatch: a box of the simplified index space, and the windows of the two buffers
/// that its reads and writes fall in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Box corners per simplified input dim: `lo` inclusive, `hi` exclusive.
    pub lo: Vec<u64>,
    pub hi: Vec<u64>,
    /// Byte offset and size of the source binding (the offset aligned for storage bindings).
    pub src_window: (u64, u64),
    /// Byte offset and size of the destination binding.
    pub dst_window: (u64, u64),
    /// Workgroups the dispatch covers, before folding into `workgroups`.
    pub total_workgroups: u64,
    /// Dispatch grid after folding to respect `max_compute_workgroups_per_dimension`.
    pub workgroups: [u32; 3],
}

/// At most this many dispatches per permute; a request that would need more (a binding
/// limit far below the tensor's rows) is refused rather than crawled through.
pub const MAX_CHUNKS: usize = 1 << 16;

/// A complete, printable decision for one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The request as given.
    pub shape: Vec<usize>,
    pub perm: Vec<usize>,
    pub elem_size: usize,
    pub src_offset: u64,
    pub dst_offset: u64,
    /// Simplified input dims, in movement units.
    pub dims: Vec<u64>,
    /// Simplified permutation over `dims`.
    pub dims_perm: Vec<usize>,
    /// Movement size in bytes: 1, 2, 4, 8 or 16.
    pub unit: u32,
    pub kernel: Kernel,
    pub index: IndexMath,
    /// Bytes of the tensor (read once, written once).
    pub bytes: u64,
    /// The dispatches, each over its own binding windows: one unless the tensor is larger
    /// than a storage binding. Empty for the copy and empty kernels.
    pub chunks: Vec<Chunk>,
    /// Tile geometry when `kernel` is [`Kernel::Tiled`].
    pub tile: Option<Tile>,
    /// The kernel the request forced, if any.
    pub forced_kernel: Option<Kernel>,
    /// The generic kernel is compiled for this shape (see [`specialize_shape`]).
    pub specialized: bool,
}

/// Validates a permutation against a rank.
pub fn check_perm(rank: usize, perm: &[usize]) -> Result<(), PermuteError> {
    if perm.len() != rank {
        return Err(PermuteError::PermLength {
            perm_len: perm.len(),
            rank,
        });
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        if p >= rank {
            return Err(PermuteError::PermOutOfRange { value: p, rank });
        }
        if seen[p] {
            return Err(PermuteError::PermDuplicate { value: p });
        }
        seen[p] = true;
    }
    Ok(())
}

/// Number of elements of `shape`, or an overflow error.
pub fn element_count(shape: &[usize]) -> Result<usize, PermuteError> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or(PermuteError::SizeOverflow)
}

/// Simplifies a permutation problem without changing its meaning.
///
/// Postconditions (for a tensor with at least one element), tested in `tests/plan.rs`:
/// - the product of the dims is unchanged, and the result has rank >= 1;
/// - no dim has extent 1, unless the whole tensor is one element (then `[1]`, `[0]`);
/// - no two adjacent output dims come from adjacent input dims (`perm[i+1] != perm[i] + 1`),
///   so nothing more can be merged;
/// - every input offset is sent to the same output offset as by the original problem.
pub fn simplify(shape: &[u64], perm: &[usize]) -> (Vec<u64>, Vec<usize>) {
    // Drop size-1 dims, renumbering the ones that remain.
    let mut new_index = vec![usize::MAX; shape.len()];
    let mut kept = Vec::new();
    for (d, &extent) in shape.iter().enumerate() {
        if extent != 1 {
            new_index[d] = kept.len();
            kept.push(extent);
        }
    }
    let perm: Vec<usize> = perm
        .iter()
        .filter(|&&p| shape[p] != 1)
        .map(|&p| new_index[p])
        .collect();
    if kept.is_empty() {
        return (vec![1], vec![0]);
    }

    // Group runs of output dims that come from consecutive input dims.
    let mut groups: Vec<(usize, usize)> = Vec::new(); // (first input dim, last input dim)
    for &p in &perm {
        match groups.last_mut() {
            Some(last) if last.1 + 1 == p => last.1 = p,
            _ => groups.push((p, p)),
        }
    }
    // Each group becomes one input dim; number them in input order.
    let mut by_input: Vec<usize> = (0..groups.len()).collect();
    by_input.sort_by_key(|&g| groups[g].0);
    let dims: Vec<u64> = by_input
        .iter()
        .map(|&g| kept[groups[g].0..=groups[g].1].iter().product())
        .collect();
    let mut rank_of_group = vec![0; groups.len()];
    for (new_dim, &g) in by_input.iter().enumerate() {
        rank_of_group[g] = new_dim;
    }
    (dims, rank_of_group)
}

/// Movement size: the widest of 16, 8, 4, 2, 1 bytes that divides the bytes moved together
/// (the whole innermost run when the innermost dim stays innermost, else one element) and
/// both offsets. Errs towards narrow units only when alignment forces it.
pub fn movement_unit(run_bytes: u64, src_offset: u64, dst_offset: u64) -> u32 {
    [16u32, 8, 4, 2, 1]
        .into_iter()
        .find(|&u| {
            let u = u as u64;
            run_bytes.is_multiple_of(u)
                && src_offset.is_multiple_of(u)
                && dst_offset.is_multiple_of(u)
        })
        .unwrap_or(1)
}

/// Elements per 32-bit storage word for a movement size.
pub fn pack_of(unit: u32) -> u32 {
    if unit < 4 { 4 / unit } else { 1 }
}

impl Plan {
    /// Number of movement units in the tensor.
    pub fn units(&self) -> u64 {
        self.dims.iter().product()
    }

    /// Elements per storage word (see [`pack_of`]).
    pub fn pack(&self) -> u32 {
        pack_of(self.unit)
    }

    /// Simplified output dims, in units.
    pub fn out_dims(&self) -> Vec<u64> {
        self.dims_perm.iter().map(|&p| self.dims[p]).collect()
    }

    /// Strides (in units) of the simplified input dims.
    pub fn in_strides(&self) -> Vec<u64> {
        let mut strides = vec![1u64; self.dims.len()];
        for d in (0..self.dims.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.dims[d + 1];
        }
        strides
    }

    /// Output items the generic kernel writes: units, or whole words for packed data.
    pub fn items(&self) -> u64 {
        self.units().div_ceil(self.pack() as u64)
    }

    /// Bytes of the source buffer the kernels touch: 1- and 2-byte data is read as whole
    /// 32-bit words, so the region is rounded up to 4.
    pub fn src_extent(&self) -> u64 {
        (self.src_offset + self.bytes).next_multiple_of(4)
    }

    /// Bytes of the destination buffer the kernels touch (see [`Plan::src_extent`]).
    pub fn dst_extent(&self) -> u64 {
        (self.dst_offset + self.bytes).next_multiple_of(4)
    }

    /// The shader this plan runs, if any.
    pub fn variant(&self) -> Option<Variant> {
        match self.kernel {
            Kernel::Generic | Kernel::Tiled | Kernel::Micro => Some(Variant {
                kernel: self.kernel,
                rank: self.dims.len(),
                unit: self.unit,
                index: self.index,
                boxed: self.boxed(),
                specialized: self.specialized,
            }),
            Kernel::Empty | Kernel::Copy => None,
        }
    }

    /// The work is split into windows (more than one dispatch).
    pub fn boxed(&self) -> bool {
        self.chunks.len() > 1
    }

    /// Workgroups over all dispatches.
    pub fn total_workgroups(&self) -> u64 {
        self.chunks.iter().map(|c| c.total_workgroups).sum()
    }

    /// Output strides (in units) of each simplified input dim.
    pub fn out_strides_by_input_dim(&self) -> Vec<u64> {
        let out_dims = self.out_dims();
        let mut strides = vec![1u64; self.dims.len()];
        let mut stride = 1;
        for i in (0..out_dims.len()).rev() {
            strides[self.dims_perm[i]] = stride;
            stride *= out_dims[i];
        }
        strides
    }

    /// For tiling, when the innermost dim moves: `(batch, rows, cols)` in units. The columns
    /// are the input's innermost dim, the rows the input dim that becomes the output's
    /// innermost ([`Plan::row_dim`]), and the batch everything else.
    pub fn batch_rows_cols(&self) -> Option<(u64, u64, u64)> {
        let a = self.row_dim()?;
        let (r, c) = (self.dims[a], self.dims[self.dims.len() - 1]);
        Some((self.units() / (r * c), r, c))
    }

    /// The input dim that becomes the output's innermost, unless that is the input's
    /// innermost too (then nothing needs tiling).
    pub fn row_dim(&self) -> Option<usize> {
        let a = *self.dims_perm.last()?;
        (a + 1 != self.dims.len()).then_some(a)
    }

    /// Batch dims of a tiled plan: all but the row and column dims, in input order.
    pub fn batch_dims(&self) -> Vec<usize> {
        let a = self.row_dim();
        (0..self.dims.len().saturating_sub(1))
            .filter(|&d| Some(d) != a)
            .collect()
    }
}

/// Plans a permute for a device. Validates the request; forced options that cannot apply
/// (see [`Request::options`]) return [`PermuteError::ForcedChoice`].
pub fn plan(req: &Request, caps: &DeviceCaps) -> Result<Plan, PermuteError> {
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

    let mut plan = Plan {
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
        forced_kernel: req.options.kernel,
        specialized: false,
    };
    if n == 0 {
        return Ok(plan);
    }

    // Simplify, then express the tensor in movement units and simplify again.
    let shape64: Vec<u64> = req.shape.iter().map(|&d| d as u64).collect();
    let (mut dims, mut dims_perm) = simplify(&shape64, req.perm);
    let last = dims.len() - 1;
    let elem = req.elem_size as u64;
    let inner_stays = dims_perm[last] == last;
    let run_bytes = if inner_stays { dims[last] * elem } else { elem };
    let unit = movement_unit(run_bytes, req.src_offset, req.dst_offset);
    if inner_stays {
        dims[last] = run_bytes / unit as u64;
    } else if elem > unit as u64 {
        dims.push(elem / unit as u64);
        dims_perm.push(dims.len() - 1);
    }
    let (dims, dims_perm) = simplify(&dims, &dims_perm);
    plan.dims = dims;
    plan.dims_perm = dims_perm;
    plan.unit = unit;

    plan.index = choose_index(&plan, caps, opts)?;
    plan.kernel = choose_kernel(&plan, caps, opts)?;
    if plan.kernel == Kernel::Copy {
        return Ok(plan);
    }

    let limit = caps
        .max_storage_binding
        .min(opts.binding_limit.unwrap_or(u64::MAX));
    if plan.src_extent() <= limit && plan.dst_extent() <= limit {
        let total = match plan.kernel {
            Kernel::Tiled => {
                let tile = Tile::for_unit(plan.unit);
                plan.tile = Some(tile);
                let (b, r, c) = plan.batch_rows_cols().unwrap_or((0, 0, 0));
                b * r.div_ceil(tile.extent()) * c.div_ceil(tile.extent())
            }
            Kernel::Micro => (plan.units() / 16).div_ceil(GENERIC_WORKGROUP as u64),
            _ => plan
                .items()
                .div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64),
        };
        plan.chunks = vec![Chunk {
            lo: vec![0; plan.dims.len()],
            hi: plan.dims.clone(),
            src_window: (0, plan.src_extent()),
            dst_window: (0, plan.dst_extent()),
            total_workgroups: total,
            workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
        }];
        plan.specialized = plan.kernel == Kernel::Generic
            && plan.index == IndexMath::U32
            && opts
                .specialize
                .unwrap_or_else(|| specialize_shape(plan.bytes));
        return Ok(plan);
    }
    // Larger than one binding: the generic kernel over boxes whose windows fit.
    if opts
        .kernel
        .is_some_and(|k| k == Kernel::Tiled || k == Kernel::Micro)
    {
        return Err(PermuteError::ForcedChoice {
            what: "tiled or micro kernel",
            why: "the tensor exceeds one storage binding; only the generic kernel splits into windows",
        });
    }
    plan.kernel = Kernel::Generic;
    plan.chunks = split_into_chunks(&plan, caps, limit)?;
    Ok(plan)
}

/// Plans that autotuning treats alike: same simplified permutation and movement size, dims
/// equal after rounding up to a power of two.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeClass {
    pub dims: Vec<u64>,
    pub dims_perm: Vec<usize>,
    pub unit: u32,
}

impl Plan {
    /// This plan's class for autotuning.
    pub fn shape_class(&self) -> ShapeClass {
        ShapeClass {
            dims: self.dims.iter().map(|d| d.next_power_of_two()).collect(),
            dims_perm: self.dims_perm.clone(),
            unit: self.unit,
        }
    }
}

/// Smallest tensor (in bytes) for which the generic kernel is compiled for its shape. A
/// specialised pipeline costs a compile per shape (tens of milliseconds), repaid many times
/// over by tensors of a few MiB; errs towards uniforms for small, varied tensors.
pub const SPECIALIZE_MIN_BYTES: u64 = 1 << 20;

/// Whether to bake the shape into the generic kernel (see [`SPECIALIZE_MIN_BYTES`]).
pub fn specialize_shape(bytes: u64) -> bool {
    bytes >= SPECIALIZE_MIN_BYTES
}

/// Splits the index space into boxes whose source and destination windows each fit in
/// `limit` bytes (after aligning the window's start), one dispatch per box.
///
/// A box that is too large on the source side is cut along the input dim with the largest
/// stride (the outermost one it spans); too large on the destination side, along the input
/// dim with the largest output stride; each cut as coarse as the remaining dims allow.
/// Boxes of one element always fit, so this ends.
fn split_into_chunks(
    plan: &Plan,
    caps: &DeviceCaps,
    limit: u64,
) -> Result<Vec<Chunk>, PermuteError> {
    let unit = plan.unit as u64;
    let align = (caps.storage_offset_alignment.max(4)) as u64;
    let too_small = || PermuteError::DeviceLimit {
        what: "a binding window of one row",
        limit: "max_storage_buffer_binding_size",
        need: align + 4 + unit,
        have: limit,
    };
    // Window spans (in units) this box may have, leaving room for aligning its start.
    let max_span = limit.checked_sub(align + 4).ok_or_else(too_small)? / unit;
    if max_span == 0 {
        return Err(too_small());
    }
    let too_many = || PermuteError::DeviceLimit {
        what: "splitting the tensor into at most 65536 binding windows",
        limit: "max_storage_buffer_binding_size",
        need: plan.src_extent().max(plan.dst_extent()),
        have: limit,
    };
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let span = |lo: &[u64], hi: &[u64], strides: &[u64]| -> u64 {
        (0..lo.len())
            .map(|d| (hi[d] - lo[d] - 1) * strides[d])
            .sum::<u64>()
            + 1
    };

    let mut todo = vec![(vec![0u64; plan.dims.len()], plan.dims.clone())];
    let mut boxes = Vec::new();
    while let Some((lo, hi)) = todo.pop() {
        let mut piece: Vec<u64> = (0..lo.len()).map(|d| hi[d] - lo[d]).collect();
        let mut fits = true;
        for strides in [&in_strides, &out_strides] {
            let whole = span(&lo, &hi, strides);
            if whole <= max_span {
                continue;
            }
            fits = false;
            let d = (0..lo.len())
                .filter(|&d| hi[d] - lo[d] > 1)
                .max_by_key(|&d| strides[d])
                .expect("a span above one unit has a dim to cut");
            let others = whole - (hi[d] - lo[d] - 1) * strides[d];
            let p = if others >= max_span {
                1
            } else {
                (max_span - others) / strides[d] + 1
            };
            piece[d] = piece[d].min(p.max(1));
        }
        if fits {
            boxes.push((lo, hi));
            continue;
        }
        // Push every sub-box of the cut dims, unless that many could never be dispatched.
        let count = (0..lo.len()).try_fold(1u64, |n, d| {
            n.checked_mul((hi[d] - lo[d]).div_ceil(piece[d]))
        });
        if count
            .is_none_or(|c| c.saturating_add((boxes.len() + todo.len()) as u64) > MAX_CHUNKS as u64)
        {
            return Err(too_many());
        }
        let mut corner = lo.clone();
        loop {
            let sub_hi: Vec<u64> = (0..lo.len())
                .map(|d| corner[d].saturating_add(piece[d]).min(hi[d]))
                .collect();
            todo.push((corner.clone(), sub_hi));
            let mut d = lo.len();
            loop {
                if d == 0 {
                    break;
                }
                d -= 1;
                corner[d] = corner[d].saturating_add(piece[d]);
                if corner[d] < hi[d] {
                    break;
                }
                corner[d] = lo[d];
            }
            if corner == lo {
                break;
            }
        }
    }
    boxes.sort();

    let window = |offset: u64, lo: &[u64], hi: &[u64], strides: &[u64]| {
        let first: u64 = (0..lo.len()).map(|d| lo[d] * strides[d]).sum();
        let start = offset + first * unit;
        let end = start + span(lo, hi, strides) * unit;
        let binding = start - start % align;
        (binding, end.next_multiple_of(4) - binding)
    };
    boxes
        .into_iter()
        .map(|(lo, hi)| {
            let dst_window = window(plan.dst_offset, &lo, &hi, &out_strides);
            let items = if plan.pack() == 1 {
                (0..lo.len()).map(|d| hi[d] - lo[d]).product()
            } else {
                dst_window.1 / 4
            };
            let total = items.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
            Ok(Chunk {
                src_window: window(plan.src_offset, &lo, &hi, &in_strides),
                dst_window,
                lo,
                hi,
                total_workgroups: total,
                workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
            })
        })
        .collect()
}

/// 32-bit math when every offset in units (plus a workgroup's overshoot) fits in `u32`;
/// else native 64-bit where the device has it, else emulated pairs.
fn choose_index(plan: &Plan, caps: &DeviceCaps, opts: &Options) -> Result<IndexMath, PermuteError> {
    let unit = plan.unit as u64;
    let reach = (plan.src_offset.max(plan.dst_offset) / unit)
        .saturating_add(plan.units())
        .saturating_add((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
    let fits32 = reach <= u32::MAX as u64;
    match opts.index {
        Some(IndexMath::U32) if !fits32 => Err(PermuteError::ForcedChoice {
            what: "u32 index math",
            why: "the tensor's offsets do not fit in 32 bits",
        }),
        Some(IndexMath::U64) if !caps.int64 => Err(PermuteError::ForcedChoice {
            what: "u64 index math",
            why: "the device lacks the SHADER_INT64 feature",
        }),
        Some(forced) => Ok(forced),
        None if fits32 => Ok(IndexMath::U32),
        None if caps.int64 => Ok(IndexMath::U64),
        None => Ok(IndexMath::U32Pair),
    }
}

/// Identity -> copy (when the byte count is a multiple of 4, as buffer copies need);
/// innermost dim moving: micro-tiles where they apply on a CPU device, tiled with both tile
/// sides at least [`MIN_TILED_EXTENT`] on a device where tiling pays; else generic.
fn choose_kernel(plan: &Plan, caps: &DeviceCaps, opts: &Options) -> Result<Kernel, PermuteError> {
    let identity = plan.dims_perm.len() == 1;
    let copy_ok = identity && plan.bytes.is_multiple_of(4);
    let tiled_ok = tiled_fits(plan, caps);
    let micro_ok = micro_fits(plan);
    match opts.kernel {
        Some(Kernel::Empty) => Err(PermuteError::ForcedChoice {
            what: "empty kernel",
            why: "the tensor has elements",
        }),
        Some(Kernel::Copy) if !copy_ok => Err(PermuteError::ForcedChoice {
            what: "copy kernel",
            why: "the permutation is not the identity, or its byte count is not a multiple of 4",
        }),
        Some(Kernel::Tiled) => tiled_ok.map(|()| Kernel::Tiled),
        Some(Kernel::Micro) => micro_ok.map(|()| Kernel::Micro),
        Some(forced) => Ok(forced),
        None if copy_ok => Ok(Kernel::Copy),
        None if prefer_micro(caps) && micro_ok.is_ok() => Ok(Kernel::Micro),
        None => {
            let big = plan
                .batch_rows_cols()
                .is_some_and(|(_, r, c)| r >= MIN_TILED_EXTENT && c >= MIN_TILED_EXTENT);
            Ok(if big && tiled_ok.is_ok() && prefer_tiled(caps) {
                Kernel::Tiled
            } else {
                Kernel::Generic
            })
        }
    }
}

/// Whether tiling through workgroup memory pays on this device. On GPUs it turns strided
/// reads or writes into coalesced ones; on a CPU device workgroup memory is ordinary memory
/// and the barrier splits the shader, and on lavapipe tiling did no better than the
/// generic kernel (docs/BENCHMARKS.md). Errs towards tiling on any device that is not known
/// to be a CPU.
pub fn prefer_tiled(caps: &DeviceCaps) -> bool {
    !caps.cpu
}

/// Whether register micro-tiles are the first choice where they apply: on CPU devices,
/// where they beat both other kernels on every case of the suite on lavapipe (1.2-4x over
/// the generic kernel). Unmeasured on GPUs, so there the tiled kernel keeps its place: errs
/// towards the kernel built for GPUs.
pub fn prefer_micro(caps: &DeviceCaps) -> bool {
    caps.cpu
}

/// Whether the micro-tile kernel can run this plan: the innermost dim moves, elements of
/// 1, 2 or 4 bytes, both block sides divisible by 4, 32-bit index math.
fn micro_fits(plan: &Plan) -> Result<(), PermuteError> {
    let refuse = |why| {
        Err(PermuteError::ForcedChoice {
            what: "micro kernel",
            why,
        })
    };
    let Some((_, r, c)) = plan.batch_rows_cols() else {
        return refuse(
            "the innermost dim stays innermost: reads and writes are already contiguous",
        );
    };
    if plan.unit > 4 {
        return refuse("8- and 16-byte units already move as vectors");
    }
    if r % 4 != 0 || c % 4 != 0 {
        return refuse("both block sides must be divisible by 4");
    }
    if plan.index != IndexMath::U32 {
        return refuse("the micro kernel uses 32-bit index math only");
    }
    Ok(())
}

/// Whether the tiled kernel can run this plan at all (size aside).
fn tiled_fits(plan: &Plan, caps: &DeviceCaps) -> Result<(), PermuteError> {
    let refuse = |why| {
        Err(PermuteError::ForcedChoice {
            what: "tiled kernel",
            why,
        })
    };
    let Some((_, r, c)) = plan.batch_rows_cols() else {
        return refuse(
            "the innermost dim stays innermost: reads and writes are already contiguous",
        );
    };
    let tile = Tile::for_unit(plan.unit);
    if r % tile.pack as u64 != 0 || c % tile.pack as u64 != 0 {
        return refuse(
            "packed 8/16-bit data needs rows and columns divisible by the elements per word",
        );
    }
    if plan.index != IndexMath::U32 {
        return refuse("the tiled kernel uses 32-bit index math only");
    }
    if tile.storage_bytes(plan.unit) > caps.max_workgroup_storage as u64
        || tile.words * tile.rows > caps.max_invocations
    {
        return refuse("the tile does not fit the device's workgroup limits");
    }
    Ok(())
}

/// Folds a workgroup count into a 1-D, 2-D or 3-D grid with no side above `max_per_dim`.
/// The grid may cover a few more workgroups than asked; the shaders skip the extra ones.
pub fn fold_grid(total: u64, max_per_dim: u32) -> Result<[u32; 3], PermuteError> {
    let max = max_per_dim.max(1) as u64;
    if total == 0 {
        return Ok([0, 0, 0]);
    }
    let x = total.min(max);
    let y = total.div_ceil(x).min(max);
    let z = total.div_ceil(x * y);
    if z > max {
        return Err(PermuteError::DeviceLimit {
            what: "the dispatch",
            limit: "max_compute_workgroups_per_dimension",
            need: total,
            have: max * max * max,
        });
    }
    Ok([x as u32, y as u32, z as u32])
}

impl Plan {
    /// The plan's decisions, one sentence each, for people (`wgpu-permute plan`). `caps` must
    /// be the device the plan was made for.
    pub fn explain(&self, caps: &DeviceCaps) -> Vec<String> {
        let n: u64 = self.shape.iter().map(|&d| d as u64).product();
        let mut why = vec![format!(
            "{n} elements of {} bytes: {} bytes read and {} written",
            self.elem_size, self.bytes, self.bytes
        )];
        if self.kernel == Kernel::Empty {
            why.push("no elements: nothing to do".into());
            return why;
        }
        let original: Vec<u64> = self.shape.iter().map(|&d| d as u64).collect();
        let (dims, perm) = simplify(&original, &self.perm);
        if dims == original {
            why.push("no size-1 dims and no dims that move together: nothing to simplify".into());
        } else {
            why.push(format!(
                "dropping size-1 dims and merging dims that move together gives dims {dims:?}, perm {perm:?}"
            ));
        }
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
            why.push(match self.index {
                IndexMath::U32 => "every offset fits in 32 bits: u32 index math".into(),
                IndexMath::U64 => "offsets exceed 32 bits: native u64 index math (SHADER_INT64)".into(),
                IndexMath::U32Pair => {
                    "offsets exceed 32 bits and the device lacks SHADER_INT64: 64-bit math on u32 pairs".into()
                }
            });
        }
        why.push(match self.kernel {
            Kernel::Empty => unreachable!("returned above"),
            Kernel::Copy => "the permutation is the identity: a buffer-to-buffer copy".into(),
            Kernel::Tiled => {
                let (b, r, c) = self.batch_rows_cols().unwrap_or((0, 0, 0));
                let tile = self.tile.unwrap_or(Tile::for_unit(self.unit));
                format!(
                    "the innermost dim moves: the tiled kernel over the input's innermost dim ({c}) and the dim that becomes the output's innermost ({r}), {b} tiles' worth of batch; {0}x{0} tiles through workgroup memory, reads and writes coalesced",
                    tile.extent()
                )
            }
            Kernel::Micro => {
                let (b, r, c) = self.batch_rows_cols().unwrap_or((0, 0, 0));
                format!(
                    "the innermost dim moves: the micro kernel, each invocation moving a 4x4 block between the input's innermost dim ({c}) and the dim that becomes the output's innermost ({r}) as whole words, {b} blocks' worth of batch"
                )
            }
            Kernel::Generic if self.options_forced_generic() => {
                "the generic kernel, as forced by the request's options".into()
            }
            Kernel::Generic => match self.batch_rows_cols() {
                None => "the innermost dim stays innermost: the generic kernel (each thread decodes its output positions and gathers whole rows' units)".into(),
                Some((_, r, c)) if r < MIN_TILED_EXTENT || c < MIN_TILED_EXTENT => format!(
                    "the innermost dim moves, but a tile side is below {MIN_TILED_EXTENT} ({r} x {c}): the generic kernel, as most of a tile would idle"
                ),
                Some(_) => match tiled_fits(self, caps) {
                    Err(PermuteError::ForcedChoice { why, .. }) => {
                        format!("the innermost dim moves, but {why}: the generic kernel")
                    }
                    _ if !prefer_tiled(caps) => "the innermost dim moves, but on a CPU device tiling does not pay and micro-tiles do not fit (sides not divisible by 4, or 8/16-byte units): the generic kernel".into(),
                    _ => "the generic kernel".into(),
                },
            },
        });
        if self.specialized {
            why.push(format!(
                "the tensor is at least {} KiB: dims and strides are compiled into the pipeline, so its divisions become multiplies and shifts",
                SPECIALIZE_MIN_BYTES >> 10
            ));
        }
        if let [chunk] = self.chunks.as_slice() {
            why.push(format!(
                "{} workgroups, dispatched as {}x{}x{} (at most {} per dimension)",
                chunk.total_workgroups,
                chunk.workgroups[0],
                chunk.workgroups[1],
                chunk.workgroups[2],
                caps.max_workgroups_per_dim
            ));
        } else if self.boxed() {
            why.push(format!(
                "the tensor exceeds one storage binding ({} bytes): {} dispatches over windows of the buffers, {} workgroups in all",
                caps.max_storage_binding,
                self.chunks.len(),
                self.total_workgroups()
            ));
        }
        why
    }

    fn options_forced_generic(&self) -> bool {
        self.forced_kernel == Some(Kernel::Generic)
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
        if self.specialized {
            write!(f, " (compiled for this shape)")?;
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
        Ok(())
    }
}
