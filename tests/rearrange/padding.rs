//! Padding to a blocked layout and cropping back, each one pass.

use super::*;

/// NCHW with 6 channels -> NCHW4c (padded to 8 channels with a fill) -> NCHW (cropped back
/// to 6): each one pass, each against the layout computed by hand, for every element size.
#[test]
fn padding_to_a_blocked_layout_and_cropping_back_round_trip() {
    let Some(p) = gpu() else { return };
    for elem in [1, 2, 4, 8, 16] {
        // Cropping 8/16-bit data writes rows of whole words: h * w a multiple of 4.
        let (n, c, h, w) = if elem < 4 { (2, 6, 2, 6) } else { (2, 6, 3, 5) };
        let shape = [n, c, h, w];
        let len = n * c * h * w;
        let data = test_bytes(len * elem, 40 + elem as u64);
        let fill: Vec<u8> = (0..elem as u8).map(|b| 0xF0 | b).collect();
        let to = "n (cb c) h w -> n cb h w c";
        let (blocked, out_shape) = run(
            p,
            Relayout::rearrange_padded(to, &shape, &[("c", 4)], elem, &fill),
            &data,
        )
        .unwrap_or_else(|e| panic!("{elem} B: {e}"));
        assert_eq!(out_shape, [n, 2, h, w, 4]);
        // By hand: channel cb * 4 + k of the input, or the fill past channel 5.
        let mut want = Vec::new();
        for (i0, i1, i2, i3, i4) in itertools(n, 2, h, w, 4) {
            let ch = i1 * 4 + i4;
            if ch < c {
                want.extend_from_slice(&data[(((i0 * c + ch) * h + i2) * w + i3) * elem..][..elem]);
            } else {
                want.extend_from_slice(&fill);
            }
        }
        assert!(blocked == want, "{elem} B: NCHW4c differs");
        let back = "n cb h w c -> n (cb c) h w";
        let cropped = run(
            p,
            Relayout::rearrange_cropped(back, &out_shape, &[], elem, &shape),
            &blocked,
        )
        .map(|(out, _)| out)
        .unwrap_or_else(|e| panic!("{elem} B: {e}"));
        assert!(cropped == data, "{elem} B: cropping back differs");
    }
    // Rows that do not fill whole words are refused, typed.
    let bytes = vec![0u8; 2 * 8 * 3 * 5];
    let e = run(
        p,
        Relayout::rearrange_cropped(
            "n cb h w c -> n (cb c) h w",
            &[2, 2, 3, 5, 4],
            &[],
            1,
            &[2, 6, 3, 5],
        ),
        &bytes,
    )
    .map(|(out, _)| out)
    .unwrap_err();
    assert!(matches!(e, PermuteError::InvalidView(_)), "{e:?}");
    // Typed slices, and the buffer API.
    let (n, c, h, w) = (2, 6, 3, 5);
    let shape = [n, c, h, w];
    let len = n * c * h * w;
    let data: Vec<f32> = (0..len).map(|i| i as f32).collect();
    let (blocked, out_shape) = run(
        p,
        Relayout::rearrange_padded(
            "n (cb c) h w -> n cb h w c",
            &shape,
            &[("c", 4)],
            elem_of(&data),
            bytemuck::bytes_of(&-1.0f32),
        ),
        &data,
    )
    .unwrap();
    assert_eq!(
        blocked.iter().filter(|&&v| v == -1.0).count(),
        n * 2 * h * w
    );
    let back: Vec<f32> = run(
        p,
        Relayout::rearrange_cropped(
            "n cb h w c -> n (cb c) h w",
            &out_shape,
            &[],
            elem_of(&blocked),
            &shape,
        ),
        &blocked,
    )
    .map(|(out, _)| out)
    .unwrap();
    assert_eq!(back, data);
    let bytes: &[u8] = bytemuck::cast_slice(&blocked);
    let [src, dst, readback] = buffers(p, bytes);
    let (plans, _) = submit(
        p,
        &src,
        &dst,
        Relayout::rearrange_cropped("n cb h w c -> n (cb c) h w", &out_shape, &[], 4, &shape),
    )
    .unwrap();
    assert_eq!(plans.len(), 2, "cb = 0 whole, then cb = 1 with c < 2");
    let mut encoder = p.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, readback.size());
    p.queue().submit([encoder.finish()]);
    let out = read_buffer(p.device(), &readback, (len * 4) as u64).unwrap();
    assert!(out == bytemuck::cast_slice::<f32, u8>(&data));
    // Errors: a crop larger than the output, a fill of the wrong size, a short input.
    let e = run(
        p,
        Relayout::rearrange_cropped(
            "n cb h w c -> n (cb c) h w",
            &out_shape,
            &[],
            elem_of(&blocked),
            &[2, 9, 3, 5],
        ),
        &blocked,
    )
    .map(|(out, _)| out)
    .unwrap_err();
    assert!(
        matches!(
            e,
            PermuteError::Rearrange(RearrangeError::CropTooLarge {
                dim: 1,
                extent: 8,
                crop: 9
            })
        ),
        "{e:?}"
    );
    let e = run(
        p,
        Relayout::rearrange_padded(
            "n (cb c) h w -> n cb h w c",
            &shape,
            &[("c", 4)],
            4,
            &[0; 2],
        ),
        &data_bytes(&data),
    )
    .unwrap_err();
    assert_eq!(e, PermuteError::FillSize { fill: 2, elem: 4 });
    let e = run(
        p,
        Relayout::rearrange_padded(
            "n (cb c) h w -> n cb h w c",
            &shape,
            &[("c", 4)],
            elem_of(&data[1..]),
            bytemuck::bytes_of(&0.0f32),
        ),
        &data[1..],
    )
    .unwrap_err();
    assert_eq!(
        e,
        PermuteError::DataLength {
            need: len,
            have: len - 1
        }
    );
}

fn data_bytes(data: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(data).to_vec()
}

/// Every index of a 5-dim shape, row-major.
fn itertools(
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    e: usize,
) -> Vec<(usize, usize, usize, usize, usize)> {
    let mut all = Vec::new();
    for i0 in 0..a {
        for i1 in 0..b {
            for i2 in 0..c {
                for i3 in 0..d {
                    for i4 in 0..e {
                        all.push((i0, i1, i2, i3, i4));
                    }
                }
            }
        }
    }
    all
}
