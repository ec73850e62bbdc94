//! The order in which micro boxes decode their batch dims (`Plan::box_batch_dims`): short
//! output rows continued by a batch dim far away in the input decode that dim innermost;
//! batch dims swapped between input and output decode in tiles.

use wgpu_permute::plan::View;
use wgpu_permute::{Kernel, Options, Relayout};

use super::common::{case, check_many, cpu_family, cpu_planned};

/// The suite's 6-D permute (smaller), whose output rows of 8 units are continued by input
/// dim 1, as a permute of 1 to 16-byte elements (micro forced for 16 bytes, which plan
/// generic), with 16-byte-aligned offsets (wide blocks) and 4-byte ones (word blocks),
/// specialised and not, across binding windows, and as a view with that dim reversed (of 4
/// to 16-byte elements: narrower ones plan generic): each decodes dim 1 innermost where it
/// plans micro (every one but the windowed ones must), and every output element lands in
/// its place with the guard bytes untouched.
#[test]
fn short_rows_decoded_with_their_continuation_innermost_land_in_place() {
    let Some(p) = cpu_family() else { return };
    let (shape, perm) = ([4usize, 8, 8, 8, 8, 32], [2usize, 5, 0, 4, 1, 3]);
    let mut cases = Vec::new();
    for elem in [1usize, 2, 4, 8, 16] {
        let auto = Options {
            kernel: (elem == 16).then_some(Kernel::Micro),
            ..Options::default()
        };
        let aligned = [(16, 48), (4 * elem as u64, 12 * elem as u64)];
        for (offsets, specialize) in aligned.into_iter().zip([false, true]) {
            let options = Options {
                specialize: Some(specialize),
                ..auto
            };
            cases.push((case(&shape, &perm, elem, options, offsets), true));
        }
        let bytes = (shape.iter().product::<usize>() * elem) as u64;
        let windowed = Options {
            binding_limit: Some(bytes / 2 + 256),
            ..Options::default()
        };
        cases.push((case(&shape, &perm, elem, windowed, (16, 32)), false));
        if elem >= 4 {
            let mut view = View::permuted(&shape, &perm).unwrap();
            let k = perm.iter().position(|&d| d == 1).unwrap();
            view.offset += view.strides[k] * (view.shape[k] as isize - 1);
            view.strides[k] = -view.strides[k];
            let len = shape.iter().product();
            cases.push((Relayout::view(view, len, elem).unwrap(), true));
        }
    }
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    let fresh = cpu_planned(p);
    let mut windowed_micro = 0;
    for (result, (op, micro)) in check_many(&fresh, &ops).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        if *micro || plan.kernel() == Kernel::Micro {
            assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
            assert_eq!(plan.row_continuation(), Some(1), "{plan}");
            windowed_micro += !*micro as usize;
        }
    }
    // Some windowed plan stays micro, so that windows' boxes decode in this order too.
    assert!(windowed_micro > 0);
}

/// Batch dims swapped between input and output decode in tiles (`plan::BatchTiles`):
/// reversals of 4 and 8-byte elements whose split dim divides by 8 or only by 6, and of
/// rank 5, with 16-byte-aligned offsets (wide blocks) and word offsets (word blocks of 4-byte
/// elements), specialised and not; every output element lands in its place with the guard bytes
/// untouched.
#[test]
fn batches_decoded_in_tiles_land_in_place() {
    let Some(p) = cpu_family() else { return };
    let shapes: [(&[usize], &[usize], usize); 4] = [
        (&[16, 64, 32, 64], &[3, 2, 1, 0], 4),
        (&[16, 64, 32, 64], &[3, 2, 1, 0], 8),
        (&[16, 64, 36, 64], &[3, 2, 1, 0], 4),
        (&[16, 16, 32, 32, 16], &[4, 3, 2, 1, 0], 4),
    ];
    let mut cases = Vec::new();
    for (shape, perm, elem) in shapes {
        // Word offsets for 4-byte elements; 8-byte ones need 16 bytes for micro blocks.
        let other = if elem == 4 { (4, 12) } else { (32, 80) };
        let aligned = [(16, 48), other];
        for (offsets, specialize) in aligned.into_iter().zip([false, true]) {
            let options = Options {
                specialize: Some(specialize),
                ..Options::default()
            };
            cases.push(case(shape, perm, elem, options, offsets));
        }
    }
    let fresh = cpu_planned(p);
    for (result, op) in check_many(&fresh, &cases).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        assert!(plan.cpu().batch_tiles.is_some(), "{plan}");
    }
}

/// Column runs that take the row continuation before the columns
/// (`Block::batch_before_columns`, 4-byte units): the 6-D permute with continuations of 8
/// and of 5 (not a power of two), and a reversal; 16-byte offsets (wide blocks) and word
/// ones (word blocks, 32-bit), 64-bit components and 32-bit ones where the device has both,
/// specialised and not, across binding windows whose boxes cut the continuation (the 6-D
/// permutes), and as a view with the continuation reversed. Each plans so, and every
/// output element lands in its place with the guard bytes untouched.
#[test]
fn column_runs_with_the_continuation_first_land_in_place() {
    let Some(p) = cpu_family() else { return };
    let widths: &[bool] = match p.caps().int64 {
        true => &[false, true],
        false => &[false],
    };
    let shapes: [(&[usize], &[usize]); 3] = [
        (&[4, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3]),
        (&[4, 5, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3]),
        (&[8, 32, 32, 64], &[3, 2, 1, 0]),
    ];
    let mut cases = Vec::new();
    for (shape, perm) in shapes {
        for &access64 in widths {
            let runs = Options {
                column_runs: Some(true),
                access64: Some(access64),
                ..Options::default()
            };
            // Word offsets take word blocks, which move no 64-bit components.
            let other = if access64 { (32, 80) } else { (4, 12) };
            for (offsets, specialize) in [((16, 48), false), (other, true)] {
                let options = Options {
                    specialize: Some(specialize),
                    ..runs
                };
                cases.push(case(shape, perm, 4, options, offsets));
            }
            // The 6-D permutes': windows smaller than the input's span of the continuation
            // (456 or 264 KiB) cut it. (A reversal's block reads 4 input rows 256 KiB
            // apart, more than such a window holds.)
            let windowed = Options {
                binding_limit: Some(200_000),
                ..runs
            };
            if shape.len() == 6 {
                cases.push(case(shape, perm, 4, windowed, (16, 32)));
            }
        }
        let mut view = View::permuted(shape, perm).unwrap();
        let k = perm.iter().position(|&d| d == 1).unwrap();
        view.offset += view.strides[k] * (view.shape[k] as isize - 1);
        view.strides[k] = -view.strides[k];
        let len = shape.iter().product();
        cases.push(Relayout::view(view, len, 4).unwrap());
    }
    let fresh = cpu_planned(p);
    let mut windowed = 0;
    for (result, op) in check_many(&fresh, &cases).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        let block = plan.variant().and_then(|v| v.block()).unwrap();
        assert!(block.column_runs && block.batch_before_columns, "{plan}");
        let cut = plan
            .chunks()
            .iter()
            .any(|c| c.hi[1] - c.lo[1] < plan.dims()[1]);
        windowed += cut as usize;
    }
    assert_eq!(windowed, 2 * widths.len());
}
