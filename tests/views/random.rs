//! Bad views get typed errors; random views and the generic kernel's runs match the
//! reference.

use super::*;

#[test]
fn bad_views_get_typed_errors() {
    let caps = DeviceCaps::default();
    let plan = |v: &View, src_len, fill: &[u8]| {
        plan::plan_view(&request(v, 4, src_len, fill), &caps, &Default::default())
    };
    // Reads past the source's end, or before its start.
    let past = View::contiguous(&[4, 5]);
    assert!(matches!(
        plan(&past, 19, &[]),
        Err(PermuteError::ViewOutOfBounds {
            which: "source",
            lowest: 0,
            highest: 19,
            have: 19
        })
    ));
    let before = View {
        strides: vec![-1],
        offset: 2,
        ..View::contiguous(&[4])
    };
    // A flip left at offset 0 reads before the start: the message names both ends.
    let err = plan(&before, 8, &[]).unwrap_err();
    assert_eq!(
        err,
        PermuteError::ViewOutOfBounds {
            which: "source",
            lowest: -1,
            highest: 2,
            have: 8
        }
    );
    assert!(err.to_string().contains("source elements -1 to 2"), "{err}");
    // Two output positions on one element.
    let overlap = View {
        dst_strides: Some(vec![2, 1]),
        ..View::contiguous(&[4, 3])
    };
    assert_eq!(
        plan(&overlap, 12, &[]).unwrap_err(),
        PermuteError::OverlappingOutput
    );
    // A fill that is not one element.
    assert_eq!(
        plan(&padded_4x5(), 20, &[1, 2]).unwrap_err(),
        PermuteError::FillSize { fill: 2, elem: 4 }
    );
    // Bounds over dims that are not the split of one dim, or out of range.
    let mut bad = padded_4x5();
    bad.bounds = vec![Bound {
        dims: vec![0, 1],
        valid: 0..20,
    }];
    bad.strides = vec![5, 2];
    assert!(matches!(
        plan(&bad, 20, &[0; 4]),
        Err(PermuteError::InvalidView(_))
    ));
    bad.bounds[0].dims = vec![2];
    assert!(matches!(
        plan(&bad, 20, &[0; 4]),
        Err(PermuteError::InvalidView(_))
    ));
    // Padding is allowed to start before the source: only existing positions count.
    assert!(plan(&padded_4x5(), 20, &[0; 4]).is_ok());
}

/// A random view of a contiguous source: per source dim a slice (start, length, step of
/// either sign), then padding, a permutation and a broadcast dim.
fn random_view() -> impl Strategy<Value = (View, usize, usize)> {
    let dims = prop::collection::vec((1usize..7, 0usize..3, 1isize..3, any::<bool>()), 1..4);
    (
        dims,
        prop::sample::select(vec![1usize, 2, 4, 8, 16]),
        any::<u64>(),
        prop::option::of((0usize..3, 0usize..3)),
        prop::option::of(1usize..4),
    )
        .prop_map(|(dims, elem, seed, pad, broadcast)| {
            let base: Vec<usize> = dims.iter().map(|d| d.0 + d.1 + 2).collect();
            let strides = wgpu_permute::view::row_major(&base);
            let mut shape = Vec::new();
            let mut vstrides = Vec::new();
            let mut offset = 0isize;
            for (i, &(len, start, step, reverse)) in dims.iter().enumerate() {
                let n = len.min((base[i] - start).div_ceil(step as usize));
                let s = strides[i] as isize * step;
                if reverse {
                    offset += (start + (n - 1) * step as usize) as isize * strides[i] as isize;
                    vstrides.push(-s);
                } else {
                    offset += (start * strides[i]) as isize;
                    vstrides.push(s);
                }
                shape.push(n);
            }
            let mut bounds = Vec::new();
            if let Some((lo, hi)) = pad {
                // Pad dim 0 by lo before and hi after.
                bounds.push(Bound {
                    dims: vec![0],
                    valid: lo..lo + shape[0],
                });
                offset -= lo as isize * vstrides[0];
                shape[0] += lo + hi;
            }
            if let Some(b) = broadcast {
                shape.push(b);
                vstrides.push(0);
            }
            // A permutation from the seed.
            let mut order: Vec<usize> = (0..shape.len()).collect();
            let mut x = seed | 1;
            for i in (1..order.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let rank_of: Vec<usize> = (0..order.len())
                .map(|d| order.iter().position(|&o| o == d).unwrap())
                .collect();
            let v = View {
                shape: order.iter().map(|&d| shape[d]).collect(),
                strides: order.iter().map(|&d| vstrides[d]).collect(),
                offset,
                bounds: bounds
                    .into_iter()
                    .map(|b| Bound {
                        dims: b.dims.iter().map(|&d| rank_of[d]).collect(),
                        valid: b.valid,
                    })
                    .collect(),
                dst_strides: None,
            };
            (v, elem, base.iter().product())
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_views_match_the_reference((v, elem, src_len) in random_view()) {
        let fill: Vec<u8> = (0..elem as u8).map(|b| 0xC0 | b).collect();
        check(&v, elem, src_len, &fill);
        // Compiled for its shape too: its strides (negative ones wrapped) as constants.
        check_specialized(&v, elem, src_len, &fill);
    }
}

/// On CPU devices the generic kernel moves runs of output units that step through the
/// source by the innermost dim's stride, whatever its sign: flipped, strided and broadcast
/// rows, of rank 1 and 2, match the reference.
#[test]
fn generic_runs_step_through_flipped_strided_and_broadcast_rows() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let views = [
        // x[::-1] of 64 elements.
        View {
            shape: vec![64],
            strides: vec![-1],
            offset: 63,
            ..View::contiguous(&[])
        },
        // x[:, ::-1] of a [6, 32] tensor (rows of whole runs of reversed units).
        View {
            shape: vec![6, 32],
            strides: vec![32, -1],
            offset: 31,
            ..View::contiguous(&[])
        },
        // x[:, ::2] of a [12, 16] tensor.
        View {
            shape: vec![12, 8],
            strides: vec![16, 2],
            offset: 0,
            ..View::contiguous(&[])
        },
        // A row of 32 broadcast to 12 rows.
        View {
            shape: vec![12, 32],
            strides: vec![0, 1],
            offset: 0,
            ..View::contiguous(&[])
        },
    ];
    for v in &views {
        for elem in [4, 8, 16] {
            let plan = plan::plan_view(&request(v, elem, 192, &[]), &cpu, &Default::default());
            let plan = plan.unwrap();
            assert!(
                plan.cpu().runs && plan.kernel() == Kernel::Generic,
                "{plan}"
            );
            assert!(
                !plan_of(v, elem, 192).cpu().runs,
                "runs are for CPU devices only"
            );
            check(v, elem, 192, &[]);
        }
    }
}

/// Stacked runs (`Plan::stacked_runs`, CPU devices): the bench's flip, slice and broadcast
/// of rows of a page, and a flip of the rows' elements, on uniforms and compiled for their
/// shape (negative strides wrapped to 32 bits), match the reference.
#[test]
fn stacked_runs_move_flipped_sliced_and_broadcast_rows() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let (rows, row) = (16, 1024);
    let view = |strides: [isize; 2], offset: isize| View {
        shape: vec![rows, row],
        strides: strides.to_vec(),
        offset,
        ..View::contiguous(&[])
    };
    let views = [
        view([-(row as isize), 1], ((rows - 1) * row) as isize),
        view([2 * row as isize, 1], 0),
        view([0, 1], 0),
        view([row as isize, -1], row as isize - 1),
    ];
    for v in &views {
        let src_len = 2 * rows * row;
        for specialize in [false, true] {
            let options = Options {
                specialize: Some(specialize),
                ..Options::default()
            };
            let request = request(v, 4, src_len, &[]).with_options(options);
            let plan = plan::plan_view(&request, &cpu, &Default::default()).unwrap();
            let variant = plan.variant().unwrap();
            assert!(
                variant.stacked() && plan.specialized() == specialize,
                "{plan}"
            );
            let Some(p) = gpu() else { continue };
            let fresh = super::common::fresh(p);
            check_on(&fresh, v, 4, src_len, &[], options);
        }
    }
}
