//! Fast N-dimensional tensor permute (transpose) on any GPU that wgpu drives.
//!
//! A request (shape, permutation, element size) is first simplified: size-1 dims are dropped
//! and dims that move together are merged, and the innermost run is moved in the widest
//! aligned chunk (up to 16 bytes). Then one kernel runs:
//!
//! | simplified request | kernel |
//! |---|---|
//! | no elements | nothing |
//! | identity, byte count a multiple of 4 | `copy_buffer_to_buffer` |
//! | innermost dim moves, tile sides >= 16, on a GPU | `tiled`: workgroup-memory tiles |
//! | innermost dim moves, sides divisible by 4, on a CPU device | `micro`: 4x4 register tiles |
//! | anything else, or larger than one binding | `generic`: unrolled index decode |
//!
//! 8- and 16-bit data moves packed in 32-bit words, so `SHADER_F16` is never needed, and
//! 64-bit index math is used only when offsets exceed 32 bits.
//!
//! ```no_run
//! use wgpu_permute::Permuter;
//!
//! let permuter = Permuter::new_default()?;
//! // A 2 x 3 matrix, transposed.
//! let out = permuter.permute_slice(&[1u32, 2, 3, 4, 5, 6], &[2, 3], &[1, 0])?;
//! assert_eq!(out, [1, 4, 2, 5, 3, 6]);
//! # Ok::<(), wgpu_permute::PermuteError>(())
//! ```

pub mod bench;
mod error;
mod gpu;
pub mod plan;
pub mod reference;
pub mod shaders;
pub mod timing;

pub use error::PermuteError;
pub use gpu::{
    Permuter, WAIT_TIMEOUT, WANTED_FEATURES, caps_of, captured, default_device, device_on,
    gpu_permute, read_buffer, upload,
};
pub use plan::{DeviceCaps, IndexMath, Kernel, Options, Plan, Request, plan};
