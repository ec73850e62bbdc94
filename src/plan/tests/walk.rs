//! The generic kernel's tiled walks: where they are chosen, their dims, and that they move
//! every output unit once, from where the permute says.

use super::*;

fn tiled(shape: &[usize], perm: &[usize], elem: usize, options: Options) -> crate::Plan {
    let req = Request::new(shape, perm, elem).with_options(options);
    plan::plan(&req, &cpu()).unwrap()
}

/// Runs gather in tiles on CPU devices where the output's neighbouring rows come from far
/// apart in the source (the bench's `[512,512,64] (1,0,2)` and head split), never on GPUs
/// nor where they would not change the order, and the tiled walk's dims are the output's,
/// split and reordered (a workgroup's 2048 units: 1 KiB of output row per tile row).
#[test]
fn runs_gather_in_tiles_where_output_rows_come_from_far_apart() {
    let square = tiled(&[512, 512, 64], &[1, 0, 2], 4, Options::default());
    let tiles = WalkTiles {
        dim: 0,
        across: 32,
        rows: 4,
    };
    assert_eq!(square.walk_tiles, Some(tiles), "{square}");
    assert!(square.runs && !square.scatter, "{square}");
    // Output [512, 512, 16] of 16-byte units, source strides [16, 8192, 1].
    let walk = vec![
        [16, 32 * 16, 32 * 8192],
        [128, 4 * 8192, 4 * 16],
        [32, 16, 8192],
        [4, 8192, 16],
        [16, 1, 1],
    ];
    assert_eq!(square.tiled_walk(), Some(walk), "{square}");
    assert_eq!(square.walk().0, vec![16, 128, 32, 4, 16]);
    let v = square.variant().unwrap();
    assert!(v.boxed() && v.runs() && !v.scatter(), "{v}");
    assert_eq!(v.rank(), 5);
    for elem in [2, 4] {
        // Output [8, 16, 512, u]: 16 heads whole, 4 rows of 1 KiB (f32) or 8 of 512 B.
        let head = tiled(&[8, 512, 16, 64], &[0, 2, 1, 3], elem, Options::default());
        let rows = 4 * 4 / elem as u64;
        assert_eq!(
            head.walk_tiles,
            Some(WalkTiles {
                dim: 1,
                across: 16,
                rows
            }),
            "{head}"
        );
        assert_eq!(head.walk().0[..3], [8, 512 / rows, 16], "{head}");
        assert!(head.on_gpu().unwrap().walk_tiles.is_none());
        let gpu = plan::plan(
            &Request::new(&[8, 512, 16, 64], &[0, 2, 1, 3], elem),
            &DeviceCaps::default(),
        );
        assert_eq!(gpu.unwrap().walk_tiles, None);
    }
    // No tiles: a transpose (the innermost dim moves), a copy of rows whose source-adjacent
    // dim is whole and next to the rows, a conversion, and 4-byte units with wide stores.
    for (shape, perm) in [(&[64, 64][..], &[1, 0][..]), (&[4, 8, 3], &[2, 1, 0])] {
        assert_eq!(tiled(shape, perm, 4, Options::default()).walk_tiles, None);
    }
    let whole = tiled(&[4, 4, 16], &[1, 0, 2], 16, Options::default());
    assert_eq!(whole.walk_tiles, None, "{whole}");
    let to_f16 =
        crate::convert::Conversion::new(crate::convert::Dtype::F32, crate::convert::Dtype::F16)
            .unwrap();
    let mut converting = Request::new(&[512, 512, 64], &[1, 0, 2], 4);
    converting.conversion = Some(&to_f16);
    assert_eq!(plan::plan(&converting, &cpu()).unwrap().walk_tiles, None);
    let mut req = Request::new(&[64, 64, 8], &[1, 0, 2], 4);
    req.src_offset = 4;
    let wide = plan::plan(&req, &cpu()).unwrap();
    assert!(wide.wide_stores && wide.walk_tiles.is_none(), "{wide}");
}

/// Forced on, a tiled walk is refused where it cannot run (a transpose, a forced scatter,
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
                    what: "a tiled walk",
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
    assert!(head.walk_tiles.is_none() && head.scatter, "{head}");
}

proptest::proptest! {
    /// A tiled walk, enumerated in order, moves every output unit exactly once, from the
    /// source unit the permute puts there: its dims' output strides address each output
    /// position once and its source strides agree with the plain walk's.
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
        let Ok(p) = plan::plan(&req, &cpu()) else {
            // Only where tiles would not change the order, or runs do not apply.
            let untiled = plan::plan(&req.with_options(Options::default()), &cpu()).unwrap();
            proptest::prop_assert!(untiled.walk_tiles.is_none(), "{untiled}");
            return Ok(());
        };
        let walk = p.tiled_walk().unwrap();
        let (out, src) = p.walk_of(false);
        let n: u64 = out.iter().product();
        proptest::prop_assert_eq!(walk.iter().map(|d| d[0]).product::<u64>(), n);
        // The plain walk's source offset of each output position.
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
            proptest::prop_assert!(!seen[d as usize], "{} written twice: {}", d, p);
            seen[d as usize] = true;
            proptest::prop_assert_eq!(s, source(d), "{}", p);
            // Odometer, innermost fastest.
            for j in (0..at.len()).rev() {
                at[j] += 1;
                if at[j] < walk[j][0] {
                    break;
                }
                at[j] = 0;
            }
        }
        proptest::prop_assert!(p.variant().unwrap().rank() <= MAX_RANK);
    }
}
