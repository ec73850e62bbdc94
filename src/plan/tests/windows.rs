//! Tensors beyond one storage binding: chunks, windows and their limits; random requests.

use super::*;

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
        assert!(p.boxed(), "{p}");
        check_chunks(&p, &caps, caps.max_storage_binding);
    }
    // The tiled kernel over windows: boxes of whole tiles, the only partial ones at the
    // tensor's edges.
    let p = plan::plan(&Request::new(&[8192, 8192], &[1, 0], 4), &caps).unwrap();
    assert_eq!(p.kernel, Kernel::Tiled, "{p}");
    for c in &p.chunks {
        assert!(c.lo.iter().all(|&l| l % 32 == 0), "{c:?}");
        for d in 0..2 {
            assert!((c.hi[d] - c.lo[d]) % 32 == 0 || c.hi[d] == 8192, "{c:?}");
        }
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

/// Forced tiles are refused where the smallest box of whole tiles (32 by 32 elements, rows
/// 32 KiB apart: 0.97 MiB) does not fit a window, and split where it does.
#[test]
fn forced_tiling_splits_where_whole_tiles_fit_a_window() {
    let forced = |limit| {
        Request::new(&[8192, 8192], &[1, 0], 4).with_options(Options {
            kernel: Some(Kernel::Tiled),
            binding_limit: Some(limit),
            ..Options::default()
        })
    };
    let caps = DeviceCaps::default();
    assert!(matches!(
        plan::plan(&forced(512 << 10), &caps),
        Err(PermuteError::ForcedChoice { .. })
    ));
    let p = plan::plan(&forced(1 << 20), &caps).unwrap();
    assert_eq!(p.kernel, Kernel::Tiled, "{p}");
    check_chunks(&p, &caps, 1 << 20);
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

/// A padded view in windows whose boxes lie wholly in the padding past the source: each
/// binds a whole unit of the source (16-byte units bind `vec4` arrays) where the offset
/// alignment is 4 and does not round the window down to one.
#[test]
fn windows_wholly_in_the_padding_bind_a_whole_unit() {
    let caps = DeviceCaps {
        storage_offset_alignment: 4,
        cpu: true,
        ..DeviceCaps::default()
    };
    let view = View::contiguous(&[4, 64]).pad(0, 0, 60).unwrap();
    for elem in [8, 16] {
        let fill = vec![0xA5; elem];
        let limit = 1024;
        let mut req = ViewRequest::new(&view, elem, 4 * 64, view.len());
        req.fill = &fill;
        req.options = Options {
            kernel: Some(Kernel::Generic),
            binding_limit: Some(limit),
            ..Options::default()
        };
        let p = plan::plan_view(&req, &caps, &Default::default()).unwrap();
        assert!(p.chunks.len() > 8, "{p}");
        for c in &p.chunks {
            assert!(c.src_window.1 >= p.unit as u64, "{p}: {c:?}");
            assert!(c.src_window.1 <= limit, "{p}: {c:?}");
        }
    }
}

/// On CPU devices the generic kernel's runs go on past one binding, in boxes of whole runs
/// (of whole SIMD groups' runs where they are lane-major) that fit their windows, walked in
/// tiles where the walk applies, each box in its own whole tiles with the whole tensor's
/// walk dims; where a box of whole runs cannot fit a window, the units move one by one.
#[test]
fn runs_go_on_in_boxes_of_whole_runs_past_one_binding() {
    use crate::plan::GenericLayout;
    use crate::plan::tuning::{GENERIC_WORKGROUP, LANE_GROUP};
    let caps = cpu(); // 128 MiB bindings
    // 256 MiB: a row move of 16-byte units (rows of 16: two runs each) and a transpose of
    // 16-byte units, both walked in tiles; the slice `::2` of `[32768, 4096]` f32 (rows of
    // 1024 16-byte units: lane-major, in boxes of one shape each contiguous in the output:
    // plain).
    let row_move = Request::new(&[2048, 512, 64], &[1, 0, 2], 4);
    let transpose = Request::new(&[8192, 2048], &[1, 0], 16);
    let mut slice = View::contiguous(&[16384, 4096]);
    slice.strides[0] *= 2;
    let slice = ViewRequest::new(&slice, 4, 2 * 16384 * 4096, 16384 * 4096);
    let plans = [
        (
            plan::plan(&row_move, &caps).unwrap(),
            GenericLayout::Walk,
            false,
        ),
        (
            plan::plan(&transpose, &caps).unwrap(),
            GenericLayout::Walk,
            false,
        ),
        (
            plan::plan_view(&slice, &caps, &Learned::default()).unwrap(),
            GenericLayout::Plain,
            true,
        ),
    ];
    for (p, layout, lane_major) in plans {
        assert_eq!(p.kernel, Kernel::Generic, "{p}");
        assert!(p.boxed() && p.cpu.runs, "{p}");
        assert_eq!(p.lane_major_runs(), lane_major, "{p}");
        assert_eq!(p.generic_layout(), layout, "{p}");
        check_chunks(&p, &caps, caps.max_storage_binding);
        let inner = *p.dims_perm.last().unwrap();
        let grain = p.run_units() * if lane_major { LANE_GROUP as u64 } else { 1 };
        let walk_rank = p.walk_tile_dims().map(|w| w.len());
        for c in &p.chunks {
            let extents: Vec<u64> = (0..c.lo.len()).map(|d| c.hi[d] - c.lo[d]).collect();
            assert_eq!(extents[inner] % grain, 0, "{c:?}");
            let per = GENERIC_WORKGROUP as u64 * p.run_units();
            let units: u64 = extents.iter().product();
            assert_eq!(c.total_workgroups, units.div_ceil(per), "{c:?}");
            // Whole tiles: the walk's dims count whole tiles of the box.
            let walk = p.walk_tile_dims_of(&extents);
            assert_eq!(walk.as_ref().map(|w| w.len()), walk_rank, "{c:?}");
            let units_walked: Option<u64> = walk.map(|w| w.iter().map(|d| d[0]).product());
            assert!(units_walked.is_none_or(|n| n == units), "{c:?}");
        }
    }
    // Windows of a few hundred bytes: a box of one run of `[64, 64] (1, 0)` (whose output
    // rows' units lie 64 apart in the source) does not fit, so its units move one by one.
    let options = Options {
        kernel: Some(Kernel::Generic),
        binding_limit: Some(256 + 4 + 96),
        ..Options::default()
    };
    let req = Request::new(&[64, 64], &[1, 0], 4).with_options(options);
    let p = plan::plan(&req, &caps).unwrap();
    assert!(p.boxed() && !p.cpu.runs, "{p}");
}

/// A tensor past one binding only by its offset is one box: its walk in tiles takes no
/// wide stores (whose fragment does not walk), its runs none of the one-binding layouts'
/// choices that boxes lack.
#[test]
fn a_walk_one_box_past_the_limit_takes_no_wide_stores() {
    let (shape, perm) = ([96usize, 80, 64], [1usize, 0, 2]);
    let bytes = (shape.iter().product::<usize>() * 4) as u64;
    let options = Options {
        binding_limit: Some(bytes + 256 + 8),
        ..Options::default()
    };
    let req = Request::new(&shape, &perm, 4)
        .with_offsets((1 << 20) + 4, 0)
        .with_options(options);
    let p = plan::plan(&req, &cpu()).unwrap();
    assert!(p.src_offset + p.src_extent() > bytes + 256 + 8, "{p}");
    assert_eq!(p.chunks.len(), 1, "{p}");
    assert!(
        p.cpu.runs && p.cpu.walk_tiles.is_some() && !p.cpu.wide_stores,
        "{p}"
    );
    assert!(
        p.variant()
            .is_some_and(|v| crate::shaders::all_variants().contains(&v)),
        "{p}"
    );
}

/// Past one binding the boxes take one shape where up to twice the fewest pieces of each
/// cut dim are equal (the 256 MiB transpose: 4 x 4 boxes of `[4096, 1024]`, not 3 x 3 of
/// three shapes), and a micro plan's boxes then run compiled for it; pieces of the output's
/// rows shorter than a page are not cut finer than the fewest (the 4-D reversal's output
/// rows of 256 units: 88s, not 64s).
#[test]
fn boxes_take_one_shape_where_equal_pieces_are_near() {
    let cpu = cpu();
    let forced = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let p = plan::plan(
        &Request::new(&[16384, 4096], &[1, 0], 4).with_options(forced),
        &cpu,
    )
    .unwrap();
    assert_eq!((p.kernel, p.chunks.len()), (Kernel::Micro, 16), "{p}");
    assert!(p.boxes_of_one_shape() && p.specialized, "{p}");
    let c = &p.chunks[0];
    assert_eq!((c.hi[0] - c.lo[0], c.hi[1] - c.lo[1]), (4096, 1024), "{p}");
    check_chunks(&p, &cpu, cpu.max_storage_binding);
    let req = Request::new(&[256, 64, 64, 64], &[3, 2, 1, 0], 4).with_options(forced);
    let p = plan::plan(&req, &cpu).unwrap();
    assert_eq!((p.kernel, p.chunks.len()), (Kernel::Micro, 12), "{p}");
    assert!(!p.boxes_of_one_shape() && !p.specialized, "{p}");
    assert_eq!(p.chunks[0].hi[0] - p.chunks[0].lo[0], 88, "{p}");
    check_chunks(&p, &cpu, cpu.max_storage_binding);
}

/// The suite's views at 256 MiB (`bench --scale 4`) past one binding: the slice `::2` and
/// both flips of 16384 rows of 4096 f32 cut into 4 boxes of 4096 rows, each a contiguous
/// stretch of the output, run in the generic kernel's plain layout (stacked runs on CPU
/// devices, compiled for the box's shape where forced); a permute whose boxes are not
/// contiguous in the output keeps the boxed layout in the fewest boxes, and walked in tiles,
/// boxes of one shape compiled for it.
#[test]
fn contiguous_boxes_of_one_shape_run_plain() {
    let cpu = cpu();
    let forced = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let (rows, cols) = (16384usize, 4096usize);
    let square = View::contiguous(&[rows, cols]);
    let mut flip = square.clone();
    flip.offset += flip.strides[0] * (rows as isize - 1);
    flip.strides[0] = -flip.strides[0];
    let slice = View {
        strides: vec![2 * cols as isize, 1],
        ..square.clone()
    };
    for (view, n) in [(slice, 2 * rows * cols), (flip, rows * cols)] {
        let mut req = ViewRequest::new(&view, 4, n, rows * cols);
        req.options = forced;
        let p = plan::plan_view(&req, &cpu, &Default::default()).unwrap();
        assert!(p.plain_boxes && p.specialized && p.stacked_runs(), "{p}");
        assert_eq!((p.chunks.len(), p.walked_dims()[0]), (4, 4096), "{p}");
        check_chunks(&p, &cpu, cpu.max_storage_binding);
    }
    let req = Request::new(&[64, 2048, 1024], &[1, 0, 2], 4).with_options(Options {
        walk_tiles: Some(false),
        ..forced
    });
    let p = plan::plan(&req, &cpu).unwrap();
    // Its boxes take the fewest pieces (5 x 5; equal ones would not run plain).
    assert!(p.boxed() && !p.plain_boxes && !p.specialized, "{p}");
    assert!(!p.boxes_of_one_shape() && p.chunks.len() == 25, "{p}");
    check_chunks(&p, &cpu, cpu.max_storage_binding);
    // Walked in tiles, its boxes take one shape and run compiled for it.
    let req = Request::new(&[64, 2048, 1024], &[1, 0, 2], 4).with_options(forced);
    let p = plan::plan(&req, &cpu).unwrap();
    assert!(p.boxed() && p.cpu.walk_tiles.is_some(), "{p}");
    assert!(p.boxes_of_one_shape() && p.specialized, "{p}");
    check_chunks(&p, &cpu, cpu.max_storage_binding);
    // As a GPU runs it (what the memory model traces): boxed, on uniforms.
    let gpu = p.on_gpu().unwrap();
    assert!(gpu.boxed() && !gpu.specialized, "{gpu}");
}
