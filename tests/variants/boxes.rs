//! Micro boxes over binding windows cut into one shape (`windows::even_piece`), which share
//! one pipeline compiled for it (`plan::specialize`): only the offsets differ per box.

use wgpu_permute::{Kernel, Options, Permuter, Relayout};

use super::common::{MICRO, case, check_many, gpu};

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
    let fresh = Permuter::new(p.device(), p.queue()).unwrap();
    for (result, (op, one_shape)) in check_many(&fresh, &ops).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel, Kernel::Micro, "{plan}");
        assert!(plan.chunks.len() > 1, "{plan}");
        assert_eq!(plan.specialized, plan.boxes_of_one_shape(), "{plan}");
        // The uneven shape's grain is a CPU device's run of row blocks.
        if *one_shape || p.caps().cpu {
            assert_eq!(plan.boxes_of_one_shape(), *one_shape, "{plan}");
        }
    }
}
