//! Dispatch geometry: splitting a tensor larger than one storage binding into boxes whose
//! buffer windows fit, and folding workgroup counts into the device's grid limits.

use super::{Chunk, DeviceCaps, GENERIC_ITEMS, GENERIC_WORKGROUP, MAX_CHUNKS, Plan};
use crate::PermuteError;

/// Splits the index space into boxes whose source and destination windows each fit in
/// `limit` bytes (after aligning the window's start), one dispatch per box.
///
/// A box that is too large on the source side is cut along the input dim with the largest
/// stride (the outermost one it spans); too large on the destination side, along the input
/// dim with the largest output stride; each cut as coarse as the remaining dims allow.
/// Boxes of one element always fit, so this ends.
pub(super) fn split_into_chunks(
    plan: &Plan,
    caps: &DeviceCaps,
    limit: u64,
) -> Result<Vec<Chunk>, PermuteError> {
    // A conversion's two sides have elements of their own sizes.
    let (unit, dst_unit) = (plan.unit as u64, plan.dst_unit() as u64);
    let align = (caps.storage_offset_alignment.max(4)) as u64;
    let too_small = || PermuteError::DeviceLimit {
        what: "a binding window of one row",
        limit: "max_storage_buffer_binding_size",
        need: align + 4 + unit.max(dst_unit),
        have: limit,
    };
    // Window spans (in each side's units) this box may have, leaving room for aligning
    // its start.
    let room = limit.checked_sub(align + 4).ok_or_else(too_small)?;
    let (max_src, max_dst) = (room / unit, room / dst_unit);
    if max_src == 0 || max_dst == 0 {
        return Err(too_small());
    }
    let too_many = || PermuteError::DeviceLimit {
        what: "splitting the tensor into at most 65536 binding windows",
        limit: "max_storage_buffer_binding_size",
        need: plan.src_extent().max(plan.dst_extent()),
        have: limit,
    };
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let span = |lo: &[u64], hi: &[u64], strides: &[u64]| -> u64 {
        (0..lo.len())
            .map(|d| (hi[d] - lo[d] - 1) * strides[d])
            .sum::<u64>()
            + 1
    };

    let mut todo = vec![(vec![0u64; plan.dims.len()], plan.dims.clone())];
    let mut boxes = Vec::new();
    while let Some((lo, hi)) = todo.pop() {
        let mut piece: Vec<u64> = (0..lo.len()).map(|d| hi[d] - lo[d]).collect();
        let mut fits = true;
        for (strides, max_span) in [(&in_strides, max_src), (&out_strides, max_dst)] {
            let whole = span(&lo, &hi, strides);
            if whole <= max_span {
                continue;
            }
            fits = false;
            let d = (0..lo.len())
                .filter(|&d| hi[d] - lo[d] > 1)
                .max_by_key(|&d| strides[d])
                .expect("a span above one unit has a dim to cut");
            let others = whole - (hi[d] - lo[d] - 1) * strides[d];
            let p = if others >= max_span {
                1
            } else {
                (max_span - others) / strides[d] + 1
            };
            piece[d] = piece[d].min(p.max(1));
        }
        if fits {
            boxes.push((lo, hi));
            continue;
        }
        // Push every sub-box of the cut dims, unless that many could never be dispatched.
        let count = (0..lo.len()).try_fold(1u64, |n, d| {
            n.checked_mul((hi[d] - lo[d]).div_ceil(piece[d]))
        });
        if count
            .is_none_or(|c| c.saturating_add((boxes.len() + todo.len()) as u64) > MAX_CHUNKS as u64)
        {
            return Err(too_many());
        }
        let mut corner = lo.clone();
        loop {
            let sub_hi: Vec<u64> = (0..lo.len())
                .map(|d| corner[d].saturating_add(piece[d]).min(hi[d]))
                .collect();
            todo.push((corner.clone(), sub_hi));
            let mut d = lo.len();
            loop {
                if d == 0 {
                    break;
                }
                d -= 1;
                corner[d] = corner[d].saturating_add(piece[d]);
                if corner[d] < hi[d] {
                    break;
                }
                corner[d] = lo[d];
            }
            if corner == lo {
                break;
            }
        }
    }
    boxes.sort();

    let window = |offset: u64, lo: &[u64], hi: &[u64], strides: &[u64], unit: u64| {
        let first: u64 = (0..lo.len()).map(|d| lo[d] * strides[d]).sum();
        let start = offset + first * unit;
        let end = start + span(lo, hi, strides) * unit;
        let binding = start - start % align;
        (binding, end.next_multiple_of(4) - binding)
    };
    boxes
        .into_iter()
        .map(|(lo, hi)| {
            let dst_window = window(plan.dst_offset, &lo, &hi, &out_strides, dst_unit);
            // Units of the box, or (packed data, conversions) words of its window.
            let items = if plan.pack() == 1 && plan.conversion.is_none() {
                (0..lo.len()).map(|d| hi[d] - lo[d]).product()
            } else {
                dst_window.1 / 4
            };
            let total = items.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
            Ok(Chunk {
                src_window: window(plan.src_offset, &lo, &hi, &in_strides, unit),
                dst_window,
                lo,
                hi,
                total_workgroups: total,
                workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
            })
        })
        .collect()
}

/// Folds a workgroup count into a 1-D, 2-D or 3-D grid with no side above `max_per_dim`.
/// The grid may cover a few more workgroups than asked; the shaders skip the extra ones.
pub fn fold_grid(total: u64, max_per_dim: u32) -> Result<[u32; 3], PermuteError> {
    let max = max_per_dim.max(1) as u64;
    if total == 0 {
        return Ok([0, 0, 0]);
    }
    let x = total.min(max);
    let y = total.div_ceil(x).min(max);
    let z = total.div_ceil(x * y);
    if z > max {
        return Err(PermuteError::DeviceLimit {
            what: "the dispatch",
            limit: "max_compute_workgroups_per_dimension",
            need: total,
            have: max * max * max,
        });
    }
    Ok([x as u32, y as u32, z as u32])
}
