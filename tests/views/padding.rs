//! Padding (bounds with a fill value), strips, padded blocked layouts and strided outputs.

use super::*;

#[test]
fn padding_reads_the_fill_value_outside_the_bounds() {
    for elem in [1, 2, 4, 8, 16] {
        let fill: Vec<u8> = (0..elem as u8).map(|b| 0xF0 | b).collect();
        check(&padded_4x5(), elem, 20, &fill);
    }
    // A valid range reaching past 32 bits (it is clamped to the dim, for 32-bit index math).
    let mut open_ended = padded_4x5();
    open_ended.bounds[0].valid = 1..1 << 32;
    open_ended.shape[0] = 5;
    check(&open_ended, 4, 20, &[0xF0; 4]);
    // NCHW -> NCHW4c on 6 channels: `n (cb c) h w -> n cb h w c`, c = 4, 2 channels padded.
    let (n, ch, h, w) = (2, 6, 3, 5);
    let nchw4c = View {
        shape: vec![n, 2, h, w, 4],
        strides: vec![
            (ch * h * w) as isize,
            (4 * h * w) as isize,
            w as isize,
            1,
            (h * w) as isize,
        ],
        offset: 0,
        bounds: vec![Bound {
            dims: vec![1, 4],
            valid: 0..ch,
        }],
        dst_strides: None,
    };
    let req = request(&nchw4c, 4, n * ch * h * w, &[0; 4]);
    let p = plan::plan_view(&req, &DeviceCaps::default(), &Default::default()).unwrap();
    assert!(p.variant().unwrap().padded());
    for elem in [1, 2, 4] {
        let fill = vec![0xEE; elem];
        check(&nchw4c, elem, n * ch * h * w, &fill);
    }
    // A bound over broadcast dims, named in another order than the output's: its combined
    // index reads them in the bound's order (`i1 * 2 + i0 < 3` here, not `i0 * 3 + i1`).
    let broadcast = View {
        shape: vec![2, 3, 4],
        strides: vec![0, 0, 1],
        offset: 0,
        bounds: vec![Bound {
            dims: vec![1, 0],
            valid: 0..3,
        }],
        dst_strides: None,
    };
    for elem in [1, 4] {
        check(&broadcast, elem, 4, &vec![0xEE; elem]);
    }
}

/// Views that keep a short dim contiguous on its side are strips on CPU devices: images
/// to planes with the batch flipped, planes to interleaved channels written into a window
/// of a larger tensor. A padded one is not (a strip reads its rows whole).
#[test]
fn views_with_a_short_contiguous_dim_move_as_strips() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let (n, hw) = (3, 1920);
    // `x[::-1].transpose(0, 2, 1)` of a contiguous [n, hw, 3].
    let flipped = View {
        shape: vec![n, 3, hw],
        strides: vec![-3 * hw as isize, 1, 3],
        offset: (3 * hw * (n - 1)) as isize,
        ..View::contiguous(&[])
    };
    // [n, 3, hw] -> [n, hw, 3] into a destination whose images are 16 elements apart.
    let windowed = View {
        dst_strides: Some(vec![3 * hw + 16, 3, 1]),
        ..View::permuted(&[n, 3, hw], &[0, 2, 1]).unwrap()
    };
    // `np.pad` of the batch around the flipped view.
    let mut padded = flipped.clone();
    padded.shape[0] += 1;
    padded.bounds = vec![Bound {
        dims: vec![0],
        valid: 0..n,
    }];
    for elem in [1, 2, 4, 8] {
        let strip = |v: &View| {
            let req = ViewRequest {
                dst_len: v.dst_span().unwrap(),
                ..request(v, elem, n * 3 * hw, &[0; 8][..elem])
            };
            let p = plan::plan_view(&req, &cpu, &Default::default()).unwrap();
            p.variant().and_then(|v| v.block()).and_then(|b| b.strip)
        };
        // Packed (8/16-bit) data moves whole words, which a flipped batch does not keep, and
        // is written through destination strides only in rows of whole words.
        let packed = elem < 4;
        let flips = (!packed).then_some(Strip::Cols(3));
        assert_eq!(strip(&flipped), flips, "{elem} B");
        assert_eq!(strip(&padded), None, "{elem} B");
        if !packed {
            assert_eq!(strip(&windowed), Some(Strip::Rows(3)), "{elem} B");
        }
        let Some(p) = gpu() else { return };
        for v in [&flipped, &padded]
            .into_iter()
            .chain((!packed).then_some(&windowed))
        {
            let data = test_bytes(n * 3 * hw * elem, elem as u64);
            let fill = vec![0xEE; elem];
            let want = reference::materialize_bytes(&data, v, elem, &fill, v.dst_span().unwrap());
            let got = materialize(p, &data, v, elem, &fill, Options::default());
            assert!(got.unwrap() == want.unwrap(), "{v:?} ({elem} B)");
        }
    }
}

/// Padded views whose bounds fall on whole block rows (the channels of a blocked layout, a
/// batch dim) run on the micro kernel on CPU devices and gather on GPUs; a bound on the
/// source's innermost dim keeps a CPU device on the generic kernel too. Each runs against
/// the reference with a fill that shows.
#[test]
fn padded_blocked_layouts_run_on_micro_blocks() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let on = |v: &View, elem: usize, src_len: usize, caps: &DeviceCaps| {
        let fill = vec![0xEE; elem];
        let req = ViewRequest {
            dst_len: v.dst_span().unwrap(),
            ..request(v, elem, src_len, &fill)
        };
        let p = plan::plan_view(&req, caps, &Default::default()).unwrap();
        (p.kernel(), p.reasons().kernel)
    };
    // `n (cb c) h w -> n cb h w c` on `ch` channels, blocks of `c` (the last block padded),
    // and one more image of padding: `np.pad` of the batch, then the blocking.
    for (elem, c) in [
        (1, 4),
        (1, 16),
        (2, 4),
        (2, 8),
        (4, 4),
        (4, 8),
        (8, 2),
        (8, 4),
    ] {
        let (n, ch, hw) = (2, c + c / 2, 48);
        let v = View {
            shape: vec![n + 1, 2, hw, c],
            strides: vec![(ch * hw) as isize, (c * hw) as isize, 1, hw as isize],
            offset: 0,
            bounds: vec![
                Bound {
                    dims: vec![0],
                    valid: 0..n,
                },
                Bound {
                    dims: vec![1, 3],
                    valid: 0..ch,
                },
            ],
            dst_strides: None,
        };
        let src_len = n * ch * hw;
        assert_eq!(
            on(&v, elem, src_len, &cpu),
            (Kernel::Micro, KernelReason::CpuMicro),
            "{elem} B, c = {c}"
        );
        assert_eq!(
            on(&v, elem, src_len, &DeviceCaps::default()),
            (Kernel::Generic, KernelReason::View)
        );
        check(&v, elem, src_len, &vec![0xEE; elem]);
    }
    // A batch bound that starts past 0, and one whose range is empty (start past its end:
    // all fill): the micro kernel compares each index less the start with the range's
    // length; a view that reads nothing binds one unit of the source, too little for its
    // 16-byte accesses: its blocks move 4 bytes at a time.
    let (hw, c) = (48, 4);
    for (start, end) in [(1, 2), (2, 1)] {
        let v = View {
            shape: vec![3, 2, hw, c],
            strides: vec![(6 * hw) as isize, (c * hw) as isize, 1, hw as isize],
            offset: 0,
            bounds: vec![
                Bound {
                    dims: vec![0],
                    valid: start..end,
                },
                Bound {
                    dims: vec![1, 3],
                    valid: 0..6,
                },
            ],
            dst_strides: None,
        };
        let src_len = 2 * 6 * hw;
        assert_eq!(on(&v, 4, src_len, &cpu).0, Kernel::Micro, "{start}..{end}");
        check(&v, 4, src_len, &[0xEE; 4]);
    }
    // `np.pad(x.T, ((0, 4), (0, 0)))` of an [8, 16] tensor: the bound is on the source's
    // innermost dim, whose block rows the micro kernel reads whole.
    let v = View {
        shape: vec![20, 8],
        strides: vec![1, 16],
        offset: 0,
        bounds: vec![Bound {
            dims: vec![0],
            valid: 0..16,
        }],
        dst_strides: None,
    };
    assert_eq!(on(&v, 4, 128, &cpu), (Kernel::Generic, KernelReason::View));
    check(&v, 4, 128, &[0xEE; 4]);
}

#[test]
fn a_strided_output_writes_a_window_of_a_larger_tensor() {
    let Some(p) = gpu() else { return };
    // Concatenation along dim 1: a [3, 4] tensor into columns 2..6 of a [3, 10] one.
    let v = View {
        dst_strides: Some(vec![10, 1]),
        ..View::contiguous(&[3, 4])
    };
    let data: Vec<u32> = (1..=12).collect();
    let op = Relayout::view(v.clone(), data.len(), 4).unwrap();
    let out = p.run(&op, &data).unwrap();
    assert_eq!(out.len(), 2 * 10 + 4);
    let want =
        reference::materialize_bytes(bytemuck::cast_slice(&data), &v, 4, &[], out.len()).unwrap();
    assert_eq!(bytemuck::cast_slice::<u32, u8>(&out), &want[..]);
    assert_eq!(&out[10..14], &[5, 6, 7, 8]);
}
