//! Fast N-dimensional tensor permute (transpose) on any GPU that wgpu drives.
//!
//! ```
//! use wgpu_permute::Permuter;
//!
//! # if std::env::var("WGPU_PERMUTE_SKIP_GPU").is_ok_and(|v| v == "1") { return Ok(()); }
//! let permuter = Permuter::new_default()?;
//! // A 2 x 3 matrix, transposed; output dim i is input dim perm[i], as in numpy.
//! let out = permuter.permute_slice(&[1u32, 2, 3, 4, 5, 6], &[2, 3], &[1, 0])?;
//! assert_eq!(out, [1, 4, 2, 5, 3, 6]);
//! // The CPU reference is the same call on the host.
//! assert_eq!(out, wgpu_permute::reference::permute_slice(&[1u32, 2, 3, 4, 5, 6], &[2, 3], &[1, 0])?);
//! # Ok::<(), wgpu_permute::PermuteError>(())
//! ```
//!
//! Every kind of movement is one value, a [`Relayout`]: a permute, a strided view (ndarray's
//! builders on [`View`]), an einops pattern ([`rearrange`]), padded or cropped, parts of one
//! output. It is checked when it is built and knows its output shape; a [`Permuter`] then
//! records it into your encoder ([`Permuter::record`]: nothing submits behind your back),
//! runs it on host data ([`Permuter::run`]), or prepares it ahead of time
//! ([`Permuter::prepare`]: planned, tuned and compiled once). With your own device,
//! [`Permuter::new`] takes `&Device` and `&Queue` and plans exactly as for a device the crate
//! makes on the same adapter. This crate re-exports the [`wgpu`] it is built against.
//!
//! ```
//! use wgpu_permute::{Permuter, Relayout};
//!
//! # if std::env::var("WGPU_PERMUTE_SKIP_GPU").is_ok_and(|v| v == "1") { return Ok(()); }
//! let permuter = Permuter::new_default()?;
//! // NCHW with 3 channels -> NCHW4c, the fourth channel filled with zeros, one pass.
//! let x: Vec<f32> = (0..2 * 3 * 4 * 4).map(|i| i as f32).collect();
//! let op = Relayout::rearrange_padded("n (cb c) h w -> n cb h w c", &[2, 3, 4, 4], &[("c", 4)], 4, &[0; 4])?;
//! assert_eq!(op.out_shape(), [2, 1, 4, 4, 4]);
//! let blocked: Vec<f32> = permuter.run(&op, &x)?;
//! // And back, cropped to the 3 channels.
//! let back = Relayout::rearrange_cropped("n cb h w c -> n (cb c) h w", op.out_shape(), &[], 4, &[2, 3, 4, 4])?;
//! let restored: Vec<f32> = permuter.run(&back, &blocked)?;
//! assert_eq!(restored, x);
//! # Ok::<(), wgpu_permute::PermuteError>(())
//! ```
//!
//! # How a kernel is chosen
//!
//! A request (shape, permutation, element size) is first simplified: size-1 dims are
//! dropped, dims that move together are merged, and the innermost run moves in the widest
//! aligned chunk (up to 16 bytes). Then [`plan()`] chooses, and records why
//! ([`plan::KernelReason`]; [`Plan::explain`] prints it):
//!
//! | simplified request | kernel |
//! |---|---|
//! | no elements | nothing |
//! | identity, byte count a multiple of 4 | `copy_buffer_to_buffer` |
//! | innermost dim stays innermost and contiguous (no bounds, no conversion), on a CPU device, rows of 12 KiB or more in whole 32-bit words, at most 65,536 of them | one `copy_buffer_to_buffer` per output row where the buffers allow copies, else the kernel below (`Plan::row_copies`) |
//! | larger than one storage binding | the same kernel, one dispatch per box of whole tiles, blocks or runs over windows of the buffers; `generic` where none fits |
//! | innermost dim stays innermost | `generic`: unrolled index decode, whole rows' units (on CPU devices in runs, walked in tiles where neighbouring output rows come from far apart in the source) |
//! | innermost dim moves, on a CPU device, 16-byte units in whole runs, in one binding or in boxes of whole tiles | `generic`, runs down the output's rows in a walk of tiles (`plan::WalkTiles`) |
//! | innermost dim moves, on a CPU device, 1/2/4/8-byte units, sides divisible by the block (or one side a short contiguous dim) | `micro`: register blocks, 16 bytes square where they fit, else strips of a whole short dim (`[H*W, 3] -> [3, H*W]`), else 4x4 words |
//! | the same, sides the blocks do not divide, reads of an output row spanning > 1 MiB | in parts: the body on `micro`, the edges on `generic` ([`plan::edge_parts`]) |
//! | innermost dim moves, on a GPU, tile sides >= 16 | `tiled`: workgroup-memory tiles |
//! | anything else | `generic` (on CPU devices, runs of neighbouring output units) |
//!
//! With [`Permuter::with_autotune`], measured winners replace the heuristic per shape class.
//! [`diagnostics`] reads what a permuter chose and learnt (plans without first-use work,
//! the memory model's traces, autotuning outcomes).
//! 8- and 16-bit data moves packed in 32-bit words, so `SHADER_F16` is never needed, and
//! 64-bit index math is used only when offsets exceed 32 bits.
//!
//! # Errors
//!
//! Every failure is a [`PermuteError`], never a panic and never a wrong answer:
//!
//! | variant | when |
//! |---|---|
//! | `PermLength`, `PermOutOfRange`, `PermDuplicate` | `perm` is not a permutation of the dims |
//! | `RankTooLarge`, `ElemSize`, `SizeOverflow` | rank above 16, element size not 1/2/4/8/16, sizes past 64 bits |
//! | `UnalignedOffset`, `BufferTooSmall`, `MissingUsage` | the buffers cannot hold or serve the request |
//! | `SameBuffer`, `ForeignBuffer` | source and destination are one buffer, or a buffer belongs to another device or instance |
//! | `DestroyedBuffer`, `MappedBuffer` | a buffer was destroyed, or is mapped |
//! | `InvalidView`, `FillSize` | a view's strides or bounds do not fit its rank or each other; a fill value is not one element |
//! | `InvalidConversion` | an element conversion names no destination type, a zero std, a channel axis that does not exist or a channel count that does not match it |
//! | `ViewOutOfBounds`, `OverlappingOutput` | a view reads or writes outside its regions; destination strides or parts that may write one element twice |
//! | `PartsTooLarge` | parts of one output whose spans meet are too large to prove disjoint within a bounded check |
//! | `DataLength` | a host slice does not match the shape |
//! | `DeviceLimit` | a device limit makes the request impossible (names the limit) |
//! | `ForcedChoice` | a forced kernel or index width cannot serve the request |
//! | `Validation`, `OutOfMemory` | wgpu refused a call (captured with error scopes) |
//! | `Internal` | a step of this crate's own failed (shader generation, a trace): a bug, please report it |
//! | `DeviceLost`, `Timeout` | the device was lost, or the GPU did not finish in time |
//! | `NoBackend`, `NoAdapter`, `RequestDevice`, `Readback` | no wgpu backend compiled in; set-up or readback failed |
//! | `Rearrange` | an einops pattern does not fit the shape or the axis sizes given (names the axis) |
#![warn(missing_docs)]

// The benchmark runner of the command-line tool and `benches/`: a feature, not the API.
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod bench;
pub mod convert;
mod error;
mod gpu;
#[doc(hidden)]
pub mod model;
mod options;
pub mod plan;
pub mod rearrange;
pub mod reference;
pub mod relayout;
#[doc(hidden)]
pub mod shaders;
pub mod view;
// The bench page's suite: for the command-line tool and the tests.
#[cfg(all(feature = "bench", feature = "json"))]
#[doc(hidden)]
pub mod web;
#[doc(hidden)]
pub mod work;

pub use error::PermuteError;
pub use gpu::{
    Operation, Permuter, Prepared, WAIT_TIMEOUT, WANTED_FEATURES, default_device, device_on,
    diagnostics, gpu_permute, read_buffer, serialized,
};
#[doc(hidden)]
pub use gpu::{caps_of, captured, timing, upload};
pub use plan::{DeviceCaps, IndexMath, Kernel, Options, Plan};
#[doc(hidden)]
pub use plan::{Request, ViewRequest, plan, plan_view};
pub use relayout::Relayout;
pub use view::{Bound, View};
pub use wgpu;

/// The README's examples, compiled and run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
