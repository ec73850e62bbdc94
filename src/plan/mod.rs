//! Planning: turns a request (shape, permutation, element size, offsets) and what is known
//! of the device into a [`Plan`]: simplified dims, movement size, index width, kernel,
//! dispatch geometry, and the reason for each choice. Pure: no wgpu types, so every rule is
//! unit-testable without a GPU.
//!
//! The flow: `simplify` (validation, size-1 dims, merging, movement size), `select`
//! (index width, kernel, shape specialisation, each with its reason), `windows` (binding
//! windows and grid folding), `explain` (prints what was recorded).

mod explain;
pub mod select;
pub mod simplify;
pub mod view;
mod windows;

pub use select::{
    Figures, IndexReason, KernelReason, Learned, MAX_MODELLED, MAX_SPECIALIZED, MIN_TILED_EXTENT,
    Measured, Misfit, Modelling, Reasons, SPECIALIZE_MIN_BYTES, SPECIALIZE_PAYBACK_BYTES, ShapeKey,
    SpecializeReason, Tuning, modelled_best, prefer_micro,
};
pub use simplify::{check_perm, element_count, movement_unit, pack_of, simplify};
pub use view::{Bound, View};
pub use windows::fold_grid;

use crate::PermuteError;

/// Highest rank accepted. The kernels are generated per rank; simplification usually brings
/// real tensors far below this.
pub const MAX_RANK: usize = 16;

/// Most bounds a view may have (after bounds that cover their dims whole are dropped): the
/// generic kernel checks this many combined indices per position, unrolled.
pub const MAX_BOUNDS: usize = 4;

/// Element sizes the kernels move, in bytes.
pub const ELEM_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

/// Invocations per workgroup of the generic kernel (filled into its WGSL).
pub const GENERIC_WORKGROUP: u32 = 256;

/// Invocations per workgroup of the micro kernel (CPU devices). lavapipe runs each
/// workgroup on one thread of its pool: a small tensor's few workgroups then split unevenly
/// over the cores (750 strips of `[3,1000,7]` were 3 workgroups of 256 on 2 cores), while
/// large tensors do not notice the size (64, 128 and 256 measured alike).
pub const MICRO_WORKGROUP: u32 = 128;

/// Output items (units, or packed words) each thread of the generic kernel writes. More items
/// per thread amortise the workgroup bookkeeping; 4 keeps enough threads for small tensors.
pub const GENERIC_ITEMS: u32 = 4;

/// Output units each invocation of the generic kernel moves where it moves runs (CPU
/// devices, see [`Plan::runs`]): 8 units of 16 bytes are two cache lines. Runs of 8 rather
/// than 4 took 128-byte rows from 0.82 to 0.98 of the shader copy on lavapipe.
pub const GENERIC_RUN: u32 = 8;

/// Side of the micro kernel's narrow blocks, in elements (see [`Block`]): 8-bit rows of
/// such a block are one 32-bit word.
pub const MICRO_SIDE: u32 = 4;

/// Bytes of one access of the micro kernel's wide blocks: a `vec4<u32>`.
pub const WIDE_ACCESS_BYTES: u32 = 16;

/// Longest whole dim of a micro kernel strip ([`Strip`]), in elements: the strip holds
/// this many 16-byte accesses in registers each way. 8 takes colour channels (3, 4 of
/// bytes), complex pairs and the odd short dims of real shapes; each extent is a shader
/// variant of its own.
pub const STRIP_MAX: u32 = 8;

/// Blocks each micro invocation moves where the blocks along its run (row blocks; a row
/// strip's column blocks) divide by it: one decode of the
/// block position serves them all (8% to 10% faster on lavapipe for 1 and 8-byte units).
pub const MICRO_RUN: u32 = 4;

/// Largest binding window, in bytes: the shaders index storage with `u32`, so a window
/// holds at most 2^32 words. Devices that report larger bindings (wgpu's Metal backend
/// reports `maxBufferLength`) are split into windows of this size.
pub const MAX_WINDOW_BYTES: u64 = 4 * u32::MAX as u64;

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
    /// Register micro-tiles over the same two dims, no workgroup memory
    /// (`shaders/micro.wgsl`, blocks as in [`Block`]).
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
    /// The device is a CPU (lavapipe, SwiftShader, WARP); see [`prefer_micro`].
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
    /// Force this kernel (refused with [`PermuteError::ForcedChoice`] where it cannot run).
    pub kernel: Option<Kernel>,
    /// Force this index width (likewise).
    pub index: Option<IndexMath>,
    /// Split the work as if storage bindings held at most this many bytes (tests use it to
    /// run the windowed path on small tensors).
    pub binding_limit: Option<u64>,
    /// Force baking the shape into the generic kernel (on or off) instead of the planner's
    /// choice (see [`SpecializeReason`]).
    pub specialize: Option<bool>,
    /// Force moving data as 64-bit components (on or off) instead of the planner's choice
    /// (see [`Plan::access64`]); on needs `SHADER_INT64` and 8/16-byte units or wide micro
    /// blocks.
    pub access64: Option<bool>,
    /// Force writing the generic kernel's runs 16 bytes at a time (on or off) instead of the
    /// planner's choice (see [`Plan::wide_stores`]); on needs runs of 4/8-byte units into a
    /// destination that starts on 16 bytes.
    pub wide_stores: Option<bool>,
}

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

    /// Storage units of workgroup memory the tile needs: `pack` planes of `words` rows,
    /// each padded by one unit so that reading a column hits different banks.
    pub fn storage_units(&self) -> u64 {
        (self.pack * self.words * (self.words + 1)) as u64
    }

    /// Workgroup memory the tile needs, in bytes (see [`Tile::storage_units`]).
    pub fn storage_bytes(&self, unit: u32) -> u64 {
        self.storage_units() * unit.max(4) as u64
    }
}

/// Geometry of the micro kernel's register block for one plan: `side x side` elements (a
/// strip: `side` by a whole short dim),
/// each block row moved as accesses of `access_bytes`. Wide blocks are as many elements as
/// fill 16 bytes (16 of 8 bits, 8 of 16, 4 of 32, 2 of 64), every row one `vec4<u32>`: on a
/// CPU adapter each access costs a loop over the SIMD lanes whatever its width, so wide
/// accesses move four times the bytes per loop. Narrow blocks (4x4, 32-bit accesses) take
/// the 1, 2 and 4-byte layouts that wide ones cannot: sides not divisible by the wide side,
/// or offsets and strides not in whole 16 bytes. Strips are wide blocks one of whose sides
/// is a whole short dim ([`Strip`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// Elements along each side (the side that is not a strip's whole dim).
    pub side: u32,
    /// Bytes of one global-memory access: 16 (wide) or 4 (narrow).
    pub access_bytes: u32,
    /// Blocks each invocation moves, neighbours along the output's rows (a [`Strip::Rows`]
    /// block: along its columns): 1 or [`MICRO_RUN`].
    pub run: u32,
    /// One side is a whole dim too short, or of an extent not divisible by the side, for
    /// square blocks (`[H*W, 3] -> [3, H*W]`, an RGB image to planes).
    pub strip: Option<Strip>,
}

/// A wide block whose one side is a whole dim of `n` elements (`2..=`[`STRIP_MAX`], not a
/// multiple of the block's side), contiguous on one side of the move: `side x n` elements,
/// `n` 16-byte accesses each way. One of its sides is then a single contiguous span of `n`
/// accesses, whose elements the kernel picks apart at compile-time positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strip {
    /// `side` input rows of all `n` columns, which lie back to back in the source: read as
    /// one span, written as `n` output rows of one access each.
    Cols(u32),
    /// All `n` rows by `side` columns, whose output rows lie back to back in the
    /// destination: read as `n` input rows of one access each, written as one span.
    Rows(u32),
}

impl Block {
    /// The wide block of a movement size, if it has one (units up to 8 bytes).
    pub fn wide(unit: u32) -> Option<Block> {
        (unit <= 8).then_some(Block {
            side: WIDE_ACCESS_BYTES / unit,
            access_bytes: WIDE_ACCESS_BYTES,
            run: 1,
            strip: None,
        })
    }

    /// The wide block of a movement size as a strip.
    pub fn wide_strip(unit: u32, strip: Strip) -> Option<Block> {
        Block::wide(unit).map(|b| Block {
            strip: Some(strip),
            ..b
        })
    }

    /// The narrow block of a movement size, if it has one (units up to 4 bytes).
    pub fn narrow(unit: u32) -> Option<Block> {
        (unit <= 4).then_some(Block {
            side: MICRO_SIDE,
            access_bytes: 4,
            run: 1,
            strip: None,
        })
    }

    /// Elements per access.
    pub fn per_access(&self, unit: u32) -> u32 {
        (self.access_bytes / unit).max(1)
    }

    /// Elements along the rows (the dim that becomes the output's innermost).
    pub fn rows(&self) -> u32 {
        match self.strip {
            Some(Strip::Rows(n)) => n,
            _ => self.side,
        }
    }

    /// Elements along the columns (the input's innermost dim).
    pub fn cols(&self) -> u32 {
        match self.strip {
            Some(Strip::Cols(n)) => n,
            _ => self.side,
        }
    }

    /// Elements per block.
    pub fn elements(&self) -> u64 {
        (self.rows() * self.cols()) as u64
    }

    /// The same block, `run` of them per invocation.
    pub fn with_run(self, run: u32) -> Block {
        Block { run, ..self }
    }
}

/// Identifies one generated shader: everything that changes the WGSL text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The kernel (generic, tiled or micro).
    pub kernel: Kernel,
    /// Rank of the simplified tensor.
    pub rank: usize,
    /// Movement size in bytes.
    pub unit: u32,
    /// Index width.
    pub index: IndexMath,
    /// The work is split into boxes over binding windows, or written through destination
    /// strides (generic kernel only).
    pub boxed: bool,
    /// The view mode: positions outside a view's bounds read a fill value (the micro
    /// kernel's, whole block rows), and a packed output may be written through destination
    /// strides (generic kernel).
    pub padded: bool,
    /// With `padded`, the output is written through the view's destination strides.
    pub strided: bool,
    /// Dims and strides are pipeline constants rather than uniforms (generic kernel only):
    /// the compiler turns divisions by them into multiplies and shifts.
    pub specialized: bool,
    /// The micro kernel's block (micro kernel only).
    pub block: Option<Block>,
    /// Each invocation moves a run of consecutive output units (generic kernel only; see
    /// [`Plan::runs`]).
    pub runs: bool,
    /// Storage is accessed as 64-bit components (see [`Plan::access64`]).
    pub access64: bool,
    /// Bytes of the elements each source unit holds in reverse order, 0 for none (generic
    /// kernel only; see [`ViewLayout::reversed`]).
    pub reverse: u32,
    /// Runs write their units 16 bytes at a time (see [`Plan::wide_stores`]).
    pub wide_stores: bool,
}

impl std::fmt::Display for Variant {
    /// `generic rank 3 unit 4 u32 boxed specialized`, as in pipeline labels.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rank {} unit {} {}",
            self.kernel.name(),
            self.rank,
            self.unit,
            self.index.name()
        )?;
        if self.boxed {
            write!(f, " boxed")?;
        }
        if self.padded {
            write!(f, " padded")?;
        }
        if self.strided {
            write!(f, " strided")?;
        }
        if self.specialized {
            write!(f, " specialized")?;
        }
        if let Some(b) = self.block {
            let strip = if b.strip.is_some() { " strip" } else { "" };
            write!(
                f,
                " block {}x{}{strip} by {} B, {} per run",
                b.rows(),
                b.cols(),
                b.access_bytes,
                b.run
            )?;
        }
        if self.runs {
            write!(f, " runs")?;
        }
        if self.access64 {
            write!(f, " access64")?;
        }
        if self.reverse > 0 {
            write!(f, " reversing {} B elements", self.reverse)?;
        }
        if self.wide_stores {
            write!(f, " wide stores")?;
        }
        Ok(())
    }
}

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

/// At most this many dispatches per permute; a request that would need more (a binding
/// limit far below the tensor's rows) is refused rather than crawled through.
pub const MAX_CHUNKS: usize = 1 << 16;

/// A complete, printable decision for one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The request's shape, as given.
    pub shape: Vec<usize>,
    /// The request's permutation, as given.
    pub perm: Vec<usize>,
    /// The request's element size in bytes.
    pub elem_size: usize,
    /// The request's source offset in bytes.
    pub src_offset: u64,
    /// The request's destination offset in bytes.
    pub dst_offset: u64,
    /// Simplified input dims, in movement units.
    pub dims: Vec<u64>,
    /// Simplified permutation over `dims`.
    pub dims_perm: Vec<usize>,
    /// Movement size in bytes: 1, 2, 4, 8 or 16.
    pub unit: u32,
    /// The kernel that runs (see `reasons.kernel` for why).
    pub kernel: Kernel,
    /// Index width (see `reasons.index` for why).
    pub index: IndexMath,
    /// Bytes of the tensor (read once, written once).
    pub bytes: u64,
    /// The dispatches, each over its own binding windows: one unless the tensor is larger
    /// than a storage binding. Empty for the copy and empty kernels.
    pub chunks: Vec<Chunk>,
    /// Tile geometry when `kernel` is [`Kernel::Tiled`].
    pub tile: Option<Tile>,
    /// The generic kernel is compiled for this shape (dims and strides are pipeline
    /// constants).
    pub specialized: bool,
    /// The generic kernel's invocations each move a run of [`GENERIC_RUN`] consecutive
    /// output units, decoding the first only, instead of items a workgroup apart (see
    /// [`select::choose_runs`]).
    pub runs: bool,
    /// 8 and 16-byte units, and the micro kernel's wide block rows, are accessed as
    /// `u64` / `vec2<u64>` rather than `vec2<u32>` / `vec4<u32>`: on a CPU adapter an access
    /// costs per component, so halving the components speeds every access (see
    /// [`select::choose_access64`]).
    pub access64: bool,
    /// The generic kernel's runs of 4 or 8-byte units are written 16 bytes at a time, their
    /// units gathered into one wide store: a CPU adapter pays per access (see
    /// [`select::choose_wide_stores`]).
    pub wide_stores: bool,
    /// Why each choice was made, as recorded when it was made.
    pub reasons: Reasons,
    /// Where the dims sit in the buffers, for a view that is not a plain permute (`None`:
    /// the input is contiguous and the output its permutation).
    pub view: Option<ViewLayout>,
}

/// A lowered view's layout in the buffers, in movement units (see [`view::lower`]).
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

    /// Output items the generic kernel writes: units, or whole words for packed data.
    pub fn items(&self) -> u64 {
        self.units().div_ceil(self.pack() as u64)
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
            None => (self.dst_offset + self.bytes).next_multiple_of(4),
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
        match self.kernel {
            Kernel::Generic | Kernel::Tiled | Kernel::Micro => {
                let generic = self.kernel == Kernel::Generic;
                // A view's strided output: unpacked units go through the box mode; packed
                // words, and padded views, through the view mode.
                let strided = generic && self.view.as_ref().is_some_and(|v| !v.dst_contiguous);
                let bounded = self.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
                let padded = match self.kernel {
                    Kernel::Generic => bounded || (strided && self.pack() > 1),
                    Kernel::Micro => bounded,
                    _ => false,
                };
                Some(Variant {
                    kernel: self.kernel,
                    rank: self.dims.len(),
                    unit: self.unit,
                    index: self.index,
                    boxed: self.boxed() || (strided && !padded),
                    padded,
                    strided: strided && padded,
                    specialized: self.specialized,
                    block: (self.kernel == Kernel::Micro)
                        .then(|| select::micro_block(self).ok())
                        .flatten(),
                    runs: self.runs,
                    access64: self.access64,
                    reverse: match &self.view {
                        Some(v) if v.reversed => self.elem_size as u32,
                        _ => 0,
                    },
                    wide_stores: self.wide_stores,
                })
            }
            Kernel::Empty | Kernel::Copy => None,
        }
    }

    /// Workgroups of the plan's kernel over the whole tensor in one dispatch (setting the
    /// tile geometry of a tiled plan).
    fn workgroups(&mut self) -> u64 {
        match self.kernel {
            Kernel::Tiled => {
                let tile = Tile::for_unit(self.unit);
                self.tile = Some(tile);
                let (b, r, c) = self.batch_rows_cols().unwrap_or((0, 0, 0));
                b * r.div_ceil(tile.extent()) * c.div_ceil(tile.extent())
            }
            Kernel::Micro => {
                let per = select::micro_block(self).map_or(1, |b| b.elements() * b.run as u64);
                (self.units() / per).div_ceil(MICRO_WORKGROUP as u64)
            }
            _ if self.runs => self
                .items()
                .div_ceil((GENERIC_WORKGROUP * GENERIC_RUN) as u64),
            _ => self
                .items()
                .div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64),
        }
    }

    /// This plan as a GPU runs it: without the CPU-device choices (runs, 64-bit accesses),
    /// its dispatch sized again for items a workgroup apart. What the GPU memory model
    /// traces.
    pub fn on_gpu(&self) -> Result<Plan, PermuteError> {
        let mut plan = Plan {
            runs: false,
            access64: false,
            wide_stores: false,
            ..self.clone()
        };
        if self.runs {
            // Runs are planned in one binding only: one chunk, the whole tensor.
            let total = plan.workgroups();
            for chunk in &mut plan.chunks {
                chunk.total_workgroups = total;
                chunk.workgroups = fold_grid(total, DeviceCaps::default().max_workgroups_per_dim)?;
            }
        }
        Ok(plan)
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

/// Plans a permute for a device, with nothing learnt at run time (see [`plan_with`]).
pub fn plan(req: &Request, caps: &DeviceCaps) -> Result<Plan, PermuteError> {
    plan_with(req, caps, &Learned::default())
}

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
        specialized: false,
        runs: false,
        access64: false,
        wide_stores: false,
        view: None,
        reasons: Reasons::empty(),
    };
    if n == 0 {
        return Ok(plan);
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
    let limit = caps
        .max_storage_binding
        .min(opts.binding_limit.unwrap_or(u64::MAX))
        .min(MAX_WINDOW_BYTES);
    let (kernel, reason, tuning, model) = select::choose_kernel(&plan, caps, opts, learned, limit)?;
    plan.kernel = kernel;
    plan.reasons.kernel = reason;
    plan.reasons.tuning = tuning;
    plan.reasons.model = model;
    if plan.kernel == Kernel::Copy {
        return Ok(plan);
    }

    let one_binding = plan.src_extent() <= limit && plan.dst_extent() <= limit;
    plan.runs = select::choose_runs(&plan, caps, one_binding);
    if one_binding {
        let total = plan.workgroups();
        plan.chunks = vec![Chunk {
            lo: vec![0; plan.dims.len()],
            hi: plan.dims.clone(),
            src_window: (0, plan.src_extent()),
            dst_window: (0, plan.dst_extent()),
            total_workgroups: total,
            workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
        }];
    } else {
        plan.chunks = windows::split_into_chunks(&plan, caps, limit)?;
    }
    if let Some((on, why)) = select::choose_specialize(&plan, opts, learned) {
        plan.specialized = on;
        plan.reasons.specialize = Some(why);
    }
    plan.wide_stores = select::choose_wide_stores(&plan, opts)?;
    plan.access64 = select::choose_access64(&plan, caps, opts)?;
    Ok(plan)
}

/// A view to materialise (see [`View`]): its element size, where its regions start in the
/// two buffers, how many elements they hold, and the fill value of a padded view.
#[derive(Clone, Copy, Debug)]
pub struct ViewRequest<'a> {
    /// The view.
    pub view: &'a View,
    /// Bytes per element: 1, 2, 4, 8 or 16.
    pub elem_size: usize,
    /// Byte offset of the source region (multiple of 4); the view's offset counts from it.
    pub src_offset: u64,
    /// Byte offset of the destination region (multiple of 4).
    pub dst_offset: u64,
    /// Elements the source region holds (reads beyond are refused).
    pub src_len: usize,
    /// Elements the destination region holds.
    pub dst_len: usize,
    /// One element's bytes, read where a padded view has no source (ignored without bounds).
    pub fill: &'a [u8],
    /// Choices forced instead of the heuristics.
    pub options: Options,
}

impl<'a> ViewRequest<'a> {
    /// `view` of a source region of `src_len` elements of `elem_size` bytes into a
    /// destination region of `dst_len`, both at the start of their buffers, no fill, default
    /// options.
    pub fn new(view: &'a View, elem_size: usize, src_len: usize, dst_len: usize) -> Self {
        ViewRequest {
            view,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            src_len,
            dst_len,
            fill: &[],
            options: Options::default(),
        }
    }

    /// The regions at these byte offsets of their buffers (multiples of 4).
    pub fn with_offsets(self, src_offset: u64, dst_offset: u64) -> Self {
        ViewRequest {
            src_offset,
            dst_offset,
            ..self
        }
    }

    /// One element's bytes for the positions outside the view's bounds.
    pub fn with_fill(self, fill: &'a [u8]) -> Self {
        ViewRequest { fill, ..self }
    }

    /// Choices forced instead of the heuristics.
    pub fn with_options(self, options: Options) -> Self {
        ViewRequest { options, ..self }
    }
}

/// Plans the materialisation of a view. A view that is a permute of a contiguous tensor
/// plans exactly as that permute ([`plan_with`]); any other is lowered ([`view::lower`])
/// and gathered by the generic kernel, which fills positions outside the view's bounds.
pub fn plan_view(
    req: &ViewRequest,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Plan, PermuteError> {
    let (view, elem) = (req.view, req.elem_size);
    if !ELEM_SIZES.contains(&elem) {
        return Err(PermuteError::ElemSize(elem));
    }
    for (which, offset) in [("source", req.src_offset), ("destination", req.dst_offset)] {
        if offset % 4 != 0 {
            return Err(PermuteError::UnalignedOffset { which, offset });
        }
    }
    if !view.bounds.is_empty() && req.fill.len() != elem {
        return Err(PermuteError::FillSize {
            fill: req.fill.len(),
            elem,
        });
    }
    // The regions the caller claims, in bytes: a claim that does not fit is refused even
    // where the view reads or writes only part of it.
    for len in [req.src_len, req.dst_len] {
        len.checked_mul(elem).ok_or(PermuteError::SizeOverflow)?;
    }
    let read = view.check(req.src_len, req.dst_len)?;
    if let Some((shape, perm)) = as_permute(view) {
        let permute = Request::new(&shape, &perm, elem)
            .with_offsets(req.src_offset, req.dst_offset)
            .with_options(req.options);
        return plan_with(&permute, caps, learned);
    }
    let n = view.len() as u64;
    let bytes = n
        .checked_mul(elem as u64)
        .ok_or(PermuteError::SizeOverflow)?;
    let low = view::lower(view, elem, req.src_offset, req.dst_offset);
    if !low.bounds.is_empty() && (low.unit as usize) < elem {
        return Err(PermuteError::InvalidView(
            "a padded view of 8/16-byte elements needs offsets aligned to the element size".into(),
        ));
    }
    let contiguous = {
        let out: Vec<u64> = low.perm.iter().map(|&d| low.dims[d]).collect();
        let want = view::row_major(&out.iter().map(|&d| d as usize).collect::<Vec<_>>());
        low.perm
            .iter()
            .zip(want)
            .all(|(&d, w)| low.dims[d] == 1 || low.dst_strides[d] == w as u64)
    };
    // Packed words of a strided output are whole output rows' words: the innermost output
    // dim runs on in the destination for whole words, and every other dim starts on one.
    let pack = pack_of(low.unit) as u64;
    let inner = *low.perm.last().expect("a lowered view has a dim");
    let whole_words = low.dst_strides[inner] == 1
        && low.dims[inner].is_multiple_of(pack)
        && (0..low.dims.len()).all(|d| d == inner || low.dst_strides[d].is_multiple_of(pack));
    if !contiguous && pack > 1 && !whole_words {
        return Err(PermuteError::InvalidView(
            "a strided output of 8/16-bit data needs rows of whole 32-bit words".into(),
        ));
    }
    // The fill unit: the element repeated across 16 bytes.
    let mut fill = [0u8; 16];
    if !view.bounds.is_empty() {
        for (i, b) in fill.iter_mut().enumerate() {
            *b = req.fill[i % elem];
        }
    }
    let fill = bytemuck::cast(fill);
    // Where the regions' bytes end; `check` bounded both spans in elements, the bytes
    // are checked too (a region near the top of the address space).
    let overflow = || PermuteError::SizeOverflow;
    let dst_reach = (view.dst_span()? as u64)
        .checked_mul(elem as u64)
        .ok_or_else(overflow)?;
    let dst_end = req
        .dst_offset
        .checked_add(dst_reach)
        .and_then(|e| e.checked_next_multiple_of(4))
        .ok_or_else(overflow)?;
    let src_end = (read.end as u64)
        .checked_mul(elem as u64)
        .and_then(|e| e.checked_add(req.src_offset))
        .and_then(|e| e.checked_next_multiple_of(4))
        .ok_or_else(overflow)?;
    let mut plan = Plan {
        shape: view.shape.clone(),
        perm: (0..view.shape.len()).collect(),
        elem_size: elem,
        src_offset: req.src_offset,
        dst_offset: req.dst_offset,
        dims: low.dims,
        dims_perm: low.perm,
        unit: low.unit,
        kernel: Kernel::Empty,
        index: IndexMath::U32,
        bytes,
        chunks: Vec::new(),
        tile: None,
        specialized: false,
        runs: false,
        access64: false,
        wide_stores: false,
        view: Some(ViewLayout {
            src_strides: low.src_strides,
            dst_strides: low.dst_strides,
            src_base: low.src_base,
            dst_contiguous: contiguous,
            bounds: low.bounds,
            fill,
            reversed: low.reversed,
            // A binding holds at least one unit, even where nothing is read.
            src_end: src_end.max(req.src_offset.saturating_add(low.unit.max(4) as u64)),
            dst_end,
        }),
        reasons: Reasons::empty(),
    };
    if n == 0 {
        return Ok(plan);
    }
    (plan.index, plan.reasons.index) = select::choose_index(&plan, caps, &req.options)?;
    let layout = plan.view.as_ref().expect("set above");
    let copy = plan.dims.len() == 1
        && layout.src_strides[0] == 1
        && layout.dst_strides[0] == 1
        && layout.bounds.is_empty()
        && plan.bytes.is_multiple_of(4)
        && plan.src_start().is_multiple_of(4);
    (plan.kernel, plan.reasons.kernel) = match req.options.kernel {
        None if copy => (Kernel::Copy, KernelReason::Identity),
        Some(Kernel::Copy) if copy => (Kernel::Copy, KernelReason::Forced),
        _ => select::choose_view_kernel(&plan, caps, &req.options)?,
    };
    if plan.kernel == Kernel::Copy {
        return Ok(plan);
    }
    let limit = caps
        .max_storage_binding
        .min(req.options.binding_limit.unwrap_or(u64::MAX))
        .min(MAX_WINDOW_BYTES);
    if plan.src_extent() > limit || plan.dst_extent() > limit {
        return Err(PermuteError::DeviceLimit {
            what: "a strided view (views are not split into binding windows yet)",
            limit: "max_storage_buffer_binding_size",
            need: plan.src_extent().max(plan.dst_extent()),
            have: limit,
        });
    }
    plan.runs = select::choose_runs(&plan, caps, true);
    let total = plan.workgroups();
    plan.chunks = vec![Chunk {
        lo: vec![0; plan.dims.len()],
        hi: plan.dims.clone(),
        src_window: (0, plan.src_extent()),
        dst_window: (0, plan.dst_extent()),
        total_workgroups: total,
        workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
    }];
    plan.reasons.specialize = select::choose_specialize(&plan, &req.options, learned).map(|s| s.1);
    plan.wide_stores = select::choose_wide_stores(&plan, &req.options)?;
    plan.access64 = select::choose_access64(&plan, caps, &req.options)?;
    Ok(plan)
}

/// The contiguous tensor and permutation a view is, if it is one: no bounds, contiguous
/// output, offset 0, and strides that are a permutation of row-major strides (size-1 dims
/// aside, which are dropped).
fn as_permute(view: &View) -> Option<(Vec<usize>, Vec<usize>)> {
    let contiguous_out = view.dst_strides.as_ref().is_none_or(|d| {
        let want = view::row_major(&view.shape);
        view.shape
            .iter()
            .zip(d.iter().zip(want))
            .all(|(&e, (&s, w))| e == 1 || s == w)
    });
    if !view.bounds.is_empty() || !contiguous_out || view.offset != 0 {
        return None;
    }
    let kept: Vec<usize> = (0..view.shape.len())
        .filter(|&d| view.shape[d] != 1)
        .collect();
    let mut order = kept.clone();
    order.sort_by_key(|&d| std::cmp::Reverse(view.strides[d]));
    let shape: Vec<usize> = order.iter().map(|&d| view.shape[d]).collect();
    let strides = view::row_major(&shape);
    if order
        .iter()
        .zip(&strides)
        .any(|(&d, &s)| view.strides[d] != s as isize)
    {
        return None;
    }
    let perm = kept
        .iter()
        .map(|d| {
            order
                .iter()
                .position(|o| o == d)
                .expect("kept dims are ordered")
        })
        .collect();
    Some((shape, perm))
}

impl Plan {
    /// This plan's simplified problem (the key of its shape-specialised pipeline).
    pub fn shape_key(&self) -> ShapeKey {
        ShapeKey {
            dims: self.dims.clone(),
            dims_perm: self.dims_perm.clone(),
            unit: self.unit,
        }
    }

    /// This plan's class for autotuning: its shape key with dims rounded up to powers of
    /// two, so that similar shapes share one measurement.
    pub fn shape_class(&self) -> ShapeKey {
        ShapeKey {
            dims: self.dims.iter().map(|d| d.next_power_of_two()).collect(),
            ..self.shape_key()
        }
    }

    /// Kernels autotuning must time before this plan is final (empty when nothing is pending).
    pub fn pending_race(&self) -> &[Kernel] {
        match &self.reasons.tuning {
            Tuning::Pending(kernels) => kernels,
            _ => &[],
        }
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
