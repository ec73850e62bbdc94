//! The generic kernel's parameter blocks: its index values per dispatch (the whole tensor,
//! or a box of it over binding windows), a padded view's bounds, and the conversion's words.

use crate::Plan;
use crate::convert::Conversion;
use crate::shaders::convert_block;
use crate::shaders::{
    Chunk, GENERIC_FILL, GENERIC_RUN, GENERIC_VALUES, GenericArray, GenericValue, GenericVariant,
    LANE_GROUP, Mode, RunLanes, generic_arrays, mode, value_words,
};

/// The generic kernel's parameter block for one dispatch: its index values (as
/// [`generic_arrays`] lays them out) over the whole tensor or the dispatch's box, then the
/// conversion's words.
pub(super) fn generic_params(plan: &Plan, chunk: &Chunk, v: &GenericVariant) -> Vec<u32> {
    let unit = plan.unit as u64;
    let rank = plan.dims.len();
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let (walk_dims, walk_strides) = plan.walk();
    let extents = chunk.extents();
    // A walk in tiles: its dims over the box, and both sides' strides.
    let tiled = plan.walk_tile_dims_of(&extents).unwrap_or_default();
    let tiled_column = |i: usize| -> Vec<u64> { tiled.iter().map(|d| d[i]).collect() };
    let in_out_order =
        |per_dim: &[u64]| -> Vec<u64> { plan.dims_perm.iter().map(|&d| per_dim[d]).collect() };
    let base = plan.view.as_ref().map_or(0, |v| v.src_base as u64);
    let src_bias = (plan.src_offset / unit)
        .wrapping_sub(chunk.src_window.0 / unit)
        .wrapping_add(base);
    let dst_unit = plan.dst_unit() as u64;
    let dst_bias = (plan.dst_offset / dst_unit).wrapping_sub(chunk.dst_window.0 / dst_unit);
    let corner = |strides: &[u64]| -> u64 {
        (0..rank).fold(0u64, |a, d| {
            a.wrapping_add(chunk.lo[d].wrapping_mul(strides[d]))
        })
    };
    let mut head = [0u64; GenericValue::ALL.len()];
    head[GenericValue::NUnits as usize] = plan.units();
    let (n_items, src_off, dst_off) = match mode(v) {
        // A plain box: the whole tensor's walk over its extents, from its corner.
        Mode::Whole if plan.plain_boxes => {
            head[GenericValue::NUnits as usize] = extents.iter().product();
            (
                extents.iter().product(),
                src_bias.wrapping_add(corner(&in_strides)),
                dst_bias.wrapping_add(corner(&out_strides)),
            )
        }
        Mode::Whole => (plan.items(), src_bias, dst_bias),
        // A padded view's box (whole words of packed data: `Cut` keeps them whole).
        Mode::Padded if plan.boxed() => {
            head[GenericValue::NUnits as usize] = extents.iter().product();
            (
                extents.iter().product::<u64>() / plan.pack() as u64,
                src_bias.wrapping_add(corner(&in_strides)),
                dst_bias.wrapping_add(corner(&out_strides)),
            )
        }
        Mode::Padded => (plan.items(), src_bias, dst_bias),
        Mode::Box => (
            extents.iter().product(),
            src_bias.wrapping_add(corner(&in_strides)),
            dst_bias.wrapping_add(corner(&out_strides)),
        ),
        Mode::Window => (
            chunk.dst_window.1 / 4,
            src_bias,
            0u64.wrapping_sub(dst_bias),
        ),
    };
    head[GenericValue::NItems as usize] = n_items;
    // Runs are whole in the units (items count quads or destination words where elements
    // convert), lane-major groups of runs too (`Plan::lane_major_runs`).
    let units = head[GenericValue::NUnits as usize];
    debug_assert!(!v.runs || units.is_multiple_of(plan.run_units()), "{plan}");
    // Rows that are not whole runs run only stacked (`select::choose_runs`).
    debug_assert!(
        !v.runs || plan.rows_hold_whole_runs() || v.lanes == RunLanes::Stacked,
        "{plan}"
    );
    let group = (LANE_GROUP * GENERIC_RUN) as u64;
    debug_assert!(
        v.lanes != RunLanes::LaneMajor || n_items.is_multiple_of(group),
        "{plan}"
    );
    head[GenericValue::SrcOff as usize] = src_off;
    head[GenericValue::DstOff as usize] = dst_off;
    let mut values = head.to_vec();
    let (groups, mults, mut valid_lo, mut valid_hi) = bound_arrays(plan);
    // A box's bounds from its corner: each bound's range less the corner's combined index
    // (positions are never below the corner, so a range starting before it starts at 0).
    for (g, (lo, hi)) in valid_lo.iter_mut().zip(&mut valid_hi).enumerate() {
        let at: u64 = (0..rank)
            .filter(|&d| groups[d] == g as u64)
            .map(|d| chunk.lo[d] * mults[d])
            .sum();
        (*lo, *hi) = (lo.saturating_sub(at), hi.saturating_sub(at));
    }
    for &array in generic_arrays(v) {
        values.extend(match array {
            GenericArray::Dims if plan.cpu.walk_tiles.is_some() => tiled_column(0),
            GenericArray::SrcStrides if plan.cpu.walk_tiles.is_some() => tiled_column(1),
            GenericArray::DstStrides if plan.cpu.walk_tiles.is_some() => tiled_column(2),
            GenericArray::Dims if matches!(mode(v), Mode::Box | Mode::Padded) => {
                in_out_order(&extents)
            }
            // The walk: the output's dims, or a scatter's source dims (Plan::walk).
            GenericArray::Dims => walk_dims.clone(),
            GenericArray::SrcStrides => in_out_order(&in_strides),
            GenericArray::DstStrides if v.scatter => walk_strides.clone(),
            GenericArray::DstStrides => in_out_order(&out_strides),
            GenericArray::BoxLo => in_out_order(&chunk.lo),
            GenericArray::BoxHi => in_out_order(&chunk.hi),
            GenericArray::Groups => in_out_order(&groups),
            GenericArray::Mults => in_out_order(&mults),
            GenericArray::ValidLo => valid_lo.clone(),
            GenericArray::ValidHi => valid_hi.clone(),
        });
    }
    let mut words = vec![0u32; GENERIC_VALUES];
    words[0] = chunk.total_workgroups as u32;
    if let Some(view) = &plan.view {
        words[GENERIC_FILL..GENERIC_FILL + 4].copy_from_slice(&view.fill);
    }
    for value in values {
        words.push(value as u32);
        if value_words(plan.index) == 2 {
            words.push((value >> 32) as u32);
        }
    }
    if let Some(c) = &plan.conversion {
        words.extend(convert_block(c, output_channels(plan, c), 0));
    }
    words
}

/// The affine's channel geometry over the output (the request's permuted shape): output
/// elements per channel step, and channels; one channel where one value serves all.
fn output_channels(plan: &Plan, c: &Conversion) -> (u64, u64) {
    match c.affine() {
        Some(a) if a.scale.len() > 1 => {
            let out: Vec<u64> = plan.perm.iter().map(|&p| plan.shape[p] as u64).collect();
            (out[a.axis + 1..].iter().product(), out[a.axis])
        }
        _ => (1, 1),
    }
}

/// A padded view's bounds as per-dim arrays (in `dims` order): each dim's bound (0 for an
/// unbounded dim, whose multiplier 0 leaves any bound alone) and its multiplier in the
/// bound's combined index; and per bound (rank long, unused ones all-valid) its range.
pub(super) fn bound_arrays(plan: &Plan) -> (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) {
    let rank = plan.dims.len();
    let (mut groups, mut mults) = (vec![0u64; rank], vec![0u64; rank]);
    let (mut lo, mut hi) = (vec![0u64; rank], vec![u64::MAX; rank]);
    let bounds = plan.view.as_ref().map_or(&[][..], |v| &v.bounds[..]);
    for (g, (dims, valid)) in bounds.iter().enumerate() {
        let mut radix = 1;
        for &d in dims.iter().rev() {
            groups[d] = g as u64;
            mults[d] = radix;
            radix *= plan.dims[d];
        }
        (lo[g], hi[g]) = (valid.start, valid.end);
    }
    (groups, mults, lo, hi)
}
