//! Builders of [`View`]s, as ndarray's are: start from [`View::contiguous`] (or
//! [`View::permuted`]) and slice, flip, broadcast, reorder and pad one axis at a time,
//! instead of writing strides, offsets and bounds by hand. Each returns a typed error for an
//! axis, range or shape that does not fit; [`View::check`] still judges the result against
//! its regions when it is planned.

use std::ops::Range;

use super::{Bound, View};
use crate::PermuteError;

fn invalid<T>(why: String) -> Result<T, PermuteError> {
    Err(PermuteError::InvalidView(why))
}

impl View {
    /// Axes reordered: axis `i` of the result is axis `perm[i]` of this view (ndarray's
    /// `permuted_axes`, numpy's `transpose`). Destination strides, if any, move with their
    /// axes.
    pub fn permuted_axes(mut self, perm: &[usize]) -> Result<View, PermuteError> {
        super::check_perm(self.shape.len(), perm)?;
        let mut new_of = vec![0; perm.len()];
        for (new, &old) in perm.iter().enumerate() {
            new_of[old] = new;
        }
        for bound in &mut self.bounds {
            bound.dims = bound.dims.iter().map(|&d| new_of[d]).collect();
            if !bound.dims.is_sorted() {
                return invalid(format!(
                    "axes {perm:?} reorder the dims of a split bound {:?}",
                    bound.dims
                ));
            }
        }
        self.shape = perm.iter().map(|&d| self.shape[d]).collect();
        self.strides = perm.iter().map(|&d| self.strides[d]).collect();
        if let Some(d) = &self.dst_strides {
            self.dst_strides = Some(perm.iter().map(|&p| d[p]).collect());
        }
        Ok(self)
    }

    /// The indices `range` of `axis`, every `step`-th (numpy's `x[a:b:step]` for a positive
    /// step; a negative one walks the range from its end, as ndarray's `s![a..b; -k]`).
    pub fn slice(
        mut self,
        axis: usize,
        range: Range<usize>,
        step: isize,
    ) -> Result<View, PermuteError> {
        let len = self.axis_len(axis)?;
        if range.start > range.end || range.end > len || step == 0 {
            return invalid(format!(
                "slice {range:?} step {step} of axis {axis} of length {len}"
            ));
        }
        let n = (range.end - range.start).div_ceil(step.unsigned_abs());
        let first = match step > 0 {
            true => range.start,
            false => range.end.saturating_sub(1),
        };
        let overflow = || PermuteError::SizeOverflow;
        let stride = self.strides[axis];
        if n > 0 {
            let moved = isize::try_from(first)
                .ok()
                .and_then(|f| f.checked_mul(stride))
                .ok_or_else(overflow)?;
            self.offset = self.offset.checked_add(moved).ok_or_else(overflow)?;
        }
        self.strides[axis] = stride.checked_mul(step).ok_or_else(overflow)?;
        if let Some(b) = self.own_bound(axis)? {
            // Index i of the result is index first + i * step of this view.
            let valid = &self.bounds[b].valid;
            self.bounds[b].valid = match step {
                1 => clamp(
                    valid.start.saturating_sub(first)..valid.end.saturating_sub(first),
                    n,
                ),
                -1 => clamp(
                    (first + 1).saturating_sub(valid.end)..(first + 1).saturating_sub(valid.start),
                    n,
                ),
                _ => {
                    return invalid(format!(
                        "padded axis {axis} sliced with step {step} (only 1 or -1)"
                    ));
                }
            };
        }
        self.shape[axis] = n;
        Ok(self)
    }

    /// `axis` reversed (numpy's `x[::-1]` on it, ndarray's `invert_axis`).
    pub fn invert_axis(self, axis: usize) -> Result<View, PermuteError> {
        let len = self.axis_len(axis)?;
        self.slice(axis, 0..len, -1)
    }

    /// This view repeated to `shape` by numpy's broadcasting rules: new leading axes, and
    /// axes of length 1 stretched, both read with stride 0. Not for views with destination
    /// strides.
    pub fn broadcast(mut self, shape: &[usize]) -> Result<View, PermuteError> {
        let (rank, new_rank) = (self.shape.len(), shape.len());
        if new_rank < rank || self.dst_strides.is_some() {
            return invalid(format!(
                "a view of shape {:?}{} does not broadcast to {shape:?}",
                self.shape,
                if self.dst_strides.is_some() {
                    " with destination strides"
                } else {
                    ""
                },
            ));
        }
        let added = new_rank - rank;
        for axis in 0..rank {
            let (from, to) = (self.shape[axis], shape[added + axis]);
            if from == to {
                continue;
            }
            if from != 1 {
                return invalid(format!(
                    "axis {axis} of length {from} does not broadcast to {to}"
                ));
            }
            if let Some(b) = self.own_bound(axis)? {
                let exists = self.bounds[b].valid.contains(&0);
                self.bounds[b].valid = if exists { 0..to } else { 0..0 };
            }
            self.strides[axis] = 0;
        }
        for bound in &mut self.bounds {
            bound.dims.iter_mut().for_each(|d| *d += added);
        }
        self.strides.splice(0..0, std::iter::repeat_n(0, added));
        self.shape = shape.to_vec();
        Ok(self)
    }

    /// `axis` padded with `before` and `after` positions that read the fill value (numpy's
    /// `np.pad` with a constant): the [`crate::Relayout`] carries the fill.
    pub fn pad(mut self, axis: usize, before: usize, after: usize) -> Result<View, PermuteError> {
        let len = self.axis_len(axis)?;
        let overflow = || PermuteError::SizeOverflow;
        let padded = len
            .checked_add(before)
            .and_then(|n| n.checked_add(after))
            .ok_or_else(overflow)?;
        let back = isize::try_from(before)
            .ok()
            .and_then(|b| b.checked_mul(self.strides[axis]))
            .ok_or_else(overflow)?;
        self.offset = self.offset.checked_sub(back).ok_or_else(overflow)?;
        match self.own_bound(axis)? {
            Some(b) => {
                let valid = &mut self.bounds[b].valid;
                *valid = valid.start + before..valid.end + before;
            }
            None => self.bounds.push(Bound {
                dims: vec![axis],
                valid: before..before + len,
            }),
        }
        self.shape[axis] = padded;
        Ok(self)
    }

    fn axis_len(&self, axis: usize) -> Result<usize, PermuteError> {
        match self.shape.get(axis) {
            Some(&len) if self.strides.len() == self.shape.len() => Ok(len),
            _ => invalid(format!(
                "axis {axis} of a view of rank {}",
                self.shape.len()
            )),
        }
    }

    /// The bound of `axis` alone, if any; an axis bounded together with others (a split
    /// channel dim) cannot be resized on its own.
    fn own_bound(&self, axis: usize) -> Result<Option<usize>, PermuteError> {
        match self.bounds.iter().position(|b| b.dims.contains(&axis)) {
            Some(b) if self.bounds[b].dims.len() > 1 => invalid(format!(
                "axis {axis} is bounded together with axes {:?}",
                self.bounds[b].dims
            )),
            found => Ok(found),
        }
    }
}

/// `range` within `0..n`, empty ranges as `0..0`.
fn clamp(range: Range<usize>, n: usize) -> Range<usize> {
    let (start, end) = (range.start.min(n), range.end.min(n));
    if start < end { start..end } else { 0..0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::materialize_bytes;

    /// The view of `0..n` (as u32), materialised by the CPU reference, fill 99.
    fn out(view: &View, n: u32) -> Vec<u32> {
        let src: Vec<u32> = (0..n).collect();
        let fill = 99u32.to_le_bytes();
        let bytes = materialize_bytes(bytemuck::cast_slice(&src), view, 4, &fill, view.len());
        bytemuck::pod_collect_to_vec(&bytes.unwrap())
    }

    #[test]
    fn slices_flips_and_steps_read_as_numpy_and_ndarray_do() {
        // x = arange(12).reshape(3, 4)
        let x = View::contiguous(&[3, 4]);
        // x[1:3, ::2]
        let v = x
            .clone()
            .slice(0, 1..3, 1)
            .unwrap()
            .slice(1, 0..4, 2)
            .unwrap();
        assert_eq!(out(&v, 12), [4, 6, 8, 10]);
        // x[:, ::-1]
        let v = x.clone().invert_axis(1).unwrap();
        assert_eq!(out(&v, 12), [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]);
        // ndarray s![.., 0..4; -2]: from the end of the range, every other.
        let v = x.clone().slice(1, 0..4, -2).unwrap();
        assert_eq!(out(&v, 12), [3, 1, 7, 5, 11, 9]);
        // x[2:2]: empty.
        assert_eq!(x.clone().slice(0, 2..2, 1).unwrap().len(), 0);
        // x.T
        let v = x.clone().permuted_axes(&[1, 0]).unwrap();
        assert_eq!(out(&v, 12), [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    }

    #[test]
    fn broadcasts_and_pads_read_as_numpy_does() {
        // np.broadcast_to(arange(3), (2, 3))
        let v = View::contiguous(&[3]).broadcast(&[2, 3]).unwrap();
        assert_eq!(out(&v, 3), [0, 1, 2, 0, 1, 2]);
        // np.broadcast_to(arange(2)[:, None], (2, 3))
        let v = View::contiguous(&[2, 1]).broadcast(&[2, 3]).unwrap();
        assert_eq!(out(&v, 2), [0, 0, 0, 1, 1, 1]);
        // np.pad(arange(6).reshape(2, 3), ((1, 0), (0, 2)), constant_values=99)
        let v = View::contiguous(&[2, 3])
            .pad(0, 1, 0)
            .unwrap()
            .pad(1, 0, 2)
            .unwrap();
        assert_eq!(
            out(&v, 6),
            [99, 99, 99, 99, 99, 0, 1, 2, 99, 99, 3, 4, 5, 99, 99]
        );
        // Padded, then flipped and sliced: np.pad(arange(3), (2, 1), constant_values=99)[::-1][1:]
        let v = View::contiguous(&[3]).pad(0, 2, 1).unwrap();
        assert_eq!(out(&v, 3), [99, 99, 0, 1, 2, 99]);
        let v = v.invert_axis(0).unwrap().slice(0, 1..6, 1).unwrap();
        assert_eq!(out(&v, 3), [2, 1, 0, 99, 99]);
        // Padded twice on one axis: one bound, moved.
        let v = View::contiguous(&[2])
            .pad(0, 1, 1)
            .unwrap()
            .pad(0, 1, 0)
            .unwrap();
        assert_eq!(v.bounds.len(), 1);
        assert_eq!(out(&v, 2), [99, 99, 0, 1, 99]);
    }

    #[test]
    fn builders_refuse_what_does_not_fit() {
        let x = View::contiguous(&[3, 4]);
        let refused = |r: Result<View, PermuteError>| {
            assert!(matches!(r, Err(PermuteError::InvalidView(_))), "{r:?}")
        };
        refused(x.clone().slice(2, 0..1, 1));
        refused(x.clone().slice(0, 2..4, 1));
        refused(x.clone().slice(0, 0..3, 0));
        refused(x.clone().broadcast(&[4]));
        refused(x.clone().broadcast(&[2, 3, 5]));
        refused(x.clone().pad(0, 1, 1).unwrap().slice(0, 0..5, 2));
        assert!(matches!(
            x.clone().permuted_axes(&[0, 0]),
            Err(PermuteError::PermDuplicate { .. })
        ));
        assert_eq!(
            x.clone().pad(0, usize::MAX, 1),
            Err(PermuteError::SizeOverflow)
        );
    }
}
