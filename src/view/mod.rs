//! Views, the vocabulary every operation is written in: what a strided tensor library holds
//! (slices, flips, broadcasts, permutes, splits) as shape, strides and offset over a
//! buffer's elements, optionally with ranges outside which a fill value is read (constant
//! padding). Materialising a view writes it out contiguously (or into a strided window of a
//! larger destination) in one pass. Built by ndarray's builders ([`View::slice`],
//! [`View::permuted_axes`], ...); parts of one output are checked together
//! ([`parts::check_parts`]). No planning and no wgpu here.

use std::ops::Range;

use crate::PermuteError;

mod build;
#[doc(hidden)]
pub mod parts;

/// Highest rank accepted. The kernels are generated per rank; simplification usually brings
/// real tensors far below this.
pub const MAX_RANK: usize = 16;

#[doc(hidden)]
/// Element sizes the kernels move, in bytes.
pub const ELEM_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

#[doc(hidden)]
/// Most bounds a view may have (after bounds that cover their dims whole are dropped): the
/// generic kernel checks this many combined indices per position, unrolled.
pub const MAX_BOUNDS: usize = 4;

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
        check_perm(shape.len(), perm)?;
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

    #[doc(hidden)]
    /// Elements the output spans: its length when contiguous, else one more than the
    /// highest destination element it writes (what a destination must hold).
    /// [`PermuteError::SizeOverflow`] when that does not fit in `usize`.
    pub fn dst_span(&self) -> Result<usize, PermuteError> {
        let n = element_count(&self.shape)?;
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

    #[doc(hidden)]
    /// Whether the position with index `at` (one entry per dim) exists in the source.
    pub fn exists(&self, at: &[usize]) -> bool {
        self.bounds
            .iter()
            .all(|b| b.valid.contains(&b.index(&self.shape, at)))
    }

    #[doc(hidden)]
    /// Source element of an existing position (wrapping arithmetic; checked views stay in
    /// range).
    pub fn source(&self, at: &[usize]) -> isize {
        at.iter()
            .zip(&self.strides)
            .fold(self.offset, |a, (&i, &s)| {
                a.wrapping_add((i as isize).wrapping_mul(s))
            })
    }

    #[doc(hidden)]
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

    #[doc(hidden)]
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
        element_count(&self.shape)?;
        let mut bounded = vec![false; rank];
        if self.bounds.len() > MAX_BOUNDS {
            return bad(format!(
                "{} bounds; at most {} are supported",
                self.bounds.len(),
                MAX_BOUNDS
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
    #[doc(hidden)]
    /// The bound's combined index at position `at`.
    pub fn index(&self, shape: &[usize], at: &[usize]) -> usize {
        self.dims.iter().fold(0, |a, &d| a * shape[d] + at[d])
    }
}

#[doc(hidden)]
/// Row-major strides of a shape, in elements.
pub fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1].max(1);
    }
    strides
}

#[doc(hidden)]
/// Validates a permutation against a rank.
pub fn check_perm(rank: usize, perm: &[usize]) -> Result<(), PermuteError> {
    if perm.len() != rank {
        return Err(PermuteError::PermLength {
            perm_len: perm.len(),
            rank,
        });
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        if p >= rank {
            return Err(PermuteError::PermOutOfRange { value: p, rank });
        }
        if seen[p] {
            return Err(PermuteError::PermDuplicate { value: p });
        }
        seen[p] = true;
    }
    Ok(())
}

#[doc(hidden)]
/// Number of elements of `shape`, or an overflow error.
pub fn element_count(shape: &[usize]) -> Result<usize, PermuteError> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or(PermuteError::SizeOverflow)
}
