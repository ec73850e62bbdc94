//! The permutes that run the micro kernel's flat strip variants (tests/variants.rs).

use wgpu_permute::plan::{self, DeviceCaps, Options, Request, Strip, Variant};

/// A permute's shape, permutation and byte offsets.
pub type FlatCase = (Vec<usize>, Vec<usize>, (u64, u64));

/// The permute that runs a flat strip variant with these options on a device with `caps`,
/// with its byte offsets: images of pixels interleaved on one side, planes on the other,
/// `(B.., P, n) -> (B.. reversed, n, P)` (columns whole; the planes are written) or `(B, n,
/// P) -> (B, P, n)` (rows whole; the planes are read; `B` 8). Their element side starts 4
/// bytes past 16 (8 where the planes are read in pairs), which the aligned strips refuse; and where the planner allows, `P` is not
/// a whole number of blocks, so that blocks end one image and start the next, and the
/// blocks leave the last pixels of the last image to a part of their own
/// (`plan::flat_tail`). `None` where not run here: extent 3 of every kind, and each other
/// extent once (rank 3, one block per invocation); and variants the planner never makes.
pub fn flat_case(variant: Variant, options: Options, caps: &DeviceCaps) -> Option<FlatCase> {
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
    let case = |pixels: usize| match strip {
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
            // Planes read in pairs need a source of whole 8 bytes: 8 past 16.
            let src = if block.flat_pairs { 16 + 8 } else { 16 + 4 };
            (shape, perm, (src, 32))
        }
    };
    // The pixel counts (from a block's side on) for which the planner runs this variant,
    // each with whether its blocks leave a tail.
    let planned: Vec<(usize, bool)> = (side..side * 40)
        .filter(|p| !n.is_multiple_of(4) || !p.is_multiple_of(4))
        .filter_map(|pixels| {
            let (shape, perm, (src, dst)) = case(pixels);
            let req = Request::new(&shape, &perm, variant.unit() as usize)
                .with_offsets(src, dst)
                .with_options(options);
            let p = plan::plan(&req, caps).ok()?;
            (p.variant() == Some(variant)).then(|| (pixels, plan::flat_tail(&p).is_some()))
        })
        .collect();
    let odd = |&&(p, _): &&(usize, bool)| !p.is_multiple_of(side);
    let (pixels, _) = planned
        .iter()
        .find(|c| odd(c) && c.1)
        .or_else(|| planned.iter().find(odd))
        .or_else(|| planned.first())?;
    Some(case(*pixels))
}
