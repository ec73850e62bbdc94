//! [`Plan`]: what the planner decided and why, and what the host and the generators read
//! off it (strides, dispatch sizes, windows).

use crate::plan::Block;
use crate::plan::{
    BlockConvert, Conversion, ConvertKey, GENERIC_ITEMS, GENERIC_WORKGROUP, GenericLayout,
    GenericVariant, KernelReason, Modelling, Reasons, RunLanes, ShapeKey, Strip,
    TILED_STRIP_WORKGROUP, Tile, TiledStrip, TiledVariant, Tuning, Variant, ViewKey, pack_of,
};
use crate::{IndexMath, Kernel};

/// One dispatch: a box of the simplified index space, and the windows of the two buffers
/// that its reads and writes fall in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Box corner per simplified input dim, inclusive.
    pub lo: Vec<u64>,
    /// Box corner per simplified input dim, exclusive.
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

impl Chunk {
    /// The box's extent per simplified input dim.
    pub fn extents(&self) -> Vec<u64> {
        self.lo.iter().zip(&self.hi).map(|(l, h)| h - l).collect()
    }
}

/// A complete, printable decision for one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The request's shape, as given.
    pub(crate) shape: Vec<usize>,
    /// The request's permutation, as given.
    pub(crate) perm: Vec<usize>,
    /// The request's element size in bytes.
    pub(crate) elem_size: usize,
    /// The request's source offset in bytes.
    pub(crate) src_offset: u64,
    /// The request's destination offset in bytes.
    pub(crate) dst_offset: u64,
    /// Simplified input dims, in movement units (with one batch dim split in two where
    /// [`Plan::batch_tiles`]).
    pub(crate) dims: Vec<u64>,
    /// Simplified permutation over `dims`.
    pub(crate) dims_perm: Vec<usize>,
    /// Movement size in bytes: 1, 2, 4, 8 or 16.
    pub(crate) unit: u32,
    /// The kernel that runs (see `reasons.kernel` for why).
    pub(crate) kernel: Kernel,
    /// Index width (see `reasons.index` for why).
    pub(crate) index: IndexMath,
    /// Bytes of the tensor (read once, written once).
    pub(crate) bytes: u64,
    /// The dispatches, each over its own binding windows: one unless the tensor is larger
    /// than a storage binding. Empty for the copy and empty kernels.
    pub(crate) chunks: Vec<Chunk>,
    /// Tile geometry when `kernel` is [`Kernel::Tiled`].
    pub(crate) tile: Option<Tile>,
    /// The kernel is compiled for this shape: the generic kernel's dims and strides, or the
    /// micro kernel's shape words, are pipeline constants.
    pub(crate) specialized: bool,
    /// The CPU-adapter family's choices (runs, 64-bit accesses, wide stores, scatters,
    /// walks in tiles, column runs, batch tiles, row copies): all off on the GPU path.
    pub(crate) cpu: CpuChoices,
    /// The generic kernel's boxes over binding windows run as a whole tensor in one binding
    /// does (its plain layout, stacked runs and shape constants included), each over its own
    /// extents from its corner: boxes of one shape, each a contiguous stretch of the output
    /// (`windows::plain_boxes`).
    pub(crate) plain_boxes: bool,
    /// A conversion whose innermost dim stays moves 4 consecutive elements per item of the
    /// generic kernel: one source access, 4 conversions, one destination access (see
    /// `select::choose_quads`).
    pub(crate) quads: bool,
    /// Why each choice was made, as recorded when it was made.
    pub(crate) reasons: Reasons,
    /// Elements converted on the way (the generic kernel, element by element: `unit` is the
    /// source type's size, the destination's elements are the destination type's).
    pub(crate) conversion: Option<Conversion>,
    /// Where the dims sit in the buffers, for a view that is not a plain permute (`None`:
    /// the input is contiguous and the output its permutation).
    pub(crate) view: Option<ViewLayout>,
}

/// What a user reads of a plan: the kernel and why, the index width, the movement size,
/// the simplified problem, the dispatches; [`Plan::explain`] says why each choice was
/// made, and `Display` prints the plan on one line.
impl Plan {
    /// The kernel that runs.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Why the planner chose that kernel.
    pub fn reason(&self) -> KernelReason {
        self.reasons.kernel
    }

    /// The index width of the kernel's arithmetic.
    pub fn index(&self) -> IndexMath {
        self.index
    }

    /// The movement size in bytes: 1, 2, 4, 8 or 16 (several elements move as one unit
    /// where the rows allow).
    pub fn unit(&self) -> u32 {
        self.unit
    }

    /// Bytes of the tensor (read once, written once).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The simplified input dims, in movement units (size-1 dims dropped, dims that move
    /// together merged).
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// The simplified permutation over [`Plan::dims`]: output dim `i` is dim `perm[i]`.
    pub fn dims_perm(&self) -> &[usize] {
        &self.dims_perm
    }

    /// Dispatches the kernel runs in: one, or one per box of the tensor over binding
    /// windows of the buffers; none for a buffer copy or nothing to move.
    pub fn dispatches(&self) -> usize {
        self.chunks.len()
    }

    /// Workgroups over all dispatches.
    pub fn workgroups(&self) -> u64 {
        self.chunks.iter().map(|c| c.total_workgroups).sum()
    }

    /// The kernel is compiled for this shape (its dims and strides are pipeline constants).
    pub fn specialized(&self) -> bool {
        self.specialized
    }

    /// The elements' conversion on the way, if any.
    pub fn conversion(&self) -> Option<&Conversion> {
        self.conversion.as_ref()
    }
}

/// What tests and tools read of a plan's internals. Not API.
#[doc(hidden)]
impl Plan {
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn perm(&self) -> &[usize] {
        &self.perm
    }
    pub fn elem_size(&self) -> usize {
        self.elem_size
    }
    pub fn src_offset(&self) -> u64 {
        self.src_offset
    }
    pub fn dst_offset(&self) -> u64 {
        self.dst_offset
    }
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }
    pub fn tile(&self) -> Option<Tile> {
        self.tile
    }
    pub fn cpu(&self) -> &CpuChoices {
        &self.cpu
    }
    pub fn reasons(&self) -> &Reasons {
        &self.reasons
    }
    pub fn view(&self) -> Option<&ViewLayout> {
        self.view.as_ref()
    }
    pub fn quads(&self) -> bool {
        self.quads
    }
    pub fn plain_boxes(&self) -> bool {
        self.plain_boxes
    }
}

/// The choices a plan makes for CPU adapters only, on top of its kernel: how the kernel's
/// invocations walk the tensor and access memory where a CPU runs the shader. A GPU plan
/// makes none of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuChoices {
    /// Invocations each move a run of neighbours, decoding the first only (a CPU device's
    /// choice, `select::choose_runs`): the generic kernel's `GENERIC_RUN` consecutive
    /// output units (source units, for a `Plan::scatter`; one column of a stack of output
    /// rows, for [`Plan::stacked_runs`]) instead of items a workgroup apart, the micro
    /// kernel's blocks along the output's rows (`MICRO_RUNS`) instead of
    /// one.
    pub runs: bool,
    /// 8 and 16-byte units, a conversion's quads of 8 and 16 bytes, and the micro kernel's
    /// wide block rows are accessed as `u64` / `vec2<u64>` rather than `vec2<u32>` /
    /// `vec4<u32>` (and a flat strip's 4-byte planes read in pairs, `Block::flat_pairs`):
    /// on a CPU adapter an access costs per component, so halving the components speeds
    /// every access (see `select::choose_access64`).
    pub access64: bool,
    /// The generic kernel's runs of 4 or 8-byte units are written 16 bytes at a time, their
    /// units gathered into one wide store: a CPU adapter pays per access (see
    /// `select::choose_wide_stores`).
    pub wide_stores: bool,
    /// The generic kernel's runs walk the source in order, each decoding where its first
    /// unit goes, rather than the output (a CPU device's choice, `walk::choose_scatter`):
    /// where the output's consecutive rows come from source rows far apart, a gather reads
    /// a new page per row, which a CPU's prefetchers do not follow, while the scatter's
    /// writes stay in few sequential streams.
    pub scatter: bool,
    /// The generic kernel's runs walk in tiles of two output dims rather than in output
    /// order (a CPU device's choice, `walk::choose_walk_tiles`): the output's rows a few at
    /// a time, across the output dim whose neighbours are nearest in the source, so that a
    /// workgroup reads a few long stretches of the source and writes a few of the output
    /// (`[512,512,64] (1,0,2)` f32 on lavapipe, AMD EPYC: 19.1 -> 11.7 ms, the shader copy
    /// of its bytes 9.7). A transpose's runs are its rows, and a SIMD group's lanes lie across
    /// the source's rows ([`WalkTiles::row_runs`]). The walk decodes both offsets over its
    /// own dims ([`Plan::walk_tile_dims`]).
    pub walk_tiles: Option<WalkTiles>,
    /// The micro kernel's runs go along the column blocks (the input's rows), neighbouring
    /// invocations along the row blocks, where the rows a band of the usual order reads
    /// are too far apart to stay cached, the output's rows are shorter than a run and
    /// apart, or the output's rows lie far apart and the input's close (a CPU device's
    /// choice, `column_runs::choose`; see
    /// [`Block::column_runs`](super::Block::column_runs)).
    pub column_runs: bool,
    /// The micro kernel's batch decodes in tiles: one batch dim split in two, another
    /// between its halves (a CPU device's choice, `BatchTiles::choose`).
    pub batch_tiles: Option<BatchTiles>,
    /// Each output row moves as a buffer copy where both buffers allow copies (`COPY_SRC`,
    /// `COPY_DST`), else the kernel runs as planned (a CPU device's choice for long rows,
    /// `row_copies::choose`; see [`Plan::row_copy_steps`]).
    pub row_copies: bool,
    /// The micro kernel's block, as chosen once the plan is made (`cpu::micro_block`):
    /// what its shader and parameter block read, never chosen again.
    pub block: Option<Block>,
}

/// A gather's walk in tiles of two output dims (see `Plan::walk_tiles`): the dim outside
/// the innermost, whose rows are neighbours in the output, and the one whose neighbours are
/// nearest in the source. Where the innermost dim moves (a transpose), its runs are the
/// rows: the dim is walked as `[extent / GENERIC_RUN, GENERIC_RUN]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkTiles {
    /// The output dim (an index of [`Plan::out_dims`], its innermost split into runs
    /// where `row_runs`) with the smallest source stride of those outside the innermost;
    /// never the one just outside it.
    pub dim: usize,
    /// Positions of `dim` per tile: a divisor of its extent.
    pub across: u64,
    /// Output rows (positions of the dim outside the innermost) per tile: a divisor of its
    /// extent; 1 where `row_runs`.
    pub rows: u64,
    /// The output's innermost dim moves: it is walked in runs, and each tile holds one run
    /// of each of its `across` output rows, so that a SIMD group's lanes read neighbouring
    /// units of each of a run's source rows.
    pub row_runs: bool,
}

/// A micro plan's batch decoded in tiles (CPU devices): the input's innermost batch dim is
/// split in two, `outer` and `outer + 1` in the plan's dims, and the batch dim `across`,
/// whose neighbours lie nearest in the output, decodes between the halves.
///
/// Where the batch dims are themselves swapped (the 4-D reversal `[64,64,64,64]
/// (3,2,1,0)`: dim 2 is 256 bytes from its neighbour in the input and 16 KiB in the
/// output, dim 1 the other way round), the input's order writes each batch's output rows
/// to pages it only comes back to after the whole innermost batch dim: 4,096 pages apart,
/// more than a CPU's translation caches hold. Tiles of `BATCH_TILE_BYTES` of the input
/// come back to them after a few, while the input's neighbouring batches still read on
/// along the same rows. On lavapipe (AMD EPYC, 2 cores; three alternating probe runs, ratios
/// to the shader copy of the same run) the reversal went from 0.67-0.68 to 0.81-0.89
/// with 2 KiB tiles (1 KiB 0.77-0.93, 4 KiB 0.79-0.83, 512 bytes 0.74-0.79); splitting
/// the other dim instead, so that the input's side is the one whose pages come back, lost
/// (0.47-0.52).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchTiles {
    /// The split dim's outer half (its inner half is the next dim).
    pub outer: usize,
    /// The inner half's extent.
    pub inner: u64,
    /// The batch dim decoded between the halves.
    pub across: usize,
}

/// A lowered view's layout in the buffers, in movement units (see `lower::lower`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    /// Source stride of each dim (in `dims` order), possibly negative or zero.
    pub src_strides: Vec<i64>,
    /// Destination stride of each dim.
    pub dst_strides: Vec<u64>,
    /// Source unit of index 0, from the source offset (virtual when it is padding).
    pub src_base: i64,
    /// The output is contiguous in output order.
    pub dst_contiguous: bool,
    /// Bounds over `dims`: the dims of each (outermost first) and the combined indices that
    /// exist.
    pub bounds: Vec<(Vec<usize>, std::ops::Range<u64>)>,
    /// The fill unit as four words (the element repeated across the unit).
    pub fill: [u32; 4],
    /// The innermost dim is reversed in the source (`x[..., ::-1]`) and moves in units of
    /// several elements: each source unit holds its output unit's elements in reverse order
    /// and the kernel puts them back in order, so a flipped row moves in units as wide as a
    /// copied row's.
    pub reversed: bool,
    /// End of the source bytes read, from the buffer's start (rounded up to 4).
    pub src_end: u64,
    /// End of the destination bytes written, likewise.
    pub dst_end: u64,
}

#[doc(hidden)]
impl Plan {
    /// Number of movement units in the tensor.
    pub fn units(&self) -> u64 {
        self.dims.iter().product()
    }

    /// Elements per storage word (see `pack_of`).
    pub fn pack(&self) -> u32 {
        pack_of(self.unit)
    }

    /// Simplified output dims, in units.
    pub fn out_dims(&self) -> Vec<u64> {
        self.dims_perm.iter().map(|&p| self.dims[p]).collect()
    }

    /// Strides (in units) of the simplified input dims (two's complement for a view's
    /// negative strides: the kernels' wrapping arithmetic is exact).
    pub fn in_strides(&self) -> Vec<u64> {
        if let Some(v) = &self.view {
            return v.src_strides.iter().map(|&s| s as u64).collect();
        }
        let mut strides = vec![1u64; self.dims.len()];
        for d in (0..self.dims.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.dims[d + 1];
        }
        strides
    }

    /// Output items the generic kernel writes: units, or whole words for packed data (of
    /// the destination type, when converting).
    pub fn items(&self) -> u64 {
        match self.quads {
            true => self.units() / 4,
            false => self.units().div_ceil(self.dst_pack() as u64),
        }
    }

    /// Bytes the plan writes: the bytes it reads, or a conversion's destination elements'.
    pub fn bytes_written(&self) -> u64 {
        match &self.conversion {
            Some(c) => self.bytes / self.elem_size as u64 * c.to().size() as u64,
            None => self.bytes,
        }
    }

    /// Bytes of one destination element: the unit, or the destination type's size.
    pub fn dst_unit(&self) -> u32 {
        self.conversion
            .as_ref()
            .map_or(self.unit, |c| c.to().size() as u32)
    }

    /// Destination elements per storage word (see [`Plan::pack`]).
    pub fn dst_pack(&self) -> u32 {
        pack_of(self.dst_unit())
    }

    /// Bytes of the source buffer the kernels touch: 1- and 2-byte data is read as whole
    /// 32-bit words, so the region is rounded up to 4.
    pub fn src_extent(&self) -> u64 {
        match &self.view {
            Some(v) => v.src_end,
            None => (self.src_offset + self.bytes).next_multiple_of(4),
        }
    }

    /// Bytes of the destination buffer the kernels touch (see [`Plan::src_extent`]).
    pub fn dst_extent(&self) -> u64 {
        match &self.view {
            Some(v) => v.dst_end,
            None => (self.dst_offset + self.units() * self.dst_unit() as u64).next_multiple_of(4),
        }
    }

    /// Byte offset in the source of the tensor's first unit: the source offset, moved by a
    /// view's offset (what a buffer copy starts from).
    pub fn src_start(&self) -> u64 {
        let base = self.view.as_ref().map_or(0, |v| v.src_base);
        self.src_offset
            .wrapping_add((base as u64).wrapping_mul(self.unit as u64))
    }

    /// The shader this plan runs, if any.
    pub fn variant(&self) -> Option<Variant> {
        let (rank, unit) = (self.dims.len(), self.unit);
        // A walk in tiles decodes over its own dims.
        let walk_rank = self.walk_tile_dims().map_or(rank, |w| w.len());
        match self.kernel {
            Kernel::Generic => {
                let lanes = match (self.stacked_runs(), self.lane_major_runs()) {
                    (true, _) => RunLanes::Stacked,
                    (false, true) => RunLanes::LaneMajor,
                    (false, false) => RunLanes::Own,
                };
                Some(Variant::Generic(GenericVariant {
                    rank: walk_rank,
                    unit,
                    index: self.index,
                    layout: self.generic_layout(),
                    specialized: self.specialized,
                    runs: self.cpu.runs,
                    lanes,
                    access64: self.cpu.access64,
                    reverse: match &self.view {
                        Some(v) if v.reversed => self.elem_size as u32,
                        _ => 0,
                    },
                    wide_stores: self.cpu.wide_stores,
                    scatter: self.cpu.scatter,
                    quads: self.quads,
                    convert: self.convert_key(),
                }))
            }
            Kernel::Tiled => Some(Variant::Tiled(TiledVariant {
                rank,
                unit,
                strip: match self.block_convert() {
                    Some(convert) => Some(TiledStrip {
                        strip: self.strip().ok()?,
                        convert,
                    }),
                    None => None,
                },
            })),
            Kernel::Micro => self.micro_variant().map(Variant::Micro),
            Kernel::Empty | Kernel::Copy => None,
        }
    }

    /// How the generic kernel addresses this plan's output.
    pub fn generic_layout(&self) -> GenericLayout {
        let strided = self.view.as_ref().is_some_and(|v| !v.dst_contiguous);
        // A padded view's box writes through the destination strides.
        match (self.generic_padded(), strided || self.boxed()) {
            (true, true) => GenericLayout::PaddedStrided,
            (true, false) => GenericLayout::Padded,
            (false, _) if strided => GenericLayout::Boxed,
            // In one box or in several, each walked in its own tiles.
            (false, _) if self.cpu.walk_tiles.is_some() => GenericLayout::Walk,
            (false, _) if self.boxed() && !self.plain_boxes => GenericLayout::Boxed,
            (false, _) => GenericLayout::Plain,
        }
    }

    /// Whether the generic kernel runs this plan in its padded (view) mode: a padded view, or
    /// a strided output of packed words or of a conversion (unpacked units of a strided
    /// output go through the box mode); past one binding, over boxes through destination
    /// strides.
    pub fn generic_padded(&self) -> bool {
        self.view.as_ref().is_some_and(|v| {
            !v.bounds.is_empty()
                || (!v.dst_contiguous && (self.pack() > 1 || self.conversion.is_some()))
        })
    }

    /// Workgroups of the plan's kernel over the whole tensor in one dispatch.
    pub(super) fn whole_workgroups(&self) -> u64 {
        match self.kernel {
            Kernel::Tiled | Kernel::Micro => self.box_workgroups(&self.dims),
            // Runs are of units (of elements when converting), never packed words.
            _ if self.cpu.runs => self.generic_box_workgroups(&self.dims),
            _ => self
                .items()
                .div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64),
        }
    }

    /// Workgroups of the tiled or micro kernel over a box of these extents (the whole
    /// tensor's dims, or a binding window's box, cut in whole tiles).
    pub(super) fn box_workgroups(&self, extents: &[u64]) -> u64 {
        let (b, r, c) = self.box_batch_rows_cols(extents).unwrap_or((0, 0, 0));
        match self.kernel {
            Kernel::Tiled if self.conversion.is_some() => {
                // Strips: tiles of TILED_STRIP_WORKGROUP quads along the long dim.
                let long = match self.strip() {
                    Ok(Strip::Cols(_)) => r,
                    _ => c,
                };
                b * (long / 4).div_ceil(TILED_STRIP_WORKGROUP as u64)
            }
            Kernel::Tiled => {
                let extent = Tile::for_unit(self.unit).extent();
                b * r.div_ceil(extent) * c.div_ceil(extent)
            }
            _ => self.micro_box_workgroups(extents),
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
        if let Some(v) = &self.view {
            return v.dst_strides.clone();
        }
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
        self.box_batch_rows_cols(&self.dims)
    }

    /// [`Plan::batch_rows_cols`] of a box of these extents.
    pub fn box_batch_rows_cols(&self, extents: &[u64]) -> Option<(u64, u64, u64)> {
        let a = self.row_dim()?;
        let (r, c) = (extents[a], extents[extents.len() - 1]);
        Some((extents.iter().product::<u64>() / (r * c), r, c))
    }

    /// The input dim that becomes the output's innermost, unless that is the input's
    /// innermost too (then nothing needs tiling).
    pub fn row_dim(&self) -> Option<usize> {
        let a = *self.dims_perm.last()?;
        (a + 1 != self.dims.len()).then_some(a)
    }
}

/// The kernels `plans` run, in order without repeats, joined by `+` (`micro+generic` for
/// a permute in parts; `copies` for row copies, on buffers that allow them): how tools name
/// what ran.
pub fn kernel_names(plans: &[Plan]) -> String {
    let name = |p: &Plan| match p.cpu.row_copies {
        true => "copies",
        false => p.kernel.name(),
    };
    let mut names: Vec<&str> = plans.iter().map(name).collect();
    names.dedup();
    names.join("+")
}

#[doc(hidden)]
impl Plan {
    /// The conversion's types and whether its affine runs (its values are uniforms).
    pub fn convert_key(&self) -> Option<ConvertKey> {
        self.conversion.as_ref().map(|c| ConvertKey {
            from: c.from(),
            to: c.to(),
            affine: c.affine().is_some(),
        })
    }

    /// The conversion as a block kernel runs it: its key and the channel's index.
    pub fn block_convert(&self) -> Option<BlockConvert> {
        Some(BlockConvert {
            key: self.convert_key()?,
            channel: self.channels().map(|ch| ch.at),
        })
    }

    /// This plan's simplified problem (the key of its shape-specialised pipeline).
    pub fn shape_key(&self) -> ShapeKey {
        // A split of batch tiles is the planner's own, made after the lookups.
        let (dims, dims_perm) = match self.cpu.batch_tiles {
            Some(t) => t.merged(&self.dims, &self.dims_perm),
            None => (self.dims.clone(), self.dims_perm.clone()),
        };
        ShapeKey {
            dims,
            dims_perm,
            unit: self.unit,
            conversion: self.block_convert(),
            view: self
                .view
                .as_ref()
                .filter(|v| !self.plain_permute(v))
                .map(|v| ViewKey {
                    src_strides: v.src_strides.clone(),
                    dst_strides: v.dst_strides.clone(),
                    reversed: if v.reversed { self.elem_size as u32 } else { 0 },
                    bounds: v.bounds.clone(),
                }),
        }
    }

    /// Whether view layout `v` of this plan is its plain permute (a contiguous source, a
    /// contiguous output, no bounds, no reversed units): the same shape as the permute.
    fn plain_permute(&self, v: &ViewLayout) -> bool {
        let contiguous =
            (0..self.dims.len()).map(|d| self.dims[d + 1..].iter().product::<u64>() as i64);
        v.bounds.is_empty()
            && !v.reversed
            && v.dst_contiguous
            && v.src_strides.iter().copied().eq(contiguous)
    }

    /// This plan's class for autotuning: its shape key with dims rounded up to powers of
    /// two, so that similar shapes share one measurement (a view's layout stays exact).
    pub fn shape_class(&self) -> ShapeKey {
        let key = self.shape_key();
        ShapeKey {
            dims: key.dims.iter().map(|d| d.next_power_of_two()).collect(),
            ..key
        }
    }

    /// Kernels autotuning must time before this plan is final (empty when nothing is pending).
    pub fn pending_race(&self) -> &[Kernel] {
        match &self.reasons.tuning {
            Tuning::Pending(kernels) => kernels,
            _ => &[],
        }
    }

    /// Whether this plan waits for first-use work: kernels to time (autotuning) or to trace
    /// (the memory model) before it is final.
    pub fn pending_first_use(&self) -> bool {
        !self.pending_race().is_empty() || !self.pending_model().is_empty()
    }

    /// Kernels the memory model must trace before this plan is final (empty when nothing is
    /// pending).
    pub fn pending_model(&self) -> &[Kernel] {
        match &self.reasons.model {
            Modelling::Pending(kernels) => kernels,
            _ => &[],
        }
    }
}
