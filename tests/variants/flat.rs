//! The permutes that run the micro kernel's flat strip variants (tests/variants.rs).

use wgpu_permute::plan::tuning::MICRO_RUNS;
use wgpu_permute::plan::{Strip, Variant};

/// A permute's shape, permutation and byte offsets.
pub type FlatCase = (Vec<usize>, Vec<usize>, (u64, u64));

/// The permute that runs a flat strip variant, with its byte offsets: images of pixels
/// interleaved on one side, planes on the other, `(B.., P, n) -> (B.. reversed, n, P)`
/// (columns whole; the planes are written) or `(B, n, P) -> (B, P, n)` (rows whole; the
/// planes are read; `B` 8). Their element side starts 4 bytes past 16, which the aligned strips
/// refuse; and where the run allows, `P` is not a whole number of blocks, so
/// that blocks end one image and start the next. `None` where not run here: extent 3 of
/// every kind, and each other extent once (rank 3, one block per invocation).
pub fn flat_case(variant: Variant) -> Option<FlatCase> {
    let block = variant.block()?;
    let (strip, rank) = (block.strip?, variant.rank());
    let (Strip::Cols(n) | Strip::Rows(n)) = strip;
    let once = rank == 3 && block.run == 1 && !variant.access64();
    if n != 3 && !once {
        return None;
    }
    // Rows whole: one batch dim of 8 images (some pixel counts that 4 does not divide, or
    // 4x4 blocks would take 4 or 8 planes); columns whole: batch dims of 2.
    let images = match strip {
        Strip::Rows(_) if rank == 3 => 8,
        _ => 1usize << (rank - 2),
    };
    let side = block.side as usize;
    let n = n as usize;
    let planned = |blocks: usize| {
        MICRO_RUNS
            .into_iter()
            .find(|&r| blocks.is_multiple_of(r as usize))
            .unwrap_or(1)
    };
    // Blocks over all images: the run's, pixels per image at least a block, odd if it can.
    let fits = |t: usize| {
        let pixels = t * side / images;
        planned(t) == block.run
            && (t * side).is_multiple_of(images)
            && pixels >= side
            && (!n.is_multiple_of(4) || !pixels.is_multiple_of(4))
    };
    let blocks = (2..4096)
        .find(|&t| fits(t) && !(t * side / images).is_multiple_of(side))
        .or_else(|| (2..4096).find(|&t| fits(t)))?;
    let pixels = blocks * side / images;
    let (shape, perm, offsets) = match strip {
        Strip::Cols(_) => {
            let mut shape = vec![2; rank - 2];
            shape.extend([pixels, n]);
            let mut perm: Vec<usize> = (0..rank - 2).rev().collect();
            perm.extend([rank - 1, rank - 2]);
            (shape, perm, (16, 16 + 4))
        }
        Strip::Rows(_) => {
            let mut shape = vec![images; rank - 2];
            shape.extend([n, pixels]);
            let mut perm: Vec<usize> = (0..rank - 2).collect();
            perm.extend([rank - 1, rank - 2]);
            (shape, perm, (16 + 4, 32))
        }
    };
    Some((shape, perm, offsets))
}
