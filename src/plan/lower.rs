//! Lowering a view for the kernels (pure, tested in `tests/views/`): drop size-1 dims,
//! order the dims by the source's memory order, merge neighbours whose strides compose on
//! both sides (CuTe's `coalesce`), pick the widest movement unit every stride and offset
//! allows, and express everything in units.

use std::ops::Range;

use super::movement_unit;
use crate::view::{Bound, View, row_major};

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
