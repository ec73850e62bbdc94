//! Conversions on the generic kernel with an affine whose channel changes between the
//! elements of one thread (its words of packed elements, its quads, its runs on CPU
//! adapters, a padded view's words): the channel cursor that moves on element by element
//! (`shaders/fragments/generic_convert.wgsl`) against the reference, with guard bytes.

use wgpu_permute::Relayout;
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{IndexMath, Kernel, Options};

use super::common;

#[test]
fn the_channel_cursor_crosses_channels_within_a_thread() {
    let Some(p) = common::gpu() else { return };
    let generic = Options {
        kernel: Some(Kernel::Generic),
        ..Options::default()
    };
    let values = |n: usize| -> (Vec<f32>, Vec<f32>) {
        let scale = (0..n).map(|i| 0.5 + i as f32 * 0.25).collect();
        let bias = (0..n).map(|i| i as f32 * 3.0 - 2.0).collect();
        (scale, bias)
    };
    let mut ops = Vec::new();
    for (k, (from, to)) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::F32, Dtype::U8),
        (Dtype::F32, Dtype::F16),
        (Dtype::I16, Dtype::BF16),
        (Dtype::U8, Dtype::F16),
    ]
    .into_iter()
    .enumerate()
    {
        let affine = |axis: usize, n: usize| {
            let (scale, bias) = values(n);
            Conversion::new(from, to)
                .unwrap()
                .with_affine(axis, &scale, &bias)
                .unwrap()
        };
        // Input shape, permutation, then the output's channel axis and its count: steps of
        // 5, 21, 7, 1 and 8 elements, none a whole number of runs of 8 or words of 4 but the
        // last; then 3 channels a step of 1 apart inside quads (an innermost 4 x 3 that
        // stays), each with 32-bit index math and with both 64-bit forms.
        let cases: [(&[usize], &[usize], usize, usize); 6] = [
            (&[2, 5, 3], &[0, 2, 1], 1, 3),
            (&[3, 7, 2], &[2, 0, 1], 0, 2),
            (&[3, 7, 2], &[2, 0, 1], 1, 3),
            (&[4, 6, 3], &[1, 0, 2], 2, 3),
            (&[2, 8, 12], &[0, 2, 1], 1, 12),
            (&[2, 5, 4, 3], &[1, 0, 2, 3], 3, 3),
        ];
        // Native 64-bit index math where the device has SHADER_INT64 (not llvmpipe's GL).
        let mut indices = vec![IndexMath::U32, IndexMath::U32Pair];
        if p.caps().int64 {
            indices.push(IndexMath::U64);
        }
        for (i, (shape, perm, axis, n)) in cases.into_iter().enumerate() {
            for &index in &indices {
                let at = (i + k) as u64;
                let op = Relayout::permute(shape, perm, from.size())
                    .unwrap()
                    .with_options(Options {
                        index: Some(index),
                        ..generic
                    })
                    .with_offsets(4 * at * from.size() as u64, 4 * at * to.size() as u64);
                ops.push(op.with_conversion(affine(axis, n)).unwrap());
            }
        }
        // A padded view: channels blocked by 4 (two of them padding), the affine over the
        // 4 channel positions of each block (the fill is not converted) and over the blocks.
        let fill = vec![0u8; to.size()];
        for (axis, n) in [(4, 4), (1, 2)] {
            let blocked = Relayout::rearrange_padded(
                "n h w (cb c) -> n cb h w c",
                &[2, 3, 5, 6],
                &[("c", 4)],
                from.size(),
                &fill,
            )
            .unwrap()
            .with_options(generic);
            ops.push(blocked.with_conversion(affine(axis, n)).unwrap());
        }
    }
    for (op, result) in ops.iter().zip(common::check_many(p, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(plan.kernel(), Kernel::Generic, "{plan}");
    }
}
