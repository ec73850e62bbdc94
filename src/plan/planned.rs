//! [`Plan`]: what the planner decided and why, and what the host and the generators read
//! off it (strides, dispatch sizes, windows).

use crate::plan::{
    BlockConvert, Conversion, ConvertKey, CpuChoices, GENERIC_ITEMS, GENERIC_RUN,
    GENERIC_WORKGROUP, GenericLayout, GenericVariant, KernelReason, Modelling, Reasons, RunLanes,
    ShapeKey, Strip, TILED_STRIP_WORKGROUP, Tile, TiledStrip, TiledVariant, Tuning, Variant,
    ViewKey, pack_of,
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

/// A lowered view's layout in the buffers, in movement units (see [`lower::lower`]).
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

    /// Units each run of the generic kernel moves ([`Plan::runs`]): [`GENERIC_RUN`], or
    /// as many quads ([`Plan::quads`]).
    pub fn run_units(&self) -> u64 {
        GENERIC_RUN as u64 * if self.quads { 4 } else { 1 }
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
                        strip: super::tiled_strip(self).ok()?,
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
                let long = match super::tiled_strip(self) {
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

    /// Whether autotuning times this plan in parts too ([`super::with_edges`]: the body on
    /// micro blocks, the edges generic) against [`Plan::pending_race`]'s kernels alone.
    pub fn pending_parts(&self) -> bool {
        !self.pending_race().is_empty() && super::edge_parts(self).is_some()
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
