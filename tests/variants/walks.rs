//! Walks in tiles (the generic kernel's runs on CPU devices, `Plan::walk_tiles`): the
//! variant sweep's shapes of each walk rank, and the walks the planner chooses (in tiles,
//! stacked, scattered).

use wgpu_permute::plan::tuning::{GENERIC_RUN, GENERIC_WORKGROUP, WALK_TILE_ROW_BYTES};
use wgpu_permute::{Kernel, Options, Relayout, View};

use super::common::{case, check_many, cpu_family, cpu_planned};

/// A permute of `elem`-byte units (rows of `row`, at least two runs) whose walk in tiles (`Plan::walk_tile_dims`) has
/// exactly `rank` dims; nothing merges, and `A` is nearest in the source. Rank 3: `[B, A, R]`
/// to `[A, B, R]` with `B` of 37 walked a row at a time (no divisor fits a tile). Ranks 4-6:
/// `A` split in two tiles, `B` whole (4) or split too (5), then one outer dim (6). Higher:
/// `[O1..Ok, B, A, R]` to `[Ok..O2, A, O1, B, R]`, all of 2: whole tiles, reordered past
/// `O1`.
pub fn walk_tiles_case(rank: usize, elem: usize, row: usize) -> (Vec<usize>, Vec<usize>) {
    let rows = WALK_TILE_ROW_BYTES as usize / (row * elem);
    let across = GENERIC_WORKGROUP as usize * GENERIC_RUN as usize / (rows * row);
    let (b, a, k) = match rank {
        3 => (37, 2, 0),
        4 => (rows, 2 * across, 0),
        5 | 6 => (2 * rows, 2 * across, rank - 5),
        _ => {
            let k = rank - 3;
            let mut shape = vec![2; k + 2];
            shape.push(row);
            let mut perm: Vec<usize> = (1..k).rev().collect();
            perm.extend([k + 1, 0, k, k + 2]);
            return (shape, perm);
        }
    };
    let mut shape = vec![2; k];
    shape.extend([b, a, row]);
    let mut perm: Vec<usize> = (0..k).rev().collect();
    perm.extend([k + 1, k, k + 2]);
    (shape, perm)
}

/// Runs walk in tiles on their own where the output's neighbouring rows come from far apart
/// in the source (the bench's head split and `(1,0,2)`, smaller; a prime number of rows,
/// walked one at a time; rows of whole SIMD groups' runs, lane-major, of 4, 8 and 16-byte
/// units; 2, 4, 8 and 16-byte elements), and transposes of 16-byte units (and, forced on the
/// generic kernel, of 4 and 8-byte ones), and match the reference with guard bytes, offsets
/// that differ on each side, specialised and not, and in boxes over binding windows of half
/// the tensor (specialised there too: every box has one shape); the last workgroup ends
/// part way (CPU adapters: GPUs have no runs).
#[test]
fn walks_in_tiles_are_chosen_and_match_the_reference() {
    let Some(p) = cpu_family() else { return };
    let generic = Some(Kernel::Generic);
    // Shape, permutation, element size, forced kernel, offsets, lane-major.
    type Case<'a> = (
        &'a [usize],
        &'a [usize],
        usize,
        Option<Kernel>,
        (u64, u64),
        bool,
    );
    let shapes: [Case; 12] = [
        (&[24, 20, 512], &[1, 0, 2], 4, None, (16, 80), true),
        (&[24, 20, 512], &[1, 0, 2], 4, None, (4, 12), true),
        (&[24, 20, 256], &[1, 0, 2], 8, None, (8, 24), true),
        (&[2, 512, 16, 64], &[0, 2, 1, 3], 4, None, (16, 80), false),
        (&[2, 512, 16, 128], &[0, 2, 1, 3], 2, None, (16, 80), false),
        (&[96, 80, 64], &[1, 0, 2], 4, None, (16, 80), false),
        (&[37, 16, 64], &[1, 0, 2], 8, None, (16, 80), false),
        (&[40, 48, 16], &[1, 0, 2], 16, None, (16, 80), false),
        (&[64, 40], &[1, 0], 16, None, (16, 80), false),
        (&[3, 40, 300], &[0, 2, 1], 16, None, (16, 80), false),
        (&[16, 8, 10, 9], &[3, 2, 1, 0], 4, generic, (16, 80), false),
        (&[24, 5, 11], &[2, 0, 1], 8, generic, (16, 80), false),
    ];
    let mut cases = Vec::new();
    let align = p.caps().storage_offset_alignment as u64;
    for (shape, perm, elem, kernel, offsets, _) in shapes {
        // Specialised and not, and in boxes over windows of half the tensor (each box
        // walked in its own whole tiles).
        let bytes = (shape.iter().product::<usize>() * elem) as u64;
        let half = Some(bytes / 2);
        for (specialize, limit) in [(false, None), (true, None), (false, half), (true, half)] {
            // Forced 4-byte units would take wide stores (runs without a walk in tiles).
            let options = Options {
                kernel,
                specialize: Some(specialize),
                wide_stores: kernel.map(|_| false),
                binding_limit: limit.map(|l| align + 4 + l),
                ..Options::default()
            };
            let op = case(shape, perm, elem, options, offsets);
            cases.push((op, limit.is_some(), specialize));
        }
    }
    let ops: Vec<_> = cases.iter().map(|(op, ..)| op.clone()).collect();
    let fresh = cpu_planned(p);
    let lane_major = shapes.iter().flat_map(|s| [s.5; 4]);
    let results = check_many(&fresh, &ops).into_iter().zip(&cases);
    for ((result, (_, boxed, specialize)), lane_major) in results.zip(lane_major) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plan.boxed(), *boxed, "{plan}");
        // In boxes, where whole tiles fit half the tensor; the rest (checked above against
        // the reference) do not walk.
        if *boxed && !walks_in_halves(&plan) {
            assert!(plan.cpu().walk_tiles.is_none(), "{plan}");
            continue;
        }
        assert!(plan.cpu().walk_tiles.is_some() && plan.cpu().runs, "{plan}");
        assert_eq!(plan.lane_major_runs(), lane_major, "{plan}");
        // Boxes of one shape run compiled for it (`plan::specialize`), their walk's dims
        // the boxes' (`shaders::constants`).
        if *boxed && *specialize {
            assert!(plan.boxes_of_one_shape(), "{plan}");
            assert!(plan.specialized(), "{plan}");
        }
    }
}

/// Walks in tiles past one binding only by an offset (one box over a window that starts
/// near the tensor), of 4-byte units whose destination starts on 16 bytes (where one binding
/// takes wide stores; the source one unit off 16 bytes, so that the units stay elements),
/// against the reference with guard bytes.
#[test]
fn a_walk_past_the_limit_by_its_offset_matches_the_reference() {
    let Some(p) = cpu_family() else { return };
    let align = p.caps().storage_offset_alignment as u64;
    let shapes: [&[usize]; 2] = [&[96, 80, 64], &[24, 20, 512]];
    let cases: Vec<Relayout> = shapes
        .iter()
        .map(|shape| {
            let bytes = (shape.iter().product::<usize>() * 4) as u64;
            let options = Options {
                binding_limit: Some(bytes + align + 8),
                ..Options::default()
            };
            case(shape, &[1, 0, 2], 4, options, (64 * align + 4, 0))
        })
        .collect();
    for result in check_many(p, &cases) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert!(
            plan.cpu().walk_tiles.is_some() && !plan.cpu().wide_stores,
            "{plan}"
        );
    }
}

/// Whether the walks test's plan is one whose whole tiles fit windows of half the tensor:
/// not a prime number of rows walked whole, nor the transposes whose tiles span it.
fn walks_in_halves(plan: &wgpu_permute::Plan) -> bool {
    let shape: &[usize] = plan.shape();
    ![
        &[37usize, 16, 64][..],
        &[64, 40],
        &[16, 8, 10, 9],
        &[24, 5, 11],
    ]
    .contains(&shape)
}

/// Permutes whose innermost dim stays and whose rows are a page or more, a page or more
/// apart in the source, take stacked runs before walks in tiles (`Plan::stacked_runs`), of
/// 2, 4 and 16-byte elements, specialised and not, with offsets that differ on each side;
/// forced, they still walk in tiles. Both match the reference with guard bytes (CPU
/// adapters: GPUs have no runs).
#[test]
fn long_rows_far_apart_stack_before_they_walk_in_tiles() {
    let Some(p) = cpu_family() else { return };
    let shapes: [(&[usize], &[usize], usize); 3] = [
        (&[8, 16, 1024], &[1, 0, 2], 4),
        (&[2, 8, 4, 2048], &[0, 2, 1, 3], 2),
        (&[16, 8, 256], &[1, 0, 2], 16),
    ];
    let mut cases = Vec::new();
    let mut walked = Vec::new();
    for (shape, perm, elem) in shapes {
        for (specialize, walk_tiles) in [(false, None), (true, None), (false, Some(true))] {
            let options = Options {
                specialize: Some(specialize),
                walk_tiles,
                ..Options::default()
            };
            cases.push(case(
                shape,
                perm,
                elem,
                options,
                (2 * elem as u64, 6 * elem as u64),
            ));
            walked.push(walk_tiles.is_some());
        }
    }
    let fresh = cpu_planned(p);
    for (result, walked) in check_many(&fresh, &cases).into_iter().zip(walked) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (plan.cpu().walk_tiles.is_some(), plan.stacked_runs()),
            (walked, !walked),
            "{plan}"
        );
    }
}

/// Rows of a page or more that are not whole SIMD groups' runs stack too: rows of whole
/// runs (`[8,16,1056] (1,0,2)` f32, 264 units of 16 bytes), and rows that are not whole
/// runs, which only a stack can take (1030 floats in 8-byte units, 1025 in 4-byte ones),
/// specialised and not, with offsets that differ on each side, at rank 4 too, and views of
/// such rows flipped, reversed and broadcast; they match the reference with guard bytes
/// (CPU adapters). A transpose's long rows walk in tiles, never stack. Forced to walk in tiles, scatter or store wide, rows
/// that are not whole runs are refused with `ForcedChoice`.
#[test]
fn rows_that_are_not_whole_groups_stack() {
    let Some(p) = cpu_family() else { return };
    let shapes: [(&[usize], u32); 3] = [
        (&[8, 16, 1056], 16),
        (&[8, 16, 1030], 8),
        (&[8, 8, 1025], 4),
    ];
    let mut cases = Vec::new();
    for (shape, _) in shapes {
        for specialize in [false, true] {
            let options = Options {
                specialize: Some(specialize),
                ..Options::default()
            };
            cases.push(case(shape, &[1, 0, 2], 4, options, (16, 48)));
        }
    }
    // Rank 4, and views: rows of 1030 floats read bottom up, each read backwards, and one
    // row broadcast down 16 (a stack of one source row), in 8-byte units.
    let options = Options::default();
    cases.push(case(&[2, 8, 4, 1030], &[0, 2, 1, 3], 4, options, (16, 48)));
    let rows = View::contiguous(&[16, 1030]);
    let views = [
        (rows.clone().invert_axis(0).unwrap(), 16 * 1030),
        (rows.invert_axis(1).unwrap(), 16 * 1030),
        (
            View::contiguous(&[1, 1030]).broadcast(&[16, 1030]).unwrap(),
            1030,
        ),
    ];
    for (view, len) in views {
        cases.push(Relayout::view(view, len, 4).unwrap());
    }
    let fresh = cpu_planned(p);
    let units = (shapes.iter().flat_map(|&(_, unit)| [unit, unit])).chain([8; 4]);
    for (result, unit) in check_many(&fresh, &cases).into_iter().zip(units) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert!(plan.stacked_runs() && plan.unit() == unit, "{plan}");
        assert_eq!(plan.rows_hold_whole_runs(), unit == 16, "{plan}");
    }
    let forced = [
        Options {
            walk_tiles: Some(true),
            ..Options::default()
        },
        Options {
            scatter: Some(true),
            ..Options::default()
        },
        Options {
            wide_stores: Some(true),
            ..Options::default()
        },
    ];
    for options in forced {
        let op = case(&[8, 8, 1025], &[1, 0, 2], 4, options, (16, 48));
        match op.plan(p.caps()) {
            Err(wgpu_permute::PermuteError::ForcedChoice { .. }) => {}
            other => panic!("{options:?}: {other:?}"),
        }
    }
    // A transpose's rows are columns of the source: it walks in tiles, however long they are.
    let op = Relayout::permute(&[264, 8, 256], &[2, 1, 0], 16).unwrap();
    let plan = &op.plan(p.caps()).unwrap()[0];
    assert!(
        plan.cpu().walk_tiles.is_some() && !plan.stacked_runs(),
        "{plan}"
    );
}

/// Without walks in tiles, runs scatter on their own where gathering would read a new page per
/// output row (`[64,16,64] (1,0,2)` f32: a workgroup's runs gather 128 source rows 4 KiB
/// apart, and scattered write 16 pages), and match the reference with guard bytes, with
/// offsets that differ on each side; specialised too (CPU adapters: GPUs have no runs).
#[test]
fn scatter_is_chosen_where_gathering_reads_a_page_per_row() {
    let Some(p) = cpu_family() else { return };
    let cases: Vec<Relayout> = [None, Some(true)]
        .into_iter()
        .map(|specialize| {
            let options = Options {
                specialize,
                walk_tiles: Some(false),
                ..Options::default()
            };
            case(&[64, 16, 64], &[1, 0, 2], 4, options, (16, 48))
        })
        .collect();
    let fresh = cpu_planned(p);
    for (result, specialized) in check_many(&fresh, &cases).into_iter().zip([false, true]) {
        let plan = result.unwrap();
        assert!(plan.cpu().runs && plan.cpu().scatter, "{plan}");
        assert_eq!(plan.specialized(), specialized, "{plan}");
    }
}
