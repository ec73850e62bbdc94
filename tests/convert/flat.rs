//! Flat strips whose 4-byte planes are read in pairs of words (`Block::flat_pairs`: CPU
//! adapters with 64-bit accesses, a source of whole 8 bytes), against the reference with
//! guard bytes.

use wgpu_permute::Relayout;
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{Kernel, Options};

use super::common;

/// f32 planes into u8 pixels (an affine per channel) and into f32 pixels (a plain
/// permute), 2 to 4 planes of odd and even pixel counts, so that planes start on odd and
/// even words and blocks end one image and start the next (those read word by word), one
/// image of 299 x 299 pixels among them. Each with a source that ends on 8 bytes (pairs)
/// and one that ends 4 bytes off (pairs where the tail part moves the last image's last 2
/// pixels, else words); each as planned, with 64-bit accesses forced on (where the device
/// has `SHADER_INT64`, whatever its timing of copies chose) and forced off (words).
#[test]
fn flat_strips_read_planes_in_pairs() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let caps = p.caps();
    let pairs_here = caps.int64 && caps.access64_faster;
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .unwrap()
        .with_affine(2, &[255.0, 200.0, 100.0], &[0.5, 0.0, -3.0])
        .unwrap();
    let mut cases = Vec::new();
    // Images, planes, pixels: 17 and 41 pixels are not whole blocks of 16 (u8 pixels) or
    // of 4 (f32 pixels); 36 is.
    let cases_of = [
        (5, 3, 17),
        (3, 3, 41),
        (4, 3, 36),
        (6, 2, 19),
        (3, 4, 23),
        (1, 3, 299 * 299),
    ];
    for (images, n, pixels) in cases_of {
        let words = (images * n * pixels) as u64;
        for convert in [true, false].into_iter().filter(|&c| !c || n == 3) {
            let forced_on = caps.int64.then_some(Some(true));
            for access64 in [None, Some(false)].into_iter().chain(forced_on) {
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
                    let wide = access64.unwrap_or(pairs_here);
                    cases.push((op, n, wide, whole));
                }
            }
        }
    }
    let ops: Vec<Relayout> = cases.iter().map(|(op, ..)| op.clone()).collect();
    let (mut whole_pairs, mut tail_pairs) = (0, 0);
    for ((op, n, wide, whole), result) in cases.iter().zip(common::check_many(p, &ops)) {
        result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let parts = op.plan(caps).unwrap();
        let block = parts[0].variant().and_then(|v| v.block());
        assert!(block.is_some_and(|b| b.flat), "{}", parts[0]);
        // The last image's last pixels, of every plane, that the tail part moves.
        let tail = parts.get(1).map_or(0, |t| t.units() / *n as u64);
        let pairs = *wide && (*whole || tail >= 1);
        assert_eq!(block.unwrap().flat_pairs, pairs, "{}", parts[0]);
        whole_pairs += (pairs && *whole) as usize;
        tail_pairs += (pairs && !*whole) as usize;
    }
    // Both kinds of source end read pairs (forced on, at least).
    assert!(
        !caps.int64 || (whole_pairs > 0 && tail_pairs > 0),
        "planes read in pairs"
    );
}
