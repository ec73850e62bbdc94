//! Views: what a strided tensor library holds (slices, flips, broadcasts, permutes, splits)
//! as shape, strides and offset over a buffer's elements, optionally with ranges outside
//! which a fill value is read (constant padding). Materialising a view writes it out
//! contiguously (or into a strided window of a larger destination) in one pass.
//!
//! Lowering a view for the kernels (pure, tested in `tests/views/`): drop size-1 dims,
//! order the dims by the source's memory order, merge neighbours whose strides compose on
//! both sides (CuTe's `coalesce`), pick the widest movement unit every stride and offset
//! allows, and express everything in units.

use std::ops::Range;

use super::{MAX_RANK, movement_unit};
use crate::PermuteError;

/// A strided view of the elements of a source buffer region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The view's (and the output's) shape, outermost first.
    pub shape: Vec<usize>,
    /// Source stride of each dim, in elements: negative for reversed dims (numpy's
    /// `[::-1]`), 0 for broadcast ones.
    pub strides: Vec<isize>,
    /// Source element of index 0 (of the virtual index 0 when it is padding).
    pub offset: isize,
    /// Ranges of indices that exist in the source; positions outside any read the fill
    /// value. Empty: every position exists.
    pub bounds: Vec<Bound>,
    /// Destination stride of each dim, in elements (`None`: contiguous, row-major). A
    /// strided output writes into a window of a larger tensor (a concat, a slice).
    pub dst_strides: Option<Vec<usize>>,
}

/// A range of a source dim that exists, as seen through the view dims it was split into
/// (outermost first; their index reads as one mixed-radix number, as in `(cb c)` for a
/// channel dim split into blocks). A dim of its own is the common case: `np.pad`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The view dims whose combined index is bounded, outermost first.
    pub dims: Vec<usize>,
    /// The combined indices that exist; the others read the fill value. In view
    /// coordinates: index 0 is the view's first position along these dims (source element
    /// `offset` when it exists), not the source dim's first element.
    pub valid: Range<usize>,
}

impl View {
    /// The contiguous row-major tensor of this shape, as a view of itself.
    pub fn contiguous(shape: &[usize]) -> View {
        View {
            shape: shape.to_vec(),
            strides: row_major(shape).into_iter().map(|s| s as isize).collect(),
            offset: 0,
            bounds: Vec::new(),
            dst_strides: None,
        }
    }

    /// The permuted view of a contiguous tensor: output dim `i` is input dim `perm[i]`.
    pub fn permuted(shape: &[usize], perm: &[usize]) -> Result<View, PermuteError> {
        super::check_perm(shape.len(), perm)?;
        let strides = row_major(shape);
        Ok(View {
            shape: perm.iter().map(|&p| shape[p]).collect(),
            strides: perm.iter().map(|&p| strides[p] as isize).collect(),
            ..View::contiguous(&[])
        })
    }

    /// The contiguous tensor and permutation this view is, if it is one: no bounds,
    /// contiguous output, offset 0, and strides that are a permutation of row-major strides
    /// (size-1 dims aside, which are dropped: they order nothing). Such a view plans
    /// exactly as that permute.
    pub fn as_permute(&self) -> Option<(Vec<usize>, Vec<usize>)> {
        let contiguous_out = self.dst_strides.as_ref().is_none_or(|d| {
            let want = row_major(&self.shape);
            self.shape
                .iter()
                .zip(d.iter().zip(want))
                .all(|(&e, (&s, w))| e == 1 || s == w)
        });
        if !self.bounds.is_empty() || !contiguous_out || self.offset != 0 {
            return None;
        }
        let kept: Vec<usize> = (0..self.shape.len())
            .filter(|&d| self.shape[d] != 1)
            .collect();
        // Source order: strides falling (distinct for a permute of dims larger than 1).
        let mut order = kept.clone();
        order.sort_by_key(|&d| std::cmp::Reverse(self.strides[d]));
        let shape: Vec<usize> = order.iter().map(|&d| self.shape[d]).collect();
        let strided = order
            .iter()
            .zip(row_major(&shape))
            .all(|(&d, s)| isize::try_from(s).is_ok_and(|s| s == self.strides[d]));
        let perm = kept
            .iter()
            .map(|d| order.iter().position(|o| o == d).expect("a kept dim"))
            .collect();
        strided.then_some((shape, perm))
    }

    /// Elements of the view (and of the output).
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Elements the output spans: its length when contiguous, else one more than the
    /// highest destination element it writes (what a destination must hold).
    /// [`PermuteError::SizeOverflow`] when that does not fit in `usize`.
    pub fn dst_span(&self) -> Result<usize, PermuteError> {
        let n = super::element_count(&self.shape)?;
        match &self.dst_strides {
            _ if n == 0 => Ok(0),
            None => Ok(n),
            Some(d) => self
                .shape
                .iter()
                .zip(d)
                .try_fold(1usize, |span, (&e, &s)| {
                    span.checked_add((e - 1).checked_mul(s)?)
                })
                .ok_or(PermuteError::SizeOverflow),
        }
    }

    /// Whether the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the position with index `at` (one entry per dim) exists in the source.
    pub fn exists(&self, at: &[usize]) -> bool {
        self.bounds
            .iter()
            .all(|b| b.valid.contains(&b.index(&self.shape, at)))
    }

    /// Source element of an existing position (wrapping arithmetic; checked views stay in
    /// range).
    pub fn source(&self, at: &[usize]) -> isize {
        at.iter()
            .zip(&self.strides)
            .fold(self.offset, |a, (&i, &s)| {
                a.wrapping_add((i as isize).wrapping_mul(s))
            })
    }

    /// Destination element of a position (of a checked view, which keeps it in range).
    pub fn destination(&self, at: &[usize]) -> usize {
        let strides = self
            .dst_strides
            .clone()
            .unwrap_or_else(|| row_major(&self.shape));
        at.iter()
            .zip(&strides)
            .fold(0usize, |a, (&i, &s)| a.wrapping_add(i.wrapping_mul(s)))
    }

    /// Checks the view against a source of `src_len` and a destination of `dst_len`
    /// elements: consistent lengths, every existing position inside the source, output
    /// positions distinct and inside the destination. Returns the source elements' range
    /// read (empty when nothing is).
    pub fn check(&self, src_len: usize, dst_len: usize) -> Result<Range<usize>, PermuteError> {
        let rank = self.shape.len();
        let bad = |why: String| Err(PermuteError::InvalidView(why));
        if rank > MAX_RANK {
            return Err(PermuteError::RankTooLarge {
                rank,
                max: MAX_RANK,
            });
        }
        if self.strides.len() != rank {
            return bad(format!("{} strides for {rank} dims", self.strides.len()));
        }
        if let Some(d) = &self.dst_strides
            && d.len() != rank
        {
            return bad(format!("{} destination strides for {rank} dims", d.len()));
        }
        super::element_count(&self.shape)?;
        let mut bounded = vec![false; rank];
        if self.bounds.len() > super::MAX_BOUNDS {
            return bad(format!(
                "{} bounds; at most {} are supported",
                self.bounds.len(),
                super::MAX_BOUNDS
            ));
        }
        for b in &self.bounds {
            if b.dims.is_empty() {
                return bad("a bound names no dim".into());
            }
            for &d in &b.dims {
                if d >= rank || std::mem::replace(&mut bounded[d], true) {
                    return bad(format!("bound dim {d} is out of range or bounded twice"));
                }
            }
            // The bounded dims must address the source like the split of one dim.
            let inner = b.dims[b.dims.len() - 1];
            let mut radix = 1isize;
            for &d in b.dims.iter().rev() {
                if self.strides[d] != self.strides[inner].wrapping_mul(radix) {
                    return bad(format!(
                        "the strides of bound dims {:?} do not compose like a split",
                        b.dims
                    ));
                }
                radix = radix.wrapping_mul(self.shape[d] as isize);
            }
        }
        // Output: no two positions on one element, and inside the destination.
        if !self.is_empty() {
            self.check_nested()?;
            let span = self.dst_span()?;
            if span > dst_len {
                return Err(PermuteError::ViewOutOfBounds {
                    which: "destination",
                    lowest: 0,
                    highest: span as i128 - 1,
                    have: dst_len as u64,
                });
            }
        }
        let read = self.read_range()?;
        if read.end > src_len as i128 || read.start < 0 {
            return Err(PermuteError::ViewOutOfBounds {
                which: "source",
                lowest: read.start,
                highest: read.end - 1,
                have: src_len as u64,
            });
        }
        Ok(read.start as usize..read.end as usize)
    }

    /// Proves that no two positions share a destination element: with the dims that have
    /// more than one position sorted by destination stride, each stride is at least the
    /// span of the dims inside it (so every dim steps over all of them). Errs on the safe
    /// side: interleaved strides that happen to be distinct (`[3, 2]` at strides `[2, 3]`)
    /// are refused too.
    fn check_nested(&self) -> Result<(), PermuteError> {
        let Some(dst) = &self.dst_strides else {
            return Ok(()); // row-major nests by construction
        };
        let mut dims: Vec<usize> = (0..self.shape.len())
            .filter(|&d| self.shape[d] > 1)
            .collect();
        dims.sort_by_key(|&d| dst[d]);
        let mut reach = 1usize; // elements the inner dims span
        for &d in &dims {
            if dst[d] < reach {
                return Err(PermuteError::OverlappingOutput);
            }
            reach = dst[d]
                .checked_mul(self.shape[d] - 1)
                .and_then(|r| r.checked_add(reach))
                .ok_or(PermuteError::SizeOverflow)?;
        }
        Ok(())
    }

    /// The source elements existing positions read, as a signed range (`0..0` if none).
    fn read_range(&self) -> Result<Range<i128>, PermuteError> {
        if self.is_empty() {
            return Ok(0..0);
        }
        let (mut lo, mut hi) = (self.offset as i128, self.offset as i128);
        let mut add = |first: i128, last: i128, stride: i128| {
            let (a, b) = (first * stride, last * stride);
            lo += a.min(b);
            hi += a.max(b);
        };
        let mut in_bound = vec![false; self.shape.len()];
        for b in &self.bounds {
            // The combined index runs over the valid range, within the dims' extents.
            let extent: usize = b.dims.iter().map(|&d| self.shape[d]).product();
            let valid = b.valid.start..b.valid.end.min(extent);
            if valid.is_empty() {
                return Ok(0..0); // nothing exists
            }
            let inner = self.strides[b.dims[b.dims.len() - 1]] as i128;
            add(valid.start as i128, valid.end as i128 - 1, inner);
            for &d in &b.dims {
                in_bound[d] = true;
            }
        }
        for (d, bounded) in in_bound.into_iter().enumerate() {
            if !bounded {
                add(0, self.shape[d] as i128 - 1, self.strides[d] as i128);
            }
        }
        Ok(lo..hi + 1)
    }
}

impl Bound {
    /// The bound's combined index at position `at`.
    pub fn index(&self, shape: &[usize], at: &[usize]) -> usize {
        self.dims.iter().fold(0, |a, &d| a * shape[d] + at[d])
    }
}

/// Row-major strides of a shape, in elements.
pub fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1].max(1);
    }
    strides
}

/// A view lowered for the kernels: dims in the source's memory order (outermost first) with
/// their strides in movement units, the permutation to output order, and the bounds.
/// Not API: public for the view tests.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    /// Extents, in source memory order.
    pub dims: Vec<u64>,
    /// Output dim `i` is dim `perm[i]`.
    pub perm: Vec<usize>,
    /// Source stride of each dim, in units.
    pub src_strides: Vec<i64>,
    /// Destination stride of each dim, in units.
    pub dst_strides: Vec<u64>,
    /// Source unit of index 0 (virtual when it is padding), relative to the region start.
    pub src_base: i64,
    /// Bounds over the lowered dims: `(dims, valid)` as in [`Bound`].
    pub bounds: Vec<(Vec<usize>, Range<u64>)>,
    /// Movement size in bytes.
    pub unit: u32,
    /// Each unit holds its elements in reverse order: the source unit of an output unit
    /// of a reversed innermost dim, read whole (see [`crate::plan::ViewLayout::reversed`]).
    pub reversed: bool,
}

/// Lowers a checked view of `elem`-byte elements whose source and destination regions start
/// at these byte offsets. Postconditions (tested): every position maps to the same source
/// and destination bytes as in the view; no size-1 dims (unless one element in all); no two
/// neighbouring output dims that could merge. Not API: public for the view tests.
#[doc(hidden)]
pub fn lower(view: &View, elem: usize, src_offset: u64, dst_offset: u64) -> Lowered {
    lower_in(view, elem, src_offset, dst_offset, true)
}

/// [`lower`], element by element when `widen` is off: no runs of several elements, no
/// reversed units (what a conversion, whose two sides' elements differ, moves).
pub fn lower_in(
    view: &View,
    elem: usize,
    src_offset: u64,
    dst_offset: u64,
    widen: bool,
) -> Lowered {
    let dst = view
        .dst_strides
        .clone()
        .unwrap_or_else(|| row_major(&view.shape));
    // Bounds that cover their dims whole bound nothing.
    let whole = |b: &Bound| {
        b.valid.start == 0 && b.valid.end >= b.dims.iter().map(|&d| view.shape[d]).product()
    };
    let mut group = vec![usize::MAX; view.shape.len()];
    for (g, b) in view.bounds.iter().enumerate().filter(|(_, b)| !whole(b)) {
        for &d in &b.dims {
            group[d] = g;
        }
    }
    // Output order, size-1 dims dropped (unbounded ones; a bounded one keeps its meaning).
    // Each dim: (extent, source stride, destination stride, bound, view dim).
    let mut out: Vec<(u64, i64, u64, usize, usize)> = (0..view.shape.len())
        .filter(|&d| view.shape[d] != 1 || group[d] != usize::MAX)
        .map(|d| {
            let (n, s, t) = (view.shape[d] as u64, view.strides[d] as i64, dst[d] as u64);
            (n, s, t, group[d], d)
        })
        .collect();
    // Merge neighbours that compose on both sides and share no bound.
    let mut merged: Vec<(u64, i64, u64, usize, usize)> = Vec::new();
    for dim in out.drain(..) {
        match merged.last_mut() {
            Some(last)
                if last.3 == usize::MAX
                    && dim.3 == usize::MAX
                    && last.1 == dim.1.wrapping_mul(dim.0 as i64)
                    && last.2 == dim.2.wrapping_mul(dim.0) =>
            {
                *last = (last.0 * dim.0, dim.1, dim.2, usize::MAX, dim.4);
            }
            _ => merged.push(dim),
        }
    }
    if merged.is_empty() {
        merged.push((1, 1, 1, usize::MAX, 0));
    }
    // Movement unit: the innermost output dim moves as one run when it is unit-stride on
    // both sides and unbounded; the unit divides the run, every stride and both offsets
    // (the run's lowest byte, for a reversed one).
    let elem = elem as u64;
    let last = merged.len() - 1;
    let (n, s, t, g, _) = merged[last];
    let src_start = (src_offset as i64).wrapping_add(view.offset as i64 * elem as i64);
    let unit_for = |run: u64, lowest: i64| {
        // Strides of the dims that do not merge into the run, and where the regions start.
        let stride_bytes = merged
            .iter()
            .take(if run > elem { last } else { merged.len() })
            .flat_map(|&(_, s, t, _, _)| [s.unsigned_abs() * elem, t * elem])
            .chain([src_offset, dst_offset])
            .fold(0, gcd);
        let mut unit = movement_unit(run, lowest.unsigned_abs(), dst_offset) as u64;
        while stride_bytes % unit != 0 {
            unit /= 2;
        }
        unit
    };
    let row = t == 1 && g == usize::MAX && n > 1;
    // A reversed innermost dim (`x[..., ::-1]`) moves as a run too, in units of several
    // elements read in reverse order ([`Lowered::reversed`]): of whole 32-bit words at
    // least, in a view without bounds or destination strides (the kernels' plain mode).
    let plain = view.bounds.iter().all(whole) && view.dst_strides.is_none();
    let backwards = row && s == -1 && plain;
    let lowest = src_start.wrapping_sub((n as i64 - 1) * elem as i64);
    let reversed_unit = unit_for(n * elem, lowest);
    let (run, unit, reversed) = match (row && s == 1, backwards) {
        _ if !widen => (elem, elem, false),
        (true, _) => (n * elem, unit_for(n * elem, src_start), false),
        (_, true) if reversed_unit > elem.max(2) => (n * elem, reversed_unit, true),
        _ => (elem, unit_for(elem, src_start), false),
    };
    // Re-express in units.
    let mut dims: Vec<(u64, i64, u64, usize, usize)> = Vec::new();
    for (i, &(n, s, t, g, d)) in merged.iter().enumerate() {
        if i == last && run > elem {
            dims.push((n * elem / unit, if reversed { -1 } else { 1 }, 1, g, d));
        } else if unit >= elem {
            let k = (unit / elem) as i64;
            dims.push((n, s / k, t / k as u64, g, d));
        } else {
            let k = (elem / unit) as i64;
            dims.push((n, s * k, t * k as u64, g, d));
        }
    }
    // Units of an element, unless the run already holds them (its extent is in units).
    if unit < elem && run == elem {
        dims.push((elem / unit, 1, 1, usize::MAX, usize::MAX));
    }
    // Source memory order: by descending |stride|, stable (output order breaks ties);
    // broadcast dims (stride 0) outermost, where they batch rather than take the place of
    // the innermost, contiguous dim.
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| match dims[i].1.unsigned_abs() {
        0 => std::cmp::Reverse(u64::MAX),
        s => std::cmp::Reverse(s),
    });
    let mut perm = vec![0; dims.len()];
    for (pos, &i) in order.iter().enumerate() {
        perm[i] = pos;
    }
    let bounds = view
        .bounds
        .iter()
        .enumerate()
        .filter(|(_, b)| !whole(b))
        .map(|(g, b)| {
            // Members in the bound's order (its combined index reads them so), which need
            // not be the source's: broadcast dims all have stride 0.
            let mut members: Vec<usize> = order
                .iter()
                .enumerate()
                .filter(|(_, i)| dims[**i].3 == g)
                .map(|(pos, _)| pos)
                .collect();
            members.sort_by_key(|&pos| b.dims.iter().position(|&d| d == dims[order[pos]].4));
            // Clamped to the combined index's extent, so that it fits the index math.
            let extent: usize = b.dims.iter().map(|&d| view.shape[d]).product();
            let valid = b.valid.start.min(extent) as u64..b.valid.end.min(extent) as u64;
            (members, valid)
        })
        .collect();
    // A reversed run's first unit ends with its first element.
    let first = match reversed {
        true => src_start.wrapping_add(elem as i64 - unit as i64),
        false => src_start,
    };
    let base_units = first.wrapping_sub(src_offset as i64) / unit as i64;
    Lowered {
        dims: order.iter().map(|&i| dims[i].0).collect(),
        perm,
        src_strides: order.iter().map(|&i| dims[i].1).collect(),
        dst_strides: order.iter().map(|&i| dims[i].2).collect(),
        src_base: base_units,
        bounds,
        unit: unit as u32,
        reversed,
    }
}

/// The greatest common divisor (of a positive number and 0: the number).
pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
