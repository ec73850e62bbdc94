//! Conversions on the tiled kernel's strips (GPUs: interleaved colour channels to planes and
//! back through workgroup memory), forced here on any adapter: every pair both ways, short
//! dims of 2 to 8, partial tiles, batch dims, and the affine's channel on the planes, the
//! pixels or the batch, each checked against the reference with guard bytes.

use wgpu_permute::Relayout;
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{Kernel, Options, Strip, Variant};

use super::common;

/// A permute forced onto the tiled kernel, converting, at these byte offsets.
fn tiled(shape: &[usize], perm: &[usize], c: Conversion, at: (u64, u64)) -> Relayout {
    Relayout::permute(shape, perm, c.from().size())
        .unwrap()
        .with_options(Options {
            kernel: Some(Kernel::Tiled),
            ..Options::default()
        })
        .with_offsets(at.0, at.1)
        .with_conversion(c)
        .unwrap()
}

/// Checks every case (guard bytes included) and that each ran strips of `want`.
fn check(p: &wgpu_permute::Permuter, cases: &[(Relayout, Strip)]) {
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    for ((op, want), result) in cases.iter().zip(common::check_many(p, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        let Some(Variant::Tiled(t)) = plan.variant() else {
            panic!("{plan}")
        };
        assert_eq!(t.strip.map(|s| s.strip), Some(*want), "{op:?}");
    }
}

#[test]
fn every_pair_converts_in_strips_both_ways() {
    let Some(p) = common::gpu() else { return };
    let mut cases = Vec::new();
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            let c = Conversion::new(from, to).unwrap();
            // 65 quads of pixels: a whole tile of 64 and a partial one.
            let at = (4 * from.size() as u64, 4 * to.size() as u64);
            cases.push((
                tiled(&[2, 260, 3], &[0, 2, 1], c.clone(), at),
                Strip::Cols(3),
            ));
            cases.push((
                tiled(&[2, 3, 260], &[0, 2, 1], c.clone(), at),
                Strip::Rows(3),
            ));
            // One image (no batch dim left), whole tiles only.
            cases.push((tiled(&[512, 3], &[1, 0], c.clone(), (0, 0)), Strip::Cols(3)));
            cases.push((tiled(&[3, 512], &[1, 0], c, (0, 0)), Strip::Rows(3)));
        }
    }
    // Every short dim, one pair per pair of element sizes.
    for (from, to) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::F32, Dtype::U8),
        (Dtype::F16, Dtype::BF16),
        (Dtype::I16, Dtype::U8),
    ] {
        for n in 2..=8 {
            let c = Conversion::new(from, to).unwrap();
            cases.push((
                tiled(&[3, 36, n], &[0, 2, 1], c.clone(), (0, 0)),
                Strip::Cols(n as u32),
            ));
            cases.push((
                tiled(&[3, n, 36], &[0, 2, 1], c, (0, 0)),
                Strip::Rows(n as u32),
            ));
        }
    }
    check(p, &cases);
    eprintln!("{} conversions in strips, with guard bytes", cases.len());
}

#[test]
fn the_affine_takes_its_channel_from_planes_pixels_or_the_batch() {
    let Some(p) = common::gpu() else { return };
    let affine = |from, to, axis, n: usize| {
        let scale: Vec<f32> = (0..n).map(|i| 0.5 + i as f32 * 0.25).collect();
        let bias: Vec<f32> = (0..n).map(|i| i as f32 * 3.0 - 2.0).collect();
        Conversion::new(from, to)
            .unwrap()
            .with_affine(axis, &scale, &bias)
            .unwrap()
    };
    let mut cases = Vec::new();
    for (from, to) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::U8, Dtype::F16),
        (Dtype::F32, Dtype::U8),
        (Dtype::F32, Dtype::BF16),
    ] {
        // NHWC -> NCHW with the planes normalised, and back with the planes scaled.
        let images = tiled(
            &[2, 10, 26, 3],
            &[0, 3, 1, 2],
            affine(from, to, 1, 3),
            (0, 0),
        );
        cases.push((images, Strip::Cols(3)));
        let back = tiled(
            &[2, 3, 10, 26],
            &[0, 2, 3, 1],
            affine(from, to, 3, 3),
            (0, 0),
        );
        cases.push((back, Strip::Rows(3)));
        // Channels along the pixels (an axis merged into them: a step of 26) and the batch.
        let rows = tiled(
            &[2, 10, 26, 3],
            &[0, 3, 1, 2],
            affine(from, to, 2, 10),
            (0, 0),
        );
        cases.push((rows, Strip::Cols(3)));
        let batch = tiled(&[4, 3, 260], &[0, 2, 1], affine(from, to, 0, 4), (0, 0));
        cases.push((batch, Strip::Rows(3)));
        // Strips of 6 (2 x 3 values) whose positions take their channels from the merged
        // dim's outer axis (a step of 3) or its inner one (3 channels, twice): the words by
        // position (`Plan::channels_by_position`), both ways.
        for (axis, n) in [(1, 2), (2, 3)] {
            let cols = tiled(
                &[2, 20, 2, 3],
                &[0, 2, 3, 1],
                affine(from, to, axis, n),
                (0, 0),
            );
            cases.push((cols, Strip::Cols(6)));
        }
        for (axis, n) in [(2, 2), (3, 3)] {
            let rows = tiled(
                &[2, 2, 3, 20],
                &[0, 3, 1, 2],
                affine(from, to, axis, n),
                (0, 0),
            );
            cases.push((rows, Strip::Rows(6)));
        }
    }
    check(p, &cases);
}
