//! What a caller may force instead of the planner's heuristics ([`Options`]), and the
//! names of the choices: the kernels ([`Kernel`]) and the index widths ([`IndexMath`]).
//! Part of an operation's value ([`crate::Relayout::with_options`]); the planner reads them.

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
    /// (`shaders/micro.wgsl`, blocks as in `Block`).
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

/// Choices a caller may force instead of the heuristics: used by tests to run every shader
/// variant on small inputs, and by benchmarks to compare kernels. The fields after
/// `specialize` force the CPU-adapter family's choices (`plan::cpu`); they are not API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Force this kernel (refused with `PermuteError::ForcedChoice` where it cannot run).
    pub kernel: Option<Kernel>,
    /// Force this index width (likewise).
    pub index: Option<IndexMath>,
    /// Split the work as if storage bindings held at most this many bytes (tests use it to
    /// run the windowed path on small tensors).
    pub binding_limit: Option<u64>,
    /// Force baking the shape into the generic kernel (on or off) instead of the planner's
    /// choice (see `SpecializeReason`).
    pub specialize: Option<bool>,
    #[doc(hidden)]
    /// Force moving data as 64-bit components (on or off) instead of the planner's choice
    /// (see `Plan::access64`); on needs `SHADER_INT64` and 8/16-byte units, a conversion's
    /// quads of 8/16 bytes on a side or wide micro blocks.
    pub access64: Option<bool>,
    #[doc(hidden)]
    /// Force writing the generic kernel's runs 16 bytes at a time (on or off) instead of the
    /// planner's choice (see `Plan::wide_stores`); on needs runs of 4/8-byte units into a
    /// destination that starts on 16 bytes.
    pub wide_stores: Option<bool>,
    #[doc(hidden)]
    /// Force the generic kernel's runs to walk the source in order and scatter (on or off)
    /// instead of the planner's choice (see `Plan::scatter`); on needs runs of a plain
    /// permute (not a view) whose innermost dim stays innermost, without wide stores (a
    /// forced scatter turns their default off), or a conversion's runs of quads.
    pub scatter: Option<bool>,
    #[doc(hidden)]
    /// Force the generic kernel's runs to walk in tiles (on or off) instead of the
    /// planner's choice (see `Plan::walk_tiles`); on needs runs of a plain permute in one
    /// binding, without wide stores or a scatter, whose output dim nearest in the source is
    /// not the one outside the innermost (a transpose's: in whole runs, a SIMD group's
    /// lanes across). Off, transposes of 16-byte units take micro blocks again.
    pub walk_tiles: Option<bool>,
    #[doc(hidden)]
    /// Force the micro kernel's runs along the column blocks (on or off) instead of the
    /// planner's choice (see `Plan::column_runs`); on needs runs (CPU devices) of square
    /// blocks of a permute or view without bounds or a conversion, whose column blocks some
    /// run divides, in binding windows (if any) that fit whole runs.
    pub column_runs: Option<bool>,
    #[doc(hidden)]
    /// Force moving each output row with a buffer copy where both buffers allow copies (on
    /// or off) instead of the planner's choice (see `Plan::row_copies`); on needs a
    /// permute or view without bounds or a conversion whose rows stay whole, in whole 32-bit
    /// words, at most `ROW_COPY_MAX` of them.
    pub row_copies: Option<bool>,
}
