//! The generic kernel's walks in tiles: where they are chosen, their dims, and that they move
//! every output unit once, from where the permute says.

use super::*;

fn tiled(shape: &[usize], perm: &[usize], elem: usize, options: Options) -> crate::Plan {
    let req = Request::new(shape, perm, elem).with_options(options);
    plan::plan(&req, &cpu()).unwrap()
}

/// Runs gather in tiles on CPU devices where the output's neighbouring rows come from far
/// apart in the source (the bench's `[512,512,64] (1,0,2)` and head split), never on GPUs
/// nor where they would not change the order, and the walk's dims are the output's,
/// split and reordered (a workgroup's 2048 units: 1 KiB of output row per tile row).
#[test]
fn runs_gather_in_tiles_where_output_rows_come_from_far_apart() {
    let square = tiled(&[512, 512, 64], &[1, 0, 2], 4, Options::default());
    let tiles = WalkTiles {
        dim: 0,
        across: 32,
        rows: 4,
        row_runs: false,
    };
    assert_eq!(square.cpu.walk_tiles, Some(tiles), "{square}");
    assert!(square.cpu.runs && !square.cpu.scatter, "{square}");
    // Output [512, 512, 16] of 16-byte units, source strides [16, 8192, 1].
    let walk = vec![
        [16, 32 * 16, 32 * 8192],
        [128, 4 * 8192, 4 * 16],
        [32, 16, 8192],
        [4, 8192, 16],
        [16, 1, 1],
    ];
    assert_eq!(square.walk_tile_dims(), Some(walk), "{square}");
    assert_eq!(square.walk().0, vec![16, 128, 32, 4, 16]);
    let v = square.variant().unwrap();
    assert!(v.walks() && v.runs() && !v.scatter(), "{v}");
    assert_eq!(v.rank(), 5);
    // Rows of one run (2-byte elements: 128 bytes) scatter instead.
    let short = tiled(&[8, 512, 16, 64], &[0, 2, 1, 3], 2, Options::default());
    assert!(
        short.cpu.walk_tiles.is_none() && short.cpu.scatter,
        "{short}"
    );
    for elem in [4, 8] {
        // Output [8, 16, 512, u]: 16 heads whole, 4 rows of 256 B (f32) or 2 of 512 B.
        let head = tiled(&[8, 512, 16, 64], &[0, 2, 1, 3], elem, Options::default());
        let rows = 4 * 4 / elem as u64;
        assert_eq!(
            head.cpu.walk_tiles,
            Some(WalkTiles {
                dim: 1,
                across: 16,
                rows,
                row_runs: false,
            }),
            "{head}"
        );
        assert_eq!(head.walk().0[..3], [8, 512 / rows, 16], "{head}");
        assert!(head.on_gpu().unwrap().cpu.walk_tiles.is_none());
        let gpu = plan::plan(
            &Request::new(&[8, 512, 16, 64], &[0, 2, 1, 3], elem),
            &DeviceCaps::default(),
        );
        assert_eq!(gpu.unwrap().cpu.walk_tiles, None);
    }
    // No tiles: transposes of 4-byte units (micro blocks), a copy of rows whose
    // source-adjacent dim is whole and next to the rows, a conversion, and 4-byte units
    // with wide stores.
    for (shape, perm) in [(&[64, 64][..], &[1, 0][..]), (&[4, 8, 3], &[2, 1, 0])] {
        assert_eq!(
            tiled(shape, perm, 4, Options::default()).cpu.walk_tiles,
            None
        );
    }
    let whole = tiled(&[4, 4, 16], &[1, 0, 2], 16, Options::default());
    assert_eq!(whole.cpu.walk_tiles, None, "{whole}");
    let to_f16 =
        crate::convert::Conversion::new(crate::convert::Dtype::F32, crate::convert::Dtype::F16)
            .unwrap();
    let mut converting = Request::new(&[512, 512, 64], &[1, 0, 2], 4);
    converting.conversion = Some(&to_f16);
    assert_eq!(
        plan::plan(&converting, &cpu()).unwrap().cpu.walk_tiles,
        None
    );
    let mut req = Request::new(&[64, 64, 8], &[1, 0, 2], 4);
    req.src_offset = 4;
    let wide = plan::plan(&req, &cpu()).unwrap();
    assert!(
        wide.cpu.wide_stores && wide.cpu.walk_tiles.is_none(),
        "{wide}"
    );
}

/// Transposes of 16-byte units take the generic kernel's walk in tiles on CPU devices (runs
/// down the output's rows, lanes across the dim nearest in the source), not micro blocks;
/// 8-byte units, GPUs, a forced walk in output order and a view keep their kernels.
#[test]
fn transposes_of_16_byte_units_walk_in_tiles() {
    let square = tiled(&[2048, 2048], &[1, 0], 16, Options::default());
    assert_eq!(square.kernel, Kernel::Generic, "{square}");
    assert_eq!(square.reasons.kernel, KernelReason::CpuWalkTiles);
    let tiles = WalkTiles {
        dim: 0,
        across: 1024,
        rows: 1,
        row_runs: true,
    };
    assert_eq!(square.cpu.walk_tiles, Some(tiles), "{square}");
    // Output [2048, 2048 / 8, 8] with source strides [1, 8 * 2048, 2048]: tiles of 1024
    // output rows by a run, the runs of WALK_TILE_TRANSPOSE_WORKGROUPS workgroups of 256.
    let walk = vec![
        [2, 1024, 1024 * 2048],
        [256, 8 * 2048, 8],
        [1024, 1, 2048],
        [8, 2048, 1],
    ];
    assert_eq!(square.walk_tile_dims(), Some(walk), "{square}");
    assert!(square.cpu.runs && !square.lane_major_runs(), "{square}");
    let batch = tiled(&[3, 40, 64], &[0, 2, 1], 16, Options::default());
    assert_eq!(
        batch.cpu.walk_tiles.map(|t| (t.dim, t.across)),
        Some((1, 64)),
        "{batch}"
    );
    let eight = tiled(&[2048, 2048], &[1, 0], 8, Options::default());
    assert_eq!(eight.kernel, Kernel::Micro, "{eight}");
    let off = Options {
        walk_tiles: Some(false),
        ..Options::default()
    };
    assert_eq!(tiled(&[2048, 2048], &[1, 0], 16, off).kernel, Kernel::Micro);
    let gpu = plan::plan(
        &Request::new(&[2048, 2048], &[1, 0], 16),
        &DeviceCaps::default(),
    );
    assert_ne!(gpu.unwrap().kernel, Kernel::Generic);
    // Fewer neighbours across than a SIMD group has lanes: micro blocks.
    assert_eq!(
        tiled(&[6, 64], &[1, 0], 16, Options::default()).kernel,
        Kernel::Micro
    );
}

/// Past one binding, where a box of a transpose's usual tiles (four workgroups' runs) does
/// not fit a window, the walk takes tiles of one workgroup's runs rather than leaving for
/// micro blocks; where even those do not fit, micro blocks.
#[test]
fn long_transposes_past_one_binding_walk_in_narrower_tiles() {
    // 256 MiB of 16-byte units, output rows of 16384: a box of 1024 of them is past a
    // 128 MiB window, one of 256 is not.
    let long = tiled(&[16384, 1024], &[1, 0], 16, Options::default());
    assert_eq!(long.reasons.kernel, KernelReason::CpuWalkTiles, "{long}");
    assert_eq!(long.cpu.walk_tiles.map(|t| t.across), Some(256), "{long}");
    let forced = Options {
        walk_tiles: Some(true),
        ..Options::default()
    };
    let forced = tiled(&[16384, 1024], &[1, 0], 16, forced);
    assert_eq!(
        forced.cpu.walk_tiles.map(|t| t.across),
        Some(256),
        "{forced}"
    );
    // Where a box of the usual tiles fits, they stay: 1024 output rows of 8192.
    let fits = tiled(&[8192, 2048], &[1, 0], 16, Options::default());
    assert_eq!(fits.cpu.walk_tiles.map(|t| t.across), Some(1024), "{fits}");
    // Rows of 65536: not even one workgroup's runs fit, so micro blocks.
    let longest = tiled(&[65536, 256], &[1, 0], 16, Options::default());
    assert_eq!(longest.kernel, Kernel::Micro, "{longest}");
}

/// Forced on, a walk in tiles is refused where it cannot run (a transpose on micro blocks, a forced scatter,
/// a GPU); forced off, the runs walk as before (the scatter's choice).
#[test]
fn forced_tiled_walks() {
    let on = Options {
        walk_tiles: Some(true),
        ..Options::default()
    };
    let refused = |shape: &[usize], perm: &[usize], options: Options, caps: &DeviceCaps| {
        let req = Request::new(shape, perm, 4).with_options(options);
        let result = plan::plan(&req, caps);
        assert!(
            matches!(
                result,
                Err(PermuteError::ForcedChoice {
                    what: "a walk in tiles",
                    ..
                })
            ),
            "{result:?}"
        );
    };
    refused(&[64, 64], &[1, 0], on, &cpu());
    let both = Options {
        scatter: Some(true),
        ..on
    };
    refused(&[512, 512, 64], &[1, 0, 2], both, &cpu());
    refused(&[512, 512, 64], &[1, 0, 2], on, &DeviceCaps::default());
    let off = Options {
        walk_tiles: Some(false),
        ..Options::default()
    };
    let head = tiled(&[8, 512, 16, 64], &[0, 2, 1, 3], 4, off);
    assert!(head.cpu.walk_tiles.is_none() && head.cpu.scatter, "{head}");
}

/// Checks a walk in tiles against the permute: enumerated in order, as the kernel's runs
/// take it, it moves every output unit exactly once (its output strides), from the source
/// unit the plain walk puts there (its source strides), within the kernels' rank.
fn check_walk(plan: &crate::Plan) -> Result<(), proptest::test_runner::TestCaseError> {
    let walk = plan.walk_tile_dims().unwrap();
    let (out, src) = plan.walk_of(false);
    let n: u64 = out.iter().product();
    proptest::prop_assert_eq!(walk.iter().map(|d| d[0]).product::<u64>(), n);
    proptest::prop_assert!(walk.len() <= MAX_RANK && walk.len() >= 3, "{}", plan);
    let source = |mut o: u64| {
        let mut s = 0;
        for (d, st) in out.iter().zip(&src).rev() {
            s += o % d * st;
            o /= d;
        }
        s
    };
    let mut seen = vec![false; n as usize];
    let mut at = vec![0u64; walk.len()];
    for _ in 0..n {
        let d: u64 = at.iter().zip(&walk).map(|(i, w)| i * w[2]).sum();
        let s: u64 = at.iter().zip(&walk).map(|(i, w)| i * w[1]).sum();
        proptest::prop_assert!(!seen[d as usize], "{} written twice: {}", d, plan);
        seen[d as usize] = true;
        proptest::prop_assert_eq!(s, source(d), "{}", plan);
        // Odometer, innermost fastest.
        for j in (0..at.len()).rev() {
            at[j] += 1;
            if at[j] < walk[j][0] {
                break;
            }
            at[j] = 0;
        }
    }
    Ok(())
}

proptest::proptest! {
    /// A walk in tiles of a permute whose innermost dim stays moves each unit once, from
    /// its source ([`check_walk`]).
    #[test]
    fn a_tiled_walk_moves_each_unit_once_from_its_source(
        outer in proptest::collection::vec(2usize..=5, 0..=2),
        a in 2usize..=40,
        b in 2usize..=48,
        row in proptest::sample::select(vec![8usize, 16, 24, 64, 256]),
        elem in proptest::sample::select(vec![4usize, 8, 16]),
    ) {
        // Source [b, outer.., a, row]; output [outer reversed.., a, b, row].
        let k = outer.len();
        let mut shape = vec![b];
        shape.extend(&outer);
        shape.extend([a, row]);
        let mut perm: Vec<usize> = (1..=k).rev().collect();
        perm.extend([k + 1, 0, k + 2]);
        // Offsets of one element keep the unit the element (no wide stores: 4-byte units
        // into a destination 12 bytes in).
        let mut req = Request::new(&shape, &perm, elem).with_options(Options {
            walk_tiles: Some(true),
            ..Options::default()
        });
        (req.src_offset, req.dst_offset) = (elem as u64, 3 * elem as u64);
        match plan::plan(&req, &cpu()) {
            Ok(p) => check_walk(&p)?,
            // Only where tiles would not change the order, or rows are one run.
            Err(_) => {
                let untiled = plan::plan(&req.with_options(Options::default()), &cpu()).unwrap();
                proptest::prop_assert!(untiled.cpu.walk_tiles.is_none(), "{untiled}");
            }
        }
    }

    /// Likewise a transpose's walk in tiles (the generic kernel forced, its innermost dim in
    /// runs), of rotations and reversals whose innermost dim moves; the source's innermost
    /// (the dim the lanes go across) holds a SIMD group or more, the output rows two runs or
    /// more (one run a row walks in output order).
    #[test]
    fn a_transposed_tiled_walk_moves_each_unit_once_from_its_source(
        shape in proptest::collection::vec(2usize..=7, 2..=4),
        across in 8usize..=24,
        runs in 2usize..=4,
        perm in 0usize..6,
        elem in proptest::sample::select(vec![4usize, 8, 16]),
    ) {
        let rank = shape.len();
        let mut p: Vec<usize> = (0..rank).collect();
        match perm % 2 {
            0 => p.reverse(),
            _ => p.rotate_left(1 + perm / 2 % (rank - 1)),
        }
        let mut shape = shape;
        shape[rank - 1] = across;
        shape[p[rank - 1]] = 8 * runs;
        let forced = Options {
            kernel: Some(Kernel::Generic),
            walk_tiles: Some(true),
            ..Options::default()
        };
        let mut req = Request::new(&shape, &p, elem).with_options(forced);
        (req.src_offset, req.dst_offset) = (elem as u64, 3 * elem as u64);
        let plan = plan::plan(&req, &cpu());
        proptest::prop_assert!(plan.is_ok(), "{:?}", plan);
        let plan = plan.unwrap();
        proptest::prop_assert!(plan.cpu.walk_tiles.is_some_and(|t| t.row_runs), "{}", plan);
        check_walk(&plan)?;
    }
}
