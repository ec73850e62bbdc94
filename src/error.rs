//! Every way a permute can fail, one variant per cause.

use thiserror::Error;

/// Why a permute was refused or failed. Each variant names one cause, so callers (and tests)
/// can match on it; the message says what to change. Non-exhaustive: new causes may be
/// added in a minor version, so a match needs a catch-all arm.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
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

    /// An element conversion that cannot be made (the message says why): a destination
    /// that is not one, a channel count that does not match its axis, a zero std, an axis
    /// that does not exist.
    #[error("invalid conversion: {0}")]
    InvalidConversion(String),

    /// A view's existing positions would read, or its output would write, outside the
    /// buffer region given for it. `lowest` and `highest` are the first and last element
    /// the view reaches, counted from the region's start (negative: before it).
    #[error(
        "the view reaches {which} elements {lowest} to {highest}, but the {which} region holds {have} elements"
    )]
    ViewOutOfBounds {
        /// `"source"` or `"destination"`.
        which: &'static str,
        /// The lowest element reached, from the region's start.
        lowest: i128,
        /// The highest element reached.
        highest: i128,
        /// Elements the region holds.
        have: u64,
    },

    /// A view's destination strides do not prove its output positions distinct: sorted by
    /// stride, some dim steps by less than the span of the dims inside it, so two positions
    /// may land on one element (interleaved strides are refused even where they happen not
    /// to collide). Parts of one output that overlap are refused the same way.
    #[error(
        "the output positions may overlap: destination strides must nest (sorted, each at least the span of the dims inside it), and parts of one output must not share an element"
    )]
    OverlappingOutput,

    /// Parts of one output whose spans meet are proved disjoint element run by element run,
    /// within [`crate::view::parts::PARTS_CHECK_BUDGET`] bytes of host memory; these would
    /// take more (a hostile output length, or billions of runs).
    #[error(
        "parts of one output too large to check for overlap: {runs} runs over {reach} elements (the check takes at most {budget} bytes)"
    )]
    PartsTooLarge {
        /// Runs of consecutive destination elements in the parts.
        runs: usize,
        /// Elements from the output's start to the end of the farthest part.
        reach: usize,
        /// [`crate::view::parts::PARTS_CHECK_BUDGET`].
        budget: usize,
    },

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

    /// A buffer belongs to another device or another `wgpu::Instance` than the permuter's
    /// (wgpu would alias it with one of the permuter's own, whose id it shares). Use
    /// buffers made on the permuter's device.
    #[error("the {which} buffer belongs to another device or wgpu instance than the permuter's")]
    ForeignBuffer {
        /// `"source"` or `"destination"`.
        which: &'static str,
    },

    /// A buffer was destroyed (`Buffer::destroy`) before the permute was recorded.
    #[error("the {which} buffer has been destroyed")]
    DestroyedBuffer {
        /// `"source"` or `"destination"`.
        which: &'static str,
    },

    /// A buffer is mapped (or was made mapped at creation); the GPU cannot use it until it
    /// is unmapped.
    #[error("the {which} buffer is mapped: unmap it before a permute uses it")]
    MappedBuffer {
        /// `"source"` or `"destination"`.
        which: &'static str,
    },

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

    /// wgpu was built without any backend this platform has (or without the ones asked
    /// for), so no device can be made: this crate's default features turn on wgpu's native
    /// backends; a build with `default-features = false` names the ones it wants.
    #[error(
        "no wgpu backend for {requested} is compiled in: turn on a backend feature of wgpu-permute (`vulkan`, `metal`, `dx12` or `gles`; all are on by default) or of wgpu"
    )]
    NoBackend {
        /// The backends asked for, as `wgpu::Backends` prints them.
        requested: String,
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

    /// A step of this crate's own failed where it never should (a shader that does not
    /// generate, a trace that does not decode): a bug of this crate, please report it.
    #[error("internal error of wgpu-permute (please report it): {0}")]
    Internal(String),

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
