//! Conversions on the micro kernel (register blocks, CPU adapters): every pair of types on
//! every kind of block (wide squares, runs of them, strips of a short dim on either side,
//! flat strips over images of any size, narrow 4x4 blocks), the affine's channel read off a block's rows, columns or batch, each
//! checked against the reference with guard bytes around the destination.

use wgpu_permute::Relayout;
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{Block, Kernel, Options, Strip, Variant, View};

use super::common;

/// Which block a case must run on.
type Want = fn(&Block) -> bool;

/// A permute forced onto the micro kernel, converting, at these byte offsets.
fn micro(shape: &[usize], perm: &[usize], c: Conversion, src_at: u64, dst_at: u64) -> Relayout {
    Relayout::permute(shape, perm, c.from().size())
        .unwrap()
        .with_options(Options {
            kernel: Some(Kernel::Micro),
            ..Options::default()
        })
        .with_offsets(src_at, dst_at)
        .with_conversion(c)
        .unwrap()
}

/// Interleaved u8 images normalised into f32 planes (channels on output axis 1), and f32
/// planes back to bytes with an affine per channel (output axis 2).
fn image_conversions() -> (Conversion, Conversion) {
    let normalise = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .normalized(1, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])
        .unwrap();
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .unwrap()
        .with_affine(2, &[255.0, 200.0, 100.0], &[0.5, 0.0, -3.0])
        .unwrap();
    (normalise, to_bytes)
}

/// Checks every case (guard bytes included), and that each ran the block `want` says.
fn check(p: &wgpu_permute::Permuter, cases: &[(Relayout, Want)]) {
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    for ((op, want), result) in cases.iter().zip(common::check_many(p, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        let Some(Variant::Micro(m)) = plan.variant() else {
            panic!("{plan}")
        };
        assert!(want(&m.block), "{op:?} ran {:?}", m.block);
    }
}

/// Every pair on wide square blocks; for one pair of each pair of element sizes (which is
/// what shapes a block), every other kind of block too. Pipelines are compiled per block
/// and pair, so not every pair takes every block: the conversions themselves are the same
/// functions, checked bit for bit on every pair (`gpu.rs`).
#[test]
fn every_pair_converts_on_every_micro_block() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let mut cases: Vec<(Relayout, Want)> = Vec::new();
    let mut sizes = std::collections::HashSet::new();
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            let c = Conversion::new(from, to).unwrap();
            // The block's side: the smaller element's count in 16 bytes.
            let s = 16 / from.size().min(to.size());
            let square = |b: &Block| b.strip.is_none() && b.access_bytes == 16 && b.run == 1;
            // Five row blocks: no run of `MICRO_RUNS` divides them.
            cases.push((
                micro(&[2, 5 * s, 2 * s], &[0, 2, 1], c.clone(), 0, 0),
                square,
            ));
            if !sizes.insert((from.size(), to.size())) {
                continue;
            }
            let others: [(Vec<usize>, Want); 3] = [
                (vec![2, 4 * s, s], |b| b.run > 1),
                (vec![2, 2 * s, 3], |b| b.strip == Some(Strip::Cols(3))),
                (vec![2, 3, 2 * s], |b| b.strip == Some(Strip::Rows(3))),
            ];
            for (i, (shape, want)) in others.into_iter().enumerate() {
                cases.push((micro(&shape, &[0, 2, 1], c.clone(), 16 * i as u64, 0), want));
            }
            // Offsets in whole words but not whole 16 bytes: narrow 4x4 blocks.
            let narrow = |b: &Block| b.access_bytes == 4;
            cases.push((micro(&[2, 12, 20], &[0, 2, 1], c.clone(), 4, 8), narrow));
            // Images of 1.5 blocks of pixels, planes one element off 16 bytes: flat strips
            // (a block ends one image and starts the next), planes written as f32 words or
            // read as elements of any size.
            let pixels = s + s / 2;
            if to.size() == 4 {
                let want: Want = |b| b.flat && b.strip == Some(Strip::Cols(3));
                cases.push((micro(&[2, pixels, 3], &[0, 2, 1], c.clone(), 16, 36), want));
                // The pixels of all images not a whole number of blocks: the last ones run
                // as a part of their own (one image, or three).
                for shape in [[1, s + 3, 3], [3, s + 1, 3]] {
                    cases.push((micro(&shape, &[0, 2, 1], c.clone(), 16, 36), want));
                }
            }
            let want: Want = |b| b.flat && b.strip == Some(Strip::Rows(3));
            cases.push((micro(&[2, 3, pixels], &[0, 2, 1], c.clone(), 20, 32), want));
            for shape in [[1, 3, s + 3], [3, 3, s + 1]] {
                cases.push((micro(&shape, &[0, 2, 1], c.clone(), 20, 32), want));
            }
        }
    }
    assert_eq!(sizes.len(), 9);
    check(p, &cases);
    eprintln!(
        "{} conversions on micro blocks, with guard bytes",
        cases.len()
    );
}

#[test]
fn the_affine_takes_its_channel_from_rows_columns_or_the_batch() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let values = |n: usize| -> (Vec<f32>, Vec<f32>) {
        let scale = (0..n).map(|i| 0.5 + i as f32 * 0.25).collect();
        let bias = (0..n).map(|i| i as f32 * 3.0 - 2.0).collect();
        (scale, bias)
    };
    let affine = |from, to, axis, n| {
        let (scale, bias) = values(n);
        Conversion::new(from, to)
            .unwrap()
            .with_affine(axis, &scale, &bias)
            .unwrap()
    };
    let any = |_: &Block| true;
    let mut cases: Vec<(Relayout, Want)> = Vec::new();
    for (from, to) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::U8, Dtype::F16),
        (Dtype::F32, Dtype::U8),
        (Dtype::F32, Dtype::F16),
        (Dtype::I16, Dtype::BF16),
    ] {
        let s = 16 / from.size().min(to.size());
        // Interleaved images to planes (columns), and back (rows).
        cases.push((
            micro(&[2, 2 * s, 3], &[0, 2, 1], affine(from, to, 1, 3), 16, 32),
            any,
        ));
        cases.push((
            micro(&[2, 3, 2 * s], &[0, 2, 1], affine(from, to, 2, 3), 32, 64),
            any,
        ));
        // Channels over square blocks' columns and rows, more than a block's side of
        // them; and with a step: [2, s, 2, 2s] simplifies to [2, 2s, 2s], and its output
        // axis 2 (s channels) steps every 2 rows.
        cases.push((
            micro(
                &[2, 2 * s, 2 * s],
                &[0, 2, 1],
                affine(from, to, 1, 2 * s),
                48,
                96,
            ),
            any,
        ));
        cases.push((
            micro(
                &[2, 2 * s, 2 * s],
                &[0, 2, 1],
                affine(from, to, 2, 2 * s),
                64,
                128,
            ),
            any,
        ));
        cases.push((
            micro(
                &[2, s, 2, 2 * s],
                &[0, 3, 1, 2],
                affine(from, to, 2, s),
                80,
                160,
            ),
            any,
        ));
        // Rows of merged (s, 3) values whose channels wrap inside a block: 3 channels a
        // step of 1 apart, or s of them 3 apart; and columns of them (3 channels).
        for (axis, n) in [(3, 3), (2, s)] {
            cases.push((
                micro(
                    &[2, s, 3, 2 * s],
                    &[0, 3, 1, 2],
                    affine(from, to, axis, n),
                    16,
                    32,
                ),
                any,
            ));
        }
        cases.push((
            micro(
                &[2, 2 * s, s, 3],
                &[0, 2, 3, 1],
                affine(from, to, 2, 3),
                16,
                32,
            ),
            any,
        ));
        // The batch: one dim, then a channel axis merged with another (a step of 2).
        cases.push((
            micro(&[4, s, 2 * s], &[0, 2, 1], affine(from, to, 0, 4), 96, 192),
            any,
        ));
        cases.push((
            micro(
                &[3, 2, 2 * s, s],
                &[0, 1, 3, 2],
                affine(from, to, 0, 3),
                112,
                224,
            ),
            any,
        ));
    }
    check(p, &cases);
}

/// The image cases on micro strips both ways (normalised u8 interleaved -> f32 planes,
/// f32 planes -> u8 interleaved), aligned and flat, and a square f32 -> f16 block: few pipelines, so that
/// SwiftShader, which keeps every pipeline's code, runs the micro kernel's conversions too
/// (scripts/test.sh; the two sweeps above are left to lavapipe and GL there).
#[test]
fn images_and_heads_convert_on_micro_blocks() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let (normalise, to_bytes) = image_conversions();
    let heads = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let merged = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .with_affine(2, &[0.5, 2.0, -1.0], &[1.0, 0.0, 3.0])
        .unwrap();
    // Channels over output axis `axis` of the strips of 6 below: 2 or 3 of them.
    let pair = |axis: usize, from: Dtype| {
        let n = if axis == 1 || (axis == 2 && from == Dtype::F32) {
            2
        } else {
            3
        };
        let to = if from == Dtype::U8 {
            Dtype::F32
        } else {
            Dtype::U8
        };
        Conversion::new(from, to)
            .unwrap()
            .with_affine(axis, &[0.5, 2.0, -1.0][..n], &[1.0, 0.0, 3.0][..n])
            .unwrap()
    };
    let six_cols = |b: &Block| b.strip == Some(Strip::Cols(6));
    let six_rows = |b: &Block| b.strip == Some(Strip::Rows(6));
    let cols = |b: &Block| b.strip == Some(Strip::Cols(3));
    let rows = |b: &Block| b.strip == Some(Strip::Rows(3));
    let square = |b: &Block| b.strip.is_none() && b.access_bytes == 16;
    let flat = |b: &Block| b.flat;
    let cases: Vec<(Relayout, Want)> = vec![
        (
            micro(&[2, 256, 3], &[0, 2, 1], normalise.clone(), 0, 0),
            cols,
        ),
        (
            micro(&[2, 3, 256], &[0, 2, 1], to_bytes.clone(), 16, 32),
            rows,
        ),
        (micro(&[2, 64, 32], &[0, 2, 1], heads, 0, 16), square),
        // Images of 40 pixels: blocks of 16 run on from one image into the next.
        (
            micro(&[2, 40, 3], &[0, 2, 1], normalise.clone(), 0, 0),
            flat,
        ),
        (
            micro(&[2, 3, 40], &[0, 2, 1], to_bytes.clone(), 16, 32),
            flat,
        ),
        // Pixels not a whole number of blocks: the last ones are a part of their own, its
        // affine read over the same channels (one image: its dims simplify to two).
        (micro(&[1, 41, 3], &[0, 2, 1], normalise, 0, 0), flat),
        (micro(&[3, 3, 41], &[0, 2, 1], to_bytes, 16, 32), flat),
        // An affine over part of a merged short dim (3 channels of 2 x 3 values): whole
        // blocks, no tail.
        (
            micro(&[16, 17, 2, 3], &[0, 2, 3, 1], merged.clone(), 0, 0),
            flat,
        ),
        // Strips of 6 (2 x 3 values) whose positions take their channels from the merged
        // dim's inner axis (step 1, 3 channels) or its outer one (step 3, 2 channels): the
        // words by position (`Plan::channels_by_position`).
        (micro(&[2, 32, 2, 3], &[0, 2, 3, 1], merged, 0, 0), six_cols),
        (
            micro(&[2, 32, 2, 3], &[0, 2, 3, 1], pair(1, Dtype::U8), 0, 0),
            six_cols,
        ),
        (
            micro(&[2, 2, 3, 32], &[0, 3, 1, 2], pair(3, Dtype::F32), 16, 32),
            six_rows,
        ),
        (
            micro(&[2, 2, 3, 32], &[0, 3, 1, 2], pair(2, Dtype::F32), 16, 32),
            six_rows,
        ),
    ];
    check(p, &cases);
}

/// Converting views on micro blocks (CPU adapters): a centre crop of interleaved images
/// normalised into planes, a crop of planes back to interleaved bytes, a strided slice
/// (every other row) and a broadcast row, each against the reference with guard bytes;
/// views the blocks cannot take (padded, a flipped innermost dim) run generic.
#[test]
fn converting_views_run_on_micro_blocks() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let normalise = |from: Dtype, to: Dtype, axis: usize| {
        Conversion::new(from, to)
            .unwrap()
            .normalized(axis, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])
            .unwrap()
    };
    let crop = |shape: &[usize], axes: [usize; 2], keep: usize| {
        let mut v = View::contiguous(shape);
        for axis in axes {
            let start = (shape[axis] - keep) / 2;
            v = v.slice(axis, start..start + keep, 1).unwrap();
        }
        v
    };
    let view = |v: View, src_len: usize, elem: usize, c: Conversion| {
        Relayout::view(v, src_len, elem)
            .unwrap()
            .with_conversion(c)
            .unwrap()
    };
    let mut cases: Vec<(Relayout, Kernel)> = Vec::new();
    // [2, 64, 64, 3] u8 -> centre 32 x 32 -> [2, 3, 32, 32] f32, normalised (rows and the
    // crop's corner in whole 16 bytes, as a 224 crop of 256 pixels has them).
    let images = crop(&[2, 64, 64, 3], [1, 2], 32).permuted_axes(&[0, 3, 1, 2]);
    let images = images.unwrap();
    let n = 2 * 64 * 64 * 3;
    cases.push((
        view(images, n, 1, normalise(Dtype::U8, Dtype::F32, 1)),
        Kernel::Micro,
    ));
    // [2, 3, 64, 64] f32 -> centre 32 x 32 -> [2, 32, 32, 3] u8, * 255.
    let planes = crop(&[2, 3, 64, 64], [2, 3], 32).permuted_axes(&[0, 2, 3, 1]);
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .unwrap()
        .with_affine(3, &[255.0, 200.0, 100.0], &[0.5, 0.0, -3.0])
        .unwrap();
    cases.push((view(planes.unwrap(), n, 4, to_bytes), Kernel::Micro));
    // Every other row of a [64, 32] f32 matrix, transposed, to f16; a broadcast row.
    let rows = View::contiguous(&[64, 32]).slice(0, 0..64, 2).unwrap();
    let heads = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let rows = rows.permuted_axes(&[1, 0]).unwrap();
    cases.push((view(rows, 64 * 32, 4, heads.clone()), Kernel::Micro));
    let row = View::contiguous(&[1, 32]).broadcast(&[16, 32]).unwrap();
    let row = row.permuted_axes(&[1, 0]).unwrap();
    cases.push((view(row, 32, 4, heads.clone()), Kernel::Micro));
    // A plain crop of bytes (no conversion) takes the same strip.
    let bytes = crop(&[2, 64, 64, 3], [1, 2], 32).permuted_axes(&[0, 3, 1, 2]);
    cases.push((Relayout::view(bytes.unwrap(), n, 1).unwrap(), Kernel::Micro));
    // Padded, and flipped along the source's innermost dim: element by element.
    let padded = View::contiguous(&[32, 32]).pad(0, 0, 16).unwrap();
    let padded = padded.permuted_axes(&[1, 0]).unwrap();
    let fill = [0u8; 2];
    let padded = Relayout::view(padded, 32 * 32, 4)
        .unwrap()
        .with_fill(&fill)
        .with_conversion(heads.clone())
        .unwrap();
    cases.push((padded, Kernel::Generic));
    let flipped = View::contiguous(&[32, 32]).invert_axis(1).unwrap();
    let flipped = flipped.permuted_axes(&[1, 0]).unwrap();
    cases.push((view(flipped, 32 * 32, 4, heads), Kernel::Generic));
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    for ((op, want), result) in cases.iter().zip(common::check_many(p, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), *want, "{plan}");
    }
}

/// A flat strip's tail that is one whole strip block with its offsets on 16 bytes (4
/// images of 36 pixels: runs of 2 blocks of 16 cover 128 of the 144, the last image's last
/// 16 are a part of their own, a view writing its box), both ways, against the reference
/// with guard bytes (CPU adapters: GPUs take no flat strips). The tail is a view of 16
/// pixels on whichever kernel takes it (the generic one today).
#[test]
fn a_flat_strips_tail_of_whole_blocks_converts() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let (normalise, to_bytes) = image_conversions();
    for (shape, c) in [(&[4, 36, 3], normalise), (&[4, 3, 36], to_bytes)] {
        let op = Relayout::permute(shape, &[0, 2, 1], c.from().size())
            .unwrap()
            .with_conversion(c)
            .unwrap();
        let parts = op.plan(p.caps()).unwrap();
        assert_eq!(parts.len(), 2, "{parts:?}");
        let flat = parts[0]
            .variant()
            .and_then(|v| v.block())
            .is_some_and(|b| b.flat);
        assert!(flat, "{}", parts[0]);
        assert!(parts[1].view().is_some(), "{}", parts[1]);
        assert_eq!(parts[1].units(), 16 * 3, "{}", parts[1]);
        common::check_many(p, &[op]).remove(0).unwrap();
    }
}

/// Column strips whose runs are lane-major (CPU adapters, blocks enough): images of 15
/// blocks, not a multiple of a run's step (`LANE_GROUP`, 8), so that steps cross from
/// one image into the next at every offset, and a last workgroup whose runs end part way; the affine on the pixels' channels and on
/// the batch (4 channels over 275 images each, read per block), compiled for the shape and
/// not.
#[test]
fn column_strips_run_lane_major_across_images() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let (normalise, _) = image_conversions();
    let batch = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .with_affine(0, &[0.5, 2.0, -1.0, 4.0], &[1.0, 0.0, 3.0, -2.0])
        .unwrap();
    let mut cases = Vec::new();
    for specialize in [false, true] {
        let shaped = |op: Relayout| {
            op.with_options(Options {
                kernel: Some(Kernel::Micro),
                specialize: Some(specialize),
                ..Options::default()
            })
        };
        cases.extend([
            (
                shaped(micro(&[1100, 240, 3], &[0, 2, 1], normalise.clone(), 0, 0)),
                specialize,
            ),
            (
                shaped(micro(
                    &[4, 275, 240, 3],
                    &[0, 1, 3, 2],
                    batch.clone(),
                    0,
                    16,
                )),
                specialize,
            ),
        ]);
    }
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    // A permuter of its own: room for its own pipelines.
    let fresh = common::cpu_planned(p);
    for ((_, specialize), result) in cases.iter().zip(common::check_many(&fresh, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        let Some(Variant::Micro(m)) = plan.variant() else {
            panic!("{plan}")
        };
        assert!(m.block.lane_major, "{plan}");
        assert_eq!(plan.specialized(), *specialize, "{plan}");
        assert!(plan.total_workgroups() > 16, "{plan}");
    }
}

/// Flat strips past a binding (a limit of 2.5 KiB here): boxes of whole images (4 of 40
/// pixels: a whole run of two blocks of 16 each), both ways, the last pixels a tail whose
/// strided planes sit in one window at the buffers' end; a batch too small to cut (40
/// images of 299 pixels) and two batch dims out of order run on another kernel. Against
/// the reference with guard bytes (CPU adapters: GPUs take no flat strips).
#[test]
fn flat_strips_split_into_whole_images_past_a_binding() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let (normalise, to_bytes) = image_conversions();
    let small = |op: Relayout, limit: u64| {
        op.with_options(Options {
            binding_limit: Some(limit),
            ..Options::default()
        })
    };
    let permute = |shape: &[usize], perm: &[usize], c: &Conversion, at: (u64, u64)| {
        Relayout::permute(shape, perm, c.from().size())
            .unwrap()
            .with_offsets(at.0, at.1)
            .with_conversion(c.clone())
            .unwrap()
    };
    // Each with its parts: the blocks, and a tail where 9 images of 40 pixels leave 8.
    let flat = [
        (permute(&[9, 40, 3], &[0, 2, 1], &normalise, (16, 4)), 2),
        (permute(&[9, 3, 40], &[0, 2, 1], &to_bytes, (4, 16)), 2),
        (permute(&[8, 40, 3], &[0, 2, 1], &normalise, (0, 0)), 1),
    ];
    let ops: Vec<Relayout> = flat.iter().map(|(op, _)| small(op.clone(), 2500)).collect();
    for ((op, parts), result) in ops
        .iter()
        .zip(flat.map(|f| f.1))
        .zip(common::check_many(p, &ops))
    {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        let plans = op.plan(p.caps()).unwrap();
        let block = plans[0].variant().and_then(|v| v.block());
        assert!(block.is_some_and(|b| b.flat), "{plan}");
        assert!(plans[0].chunks().len() > 1, "{}", plans[0]);
        assert_eq!(plans.len(), parts, "{op:?}");
    }
    let normalise_flat = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
    let others: Vec<Relayout> = vec![
        small(
            permute(&[40, 299, 3], &[0, 2, 1], &normalise, (0, 0)),
            100_000,
        ),
        small(
            permute(&[2, 3, 40, 3], &[1, 0, 3, 2], &normalise_flat, (0, 0)),
            2000,
        ),
    ];
    for (op, result) in others.iter().zip(common::check_many(p, &others)) {
        result.unwrap_or_else(|e| panic!("{e}"));
        let parts = op.plan(p.caps()).unwrap();
        let flat = parts[0].variant().and_then(|v| v.block());
        assert!(!flat.is_some_and(|b| b.flat), "{}", parts[0]);
        assert!(parts[0].chunks().len() > 1, "{}", parts[0]);
    }
}
