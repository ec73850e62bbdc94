//! Planner tests: pure, no GPU. In the crate, so that they read the planner's tuning
//! constants and internals, which are not API.

mod basics;
mod column_runs;
mod edges;
mod reasons;
mod row_copies;
mod shape_keys;
mod strips;
mod variants;
mod walk;
mod windows;

use proptest::prelude::*;

use crate::model::Figures;
use crate::plan::{
    self, DeviceCaps, ELEM_SIZES, IndexReason, KernelReason, Learned, MAX_RANK, Measured, Misfit,
    Modelling, SpecializeReason, Strip, Tile, Tuning, WalkTiles, fold_grid, simplify,
    tuning::{MICRO_RUN, MIN_TILED_EXTENT, SPECIALIZE_PAYBACK_BYTES},
};
use crate::{
    Bound, IndexMath, Kernel, Options, PermuteError, Request, View, ViewRequest, reference,
};

fn plan_of(shape: &[usize], perm: &[usize], elem: usize) -> crate::Plan {
    plan::plan(&Request::new(shape, perm, elem), &DeviceCaps::default()).unwrap()
}

fn err_of(req: Request) -> PermuteError {
    plan::plan(&req, &DeviceCaps::default()).unwrap_err()
}

/// Every element lies in exactly one chunk's box, and each box's reads and writes fall inside
/// its windows, which fit the binding limit and start aligned (views' negative strides
/// included).
fn check_chunks(p: &crate::Plan, caps: &DeviceCaps, limit: u64) {
    let in_strides = p.in_strides();
    let out_strides = p.out_strides_by_input_dim();
    let volume: u64 = p
        .chunks
        .iter()
        .map(|c| (0..c.lo.len()).map(|d| c.hi[d] - c.lo[d]).product::<u64>())
        .sum();
    assert_eq!(volume, p.units(), "{p}");
    for c in &p.chunks {
        for (window, start, strides, unit) in [
            (c.src_window, p.src_start(), &in_strides, p.unit),
            (c.dst_window, p.dst_offset, &out_strides, p.dst_unit()),
        ] {
            assert!(window.1 <= limit, "{p}: window {window:?} over {limit}");
            assert_eq!(window.0 % caps.storage_offset_alignment as u64, 0);
            assert_eq!(window.1 % 4, 0);
            // A binding of `vec2`/`vec4` units holds one whole, even where nothing is read.
            assert!(window.1 >= (unit as u64).max(4), "{p}: {c:?}");
            // The box's lowest and highest units, from index 0.
            let (mut low, mut high) = (0i128, 0i128);
            for ((&s, &lo), &hi) in strides.iter().zip(&c.lo).zip(&c.hi) {
                let s = s as i64 as i128;
                let (a, b) = (lo as i128 * s, (hi - 1) as i128 * s);
                (low, high) = (low + a.min(b), high + a.max(b));
            }
            let (unit, start) = (unit as i128, start as i64 as i128);
            assert!(window.0 as i128 <= start + low * unit, "{p}: {c:?}");
            assert!(
                start + (high + 1) * unit <= (window.0 + window.1) as i128,
                "{p}: {c:?}"
            );
        }
    }
    // Boxes are disjoint: they tile the space (volume matches and none overlap).
    for (i, a) in p.chunks.iter().enumerate() {
        for b in &p.chunks[i + 1..] {
            let overlap = (0..a.lo.len()).all(|d| a.lo[d] < b.hi[d] && b.lo[d] < a.hi[d]);
            assert!(!overlap, "{p}: boxes overlap");
        }
    }
}

fn cpu() -> DeviceCaps {
    DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    }
}

fn any_request() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize, u64, u64)> {
    (1usize..=7)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(1usize..=4, rank),
                Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
                proptest::sample::select(ELEM_SIZES.to_vec()),
                0u64..8,
                0u64..8,
            )
        })
        .prop_map(|(shape, perm, elem, a, b)| (shape, perm, elem, 4 * a, 4 * b))
}

/// A permutation of `rank` dims from a seed (Fisher-Yates, the seed's mixed-radix digits).
fn perm_from_seed(rank: usize, seed: u64) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..rank).collect();
    let mut s = seed;
    for i in (1..rank).rev() {
        perm.swap(i, (s % (i as u64 + 1)) as usize);
        s /= i as u64 + 1;
    }
    perm
}

/// Every variant the naga test validates (`shaders::all_variants`), once.
fn validated() -> &'static std::collections::HashSet<crate::plan::Variant> {
    use std::sync::OnceLock;
    static ALL: OnceLock<std::collections::HashSet<crate::plan::Variant>> = OnceLock::new();
    ALL.get_or_init(|| crate::shaders::all_variants().into_iter().collect())
}
