//! The planner's tuning constants: workgroup sizes, items and runs per invocation, block
//! and strip sides, binding windows, and the budgets of learning at run time. Not API: the
//! module is public only so that this crate's tests and tools derive their edge cases from
//! the same numbers, and any of them changes whenever a measurement says so.

/// Invocations per workgroup of the generic kernel (filled into its WGSL).
pub const GENERIC_WORKGROUP: u32 = 256;

/// Invocations per workgroup of the tiled kernel's strips (two warps of 32; each moves a
/// quad of 4 pixels of every channel, so a tile is 256 pixels).
pub const TILED_STRIP_WORKGROUP: u32 = 64;

/// Output items (units, or packed words) each thread of the generic kernel writes. More items
/// per thread amortise the workgroup bookkeeping; 4 keeps enough threads for small tensors.
pub const GENERIC_ITEMS: u32 = 4;

/// Bytes of one access of the micro kernel's wide blocks: a `vec4<u32>`.
pub const WIDE_ACCESS_BYTES: u32 = 16;

/// Longest whole dim of a micro kernel strip ([`Strip`](super::Strip)), in elements: the strip holds
/// this many 16-byte accesses in registers each way. 8 takes colour channels (3, 4 of
/// bytes), complex pairs and the odd short dims of real shapes; each extent is a shader
/// variant of its own.
pub const STRIP_MAX: u32 = 8;

/// Largest binding window, in bytes: the shaders index storage with `u32`, so a window
/// holds at most 2^32 words. Devices that report larger bindings (wgpu's Metal backend
/// reports `maxBufferLength`) are split into windows of this size.
pub const MAX_WINDOW_BYTES: u64 = 4 * u32::MAX as u64;

/// At most this many dispatches per permute; a request that would need more (a binding
/// limit far below the tensor's rows) is refused rather than crawled through.
pub const MAX_CHUNKS: usize = 1 << 16;

/// Smallest row and column extent (in units) for which the tiled batch transpose is chosen
/// on a GPU when no memory model is at hand (a plan made without a device, the model's
/// budget spent); where it is, the model decides ([`KernelReason::Modelled`](super::KernelReason::Modelled)). Set from the
/// model's figures (`wgpu-permute model`): at side 2 the gather wins (`[4096,2]`: generic
/// 0.67 of a copy, tiled 0.40; `[2,4096]`: 1.00 and 0.40), from side 4 the tile does
/// (`[4096,4]`: 0.67 and 0.40 the other way; `[4096,8]`: 1.00 against 0.22). The model
/// counts memory traffic only, not the idle threads of a thin tile: errs towards the tile.
pub const MIN_TILED_EXTENT: u64 = 4;

/// Most shapes a permuter models (traces) to choose their kernel; later shapes get the
/// heuristic. Bounds the memory of the figures kept and the first-call traces.
pub const MAX_MODELLED: usize = 4096;

/// Smallest tensor (in bytes) for which the generic kernel is compiled for its shape. A
/// specialised pipeline costs a compile per shape (tens of milliseconds), repaid many times
/// over by tensors of a few MiB; errs towards uniforms for small, varied tensors.
pub const SPECIALIZE_MIN_BYTES: u64 = 1 << 20;

/// Bytes a shape moves on the uniform generic kernel before it gets its own pipeline. On
/// lavapipe (2-core AMD EPYC) a specialised pipeline runs the generic kernel 10-20% faster
/// but costs a 60-90 ms compile, about what 10% of 512 MiB moved at the uniform kernel's
/// speed costs. Renting the uniform kernel until then and buying the compile after
/// (ski rental) is never worse than twice the better choice in hindsight; compiling on the
/// first call made 200 distinct shapes called once each 5x slower end to end.
pub const SPECIALIZE_PAYBACK_BYTES: u64 = 512 << 20;

/// Most shapes whose bytes on the uniform kernel a permuter counts (see
/// [`SPECIALIZE_PAYBACK_BYTES`]); later shapes stay on the uniform kernel.
pub const MAX_COUNTED: usize = 4096;

/// Most shapes a permuter compiles their own pipelines for; later shapes use the uniform
/// kernel, so a program permuting ever new shapes stays bounded in memory (some drivers,
/// lavapipe among them, never give back the memory of a destroyed pipeline). A shape
/// ([`super::ShapeKey`]: dims, permutation, unit, conversion and a view's layout) counts
/// once, whichever kernel compiles for it (few: a forced or autotuned one besides the
/// planned one).
pub const MAX_SPECIALIZED: usize = 64;

// The CPU-adapter family's constants, for the tests and the shaders' generators.
pub use super::cpu::tuning::*;
