//! Simplification, movement sizes, kernel choice, forced choices, index widths, request
//! errors, grid folding and printing.

use super::*;

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
    // Sides that neither blocks nor strips take (a flat strip's images need a block's side
    // of pixels; `[8, 10]` runs as a flat strip's blocks and a tail, a generic view).
    assert!(refused(forced(
        &[5, 5],
        &[1, 0],
        2,
        Some(Kernel::Micro),
        None
    )));
    // 16-byte units: 2x2 blocks need even sides (or a whole side of at most 8).
    assert!(refused(forced(
        &[9, 13],
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
