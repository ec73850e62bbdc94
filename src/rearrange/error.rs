//! Why a pattern cannot rearrange a shape: one variant per cause, each naming what to fix.

use std::fmt;

use thiserror::Error;

/// A side of a pattern's `->`, for errors that concern one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Before `->`: the input.
    Left,
    /// After `->`: the output.
    Right,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Left => "left",
            Side::Right => "right",
        })
    }
}

/// Why a pattern cannot rearrange a shape. One variant per cause, each naming what to fix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RearrangeError {
    /// The pattern is not well formed; `position` is a byte offset into it.
    #[error("syntax error at byte {position} of the pattern: {reason}")]
    Syntax {
        /// Byte offset of the offending text.
        position: usize,
        /// What is wrong there.
        reason: &'static str,
    },

    /// An output axis must come from the input: rearrange creates no axes.
    #[error("axis `{axis}` is on the right of `->` but not on the left")]
    UnknownAxis {
        /// The axis.
        axis: String,
    },

    /// Every input axis must appear in the output: rearrange drops no axes.
    #[error("axis `{axis}` is on the left of `->` but not on the right")]
    MissingAxis {
        /// The axis.
        axis: String,
    },

    /// An axis can appear only once per side.
    #[error("axis `{axis}` appears twice on the {side} of `->`")]
    RepeatedAxis {
        /// The axis.
        axis: String,
        /// The side where it repeats.
        side: Side,
    },

    /// A size was given for an axis the pattern does not have, which is likely a typo.
    #[error("a size is given for axis `{axis}`, which the pattern does not name")]
    UnusedSize {
        /// The name given.
        axis: String,
    },

    /// A size was given twice for one axis.
    #[error("the size of axis `{axis}` is given twice")]
    SizeGivenTwice {
        /// The axis.
        axis: String,
    },

    /// Only one axis per input dim can be inferred from the dim's extent.
    #[error("axes `{first}` and `{second}` of input dim {dim} both need a size: give one of them")]
    TwoUnknown {
        /// The first axis without a size.
        first: String,
        /// The second axis without a size.
        second: String,
        /// The input dim.
        dim: usize,
    },

    /// Without padding, the inferred axis must divide its dim exactly.
    #[error(
        "cannot infer axis `{axis}`: input dim {dim} of extent {extent} is not a multiple of {known}, the product of the group's other axes (padding would round up)"
    )]
    NotDivisible {
        /// The axis to infer.
        axis: String,
        /// The input dim.
        dim: usize,
        /// The dim's extent.
        extent: usize,
        /// The product of the group's other axes.
        known: usize,
    },

    /// The given sizes of a dim's axes must multiply to its extent (or, with padding, to
    /// more).
    #[error("axes `{axes}` multiply to {product} but input dim {dim} has extent {extent}")]
    SizeMismatch {
        /// The dim's axes, space-separated.
        axes: String,
        /// The input dim.
        dim: usize,
        /// The dim's extent.
        extent: usize,
        /// The product of the given sizes.
        product: usize,
    },

    /// The shape's rank does not fit the pattern's left side.
    #[error(
        "the pattern's left side has {expected} dims{} but the shape has {rank}",
        if *.ellipsis { " besides `...`" } else { "" }
    )]
    RankMismatch {
        /// Dims the left side names, not counting `...`.
        expected: usize,
        /// Whether the left side has `...`, which takes any number of further dims.
        ellipsis: bool,
        /// Dims of the shape.
        rank: usize,
    },

    /// `...` must be on both sides or neither: rearrange neither creates nor drops dims.
    #[error("`...` is only on the {side} of `->`")]
    EllipsisOneSide {
        /// The side that has it.
        side: Side,
    },

    /// `...` can appear only once per side.
    #[error("`...` appears twice on the {side} of `->`")]
    EllipsisTwice {
        /// The side where it repeats.
        side: Side,
    },

    /// On the left, `...` cannot be inside parentheses: its dims cannot be split.
    #[error("`...` is inside parentheses on the left of `->`")]
    GroupedEllipsis,

    /// A `1` or `()` on the left stands for a dim of extent 1.
    #[error("input dim {dim} is `1` or `()` in the pattern but has extent {extent}")]
    NotUnit {
        /// The input dim.
        dim: usize,
        /// Its extent.
        extent: usize,
    },

    /// An axis cannot be inferred when the other axes of its group multiply to 0: any size
    /// would do (einops fails here too, dividing by zero).
    #[error(
        "cannot infer axis `{axis}` of input dim {dim} (extent {extent}): the group's other axes multiply to 0"
    )]
    ZeroProduct {
        /// The axis to infer.
        axis: String,
        /// The input dim.
        dim: usize,
        /// The dim's extent.
        extent: usize,
    },

    /// A product of sizes (a padded dim, a merged output dim or the whole split tensor)
    /// does not fit in `usize`.
    #[error("the sizes of the pattern's axes overflow usize")]
    Overflow,

    /// A crop names a different number of dims than the output has.
    #[error("the crop has {got} extents for an output of {rank} dims")]
    CropRank {
        /// Extents given.
        got: usize,
        /// The output's rank.
        rank: usize,
    },

    /// A crop is larger than the output dim it crops.
    #[error("output dim {dim} has extent {extent}, so it cannot be cropped to {crop}")]
    CropTooLarge {
        /// The output dim.
        dim: usize,
        /// Its extent before cropping.
        extent: usize,
        /// The extent asked for.
        crop: usize,
    },

    /// Padding and cropping in one rearrangement.
    #[error("a rearrangement that pads cannot also crop")]
    CropPadded,
}
