//! Planner tests: pure, no GPU.

use proptest::prelude::*;
use wgpu_permute::model::Figures;
use wgpu_permute::plan::{
    self, DeviceCaps, ELEM_SIZES, IndexReason, KernelReason, Learned, MAX_RANK, MICRO_RUN,
    MIN_TILED_EXTENT, Measured, Misfit, Modelling, SPECIALIZE_PAYBACK_BYTES, SpecializeReason,
    Strip, Tile, Tuning, fold_grid, simplify,
};
use wgpu_permute::{
    Bound, IndexMath, Kernel, Options, PermuteError, Request, View, ViewRequest, reference,
};

fn plan_of(shape: &[usize], perm: &[usize], elem: usize) -> wgpu_permute::Plan {
    plan::plan(&Request::new(shape, perm, elem), &DeviceCaps::default()).unwrap()
}

fn err_of(req: Request) -> PermuteError {
    plan::plan(&req, &DeviceCaps::default()).unwrap_err()
}

#[test]
fn simplification_examples() {
    // Identity collapses to one dim.
    assert_eq!(simplify(&[2, 3, 4], &[0, 1, 2]), (vec![24], vec![0]));
    // NCHW -> NHWC: H and W move together.
    assert_eq!(
        simplify(&[8, 3, 5, 7], &[0, 2, 3, 1]),
        (vec![8, 3, 35], vec![0, 2, 1])
    );
    // Attention heads (B, S, H, D) -> (B, H, S, D).
    assert_eq!(
        simplify(&[2, 16, 4, 8], &[0, 2, 1, 3]),
        (vec![2, 16, 4, 8], vec![0, 2, 1, 3])
    );
    // Size-1 dims vanish, and what they separated can merge.
    assert_eq!(
        simplify(&[4, 1, 5, 6], &[1, 3, 0, 2]),
        (vec![20, 6], vec![1, 0])
    );
    assert_eq!(simplify(&[1, 1], &[1, 0]), (vec![1], vec![0]));
}

#[test]
fn movement_size_examples() {
    // (B, S, H, D) -> (B, H, S, D) with D = 64 f32: 256-byte runs move as 16-byte units.
    let p = plan_of(&[8, 512, 16, 64], &[0, 2, 1, 3], 4);
    assert_eq!((p.unit, p.dims.clone()), (16, vec![8, 512, 16, 16]));
    // A run of 3 f16 (6 bytes) moves in 2-byte units.
    let p = plan_of(&[10, 4, 3], &[1, 0, 2], 2);
    assert_eq!(p.unit, 2);
    // 16-byte elements transposed move as 16-byte units...
    assert_eq!(plan_of(&[5, 7], &[1, 0], 16).unit, 16);
    // ...unless an offset is only 4-aligned: then as 4 words per element.
    let req = Request::new(&[5, 7], &[1, 0], 16).with_offsets(4, 0);
    let p = plan::plan(&req, &DeviceCaps::default()).unwrap();
    assert_eq!(
        (p.unit, p.dims.clone(), p.dims_perm.clone()),
        (4, vec![5, 7, 4], vec![1, 0, 2])
    );
    // A whole row that becomes one unit is dropped, and the rest merges.
    let p = plan_of(&[3, 5, 4], &[1, 0, 2], 4);
    assert_eq!(
        (p.unit, p.dims.clone(), p.dims_perm.clone()),
        (16, vec![3, 5], vec![1, 0])
    );
}

#[test]
fn kernel_choice() {
    assert_eq!(plan_of(&[4, 6], &[0, 1], 4).kernel, Kernel::Copy);
    // An identity of 6 bytes is not a whole number of words: a shader moves it.
    assert_eq!(plan_of(&[3], &[0], 2).kernel, Kernel::Generic);
    assert_eq!(plan_of(&[0, 5], &[1, 0], 4).kernel, Kernel::Empty);
    assert_eq!(
        plan_of(&[64, 512, 512], &[0, 2, 1], 4).kernel,
        Kernel::Tiled
    );
    assert_eq!(
        plan_of(&[64, 512, 512], &[0, 2, 1], 2).kernel,
        Kernel::Tiled
    );
    assert_eq!(
        plan_of(&[64, 512, 512], &[0, 2, 1], 1).kernel,
        Kernel::Tiled
    );
    assert_eq!(plan_of(&[2048, 2048], &[1, 0], 16).kernel, Kernel::Tiled);
    // Thin matrices and packed data that does not pack go to the generic kernel.
    let thin = MIN_TILED_EXTENT as usize - 1;
    assert_eq!(plan_of(&[thin, 4096], &[1, 0], 4).kernel, Kernel::Generic);
    assert_eq!(plan_of(&[63, 64], &[1, 0], 2).kernel, Kernel::Generic);
    assert_eq!(plan_of(&[64, 66], &[1, 0], 1).kernel, Kernel::Generic);
    // Any permutation whose innermost dim moves tiles (cuTT's method), on a GPU...
    assert_eq!(
        plan_of(&[64, 64, 64, 64], &[3, 2, 1, 0], 4).kernel,
        Kernel::Tiled
    );
    // A tile side of 8 (the dim that becomes innermost) is enough.
    assert_eq!(
        plan_of(&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], 4).kernel,
        Kernel::Tiled
    );
    // ...but not on a CPU device: micro-tiles where they fit, else the generic kernel.
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let p = plan::plan(&Request::new(&[64, 512, 512], &[0, 2, 1], 4), &cpu).unwrap();
    assert_eq!(p.kernel, Kernel::Micro);
    let odd = plan::plan(&Request::new(&[64, 510, 512], &[0, 2, 1], 4), &cpu).unwrap();
    assert_eq!(odd.kernel, Kernel::Generic);
    // The innermost dim stays: the generic kernel, in wide units.
    assert_eq!(
        plan_of(&[64, 64, 64], &[1, 0, 2], 4).kernel,
        Kernel::Generic
    );
}

#[test]
fn forced_choices_that_cannot_apply_are_refused() {
    let forced = |shape: &[usize], perm: &[usize], elem, kernel, index| {
        let options = Options {
            kernel,
            index,
            ..Options::default()
        };
        plan::plan(
            &Request::new(shape, perm, elem).with_options(options),
            &DeviceCaps::default(),
        )
    };
    let refused = |r: Result<_, PermuteError>| matches!(r, Err(PermuteError::ForcedChoice { .. }));
    // Micro-tiles: blocks of 1, 2, 4 or 8-byte elements (see the block test below).
    assert!(forced(&[8, 12], &[1, 0], 2, Some(Kernel::Micro), None).is_ok());
    assert!(forced(&[8, 12], &[1, 0], 8, Some(Kernel::Micro), None).is_ok());
    assert!(refused(forced(
        &[8, 9],
        &[1, 0],
        8,
        Some(Kernel::Micro),
        None
    )));
    assert!(refused(forced(
        &[8, 10],
        &[1, 0],
        2,
        Some(Kernel::Micro),
        None
    )));
    assert!(refused(forced(
        &[8, 12],
        &[1, 0],
        16,
        Some(Kernel::Micro),
        None
    )));
    assert!(refused(forced(
        &[4, 4, 3],
        &[1, 0, 2],
        4,
        Some(Kernel::Micro),
        None
    )));
    // The innermost run of 3 f32 stays innermost: nothing to tile.
    assert!(refused(forced(
        &[4, 4, 3],
        &[1, 0, 2],
        4,
        Some(Kernel::Tiled),
        None
    )));
    assert!(forced(&[4, 4, 4], &[2, 1, 0], 4, Some(Kernel::Tiled), None).is_ok());
    assert!(refused(forced(
        &[4, 4],
        &[1, 0],
        4,
        Some(Kernel::Copy),
        None
    )));
    assert!(refused(forced(
        &[4, 4],
        &[1, 0],
        4,
        Some(Kernel::Empty),
        None
    )));
    assert!(refused(forced(
        &[62, 64],
        &[1, 0],
        1,
        Some(Kernel::Tiled),
        None
    )));
    assert!(refused(forced(
        &[64, 64],
        &[1, 0],
        4,
        Some(Kernel::Tiled),
        Some(IndexMath::U32Pair)
    )));
    // The default caps have no SHADER_INT64.
    assert!(refused(forced(
        &[4, 4],
        &[1, 0],
        4,
        None,
        Some(IndexMath::U64)
    )));
    // Forcing the generic kernel always works, and a forced 64-bit index avoids tiling.
    assert!(forced(&[64, 64], &[1, 0], 4, Some(Kernel::Generic), None).is_ok());
    let p = forced(&[64, 64], &[1, 0], 4, None, Some(IndexMath::U32Pair)).unwrap();
    assert_eq!((p.kernel, p.index), (Kernel::Generic, IndexMath::U32Pair));
}

#[test]
fn index_width_follows_the_offsets() {
    let big = DeviceCaps {
        max_storage_binding: u64::MAX,
        ..DeviceCaps::default()
    };
    let with_int64 = DeviceCaps {
        int64: true,
        ..big.clone()
    };
    // 2^33 bytes moved as single bytes: offsets exceed 32 bits.
    let shape = [1usize << 20, 1 << 13];
    let req = Request::new(&shape, &[1, 0], 1);
    assert_eq!(plan::plan(&req, &big).unwrap().index, IndexMath::U32Pair);
    assert_eq!(plan::plan(&req, &with_int64).unwrap().index, IndexMath::U64);
    let forced32 = req.with_options(Options {
        index: Some(IndexMath::U32),
        ..Options::default()
    });
    assert!(matches!(
        plan::plan(&forced32, &big),
        Err(PermuteError::ForcedChoice { .. })
    ));
    // Large but within 32 bits once moved in 16-byte units.
    let shape = [1usize << 16, 1 << 14];
    let p = plan::plan(&Request::new(&shape, &[0, 1], 4), &big).unwrap();
    assert_eq!(p.index, IndexMath::U32);
    assert_eq!(plan_of(&[100, 100], &[1, 0], 4).index, IndexMath::U32);
}

#[test]
fn request_errors_are_exact() {
    assert_eq!(
        err_of(Request::new(&[2, 3], &[0], 4)),
        PermuteError::PermLength {
            perm_len: 1,
            rank: 2
        }
    );
    assert_eq!(
        err_of(Request::new(&[2, 3], &[0, 2], 4)),
        PermuteError::PermOutOfRange { value: 2, rank: 2 }
    );
    assert_eq!(
        err_of(Request::new(&[2, 3], &[1, 1], 4)),
        PermuteError::PermDuplicate { value: 1 }
    );
    let shape = vec![2; MAX_RANK + 1];
    let perm: Vec<usize> = (0..=MAX_RANK).collect();
    assert_eq!(
        err_of(Request::new(&shape, &perm, 4)),
        PermuteError::RankTooLarge {
            rank: MAX_RANK + 1,
            max: MAX_RANK
        }
    );
    for bad in [0, 3, 5, 6, 32] {
        assert_eq!(
            err_of(Request::new(&[2], &[0], bad)),
            PermuteError::ElemSize(bad)
        );
    }
    assert_eq!(
        err_of(Request::new(&[usize::MAX, 2], &[1, 0], 4)),
        PermuteError::SizeOverflow
    );
    assert_eq!(
        err_of(Request::new(&[usize::MAX / 2], &[0], 16)),
        PermuteError::SizeOverflow
    );
    assert_eq!(
        err_of(Request::new(&[4], &[0], 4).with_offsets(2, 0)),
        PermuteError::UnalignedOffset {
            which: "source",
            offset: 2
        }
    );
    assert_eq!(
        err_of(Request::new(&[4], &[0], 4).with_offsets(0, 6)),
        PermuteError::UnalignedOffset {
            which: "destination",
            offset: 6
        }
    );
    // A binding limit too small for even one unit and the aligned start of a window.
    let tiny = DeviceCaps {
        max_storage_binding: 64,
        storage_offset_alignment: 256,
        ..DeviceCaps::default()
    };
    assert_eq!(
        plan::plan(&Request::new(&[1000, 1000], &[1, 0], 4), &tiny).unwrap_err(),
        PermuteError::DeviceLimit {
            what: "a binding window of one row",
            limit: "max_storage_buffer_binding_size",
            need: 264,
            have: 64
        }
    );
    // Every error reads as a sentence.
    let e = err_of(Request::new(&[2, 3], &[1, 1], 4));
    assert_eq!(
        e.to_string(),
        "permutation names dimension 1 more than once"
    );
}

#[test]
fn grid_folding_respects_the_per_dimension_limit() {
    assert_eq!(fold_grid(1, 65535).unwrap(), [1, 1, 1]);
    assert_eq!(fold_grid(65535, 65535).unwrap(), [65535, 1, 1]);
    assert_eq!(fold_grid(65536, 65535).unwrap(), [65535, 2, 1]);
    for (total, max) in [(300u64, 7u32), (12345, 100), (999_999, 1000), (343, 7)] {
        let [x, y, z] = fold_grid(total, max).unwrap();
        assert!(x <= max && y <= max && z <= max);
        let covered = x as u64 * y as u64 * z as u64;
        assert!(
            covered >= total && covered - total < x as u64 * y as u64,
            "{total} {max}"
        );
    }
    assert!(matches!(
        fold_grid(7 * 7 * 7 + 1, 7),
        Err(PermuteError::DeviceLimit { .. })
    ));
    // A plan on a device with a tiny limit folds its grid.
    let caps = DeviceCaps {
        max_workgroups_per_dim: 4,
        ..DeviceCaps::default()
    };
    let p = plan::plan(&Request::new(&[200, 200], &[1, 0], 4), &caps).unwrap();
    let chunk = &p.chunks[0];
    assert!(chunk.workgroups.iter().all(|&d| d <= 4), "{p}");
    assert!(chunk.workgroups.iter().map(|&d| d as u64).product::<u64>() >= chunk.total_workgroups);
}

#[test]
fn tiles_fit_the_default_workgroup_limits() {
    let caps = DeviceCaps::default();
    for &elem in &ELEM_SIZES {
        let tile = Tile::for_unit(elem as u32);
        assert!(tile.storage_bytes(elem as u32) <= caps.max_workgroup_storage as u64);
        assert!(tile.words * tile.rows <= caps.max_invocations);
        assert_eq!(tile.words * tile.pack % 16, 0);
    }
}

#[test]
fn plans_print_their_decisions() {
    let text = plan_of(&[64, 512, 512], &[0, 2, 1], 2).to_string();
    for part in [
        "tiled",
        "64x64 tile",
        "2 B units",
        "index u32",
        "workgroups",
    ] {
        assert!(text.contains(part), "{text}");
    }
}

#[test]
fn reference_examples() {
    let m = [1, 2, 3, 4, 5, 6];
    assert_eq!(
        reference::permute_slice(&m, &[2, 3], &[1, 0]).unwrap(),
        [1, 4, 2, 5, 3, 6]
    );
    assert_eq!(reference::permute_slice(&m, &[2, 3], &[0, 1]).unwrap(), m);
    let t: Vec<u32> = (0..24).collect();
    // out[k][i][j] = in[i][j][k] for shape (2, 3, 4) and perm (2, 0, 1).
    let out = reference::permute_slice(&t, &[2, 3, 4], &[2, 0, 1]).unwrap();
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                assert_eq!(out[k * 6 + i * 3 + j], t[i * 12 + j * 4 + k]);
            }
        }
    }
    assert_eq!(
        reference::permute_slice(&m, &[2, 2], &[1, 0]),
        Err(PermuteError::DataLength { need: 4, have: 6 })
    );
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The simplified plan, moved in its units, sends every byte where the original request
    /// sends it; and the simplification's postconditions hold.
    #[test]
    fn plans_preserve_the_mapping_and_postconditions(req in any_request()) {
        let (shape, perm, elem, src_off, dst_off) = req;
        let request = Request::new(&shape, &perm, elem).with_offsets(src_off, dst_off);
        let p = plan::plan(&request, &DeviceCaps::default()).unwrap();
        let n: usize = shape.iter().product();
        let data: Vec<u8> = (0..n * elem).map(|i| (i * 7 + i / 251) as u8).collect();
        let want = reference::permute_bytes(&data, &shape, &perm, elem).unwrap();
        let dims: Vec<usize> = p.dims.iter().map(|&d| d as usize).collect();
        let got = reference::permute_bytes(&data, &dims, &p.dims_perm, p.unit as usize).unwrap();
        prop_assert_eq!(got, want, "{}", p);

        prop_assert_eq!(p.units() * p.unit as u64, (n * elem) as u64);
        prop_assert!(p.dims.iter().all(|&d| d > 1) || p.dims == [1], "{}", p);
        prop_assert!(p.dims_perm.windows(2).all(|w| w[1] != w[0] + 1), "{}", p);
        prop_assert_eq!(src_off % p.unit as u64, 0);
        prop_assert_eq!(dst_off % p.unit as u64, 0);
        for chunk in &p.chunks {
            let covered: u64 = chunk.workgroups.iter().map(|&d| d as u64).product();
            prop_assert!(covered >= chunk.total_workgroups);
        }
        if p.kernel == Kernel::Tiled {
            prop_assert!(p.batch_rows_cols().is_some());
        }
    }

    /// Arbitrary (also invalid) requests give a plan or an error, never a panic.
    #[test]
    fn arbitrary_requests_never_panic(
        shape in proptest::collection::vec(0usize..=usize::MAX, 0..6),
        perm in proptest::collection::vec(0usize..8, 0..6),
        elem in 0usize..20,
        offsets in (0u64..=u64::MAX, 0u64..=u64::MAX),
    ) {
        let req = Request::new(&shape, &perm, elem).with_offsets(offsets.0, offsets.1);
        match plan::plan(&req, &DeviceCaps::default()) {
            // A plan for a valid request: its units cover the tensor's bytes.
            Ok(p) => prop_assert_eq!(p.units() * p.unit as u64, p.bytes),
            Err(e) => prop_assert!(
                matches!(
                    e,
                    PermuteError::PermLength { .. }
                        | PermuteError::PermOutOfRange { .. }
                        | PermuteError::PermDuplicate { .. }
                        | PermuteError::ElemSize(_)
                        | PermuteError::SizeOverflow
                        | PermuteError::UnalignedOffset { .. }
                        | PermuteError::DeviceLimit { .. }
                ),
                "unexpected error {:?}",
                e
            ),
        }
    }
}

/// Every element lies in exactly one chunk's box, and each box's reads and writes fall inside
/// its windows, which fit the binding limit and start aligned.
fn check_chunks(p: &wgpu_permute::Plan, caps: &DeviceCaps, limit: u64) {
    let unit = p.unit as u64;
    let in_strides = p.in_strides();
    let out_strides = p.out_strides_by_input_dim();
    let volume: u64 = p
        .chunks
        .iter()
        .map(|c| (0..c.lo.len()).map(|d| c.hi[d] - c.lo[d]).product::<u64>())
        .sum();
    assert_eq!(volume, p.units(), "{p}");
    for c in &p.chunks {
        for (window, offset, strides) in [
            (c.src_window, p.src_offset, &in_strides),
            (c.dst_window, p.dst_offset, &out_strides),
        ] {
            assert!(window.1 <= limit, "{p}: window {window:?} over {limit}");
            assert_eq!(window.0 % caps.storage_offset_alignment as u64, 0);
            assert_eq!(window.1 % 4, 0);
            let first: u64 = (0..c.lo.len()).map(|d| c.lo[d] * strides[d]).sum();
            let last: u64 = (0..c.lo.len()).map(|d| (c.hi[d] - 1) * strides[d]).sum();
            assert!(window.0 <= offset + first * unit);
            assert!(offset + (last + 1) * unit <= window.0 + window.1);
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

#[test]
fn tensors_beyond_one_binding_split_into_fitting_windows() {
    let caps = DeviceCaps::default(); // 128 MiB bindings, 256-byte alignment
    let cases: &[(&[usize], &[usize], usize)] = &[
        (&[8192, 8192], &[1, 0], 4),                  // 256 MiB transpose
        (&[3, 8192, 8192], &[2, 1, 0], 2),            // 384 MiB, packed
        (&[1 << 30], &[0], 1),                        // identity: a buffer copy, no binding
        (&[64, 64, 64, 64, 16], &[4, 3, 2, 1, 0], 4), // 256 MiB, every dim moves
        (&[2, 40000, 1000], &[0, 2, 1], 4),
    ];
    for (shape, perm, elem) in cases {
        let p = plan::plan(&Request::new(shape, perm, *elem), &caps).unwrap();
        if p.kernel == Kernel::Copy {
            assert!(p.chunks.is_empty());
            continue;
        }
        assert_eq!(p.kernel, Kernel::Generic, "{p}");
        assert!(p.boxed(), "{p}");
        check_chunks(&p, &caps, caps.max_storage_binding);
    }
}

#[test]
fn tensors_needing_64_bit_offsets_plan_with_windows() {
    // 2^33 bytes of u8: offsets exceed 32 bits, windows still fit 128 MiB bindings.
    let caps = DeviceCaps {
        int64: true,
        ..DeviceCaps::default()
    };
    let shape = [1usize << 17, 1 << 16];
    let p = plan::plan(&Request::new(&shape, &[1, 0], 1), &caps).unwrap();
    assert_eq!(
        (p.kernel, p.index),
        (Kernel::Generic, IndexMath::U64),
        "{p}"
    );
    check_chunks(&p, &caps, caps.max_storage_binding);
    let without = plan::plan(&Request::new(&shape, &[1, 0], 1), &DeviceCaps::default()).unwrap();
    assert_eq!(without.index, IndexMath::U32Pair);
}

#[test]
fn forced_tiling_of_a_tensor_beyond_one_binding_is_refused() {
    let req = Request::new(&[8192, 8192], &[1, 0], 4).with_options(Options {
        kernel: Some(Kernel::Tiled),
        ..Options::default()
    });
    assert!(matches!(
        plan::plan(&req, &DeviceCaps::default()),
        Err(PermuteError::ForcedChoice { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Any binding limit that can hold a row either splits the work into fitting windows or
    /// is refused with a clear error; never a panic.
    #[test]
    fn windows_fit_any_binding_limit(req in any_request(), limit in 40u64..4096, align_log in 2u32..9) {
        let (shape, perm, elem, src_off, dst_off) = req;
        let caps = DeviceCaps { storage_offset_alignment: 1 << align_log, ..DeviceCaps::default() };
        let request = Request::new(&shape, &perm, elem)
            .with_offsets(src_off, dst_off)
            .with_options(Options { binding_limit: Some(limit), ..Options::default() });
        match plan::plan(&request, &caps) {
            Ok(p) if p.chunks.len() > 1 => check_chunks(&p, &caps, limit),
            Ok(_) => {}
            Err(e) => prop_assert!(matches!(e, PermuteError::DeviceLimit { .. }), "{}", e),
        }
    }
}

/// Found by the fuzzer (docs/FUZZING.md): splitting a dim near 2^64 overflowed.
#[test]
fn splitting_dims_near_the_top_of_u64_does_not_overflow() {
    let caps = DeviceCaps {
        max_storage_binding: 12_031_929_354_473_701_376,
        storage_offset_alignment: 64,
        max_workgroups_per_dim: 182,
        ..DeviceCaps::default()
    };
    let shape = [17_942_235_362_159_755_265usize];
    let req =
        Request::new(&shape, &[0], 1).with_offsets(31_316_006_942_419_456, 288_230_376_152_432_648);
    // A clear answer, without a panic: more windows than a permute may take.
    assert!(matches!(
        plan::plan(&req, &caps),
        Err(PermuteError::DeviceLimit {
            limit: "max_storage_buffer_binding_size",
            ..
        })
    ));
}

fn cpu() -> DeviceCaps {
    DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    }
}

/// Each kernel reason, from a request that leads to it; the explanation prints the
/// recorded reason.
#[test]
fn every_kernel_reason_is_recorded_and_explained() {
    let gpu = DeviceCaps::default();
    let forced = Options {
        kernel: Some(Kernel::Generic),
        ..Options::default()
    };
    let small_tiles = DeviceCaps {
        max_workgroup_storage: 1024,
        ..DeviceCaps::default()
    };
    let wide_index = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    let cases: Vec<(Request, DeviceCaps, Kernel, KernelReason)> = vec![
        (
            Request::new(&[0, 5], &[1, 0], 4),
            gpu.clone(),
            Kernel::Empty,
            KernelReason::NoElements,
        ),
        (
            Request::new(&[64, 48], &[1, 0], 4).with_options(forced),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::Forced,
        ),
        (
            Request::new(&[4, 6], &[0, 1], 4),
            gpu.clone(),
            Kernel::Copy,
            KernelReason::Identity,
        ),
        (
            Request::new(&[3], &[0], 2),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::IdentityOddBytes,
        ),
        (
            Request::new(&[64, 64, 64], &[1, 0, 2], 4),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::InnermostStays,
        ),
        (
            Request::new(&[8192, 8192], &[1, 0], 4),
            cpu(),
            Kernel::Generic,
            KernelReason::Windowed { limit: 128 << 20 },
        ),
        (
            Request::new(&[64, 512, 512], &[0, 2, 1], 4),
            cpu(),
            Kernel::Micro,
            KernelReason::CpuMicro,
        ),
        (
            Request::new(&[64, 510, 512], &[0, 2, 1], 4),
            cpu(),
            Kernel::Generic,
            KernelReason::CpuNoMicro(Misfit::MicroSides),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 16),
            cpu(),
            Kernel::Generic,
            KernelReason::CpuNoMicro(Misfit::WideUnit),
        ),
        (
            Request::new(&[64, 512, 512], &[0, 2, 1], 4),
            gpu.clone(),
            Kernel::Tiled,
            KernelReason::GpuTiled,
        ),
        (
            Request::new(&[2, 4096], &[1, 0], 4),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::SmallTile {
                rows: 2,
                cols: 4096,
            },
        ),
        (
            Request::new(&[63, 64], &[1, 0], 2),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::PackedSides),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 4),
            small_tiles,
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::WorkgroupLimits),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 4).with_options(wide_index),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::Index64),
        ),
    ];
    for (req, caps, kernel, reason) in cases {
        let p = plan::plan(&req, &caps).unwrap();
        assert_eq!((p.kernel, p.reasons.kernel), (kernel, reason), "{p}");
        let text = p.explain().join("\n");
        assert!(text.contains(&reason.sentence()), "{text}");
        assert!(p.to_string().contains(&reason.sentence()), "{p}");
    }
}

/// The windowed case says windowing, not a misfit of micro-tiles (which do fit its sides).
#[test]
fn a_windowed_plan_explains_windowing_as_its_reason() {
    let p = plan::plan(&Request::new(&[8192, 8192], &[1, 0], 4), &cpu()).unwrap();
    let text = p.explain().join("\n");
    assert!(text.contains("exceeds one storage binding"), "{text}");
    assert!(!text.contains("micro"), "{text}");
    assert!(p.boxed(), "{p}");
}

#[test]
fn index_reasons() {
    let caps64 = DeviceCaps {
        int64: true,
        ..DeviceCaps::default()
    };
    let huge = [1usize << 17, 1 << 16];
    let forced = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    for (req, caps, index, reason) in [
        (
            Request::new(&[64, 48], &[1, 0], 4),
            DeviceCaps::default(),
            IndexMath::U32,
            IndexReason::Fits32,
        ),
        (
            Request::new(&[64, 48], &[1, 0], 4).with_options(forced),
            DeviceCaps::default(),
            IndexMath::U32Pair,
            IndexReason::Forced,
        ),
        (
            Request::new(&huge, &[1, 0], 1),
            caps64,
            IndexMath::U64,
            IndexReason::Native64,
        ),
        (
            Request::new(&huge, &[1, 0], 1),
            DeviceCaps::default(),
            IndexMath::U32Pair,
            IndexReason::Pair64,
        ),
    ] {
        let p = plan::plan(&req, &caps).unwrap();
        assert_eq!((p.index, p.reasons.index), (index, reason), "{p}");
    }
}

#[test]
fn specialisation_reasons_follow_size_and_the_budget() {
    // 4 MiB, innermost dim stays: the generic kernel.
    let req = Request::new(&[1024, 16, 64], &[1, 0, 2], 4);
    let caps = DeviceCaps::default();
    let first = plan::plan(&req, &caps).unwrap();
    assert_eq!(first.kernel, Kernel::Generic);
    assert_eq!(
        (first.specialized, first.reasons.specialize),
        (false, Some(SpecializeReason::Unpaid))
    );
    // Ski rental: the shape's bytes on the uniform kernel count towards its own pipeline,
    // which it gets once they would pay for the compile.
    let mut moved = Learned::default();
    let calls = SPECIALIZE_PAYBACK_BYTES / first.bytes;
    for _ in 0..calls {
        let p = plan::plan_with(&req, &caps, &moved).unwrap();
        assert_eq!(p.reasons.specialize, Some(SpecializeReason::Unpaid));
        moved.count_uniform(&p);
    }
    let big = plan::plan_with(&req, &caps, &moved).unwrap();
    assert_eq!(
        (big.specialized, big.reasons.specialize),
        (true, Some(SpecializeReason::Large))
    );
    moved.count_uniform(&big); // counts only plans that wait
    assert_eq!(moved.uniform_bytes[&big.shape_key()], calls * first.bytes);

    let small = plan::plan(&Request::new(&[16, 16, 64], &[1, 0, 2], 4), &caps).unwrap();
    assert_eq!(
        (small.specialized, small.reasons.specialize),
        (false, Some(SpecializeReason::Small))
    );

    let off = Options {
        specialize: Some(false),
        ..Options::default()
    };
    let forced = plan::plan(&req.with_options(off), &caps).unwrap();
    assert_eq!(
        (forced.specialized, forced.reasons.specialize),
        (false, Some(SpecializeReason::Forced))
    );

    // The budget is a fact handed in: spent, new shapes get uniforms; a shape that has its
    // own pipeline keeps it.
    let mut learned = Learned {
        max_specialized: 0,
        ..Learned::default()
    };
    let spent = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (spent.specialized, spent.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent))
    );
    learned.specialized.insert(big.shape_key());
    let kept = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (kept.specialized, kept.reasons.specialize),
        (true, Some(SpecializeReason::Compiled))
    );

    // Forced on, the budget still bounds it.
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let forced_spent = plan::plan_with(
        &Request::new(&[16, 16, 64], &[1, 0, 2], 4).with_options(on),
        &caps,
        &learned,
    )
    .unwrap();
    assert_eq!(
        (forced_spent.specialized, forced_spent.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent))
    );

    let wide = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    let na = plan::plan(&req.with_options(wide), &caps).unwrap();
    assert_eq!(
        (na.specialized, na.reasons.specialize),
        (false, Some(SpecializeReason::NotApplicable))
    );
    // Other kernels have no specialisation to explain.
    assert_eq!(
        plan_of(&[64, 512, 512], &[0, 2, 1], 4).reasons.specialize,
        None
    );
}

#[test]
fn autotuning_outcomes_are_planner_inputs() {
    let req = Request::new(&[4, 96, 160], &[0, 2, 1], 4);
    let caps = DeviceCaps::default();
    let mut learned = Learned {
        autotune: true,
        ..Learned::default()
    };
    let pending = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        pending.pending_race(),
        [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
    );
    // A forced kernel is never raced.
    let forced = Options {
        kernel: Some(Kernel::Tiled),
        ..Options::default()
    };
    assert!(
        plan::plan_with(&req.with_options(forced), &caps, &learned)
            .unwrap()
            .pending_race()
            .is_empty()
    );

    let class = pending.shape_class();
    learned
        .winners
        .insert(class.clone(), Measured::Fastest(Kernel::Micro));
    let won = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (won.kernel, won.reasons.kernel),
        (Kernel::Micro, KernelReason::Measured)
    );
    assert_eq!(won.reasons.tuning, Tuning::Winner);

    // Same class, but a side micro-tiles cannot take: the heuristic decides, and says so.
    let odd = Request::new(&[4, 96, 158], &[0, 2, 1], 4);
    let misfit = plan::plan_with(&odd, &caps, &learned).unwrap();
    assert_eq!(misfit.shape_class(), class);
    assert_eq!(misfit.kernel, Kernel::Tiled);
    assert_eq!(misfit.reasons.tuning, Tuning::WinnerMisfits(Kernel::Micro));

    // A failed race is remembered: no race pending, the heuristic serves the class.
    learned
        .winners
        .insert(class, Measured::Failed("no timestamps".into()));
    let failed = plan::plan_with(&req, &caps, &learned).unwrap();
    assert!(failed.pending_race().is_empty());
    assert_eq!(
        (failed.kernel, failed.reasons.kernel),
        (Kernel::Tiled, KernelReason::GpuTiled)
    );
    assert!(failed.explain().join("\n").contains("no timestamps"));
}

#[test]
fn modelled_figures_are_planner_inputs() {
    let req = Request::new(&[4, 96, 160], &[0, 2, 1], 4);
    let caps = DeviceCaps::default();
    let mut learned = Learned {
        model: true,
        ..Learned::default()
    };
    // No figures yet: the candidates are to be traced, the heuristic stands meanwhile.
    let pending = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        pending.pending_model(),
        [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
    );
    assert_eq!(pending.reasons.kernel, KernelReason::GpuTiled);
    let figures = |kernel, load, store, ways| Figures {
        kernel,
        load_efficiency: load,
        store_efficiency: store,
        bank_conflict_ways: ways,
        bytes_moved: 2 * pending.bytes,
    };
    let key = pending.shape_key();
    // The best modelled ratio to a copy wins, whatever the heuristic would say.
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 0.5, 1.0, 1),
            figures(Kernel::Tiled, 0.4, 1.0, 1),
            figures(Kernel::Micro, 0.2, 0.2, 1),
        ],
    );
    let chosen = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (chosen.kernel, chosen.reasons.kernel),
        (Kernel::Generic, KernelReason::Modelled)
    );
    assert!(chosen.pending_model().is_empty());
    assert!(
        chosen
            .explain()
            .iter()
            .any(|l| l.starts_with("modelled: generic"))
    );
    // Ties (to 1%) go to fewer bank conflicts, then to the simpler kernel.
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 1.0, 1.0, 1),
            figures(Kernel::Tiled, 1.0, 1.0, 1),
        ],
    );
    assert_eq!(
        plan::plan_with(&req, &caps, &learned).unwrap().kernel,
        Kernel::Generic
    );
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 0.996, 1.0, 2),
            figures(Kernel::Tiled, 1.0, 1.0, 1),
        ],
    );
    assert_eq!(
        plan::plan_with(&req, &caps, &learned).unwrap().kernel,
        Kernel::Tiled
    );
    // A failed trace leaves no figures: the heuristic decides, and says so.
    learned.modelled.insert(key, Vec::new());
    let failed = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(failed.reasons.model, Modelling::Failed);
    assert_eq!(failed.reasons.kernel, KernelReason::GpuTiled);
    // Forced kernels, one-kernel shapes and a spent budget are not modelled.
    let forced = req.with_options(Options {
        kernel: Some(Kernel::Tiled),
        ..Options::default()
    });
    let stays = Request::new(&[96, 4, 160], &[1, 0, 2], 4);
    for r in [forced, stays] {
        assert_eq!(
            plan::plan_with(&r, &caps, &learned).unwrap().reasons.model,
            Modelling::Off
        );
    }
    learned.modelled.clear();
    for i in 0..plan::MAX_MODELLED {
        let mut k = pending.shape_key();
        k.dims[0] = 1000 + i as u64;
        learned.modelled.insert(k, Vec::new());
    }
    let spent = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(spent.reasons.model, Modelling::BudgetSpent);
    assert!(spent.pending_model().is_empty());
}

/// Devices that report bindings beyond 2^32 words (wgpu's Metal backend reports
/// `maxBufferLength`) still get windows every u32 storage index can address.
#[test]
fn windows_stay_within_u32_storage_indices() {
    let caps = DeviceCaps {
        max_storage_binding: 1 << 40,
        int64: true,
        ..DeviceCaps::default()
    };
    let shape = [1usize << 18, 1 << 17]; // 2^35 bytes of u8
    let p = plan::plan(&Request::new(&shape, &[1, 0], 1), &caps).unwrap();
    assert!(p.boxed(), "{p}");
    assert_eq!(
        p.reasons.kernel,
        KernelReason::Windowed {
            limit: plan::MAX_WINDOW_BYTES
        }
    );
    check_chunks(&p, &caps, plan::MAX_WINDOW_BYTES);
    for chunk in &p.chunks {
        assert!(chunk.src_window.1 / 4 <= u32::MAX as u64 + 1);
        assert!(chunk.dst_window.1 / 4 <= u32::MAX as u64 + 1);
    }
}

/// Micro blocks are wide (a 16-byte access per block row) where the sides divide by the
/// elements in 16 bytes and the offsets are whole 16 bytes, narrow (4x4, 32-bit accesses)
/// where only 4 divides them or the offsets are whole words, and absent otherwise.
#[test]
fn micro_blocks_are_wide_where_sides_and_offsets_allow() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let block = |shape: &[usize], elem: usize, offsets: (u64, u64)| {
        let mut req = Request::new(shape, &[1, 0], elem);
        (req.src_offset, req.dst_offset) = offsets;
        let p = plan::plan(&req, &cpu).unwrap();
        (p.kernel == Kernel::Micro)
            .then(|| p.variant().and_then(|v| v.block()))
            .flatten()
            .map(|b| (b.side, b.access_bytes))
    };
    for (elem, side) in [(1, 16), (2, 8), (4, 4), (8, 2)] {
        assert_eq!(
            block(&[2 * side, 3 * side], elem, (0, 0)),
            Some((side as u32, 16))
        );
        assert_eq!(
            block(&[2 * side, 3 * side], elem, (16, 48)),
            Some((side as u32, 16))
        );
        // Offsets of whole words only: narrow, where the unit has narrow blocks.
        let narrow = (elem <= 4).then_some((4, 4));
        assert_eq!(block(&[2 * side, 3 * side], elem, (4, 0)), narrow);
        assert_eq!(block(&[2 * side, 3 * side], elem, (0, 8)), narrow);
    }
    // Row blocks that divide by MICRO_RUN: that many blocks per invocation.
    let run = |shape: &[usize], elem: usize| {
        let p = plan::plan(&Request::new(shape, &[1, 0], elem), &cpu).unwrap();
        p.variant().and_then(|v| v.block()).map(|b| b.run)
    };
    assert_eq!(run(&[64, 12], 1), Some(MICRO_RUN));
    assert_eq!(run(&[40, 12], 1), Some(1));
    assert_eq!(run(&[16, 4], 4), Some(MICRO_RUN));
    assert_eq!(run(&[12, 4], 4), Some(1));
    // Sides that divide by 4 but not by the wide side.
    assert_eq!(block(&[20, 36], 1, (0, 0)), Some((4, 4)));
    assert_eq!(block(&[20, 36], 2, (0, 0)), Some((4, 4)));
    assert_eq!(block(&[6, 10], 8, (0, 0)), Some((2, 16)));
    // 5 rows are a strip (`strips_take_short_dims_whole`); 9 rows by 5 columns nothing.
    assert_eq!(block(&[9, 5], 8, (0, 0)), None);
    assert_eq!(block(&[4, 4], 16, (0, 0)), None);
}

/// A short dim that square blocks cannot take (extent below 9, not a multiple of the wide
/// side) is a strip's whole side where it is contiguous on its side of the move: the
/// columns of input rows that lie back to back (`[H*W, 3] -> [3, H*W]`), the rows of output
/// rows that do (`[3, H*W] -> [H*W, 3]`); the other side in whole wide blocks, offsets and
/// strides in whole 16 bytes.
#[test]
fn strips_take_short_dims_whole() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let strip = |shape: &[usize], perm: &[usize], elem: usize, offsets: (u64, u64)| {
        let mut req = Request::new(shape, perm, elem);
        (req.src_offset, req.dst_offset) = offsets;
        let p = plan::plan(&req, &cpu).unwrap();
        p.variant().and_then(|v| v.block()).and_then(|b| b.strip)
    };
    assert_eq!(strip(&[3000, 7], &[1, 0], 4, (0, 0)), Some(Strip::Cols(7)));
    assert_eq!(strip(&[7, 3000], &[1, 0], 4, (0, 0)), Some(Strip::Rows(7)));
    assert_eq!(strip(&[5, 10], &[1, 0], 8, (0, 0)), Some(Strip::Rows(5)));
    assert_eq!(
        strip(&[4, 224, 224, 3], &[0, 3, 1, 2], 1, (0, 0)),
        Some(Strip::Cols(3))
    );
    assert_eq!(
        strip(&[4, 3, 224, 224], &[0, 2, 3, 1], 1, (16, 0)),
        Some(Strip::Rows(3))
    );
    for (elem, n) in [(1, 8), (2, 7), (4, 6), (8, 5)] {
        let long = 16 / elem * 3;
        assert_eq!(
            strip(&[long, n], &[1, 0], elem, (0, 0)),
            Some(Strip::Cols(n as u32))
        );
        assert_eq!(
            strip(&[n, long], &[1, 0], elem, (0, 0)),
            Some(Strip::Rows(n as u32))
        );
        // The long side not in whole blocks, the offsets not in whole 16 bytes.
        assert_eq!(strip(&[long + 1, n], &[1, 0], elem, (0, 0)), None);
        assert_eq!(strip(&[n, long], &[1, 0], elem, (0, 8)), None);
    }
    // Too long, or a multiple of the side (square blocks take it).
    assert_eq!(strip(&[3000, 9], &[1, 0], 4, (0, 0)), None);
    assert_eq!(strip(&[3000, 8], &[1, 0], 4, (0, 0)), None);
    // Rows whose columns are not back to back: (B1, R, B2, C) -> (B2, B1, C, R).
    assert_eq!(strip(&[2, 16, 3, 7], &[2, 0, 3, 1], 4, (0, 0)), None);
    // Nor output rows: (B1, R, B2, C) -> (B1, C, B2, R)... with R short.
    assert_eq!(strip(&[2, 7, 3, 16], &[0, 3, 2, 1], 4, (0, 0)), None);
}

proptest::proptest! {
    /// Whatever the request, device and forced choices, a plan's shader is one of the
    /// variants the naga test validates (`shaders::all_variants`).
    #[test]
    fn every_plan_runs_a_validated_variant(
        shape in proptest::collection::vec(1usize..40, 1..6),
        seed in 0u64..1 << 20,
        elem in proptest::sample::select(ELEM_SIZES.to_vec()),
        offsets in (0u64..8, 0u64..8),
        cpu: bool,
        int64: bool,
        kernel in 0usize..4,
        index in 0usize..4,
        specialize in 0usize..3,
        access64 in 0usize..3,
        wide_stores in 0usize..3,
    ) {
        let all = validated();
        let perm = perm_from_seed(shape.len(), seed);
        let caps = DeviceCaps { cpu, int64, ..DeviceCaps::default() };
        let tri = [None, Some(false), Some(true)];
        let options = Options {
            kernel: [None, Some(Kernel::Generic), Some(Kernel::Tiled), Some(Kernel::Micro)][kernel],
            index: [None, Some(IndexMath::U32), Some(IndexMath::U64), Some(IndexMath::U32Pair)][index],
            specialize: tri[specialize],
            access64: tri[access64],
            wide_stores: tri[wide_stores],
            ..Options::default()
        };
        let mut req = Request::new(&shape, &perm, elem).with_options(options);
        (req.src_offset, req.dst_offset) = (4 * offsets.0, 4 * offsets.1);
        if let Ok(p) = plan::plan(&req, &caps)
            && let Some(v) = p.variant()
        {
            proptest::prop_assert!(all.contains(&v), "{} is not validated: {}", v, p);
        }
    }

}

proptest::proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
    /// Likewise for views: permuted, with dims flipped (the innermost too), starting a few
    /// elements into the source, padded along one dim or two, on CPU devices and GPUs.
    #[test]
    // Sides of whole blocks half the time; each forced choice a quarter of the time.
    fn every_view_plan_runs_a_validated_variant(
        shape in proptest::collection::vec(
            prop_oneof![1usize..24, (1usize..7).prop_map(|k| 4 * k)], 1..5),
        seed in 0u64..1 << 20,
        flips in proptest::collection::vec(proptest::bool::ANY, 4),
        pads in proptest::collection::vec(0usize..8, 2),
        elem in proptest::sample::select(ELEM_SIZES.to_vec()),
        lead in 0usize..5,
        cpu: bool,
        int64: bool,
        kernel in 0usize..12,
        index in 0usize..12,
        access64 in 0usize..8,
        wide_stores in 0usize..8,
    ) {
        let pick = |i: usize, n: usize| if i < n { i } else { 0 };
        let (kernel, index) = (pick(kernel, 4), pick(index, 4));
        let (access64, wide_stores) = (pick(access64, 3), pick(wide_stores, 3));
        let all = validated();
        let perm = perm_from_seed(shape.len(), seed);
        let mut v = View::permuted(&shape, &perm).unwrap();
        v.offset = lead as isize;
        for (d, &flip) in flips.iter().enumerate().take(v.shape.len()) {
            if flip {
                v.offset += v.strides[d] * (v.shape[d] as isize - 1);
                v.strides[d] = -v.strides[d];
            }
        }
        // Padding before and after the first pads.len() dims, the innermost included.
        let mut bounds = Vec::new();
        for (k, &pad) in pads.iter().enumerate() {
            let d = [0, v.shape.len() - 1][k];
            let pad = if pad < 4 { pad } else { 0 };
            if pad == 0 || bounds.iter().any(|b: &Bound| b.dims == [d]) {
                continue;
            }
            v.offset -= v.strides[d] * pad as isize;
            v.shape[d] += 2 * pad;
            bounds.push(Bound { dims: vec![d], valid: pad..v.shape[d] - pad });
        }
        v.bounds = bounds;
        let caps = DeviceCaps { cpu, int64, ..DeviceCaps::default() };
        let tri = [None, Some(false), Some(true)];
        let fill = vec![0; elem];
        let req = ViewRequest {
            view: &v,
            elem_size: elem,
            src_offset: 0,
            dst_offset: 0,
            src_len: shape.iter().product::<usize>() + lead,
            dst_len: v.len(),
            fill: &fill,
            options: Options {
                kernel: [None, Some(Kernel::Generic), Some(Kernel::Tiled), Some(Kernel::Micro)][kernel],
                index: [None, Some(IndexMath::U32), Some(IndexMath::U64), Some(IndexMath::U32Pair)][index],
                access64: tri[access64],
                wide_stores: tri[wide_stores],
                ..Options::default()
            },
        };
        if let Ok(p) = plan::plan_view(&req, &caps, &Default::default())
            && let Some(v) = p.variant()
        {
            proptest::prop_assert!(all.contains(&v), "{} is not validated: {}", v, p);
        }
    }
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
fn validated() -> &'static std::collections::HashSet<wgpu_permute::plan::Variant> {
    use std::sync::OnceLock;
    static ALL: OnceLock<std::collections::HashSet<wgpu_permute::plan::Variant>> = OnceLock::new();
    ALL.get_or_init(|| wgpu_permute::shaders::all_variants().into_iter().collect())
}

/// A CPU plan's GPU form (what the memory model traces) drops the runs and 64-bit accesses
/// and sizes its dispatch as a GPU plan of the same request does.
#[test]
fn a_cpu_plan_on_a_gpu_is_sized_as_the_gpu_plans_it() {
    let req = Request::new(&[512, 512, 64], &[1, 0, 2], 4);
    let cpu = DeviceCaps {
        cpu: true,
        int64: true,
        ..DeviceCaps::default()
    };
    let on_cpu = plan::plan(&req, &cpu).unwrap();
    assert!(on_cpu.runs && on_cpu.access64, "{on_cpu}");
    let on_gpu = plan::plan(&req, &DeviceCaps::default()).unwrap();
    let traced = on_cpu.on_gpu().unwrap();
    assert!(!traced.runs && !traced.access64);
    assert_eq!(traced.chunks, on_gpu.chunks);
    assert_eq!(traced.variant(), on_gpu.variant());
}
