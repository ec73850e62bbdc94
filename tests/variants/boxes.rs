//! Boxes over binding windows cut into one shape (`windows::even_piece`): micro boxes share
//! one pipeline compiled for it (`plan::specialize`), only the offsets differing per box;
//! the generic kernel's, each a contiguous stretch of the output, run in its plain layout.

use wgpu_permute::plan::View;
use wgpu_permute::{Kernel, Options, Relayout};

use super::common::{GENERIC, MICRO, case, check_many, fresh, gpu};

/// Transposes of 1 to 8-byte elements (and a batch of them) whose windows of half the
/// tensor cut it into boxes of one shape, forced onto micro blocks compiled for it, at
/// 16-byte and 4-byte aligned offsets: each plan specialised over several boxes, and every
/// output element in its place with the guard bytes untouched. A shape whose boxes differ
/// runs on uniforms.
#[test]
fn micro_boxes_of_one_shape_share_a_specialised_pipeline() {
    let Some(p) = gpu() else { return };
    let forced = Options {
        specialize: Some(true),
        ..MICRO
    };
    let mut cases = Vec::new();
    for elem in [1usize, 2, 4, 8] {
        for (shape, perm) in [
            (&[512usize, 96][..], &[1usize, 0][..]),
            (&[4, 128, 64], &[0, 2, 1]),
        ] {
            let bytes = (shape.iter().product::<usize>() * elem) as u64;
            let windowed = Options {
                binding_limit: Some(bytes / 2 + 256),
                ..forced
            };
            let offsets = [(16, 32), (4 * elem as u64, 8 * elem as u64)];
            for at in offsets {
                cases.push((case(shape, perm, elem, windowed, at), true));
            }
        }
    }
    // 13 row blocks of 16 rows: no equal pieces.
    let uneven = Options {
        binding_limit: Some(208 * 96 * 4 / 2 + 256),
        ..forced
    };
    cases.push((case(&[208, 96], &[1, 0], 4, uneven, (16, 32)), false));
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    // A permuter of its own: room for its own pipelines.
    let fresh = fresh(p);
    for (result, (op, one_shape)) in check_many(&fresh, &ops).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        assert!(plan.chunks().len() > 1, "{plan}");
        assert_eq!(plan.specialized(), plan.boxes_of_one_shape(), "{plan}");
        // The uneven shape's grain is a CPU device's run of row blocks.
        if *one_shape || p.caps().cpu {
            assert_eq!(plan.boxes_of_one_shape(), *one_shape, "{plan}");
        }
    }
}

/// The generic kernel's boxes of one shape, each a contiguous stretch of the output, run in
/// its plain layout (`Plan::plain_boxes`): a slice `x[::2]`, both flips and a broadcast of
/// rows of a page (stacked runs on CPU adapters), cut by windows of a quarter of the
/// output into boxes of 16 rows, compiled for their shape and not, at 16-byte and
/// unit-aligned offsets; a permute whose boxes are not contiguous in the output keeps the
/// boxed layout. Each against the reference with guard bytes.
#[test]
fn generic_plain_boxes_walk_their_extents_from_their_corners() {
    let Some(p) = gpu() else { return };
    let (rows, cols) = (64usize, 1024usize);
    let square = View::contiguous(&[rows, cols]);
    let slice = View {
        strides: vec![2 * cols as isize, 1],
        ..square.clone()
    };
    let flipped = |d: usize| {
        let mut v = square.clone();
        v.offset += v.strides[d] * (v.shape[d] as isize - 1);
        v.strides[d] = -v.strides[d];
        v
    };
    let broadcast = View {
        strides: vec![0, 1],
        ..square.clone()
    };
    let views = [
        (slice, 2 * rows * cols),
        (flipped(0), rows * cols),
        (flipped(1), rows * cols),
        (broadcast, cols),
    ];
    let quarter = Some((rows * cols * 4 / 4 + 256) as u64);
    let mut cases = Vec::new();
    for specialize in [false, true] {
        let options = Options {
            specialize: Some(specialize),
            binding_limit: quarter,
            ..Options::default()
        };
        for (at, (view, n)) in [(16, 32), (4, 8)].into_iter().cycle().zip(&views) {
            let op = Relayout::view(view.clone(), *n, 4).unwrap();
            let op = op.with_options(options).with_offsets(at.0, at.1);
            cases.push((op, Some(specialize)));
        }
        let permute = Options {
            walk_tiles: Some(false),
            specialize: Some(specialize),
            binding_limit: quarter,
            ..GENERIC
        };
        cases.push((case(&[8, 8, cols], &[1, 0, 2], 4, permute, (16, 32)), None));
    }
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    let fresh = fresh(p);
    for (result, (op, plain)) in check_many(&fresh, &ops).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), Kernel::Generic, "{plan}");
        assert!(plan.chunks().len() > 1, "{plan}");
        assert_eq!(plan.plain_boxes(), plain.is_some(), "{plan}");
        if let Some(specialize) = plain {
            assert_eq!(plan.specialized(), *specialize, "{plan}");
            assert_eq!(plan.stacked_runs(), p.caps().cpu, "{plan}");
        }
    }
}
