//! Parts of one output (a concat, a cropped rearrangement's boxes, a permute's edges):
//! each a sound view, and no two writing one element, proved exactly but within a bound
//! on host memory, since the output's length comes from the caller.

use super::{View, row_major};
use crate::PermuteError;

/// Bytes of host memory that proving parts disjoint may take (a bitmap of the elements
/// they reach, or their sorted runs): past it, [`check_parts`] refuses
/// ([`PermuteError::PartsTooLarge`]) rather than allocate without bound (a hostile
/// `dst_len`, or a part of a billion one-element runs). A bitmap of 256 MiB covers 2^31
/// elements; sorted runs cover 2^24 runs.
pub const PARTS_CHECK_BUDGET: usize = 1 << 28;

/// Checks views that write parts of one output of `dst_len` elements, each from its first
/// destination element `first` (a concat, a cropped rearrangement's boxes): each part is a
/// sound view of a source of `src_len` elements into the `dst_len - first` elements from
/// there ([`View::check`]), and no two parts share a destination element (the last would
/// silently win). Exact: parts whose spans meet no other part's are disjoint from them; the
/// rest have their destination runs marked in a bitmap of the elements from the first such
/// span, or sorted and compared, whichever takes less memory, within
/// [`PARTS_CHECK_BUDGET`]. The bitmap's work is bounded by its size: each run marks a new
/// element, or the check stops.
pub fn check_parts(
    parts: &[(View, usize)],
    src_len: usize,
    dst_len: usize,
) -> Result<(), PermuteError> {
    // Each non-empty part with its span `first .. end`.
    let mut spans = Vec::with_capacity(parts.len());
    for (view, first) in parts {
        view.check(src_len, dst_len.saturating_sub(*first))?;
        if !view.is_empty() {
            // Both fit: `check` bounded the span by `dst_len - first`.
            spans.push((*first, first + view.dst_span()?, view));
        }
    }
    spans.sort_unstable_by_key(|s| (s.0, s.1));
    // The parts whose span meets another's (start order: a span meets a later one exactly
    // when it ends past that one's start, and the farthest end so far decides).
    let mut meets = vec![false; spans.len()];
    let mut farthest: Option<(usize, usize)> = None; // (end, index)
    for i in 0..spans.len() {
        if let Some((end, j)) = farthest
            && end > spans[i].0
        {
            meets[i] = true;
            meets[j] = true;
        }
        if farthest.is_none_or(|(end, _)| spans[i].1 > end) {
            farthest = Some((spans[i].1, i));
        }
    }
    let meeting: Vec<&(usize, usize, &View)> = spans
        .iter()
        .zip(&meets)
        .filter_map(|(s, &m)| m.then_some(s))
        .collect();
    let (Some(lo), Some(reach)) = (
        meeting.iter().map(|s| s.0).min(),
        meeting.iter().map(|s| s.1).max(),
    ) else {
        return Ok(());
    };
    let checked: Vec<(&View, usize)> = meeting.iter().map(|s| (s.2, s.0)).collect();
    let runs = checked
        .iter()
        .map(|(v, _)| dst_runs(v).0.iter().map(|d| d.0).product::<usize>())
        .fold(0usize, usize::saturating_add);
    let bitmap_bytes = (reach - lo).div_ceil(64) * 8;
    let list_bytes = runs.saturating_mul(size_of::<(usize, usize)>());
    if bitmap_bytes <= PARTS_CHECK_BUDGET && bitmap_bytes <= list_bytes {
        let mut marked = vec![0u64; (reach - lo).div_ceil(64)];
        for_each_run(&checked, |start, len| mark(&mut marked, start - lo, len))
    } else if list_bytes <= PARTS_CHECK_BUDGET {
        let mut list = Vec::with_capacity(runs);
        for_each_run(&checked, |start, len| {
            list.push((start, len));
            Ok(())
        })?;
        list.sort_unstable();
        // Any two runs that overlap make some pair of neighbours in start order overlap.
        match list.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            true => Err(PermuteError::OverlappingOutput),
            false => Ok(()),
        }
    } else {
        Err(PermuteError::PartsTooLarge {
            runs,
            reach: reach - lo,
            budget: PARTS_CHECK_BUDGET,
        })
    }
}

/// Calls `f(start, len)` for each run of consecutive destination elements of each part
/// ([`dst_runs`]), in odometer order.
fn for_each_run(
    parts: &[(&View, usize)],
    mut f: impl FnMut(usize, usize) -> Result<(), PermuteError>,
) -> Result<(), PermuteError> {
    for (view, first) in parts {
        let (dims, run) = dst_runs(view);
        let mut at = vec![0usize; dims.len()];
        loop {
            let start = first
                + at.iter()
                    .zip(&dims)
                    .map(|(&i, &(_, s))| i * s)
                    .sum::<usize>();
            f(start, run)?;
            // Next run, odometer order.
            let Some(k) = (0..at.len()).rev().find(|&k| at[k] + 1 < dims[k].0) else {
                break;
            };
            at[k] += 1;
            at[k + 1..].fill(0);
        }
    }
    Ok(())
}

/// A checked view's destination as runs of consecutive elements: the dims outside the
/// runs (extent, stride), outermost first, and the run length. Dims that nest exactly
/// merge, so a contiguous part is one run.
fn dst_runs(view: &View) -> (Vec<(usize, usize)>, usize) {
    let dst = view
        .dst_strides
        .clone()
        .unwrap_or_else(|| row_major(&view.shape));
    let mut dims: Vec<(usize, usize)> = (0..view.shape.len())
        .filter(|&d| view.shape[d] > 1)
        .map(|d| (view.shape[d], dst[d]))
        .collect();
    dims.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (n, s) in dims {
        match merged.last_mut() {
            Some(outer) if outer.1 == s * n => *outer = (outer.0 * n, s),
            _ => merged.push((n, s)),
        }
    }
    match merged.last() {
        Some(&(n, 1)) => {
            merged.pop();
            (merged, n)
        }
        _ => (merged, 1),
    }
}

/// Marks elements `start .. start + len` in the bitmap; `OverlappingOutput` if any already is.
fn mark(bits: &mut [u64], start: usize, len: usize) -> Result<(), PermuteError> {
    let mut i = start;
    while i < start + len {
        let (word, bit) = (i / 64, i % 64);
        let n = (64 - bit).min(start + len - i);
        let mask = if n == 64 {
            u64::MAX
        } else {
            ((1u64 << n) - 1) << bit
        };
        if bits[word] & mask != 0 {
            return Err(PermuteError::OverlappingOutput);
        }
        bits[word] |= mask;
        i += n;
    }
    Ok(())
}
