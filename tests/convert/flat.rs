//! Flat strips whose 4-byte planes are read in pairs of words (`Block::flat_pairs`: CPU
//! adapters with 64-bit accesses, a source of whole 8 bytes), against the reference with
//! guard bytes.

use wgpu_permute::Relayout;
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{Kernel, Options};

use super::common;

/// f32 planes into u8 pixels (an affine per channel) and into f32 pixels (a plain
/// permute), 2 to 4 planes of odd and even pixel counts, so that planes start on odd and
/// even words and blocks end one image and start the next (those read word by word). Each
/// with a source that ends on 8 bytes (pairs) and one that ends 4 bytes off (words), and
/// with 64-bit accesses forced off (words).
#[test]
fn flat_strips_read_planes_in_pairs() {
    let Some(p) = common::gpu() else { return };
    let caps = p.caps();
    if !caps.cpu {
        eprintln!("not a CPU adapter: no flat strips to check");
        return;
    }
    let pairs_here = caps.int64 && caps.access64_faster;
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .unwrap()
        .with_affine(2, &[255.0, 200.0, 100.0], &[0.5, 0.0, -3.0])
        .unwrap();
    let mut cases = Vec::new();
    // Images, planes, pixels: 17 and 41 pixels are not whole blocks of 16 (u8 pixels) or
    // of 4 (f32 pixels); 36 is.
    for (images, n, pixels) in [(5, 3, 17), (3, 3, 41), (4, 3, 36), (6, 2, 19), (3, 4, 23)] {
        let words = (images * n * pixels) as u64;
        for convert in [true, false].into_iter().filter(|&c| !c || n == 3) {
            for access64 in [None, Some(false)] {
                // Offsets of whole words past 16 bytes: the aligned strips refuse them.
                for src_at in [20u64, 24] {
                    let op = Relayout::permute(&[images, n, pixels], &[0, 2, 1], 4)
                        .unwrap()
                        .with_options(Options {
                            kernel: Some(Kernel::Micro),
                            access64,
                            ..Options::default()
                        })
                        .with_offsets(src_at, 32);
                    let op = match convert {
                        true => op.with_conversion(to_bytes.clone()).unwrap(),
                        false => op,
                    };
                    let whole = (src_at + 4 * words).is_multiple_of(8);
                    cases.push((op, pairs_here && access64.is_none() && whole));
                }
            }
        }
    }
    let ops: Vec<Relayout> = cases.iter().map(|(op, _)| op.clone()).collect();
    let mut paired = 0;
    for ((op, pairs), result) in cases.iter().zip(common::check_many(p, &ops)) {
        result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let parts = op.plan(caps).unwrap();
        let block = parts[0].variant().and_then(|v| v.block());
        assert!(block.is_some_and(|b| b.flat), "{}", parts[0]);
        assert_eq!(block.unwrap().flat_pairs, *pairs, "{}", parts[0]);
        paired += *pairs as usize;
    }
    // Half the cases whose 64-bit accesses are not forced off.
    assert_eq!(
        paired,
        pairs_here as usize * cases.len() / 4,
        "planes read in pairs"
    );
}
