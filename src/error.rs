//! Every way a permute can fail, one variant per cause.

use thiserror::Error;

/// Why a permute was refused or failed. Each variant names one cause, so callers (and tests)
/// can match on it; the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PermuteError {
    /// `perm` must have one entry per dimension of `shape`.
    #[error("permutation has {perm_len} entries but the shape has {rank} dimensions")]
    PermLength {
        /// Entries in `perm`.
        perm_len: usize,
        /// Dimensions of the shape.
        rank: usize,
    },

    /// An entry of `perm` names a dimension that does not exist.
    #[error("permutation entry {value} is out of range for a tensor of rank {rank}")]
    PermOutOfRange {
        /// The entry.
        value: usize,
        /// Dimensions of the shape.
        rank: usize,
    },

    /// Each input dimension must appear exactly once in `perm`.
    #[error("permutation names dimension {value} more than once")]
    PermDuplicate {
        /// The repeated entry.
        value: usize,
    },

    /// The tensor has more dimensions than the kernels are generated for.
    #[error("rank {rank} is above the supported maximum of {max}")]
    RankTooLarge {
        /// Dimensions of the shape.
        rank: usize,
        /// The highest rank accepted.
        max: usize,
    },

    /// Only the element sizes the kernels move are accepted.
    #[error("element size {0} bytes is not supported (use 1, 2, 4, 8 or 16)")]
    ElemSize(usize),

    /// A view's description is inconsistent (the message says how): strides or bounds that
    /// do not match its rank, a bound over dims that are not a split of one source dim.
    #[error("invalid view: {0}")]
    InvalidView(String),

    /// A view's existing positions would read, or its output would write, outside the
    /// buffer region given for it.
    #[error("the view reaches {need} elements into the {which}, which holds {have}")]
    ViewOutOfBounds {
        /// `"source"` or `"destination"`.
        which: &'static str,
        /// Elements the view needs the region to hold.
        need: u64,
        /// Elements it holds.
        have: u64,
    },

    /// Two positions of a view's output would land on one destination element: the
    /// destination strides overlap.
    #[error("the destination strides put two output positions on one element")]
    OverlappingOutput,

    /// The fill value of a padded view must be exactly one element.
    #[error("the fill value has {fill} bytes but elements have {elem}")]
    FillSize {
        /// Bytes of the fill value given.
        fill: usize,
        /// Bytes per element.
        elem: usize,
    },

    /// The element count or byte size does not fit in 64 bits.
    #[error("the tensor's size overflows 64-bit arithmetic")]
    SizeOverflow,

    /// Byte offsets into the buffers must be multiples of 4, because the shaders address
    /// storage as 32-bit words.
    #[error("{which} offset {offset} is not a multiple of 4 bytes")]
    UnalignedOffset {
        /// `"source"` or `"destination"`.
        which: &'static str,
        /// The offset, in bytes.
        offset: u64,
    },

    /// A buffer is smaller than the bytes the request describes.
    #[error("{which} buffer holds {have} bytes but the request needs {need} (offset + tensor)")]
    BufferTooSmall {
        /// `"source"`, `"destination"` or `"readback"`.
        which: &'static str,
        /// Bytes the request needs (offset + tensor, rounded up to whole words).
        need: u64,
        /// Bytes the buffer holds.
        have: u64,
    },

    /// A buffer lacks a usage flag the chosen kernel needs.
    #[error("{which} buffer was created without {missing} usage, which this permute needs")]
    MissingUsage {
        /// `"source"`, `"destination"` or `"readback"`.
        which: &'static str,
        /// The usage flag it lacks, e.g. `"STORAGE"`.
        missing: &'static str,
    },

    /// Source and destination must be different buffers: a permute cannot run in place.
    #[error("source and destination are the same buffer; a permute cannot run in place")]
    SameBuffer,

    /// wgpu reports the two buffers as one, yet they differ in size or usage: they come
    /// from different `wgpu::Instance`s (whose buffer ids coincide). Use buffers made on
    /// the permuter's device.
    #[error(
        "source and destination are different buffers that wgpu cannot tell apart: they come from different wgpu instances; use buffers of the permuter's device"
    )]
    ForeignBuffer,

    /// A host slice's length does not match the shape.
    #[error("data holds {have} elements but the shape describes {need}")]
    DataLength {
        /// Elements the shape describes.
        need: usize,
        /// Elements the data holds.
        have: usize,
    },

    /// The request needs more than a device limit allows.
    #[error("{what} needs {need} but the device limit `{limit}` is {have}")]
    DeviceLimit {
        /// What needs the limit raised.
        what: &'static str,
        /// The limit's name, as in `wgpu::Limits`.
        limit: &'static str,
        /// The value needed.
        need: u64,
        /// The device's value.
        have: u64,
    },

    /// A forced choice (kernel or index width) cannot serve this request.
    #[error("forced {what} cannot be used here: {why}")]
    ForcedChoice {
        /// The forced choice.
        what: &'static str,
        /// Why it cannot serve the request.
        why: &'static str,
    },

    /// No adapter could be found for the convenience constructor.
    #[error("no GPU adapter found ({0}); install a Vulkan driver such as Mesa's lavapipe")]
    NoAdapter(String),

    /// The device could not be created on the chosen adapter.
    #[error("could not create a device: {0}")]
    RequestDevice(String),

    /// wgpu reported a validation error for one of this crate's calls.
    #[error("wgpu validation error: {0}")]
    Validation(String),

    /// wgpu could not allocate memory for this crate's resources.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),

    /// The device was lost (destroyed, reset or removed); make a new one.
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),

    /// The GPU did not finish within the wait limit (`gpu::WAIT_TIMEOUT`).
    #[error("the GPU did not finish within {0:?}")]
    Timeout(std::time::Duration),

    /// Reading results back, or waiting for the GPU, failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),

    /// An einops pattern does not fit the shape or the given axis sizes; the message names
    /// the axis or dim at fault (see [`crate::rearrange::RearrangeError`]).
    #[error(transparent)]
    Rearrange(#[from] crate::rearrange::RearrangeError),
}
