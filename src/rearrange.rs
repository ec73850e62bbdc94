//! The pattern logic of einops' `rearrange`, with no tensor and no GPU: a pattern such as
//! `b c (h p) w -> b (h w) (p c)` and a shape become "split each input dim into elementary
//! axes, permute those, merge groups of them into output dims", which one strided view and
//! one permute can carry out.
//!
//! ```
//! use wgpu_permute::rearrange::rearrange;
//!
//! let r = rearrange("b s (h d) -> b h s d", &[2, 5, 64], &[("h", 8)], false)?;
//! assert_eq!(r.split_shape, [2, 5, 8, 8]);
//! assert_eq!(r.perm, [0, 2, 1, 3]);
//! assert_eq!(r.out_shape, [2, 8, 5, 8]);
//! # Ok::<(), wgpu_permute::rearrange::RearrangeError>(())
//! ```
//!
//! # Patterns
//!
//! Exactly what einops 0.8's `rearrange` accepts, restricted to ASCII:
//!
//! - `left -> right`, one `->`; elements are separated by spaces (einops rejects tabs).
//! - A name (letters, digits, `_`; not starting with a digit, not starting or ending with
//!   `_`) is one axis and must appear once on each side.
//! - `(a b)` on the left splits one input dim (row-major: `b` varies fastest); on the
//!   right it merges axes into one output dim. Parentheses do not nest.
//! - `1` (also written `01`) and `()` on the left stand for a dim of extent 1, which is
//!   dropped; on the right they insert a dim of extent 1. Inside parentheses `1` is ignored.
//!   Other numbers are refused: rearrange has no anonymous axes.
//! - `...` stands for the dims no other element takes, once per side, on both sides or
//!   neither; on the right it may sit inside a group, `(...)`, which merges those dims (into
//!   one dim of extent 1 when there are none). Its axes are named `…0`, `…1`, ... (with
//!   the one-character ellipsis `…`, as einops does); sizes cannot be given for them.
//!
//! Within one input dim at most one axis may lack a given size; it is inferred. With
//! `pad`, an inferred axis is rounded up, and a group whose given sizes all multiply to more
//! than the dim pads it: the padded tail of that input dim is for a later stage to fill.
//!
//! Where einops fails with something other than its own error (a missing `->`, or a group
//! whose other axes multiply to 0, where it divides by zero), this module returns an error
//! too. It also refuses a size given twice, which Python keyword arguments cannot express.

use std::ops::Range;

use crate::view::{Bound, View};

/// A pattern resolved against a shape: how to view the input as elementary axes, how to
/// order them, and how to group them into the output. Data moves only when `perm` is not
/// the identity or a dim is padded ([`Rearrangement::is_identity`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rearrangement {
    /// Extents of the elementary axes after splitting the input, in input order: a `1` or
    /// `()` dim has none, each dim under `...` is one.
    pub split_shape: Vec<usize>,
    /// For each input dim, its elementary axes and its real extent, so that a padded dim's
    /// tail can be told apart.
    pub input_dims: Vec<SplitDim>,
    /// Output order of the elementary axes: output elementary axis `i` is split axis
    /// `perm[i]` (numpy's convention, as in [`crate::Permuter`]).
    pub perm: Vec<usize>,
    /// The output's shape once groups are merged and `1`/`()` dims inserted.
    pub out_shape: Vec<usize>,
    /// For each output dim, the positions in `perm` of the axes it merges (empty for a
    /// `1` or `()` dim).
    pub out_groups: Vec<Range<usize>>,
    /// Names of the elementary axes, in split order (`…0`, `…1`, ... under `...`), for
    /// messages and debugging.
    pub names: Vec<String>,
}

/// How one input dim maps onto elementary axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitDim {
    /// Its elementary axes: a range of indices into `split_shape`, empty for a `1` or `()`
    /// dim.
    pub axes: Range<usize>,
    /// Its real extent, the shape's entry.
    pub extent: usize,
    /// The product of its axes' extents: above `extent` only when padded, and then the
    /// indices from `extent` up are padding.
    pub padded_extent: usize,
}

impl SplitDim {
    /// Whether this dim was padded, so that its tail needs filling.
    pub fn is_padded(&self) -> bool {
        self.padded_extent != self.extent
    }
}

impl Rearrangement {
    /// Whether the result is the input's data in the same order: then a reshape to
    /// `out_shape` is all it takes, and no data moves.
    pub fn is_identity(&self) -> bool {
        !self.is_padded() && self.perm.iter().enumerate().all(|(i, &p)| i == p)
    }

    /// Whether any input dim was padded ([`SplitDim::is_padded`]).
    pub fn is_padded(&self) -> bool {
        self.input_dims.iter().any(SplitDim::is_padded)
    }

    #[doc(hidden)]
    /// The rearrangement as one view of the input, whose elements lie `dim_strides` apart
    /// along each input dim (row-major strides of the shape for a contiguous tensor): the
    /// elementary axes in output order, each padded input dim bounded to its real extent
    /// over its axes (so its tail reads the fill value). Materialising it writes the output,
    /// in `out_shape`, in one pass. Strides whose products over the split axes overflow
    /// `isize` are refused ([`RearrangeError::Overflow`]), not wrapped.
    pub fn view(&self, dim_strides: &[isize]) -> Result<View, RearrangeError> {
        let mut strides = vec![0isize; self.split_shape.len()];
        for (dim, &stride) in self.input_dims.iter().zip(dim_strides) {
            let mut s = stride;
            for axis in dim.axes.clone().rev() {
                strides[axis] = s;
                s = isize::try_from(self.split_shape[axis])
                    .ok()
                    .and_then(|n| s.checked_mul(n))
                    .ok_or(E::Overflow)?;
            }
        }
        let mut at = vec![0; self.perm.len()]; // view dim of each elementary axis
        for (i, &p) in self.perm.iter().enumerate() {
            at[p] = i;
        }
        Ok(View {
            shape: self.perm.iter().map(|&p| self.split_shape[p]).collect(),
            strides: self.perm.iter().map(|&p| strides[p]).collect(),
            offset: 0,
            bounds: self
                .input_dims
                .iter()
                .filter(|d| d.is_padded())
                .map(|d| Bound {
                    dims: d.axes.clone().map(|a| at[a]).collect(),
                    valid: 0..d.extent,
                })
                .collect(),
            dst_strides: None,
        })
    }

    #[doc(hidden)]
    /// The rearrangement's output cropped to `crop` (the first `crop[j]` indices of output
    /// dim `j`): the way back from a padded layout, e.g. `n cb h w c -> n (cb c) h w` cropped
    /// to 6 channels. Returns views of the input (see [`Rearrangement::view`]), each with the
    /// destination strides of the cropped output and its first destination element; they
    /// write disjoint parts of the output, which together they fill, each element read and
    /// written once. A cropped merged dim is cut into boxes of whole inner axes (at most one
    /// per axis: for 6 of `(cb c)` with `c = 4`, `cb = 0` whole and then `cb = 1, c < 2`),
    /// since the merged index's split is not one stride.
    pub fn cropped_views(
        &self,
        dim_strides: &[isize],
        crop: &[usize],
    ) -> Result<Vec<(View, usize)>, RearrangeError> {
        if crop.len() != self.out_shape.len() {
            return Err(E::CropRank {
                got: crop.len(),
                rank: self.out_shape.len(),
            });
        }
        for (dim, (&c, &extent)) in crop.iter().zip(&self.out_shape).enumerate() {
            if c > extent {
                return Err(E::CropTooLarge {
                    dim,
                    extent,
                    crop: c,
                });
            }
        }
        if self.is_padded() && crop != self.out_shape {
            return Err(E::CropPadded);
        }
        let full = self.view(dim_strides)?;
        if crop.contains(&0) {
            return Ok(Vec::new());
        }
        // Destination strides of the view dims: the cropped output's row-major strides,
        // split over each output dim's axes as over an input dim's.
        let out_strides = crate::view::row_major(crop);
        let mut dst = vec![0usize; full.shape.len()];
        for (group, &stride) in self.out_groups.iter().zip(&out_strides) {
            let mut s = stride;
            for p in group.clone().rev() {
                dst[p] = s;
                s *= full.shape[p];
            }
        }
        // Per output dim, its boxes: per axis of the group, (first index, extent).
        let boxes: Vec<Vec<Vec<(usize, usize)>>> = self
            .out_groups
            .iter()
            .zip(crop)
            .map(|(group, &c)| crop_boxes(&full.shape[group.clone()], c))
            .collect();
        let mut views = Vec::new();
        let mut pick = vec![0usize; boxes.len()];
        loop {
            let mut view = View {
                dst_strides: Some(dst.clone()),
                ..full.clone()
            };
            let mut first = 0usize;
            for (j, group) in self.out_groups.iter().enumerate() {
                for (p, &(start, extent)) in group.clone().zip(&boxes[j][pick[j]]) {
                    view.shape[p] = extent;
                    // In the view's reach, which `View::check` bounds; checked all the same.
                    view.offset = isize::try_from(start)
                        .ok()
                        .and_then(|start| start.checked_mul(full.strides[p]))
                        .and_then(|o| view.offset.checked_add(o))
                        .ok_or(E::Overflow)?;
                    first += start * dst[p];
                }
            }
            views.push((view, first));
            // Next combination of boxes.
            let Some(j) = (0..pick.len())
                .rev()
                .find(|&j| pick[j] + 1 < boxes[j].len())
            else {
                return Ok(views);
            };
            pick[j] += 1;
            pick[j + 1..].fill(0);
        }
    }
}

/// The combined indices `0..crop` of axes of these extents (outermost first) as boxes of
/// whole inner axes: per box, per axis, (first index, extent).
fn crop_boxes(extents: &[usize], crop: usize) -> Vec<Vec<(usize, usize)>> {
    let whole: usize = extents.iter().product();
    if crop == whole {
        return vec![extents.iter().map(|&e| (0, e)).collect()];
    }
    let mut boxes = Vec::new();
    let mut prefix = Vec::new(); // digits of `crop` above the current axis
    let mut rest = crop;
    for t in 0..extents.len() {
        let below: usize = extents[t + 1..].iter().product();
        let digit = rest / below;
        if digit > 0 {
            let mut b: Vec<(usize, usize)> = prefix.iter().map(|&d| (d, 1)).collect();
            b.push((0, digit));
            b.extend(extents[t + 1..].iter().map(|&e| (0, e)));
            boxes.push(b);
        }
        prefix.push(digit);
        rest %= below;
        if rest == 0 {
            break;
        }
    }
    boxes
}

mod error;
mod parse;

use RearrangeError as E;
pub use error::{RearrangeError, Side};
use parse::{Atom, check_sides, expand, names, parse_side, syntax};

/// Resolves an einops `rearrange` pattern against `shape`, with sizes for some axes given
/// as `axes`. With `pad`, a dim that its axes do not divide is padded up instead of refused
/// (see the [module docs](self)).
pub fn rearrange(
    pattern: &str,
    shape: &[usize],
    axes: &[(&str, usize)],
    pad: bool,
) -> Result<Rearrangement, RearrangeError> {
    let arrows: Vec<usize> = pattern.match_indices("->").map(|(i, _)| i).collect();
    let arrow = match arrows[..] {
        [arrow] => arrow,
        [] => return Err(syntax(pattern.len(), "the pattern has no `->`")),
        [_, second, ..] => return Err(syntax(second, "the pattern has more than one `->`")),
    };
    let left = parse_side(pattern, 0..arrow, Side::Left)?;
    let right = parse_side(pattern, arrow + 2..pattern.len(), Side::Right)?;
    check_sides(&left, &right)?;

    let has_ellipsis = left.iter().any(|g| g.atoms.contains(&Atom::Ellipsis));
    let expected = left.len() - usize::from(has_ellipsis);
    let ellipsis_rank = match shape.len().checked_sub(expected) {
        Some(extra) if has_ellipsis || extra == 0 => extra,
        _ => {
            return Err(E::RankMismatch {
                expected,
                ellipsis: has_ellipsis,
                rank: shape.len(),
            });
        }
    };

    let mut given: Vec<(&str, usize)> = Vec::new();
    for &(axis, size) in axes {
        if !names(&left).any(|n| n == axis) {
            return Err(E::UnusedSize { axis: axis.into() });
        }
        if given.iter().any(|&(n, _)| n == axis) {
            return Err(E::SizeGivenTwice { axis: axis.into() });
        }
        given.push((axis, size));
    }
    let size_of = |axis: &str| given.iter().find(|&&(n, _)| n == axis).map(|&(_, s)| s);

    let left = expand(&left, ellipsis_rank);
    let right = expand(&right, ellipsis_rank);
    for (dim, group) in left.iter().enumerate() {
        let mut unknown = group.iter().filter(|a| size_of(a).is_none());
        if let (Some(first), Some(second)) = (unknown.next(), unknown.next()) {
            return Err(E::TwoUnknown {
                first: first.clone(),
                second: second.clone(),
                dim,
            });
        }
    }

    let mut split_shape = Vec::new();
    let mut input_dims = Vec::new();
    for (dim, (group, &extent)) in left.iter().zip(shape).enumerate() {
        let given: Vec<Option<usize>> = group.iter().map(|a| size_of(a)).collect();
        let (sizes, padded_extent) = resolve(group, given, dim, extent, pad)?;
        let start = split_shape.len();
        split_shape.extend(sizes);
        input_dims.push(SplitDim {
            axes: start..split_shape.len(),
            extent,
            padded_extent,
        });
    }
    product(split_shape.iter().copied()).ok_or(E::Overflow)?;

    let names = left.concat();
    let mut perm = Vec::with_capacity(names.len());
    let mut out_shape = Vec::with_capacity(right.len());
    let mut out_groups = Vec::with_capacity(right.len());
    for group in &right {
        let start = perm.len();
        for axis in group {
            let index = names.iter().position(|n| n == axis);
            perm.push(index.ok_or_else(|| E::UnknownAxis { axis: axis.clone() })?);
        }
        out_shape.push(product(perm[start..].iter().map(|&a| split_shape[a])).ok_or(E::Overflow)?);
        out_groups.push(start..perm.len());
    }
    Ok(Rearrangement {
        split_shape,
        input_dims,
        perm,
        out_shape,
        out_groups,
        names,
    })
}

/// The extents of input dim `dim`'s axes `group`, of which `sizes` gives all but at most
/// one, and their product (the padded extent).
fn resolve(
    group: &[String],
    mut sizes: Vec<Option<usize>>,
    dim: usize,
    extent: usize,
    pad: bool,
) -> Result<(Vec<usize>, usize), E> {
    if group.is_empty() {
        return if extent == 1 {
            Ok((Vec::new(), 1))
        } else {
            Err(E::NotUnit { dim, extent })
        };
    }
    let known = product(sizes.iter().flatten().copied()).ok_or(E::Overflow)?;
    let padded = match sizes.iter().position(Option::is_none) {
        None if known == extent || (pad && known > extent) => known,
        None => {
            return Err(E::SizeMismatch {
                axes: group.join(" "),
                dim,
                extent,
                product: known,
            });
        }
        Some(i) => {
            let axis = || group[i].clone();
            if known == 0 {
                return Err(E::ZeroProduct {
                    axis: axis(),
                    dim,
                    extent,
                });
            }
            if !extent.is_multiple_of(known) && !pad {
                return Err(E::NotDivisible {
                    axis: axis(),
                    dim,
                    extent,
                    known,
                });
            }
            let inferred = extent.div_ceil(known);
            sizes[i] = Some(inferred);
            known.checked_mul(inferred).ok_or(E::Overflow)?
        }
    };
    Ok((sizes.into_iter().flatten().collect(), padded))
}

/// The product of `sizes`, `None` on overflow; 0 when any size is 0, whatever the others.
fn product(sizes: impl Iterator<Item = usize> + Clone) -> Option<usize> {
    if sizes.clone().any(|s| s == 0) {
        return Some(0);
    }
    sizes.into_iter().try_fold(1usize, usize::checked_mul)
}

#[cfg(test)]
mod einops_tests;
#[cfg(test)]
mod tests;
