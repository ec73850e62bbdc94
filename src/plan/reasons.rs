//! What the planner records and learns: the reason for each choice (stored in the [`Plan`]
//! and printed by [`Plan::explain`], never re-derived), why a kernel does not fit
//! ([`Misfit`]), and the facts learnt at run time (autotuning winners, the memory model's
//! figures, shapes that already have their own pipeline), which come in through
//! [`Learned`] like the device's limits through [`super::DeviceCaps`].

use std::collections::{HashMap, HashSet};

use super::tuning::*;
use super::{BlockConvert, Kernel};

/// The memory figures of one kernel on one problem, as the memory model (`crate::model`)
/// scores them: what the planner ranks kernels by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figures {
    /// The kernel.
    pub kernel: Kernel,
    /// Global loads: bytes requested / bytes of the sectors fetched (0..1).
    pub load_efficiency: f64,
    /// Global stores, likewise.
    pub store_efficiency: f64,
    /// Most 4-byte words one bank serves in one workgroup-memory access (1 when the kernel
    /// uses no workgroup memory).
    pub bank_conflict_ways: u32,
    /// Bytes the whole permute reads plus writes (the copy's traffic).
    pub bytes_moved: u64,
}

impl Figures {
    /// Predicted ratio to a copy of the same bytes: the copy reads and writes at full sector
    /// efficiency, the kernel at its own (a harmonic mean of the two efficiencies).
    pub fn ratio_to_copy(&self) -> f64 {
        if self.load_efficiency <= 0.0 || self.store_efficiency <= 0.0 {
            return 0.0;
        }
        2.0 / (1.0 / self.load_efficiency + 1.0 / self.store_efficiency)
    }
}

/// A simplified problem: dims in movement units, their permutation and the unit, the
/// conversion, and for a view where its dims sit in the buffers. Shape-specialised
/// pipelines, the bytes that pay for them and the model's traces are per key; autotuning
/// keys its winners by the same with dims rounded up to powers of two
/// (`Plan::shape_class`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeKey {
    /// Simplified input dims, in units (rounded up to powers of two in a shape class).
    pub dims: Vec<u64>,
    /// Simplified permutation.
    pub dims_perm: Vec<usize>,
    /// Movement size in bytes.
    pub unit: u32,
    /// The conversion as kernels run it (`None`: elements move as they are).
    pub conversion: Option<BlockConvert>,
    /// A view's layout (`None`: a plain permute, or a view that is one): views of the same
    /// dims with other strides access memory otherwise, and a specialised pipeline bakes
    /// their strides in.
    pub view: Option<ViewKey>,
}

/// What makes a view's accesses its own beyond its dims (see [`ShapeKey::view`]): not its
/// offsets or fill, which stay uniforms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ViewKey {
    /// Source stride of each dim, in units.
    pub src_strides: Vec<i64>,
    /// Destination stride of each dim, in units.
    pub dst_strides: Vec<u64>,
    /// Bytes of the elements its innermost dim reverses within units, 0 for none (the
    /// shader differs by them).
    pub reversed: u32,
    /// Its bounds: the dims of each and the combined indices that exist (a specialised
    /// micro pipeline compiles them in, `shaders::micro::shape_words`).
    pub bounds: Vec<(Vec<usize>, std::ops::Range<u64>)>,
}

/// The outcome of timing the candidate kernels of a shape class (and its plan in parts,
/// where `Plan::pending_parts`). Non-exhaustive: autotuning may learn to time more.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Measured {
    /// This kernel was the fastest.
    Fastest(Kernel),
    /// The heuristic's plan in parts ([`super::with_edges`]: the body on micro blocks, the
    /// edges generic) was faster than every kernel alone: the heuristic decides for this
    /// class, and odd sides run in parts.
    Parts,
    /// Timing failed (the message says why); the heuristic decides for this class from then
    /// on, without timing again.
    Failed(String),
}

/// What a permuter has learnt about its device while running: facts for the planner, kept
/// by the `gpu` module, which only measures, traces and compiles.
#[derive(Clone, Debug, PartialEq)]
pub struct Learned {
    /// Choose kernels by timing them (see `Permuter::with_autotune`).
    pub autotune: bool,
    /// Timing outcomes per shape class.
    pub winners: HashMap<ShapeKey, Measured>,
    /// Per shape class, whether the micro kernel ran faster in column runs than in its
    /// usual order, where autotuning timed both: which order wins depends on the CPU's
    /// caches (see [`OrderReason::Autotuned`]).
    pub column_runs: HashMap<ShapeKey, bool>,
    /// Shapes that have their own compiled pipeline.
    pub specialized: HashSet<ShapeKey>,
    /// How many shapes may have their own pipeline.
    pub max_specialized: usize,
    /// Choose among kernels by the GPU memory model ([`crate::model`]); on by default for
    /// GPU adapters, whose speed the model is about.
    pub model: bool,
    /// The modelled figures of each candidate kernel, per shape (an empty list when tracing
    /// failed: the heuristic decides).
    pub modelled: HashMap<ShapeKey, Vec<Figures>>,
    /// Bytes each shape has moved on the uniform generic kernel, towards paying for its own
    /// pipeline (see [`SPECIALIZE_PAYBACK_BYTES`]).
    pub uniform_bytes: HashMap<ShapeKey, u64>,
}

impl Default for Learned {
    fn default() -> Self {
        Learned {
            autotune: false,
            winners: HashMap::new(),
            column_runs: HashMap::new(),
            specialized: HashSet::new(),
            max_specialized: MAX_SPECIALIZED,
            model: false,
            modelled: HashMap::new(),
            uniform_bytes: HashMap::new(),
        }
    }
}

/// Why a kernel cannot run a plan: the refusal of a forced kernel, and the recorded reason
/// when the heuristic passes over one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Misfit {
    /// The innermost dim stays innermost: nothing to tile.
    InnermostStays,
    /// Packed 8/16-bit data needs rows and columns divisible by the elements per word.
    PackedSides,
    /// Micro-tiles need both block sides divisible by the block's side, or one a strip's
    /// whole short dim (see `micro_block`).
    MicroSides,
    /// The tiled and micro kernels use 32-bit index math only.
    Index64,
    /// The tile needs more workgroup memory or invocations than the device has.
    WorkgroupLimits,
    /// The tensor exceeds one storage binding, and the kernel's boxes of whole tiles cannot
    /// split it: the smallest does not fit a window, or a view's bounds or the affine's
    /// channels would count from the whole tensor's corner (see `windows::Cut`).
    Windowed,
    /// A view whose layout the tiles cannot read or write (see `view_fits`).
    ViewLayout,
    /// A conversion the tiled kernel's strips cannot take (see `strips::tiled_strip`).
    Strips,
    /// A padded view: the tiled kernel reads no bounds, and the micro kernel only bounds on
    /// whole block rows (not on the source's innermost dim, which its rows read whole).
    Padded,
}

impl Misfit {
    /// One sentence, used in errors and explanations.
    pub fn why(self) -> &'static str {
        match self {
            Misfit::InnermostStays => {
                "the innermost dim stays innermost: reads and writes are already contiguous"
            }
            Misfit::PackedSides => {
                "packed 8/16-bit data needs rows and columns divisible by the elements per word"
            }
            Misfit::MicroSides => {
                const _: () = assert!(STRIP_MAX == 8, "the sentence below names STRIP_MAX");
                "both block sides must be divisible by 4 elements with offsets in whole words, or (8 and 16-byte units) by 2 with offsets and strides in whole 16 bytes, or (unpadded) one side a dim of at most 8 elements contiguous on its side with the other divisible by the elements in 16 bytes (2 for 16-byte units)"
            }
            Misfit::Strips => {
                "the tiled kernel converts only between an interleaved dim of 2 to 8 elements and planes whose length divides by 4, with offsets and strides in whole quads and words"
            }
            Misfit::Index64 => "it uses 32-bit index math only",
            Misfit::WorkgroupLimits => "the tile does not fit the device's workgroup limits",
            Misfit::Windowed => {
                "the tensor exceeds one storage binding, and its smallest box of whole tiles does not fit a binding window (or the view is padded, or the affine has per-channel values)"
            }
            Misfit::ViewLayout => {
                "the view's columns are not contiguous in the source, its rows not in the \
                 destination, or packed data does not start each row on a whole word"
            }
            Misfit::Padded => {
                "the view is padded: the tiled kernel reads no bounds, the micro kernel none on \
                 the source's innermost dim"
            }
        }
    }
}

/// Why the plan runs its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelReason {
    /// The tensor has no elements.
    NoElements,
    /// The request's options forced the kernel.
    Forced,
    /// The permutation is the identity after simplification and the byte count is whole
    /// words: a buffer copy.
    Identity,
    /// The identity, but the byte count is not a multiple of 4, which buffer copies need.
    IdentityOddBytes,
    /// The innermost dim stays innermost: the generic kernel moves whole rows' units.
    InnermostStays,
    /// Elements are converted on the way: the generic kernel converts, element by element.
    Conversion,
    /// Elements are converted on the way between interleaved channels and planes, on a
    /// GPU: the tiled kernel's strips.
    ConversionStrips,
    /// The identity of a byte count that is not whole words, beyond one storage binding
    /// (of this many bytes): the generic kernel over windows (buffer copies move whole
    /// words). Other kernels split into windows themselves.
    Windowed {
        /// The binding limit the plan respected, in bytes.
        limit: u64,
    },
    /// Autotuning measured this kernel as the fastest for the plan's shape class.
    Measured,
    /// A strided view that is not a permute of a contiguous tensor: the generic kernel
    /// gathers by its strides (and fills outside its bounds).
    View,
    /// The memory model predicts this kernel the fastest on GPUs (its figures are in
    /// [`Reasons::model`]); consulted where [`Learned::model`] is on, by default on GPUs.
    Modelled,
    /// A CPU device, and register micro-tiles fit.
    CpuMicro,
    /// A CPU device, and 16-byte units: the generic kernel's runs in a walk in tiles
    /// (`walk::transpose_walks_tiles`).
    CpuWalkTiles,
    /// A CPU device where tiling does not pay, and micro-tiles do not fit for this reason.
    CpuNoMicro(Misfit),
    /// A GPU, and the tiled kernel fits with both sides at least [`MIN_TILED_EXTENT`].
    GpuTiled,
    /// A GPU, but a tile side (rows, columns) is below [`MIN_TILED_EXTENT`].
    SmallTile {
        /// Rows of the tile problem, in units.
        rows: u64,
        /// Columns of the tile problem, in units.
        cols: u64,
    },
    /// A GPU, but the tiled kernel does not fit for this reason.
    GpuNoTiled(Misfit),
}

/// Why the plan uses its index width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexReason {
    /// Forced by the request's options.
    Forced,
    /// Every offset in units fits in 32 bits.
    Fits32,
    /// Offsets exceed 32 bits and the device has `SHADER_INT64`.
    Native64,
    /// Offsets exceed 32 bits and the device lacks `SHADER_INT64`: pairs of `u32`.
    Pair64,
}

/// Why the micro kernel runs along the output's rows or in column runs
/// ([`Block::column_runs`](super::Block::column_runs)), where both apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OrderReason {
    /// The rule: column runs where rows lie far apart on both sides, the output's rows are
    /// short and apart, or the output's rows lie far apart and the input's close; the usual
    /// order elsewhere.
    Rule,
    /// Forced by the request's options.
    Forced,
    /// Autotuning timed both orders for the shape class ([`Learned::column_runs`]).
    Autotuned,
}

/// Whether, and why, the generic or micro kernel is compiled for the plan's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecializeReason {
    /// Forced on or off by the request's options.
    Forced,
    /// At least [`SPECIALIZE_MIN_BYTES`], and the shape has moved
    /// [`SPECIALIZE_PAYBACK_BYTES`] on the uniform kernel: its compile pays back.
    Large,
    /// At least [`SPECIALIZE_MIN_BYTES`], but the shape has not yet moved
    /// [`SPECIALIZE_PAYBACK_BYTES`] on the uniform kernel: a shape called once or twice
    /// would not repay its compile.
    Unpaid,
    /// This shape already has its own pipeline.
    Compiled,
    /// Below [`SPECIALIZE_MIN_BYTES`]: the compile would not pay back.
    Small,
    /// Large enough, but [`Learned::max_specialized`] shapes have their own pipelines already.
    BudgetSpent,
    /// 64-bit index math, boxes of several shapes, a padded or strided view or a conversion
    /// off the micro kernel, or micro blocks other than lane-major strips and square blocks
    /// of plain permutes: only those and 32-bit generic permutes and views that gather into
    /// a whole output specialise, in one binding or in boxes of one shape (micro boxes,
    /// walks in tiles, and the generic kernel's plain boxes).
    NotApplicable,
}

/// The state of autotuning for a plan. Non-exhaustive, as [`Measured`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tuning {
    /// Autotuning is off, or the kernel was forced, or only one kernel applies.
    Off,
    /// These kernels (and the plan in parts, where `Plan::pending_parts`) are to be
    /// timed before the plan is final (the `gpu` module times them, records the outcome in
    /// [`Learned`] and plans again).
    Pending(Vec<Kernel>),
    /// The class's measured winner runs ([`KernelReason::Measured`]).
    Winner,
    /// The class's measured winner cannot run this shape; the heuristic decided.
    WinnerMisfits(Kernel),
    /// The class ran fastest in parts ([`Measured::Parts`]); the heuristic decided.
    Parts,
    /// Timing this class failed earlier (the message says why); the heuristic decided.
    Failed(String),
}

/// The memory model's part in a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Modelling {
    /// Not consulted: off, a CPU device, a forced kernel, or one kernel applies.
    Off,
    /// These kernels are to be traced before the plan is final (the `gpu` module traces
    /// them, records the figures in [`Learned::modelled`] and plans again).
    Pending(Vec<Kernel>),
    /// The figures of the candidate kernels, as the choice saw them.
    Figures(Vec<Figures>),
    /// Tracing this shape failed earlier; the heuristic decided.
    Failed,
    /// [`MAX_MODELLED`] shapes are modelled already; the heuristic decided.
    BudgetSpent,
}

/// Every decision of a plan, with its reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Reasons {
    /// Why this kernel.
    pub kernel: KernelReason,
    /// Why this index width.
    pub index: IndexReason,
    /// Why the generic kernel is or is not compiled for the shape (`None` for other kernels).
    pub specialize: Option<SpecializeReason>,
    /// Autotuning's part in the choice.
    pub tuning: Tuning,
    /// The memory model's part in the choice.
    pub model: Modelling,
    /// Why the micro kernel runs in column runs or in its usual order, where both apply
    /// (`None` for other kernels, and where only the usual order applies).
    pub order: Option<OrderReason>,
}

impl Reasons {
    /// The reasons of a plan with no elements, which every plan starts from.
    pub(super) fn empty() -> Reasons {
        Reasons {
            kernel: KernelReason::NoElements,
            index: IndexReason::Fits32,
            specialize: None,
            tuning: Tuning::Off,
            model: Modelling::Off,
            order: None,
        }
    }
}
