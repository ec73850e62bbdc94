//! Views: slices, flips, broadcasts, padding and strided outputs, materialised on the GPU and
//! checked against the CPU reference; the planner's invariants for them.

mod common;

use common::{gpu, materialize, test_bytes};
use proptest::prelude::*;
use wgpu_permute::plan::{self, KernelReason, Strip, view};
use wgpu_permute::{
    Bound, DeviceCaps, Kernel, Options, PermuteError, Relayout, Request, View, ViewRequest,
    reference,
};

fn request<'a>(v: &'a View, elem: usize, src_len: usize, fill: &'a [u8]) -> ViewRequest<'a> {
    ViewRequest::new(v, elem, src_len, v.len()).with_fill(fill)
}

fn plan_of(v: &View, elem: usize, src_len: usize) -> wgpu_permute::Plan {
    plan::plan_view(
        &request(v, elem, src_len, &[]),
        &DeviceCaps::default(),
        &Default::default(),
    )
    .unwrap()
}

/// Materialises on the GPU and compares with the reference; returns the plan's kernel.
fn check(v: &View, elem: usize, src_len: usize, fill: &[u8]) {
    let Some(p) = gpu() else { return };
    let data = test_bytes(src_len * elem, (v.shape.len() * 31 + elem) as u64);
    let want = reference::materialize_bytes(&data, v, elem, fill, v.len()).unwrap();
    let got = materialize(p, &data, v, elem, fill, Options::default())
        .unwrap_or_else(|e| panic!("{v:?}: {e}"));
    assert!(
        got == want,
        "{v:?} ({elem} B): GPU differs from the reference"
    );
}

#[test]
fn a_permuted_view_plans_exactly_as_the_permute() {
    let caps = DeviceCaps::default();
    for (shape, perm, elem) in [
        (&[64usize, 512, 512][..], &[0usize, 2, 1][..], 4usize),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 2),
        (&[3, 1000, 7], &[2, 0, 1], 1),
        (&[2, 1, 5], &[2, 1, 0], 8),
    ] {
        let v = View::permuted(shape, perm).unwrap();
        let n = v.len();
        let viewed = plan_of(&v, elem, n);
        let permuted = plan::plan(&Request::new(shape, perm, elem), &caps).unwrap();
        assert_eq!(
            (viewed.kernel, viewed.unit, &viewed.dims, &viewed.dims_perm),
            (
                permuted.kernel,
                permuted.unit,
                &permuted.dims,
                &permuted.dims_perm
            ),
            "{shape:?} {perm:?}"
        );
        assert!(viewed.view.is_none());
    }
}

#[test]
fn a_slice_of_rows_is_row_copies_at_the_widest_unit() {
    // Every other row of a [64, 48] f32 tensor, columns 8..40: rows of 128 bytes.
    let v = View {
        shape: vec![32, 32],
        strides: vec![96, 1],
        offset: 8,
        ..View::contiguous(&[])
    };
    let p = plan_of(&v, 4, 64 * 48);
    assert_eq!(
        (p.kernel, p.unit, p.reasons.kernel),
        (Kernel::Generic, 16, KernelReason::View)
    );
    assert_eq!(p.dims, [32, 8]);
    check(&v, 4, 64 * 48, &[]);
    // A contiguous run of a tensor is one buffer copy.
    let run = View {
        offset: 96,
        ..View::contiguous(&[10, 48])
    };
    assert_eq!(plan_of(&run, 4, 64 * 48).kernel, Kernel::Copy);
    check(&run, 4, 64 * 48, &[]);
}

/// `x[::2, 8:40].T` of a [64, 48] tensor, then with its batch of 3 broadcast (stride 0),
/// its rows reversed, and written into a window of a larger destination: views that are
/// not permutes, whose stride-1 source dim is not the output's innermost.
fn tileable_views() -> Vec<(View, usize)> {
    let t = View {
        shape: vec![32, 32],
        strides: vec![1, 96],
        offset: 8,
        ..View::contiguous(&[])
    };
    let broadcast = View {
        shape: vec![3, 32, 32],
        strides: vec![0, 1, 96],
        ..t.clone()
    };
    let reversed = View {
        strides: vec![1, -96],
        offset: 8 + 31 * 96,
        ..t.clone()
    };
    let window = View {
        dst_strides: Some(vec![40, 1]),
        ..t.clone()
    };
    let n = 64 * 48;
    vec![(t, n), (broadcast, n), (reversed, n), (window, n)]
}

#[test]
fn views_tile_when_a_contiguous_source_dim_is_not_the_output_innermost() {
    let gpu_caps = DeviceCaps::default();
    let cpu_caps = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    for (v, n) in tileable_views() {
        let plan = |caps: &DeviceCaps| {
            let req = request(&v, 4, n, &[]);
            plan::plan_view(
                &ViewRequest {
                    dst_len: v.dst_span().unwrap(),
                    ..req
                },
                caps,
                &Default::default(),
            )
            .unwrap()
        };
        let (gpu, cpu) = (plan(&gpu_caps), plan(&cpu_caps));
        assert_eq!(
            (gpu.kernel, gpu.reasons.kernel),
            (Kernel::Tiled, KernelReason::GpuTiled),
            "{v:?}"
        );
        assert_eq!(
            (cpu.kernel, cpu.reasons.kernel),
            (Kernel::Micro, KernelReason::CpuMicro),
            "{v:?}"
        );
    }
    // Padded, the view gathers on the generic kernel.
    let padded = View {
        bounds: vec![Bound {
            dims: vec![1],
            valid: 0..30,
        }],
        ..tileable_views()[0].0.clone()
    };
    let req = request(&padded, 4, 64 * 48, &[0; 4]);
    let plan = plan::plan_view(&req, &gpu_caps, &Default::default()).unwrap();
    assert_eq!(plan.kernel, Kernel::Generic);
}

#[test]
fn tiled_and_micro_views_match_the_reference() {
    let Some(p) = gpu() else { return };
    for (v, n) in tileable_views() {
        for elem in [1, 2, 4, 8, 16] {
            let data = test_bytes(n * elem, (v.shape.len() * 7 + elem) as u64);
            let len = v.dst_span().unwrap();
            let want = reference::materialize_bytes(&data, &v, elem, &[], len).unwrap();
            let reversed = v.strides.iter().any(|&s| s < 0);
            for kernel in [Kernel::Tiled, Kernel::Micro] {
                let options = Options {
                    kernel: Some(kernel),
                    ..Options::default()
                };
                // Micro-tiles move up to 8 bytes; packed data reads its rows forwards.
                if (kernel == Kernel::Micro && elem > 8) || (reversed && elem < 4) {
                    assert!(materialize(p, &data, &v, elem, &[], options).is_err());
                    continue;
                }
                let got = materialize(p, &data, &v, elem, &[], options)
                    .unwrap_or_else(|e| panic!("{v:?} {elem} B {kernel:?}: {e}"));
                assert!(got == want, "{v:?} {elem} B on {kernel:?} differs");
            }
        }
    }
}

#[test]
fn flips_broadcasts_and_slices_match_the_reference() {
    for elem in [1, 2, 4, 8, 16] {
        // x[::-1, :, ::2] of a [5, 6, 8] tensor.
        check(
            &View {
                shape: vec![5, 6, 4],
                strides: vec![-48, 8, 2],
                offset: 4 * 48,
                ..View::contiguous(&[])
            },
            elem,
            240,
            &[],
        );
        // A [7] row broadcast to [3, 7], then transposed to [7, 3].
        check(
            &View {
                shape: vec![7, 3],
                strides: vec![1, 0],
                offset: 0,
                ..View::contiguous(&[])
            },
            elem,
            7,
            &[],
        );
        // The whole tensor reversed: x[::-1] flattened.
        check(
            &View {
                shape: vec![33],
                strides: vec![-1],
                offset: 32,
                ..View::contiguous(&[])
            },
            elem,
            33,
            &[],
        );
    }
}

/// `x[:, a:b][:, ::-1]`: a flipped row moves in the widest units its bytes and alignment
/// allow, read whole and put back in order; padded, element by element (the plain mode
/// only reverses units).
#[test]
fn a_flipped_row_moves_in_whole_units() {
    // (element size, row start, row length) -> unit
    let cases = [
        ((4, 0, 40), 16),
        ((4, 2, 38), 8),
        ((4, 1, 37), 4),
        ((2, 0, 40), 16),
        ((2, 2, 38), 4),
        ((1, 0, 40), 8),
        ((1, 4, 36), 4),
        ((1, 1, 36), 1),
        ((8, 0, 40), 16),
        ((16, 0, 40), 16),
    ];
    for ((elem, start, len), unit) in cases {
        let v = View {
            shape: vec![3, len],
            strides: vec![40, -1],
            offset: (start + len - 1) as isize,
            ..View::contiguous(&[])
        };
        let p = plan_of(&v, elem, 120);
        let layout = p.view.as_ref().unwrap();
        assert_eq!(
            (p.unit, layout.reversed),
            (unit, unit as usize > elem),
            "{elem} B from {start}, {len} long: {p}"
        );
        check(&v, elem, 120, &[]);
        let padded = View {
            bounds: vec![Bound {
                dims: vec![0],
                valid: 0..2,
            }],
            ..v
        };
        let fill = vec![0xA5; elem];
        let req = request(&padded, elem, 120, &fill);
        let p = plan::plan_view(&req, &DeviceCaps::default(), &Default::default()).unwrap();
        assert!(!p.view.as_ref().unwrap().reversed);
        check(&padded, elem, 120, &fill);
    }
}

/// `np.pad(x, ((1, 2), (0, 3)), constant_values=fill)` of a [4, 5] tensor.
fn padded_4x5() -> View {
    View {
        shape: vec![7, 8],
        strides: vec![5, 1],
        offset: -5,
        bounds: vec![
            Bound {
                dims: vec![0],
                valid: 1..5,
            },
            Bound {
                dims: vec![1],
                valid: 0..5,
            },
        ],
        dst_strides: None,
    }
}

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
        (p.kernel, p.reasons.kernel)
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

#[test]
fn bad_views_get_typed_errors() {
    let caps = DeviceCaps::default();
    let plan = |v: &View, src_len, fill: &[u8]| {
        plan::plan_view(&request(v, 4, src_len, fill), &caps, &Default::default())
    };
    // Reads past the source's end, or before its start.
    let past = View::contiguous(&[4, 5]);
    assert!(matches!(
        plan(&past, 19, &[]),
        Err(PermuteError::ViewOutOfBounds {
            which: "source",
            lowest: 0,
            highest: 19,
            have: 19
        })
    ));
    let before = View {
        strides: vec![-1],
        offset: 2,
        ..View::contiguous(&[4])
    };
    // A flip left at offset 0 reads before the start: the message names both ends.
    let err = plan(&before, 8, &[]).unwrap_err();
    assert_eq!(
        err,
        PermuteError::ViewOutOfBounds {
            which: "source",
            lowest: -1,
            highest: 2,
            have: 8
        }
    );
    assert!(err.to_string().contains("source elements -1 to 2"), "{err}");
    // Two output positions on one element.
    let overlap = View {
        dst_strides: Some(vec![2, 1]),
        ..View::contiguous(&[4, 3])
    };
    assert_eq!(
        plan(&overlap, 12, &[]).unwrap_err(),
        PermuteError::OverlappingOutput
    );
    // A fill that is not one element.
    assert_eq!(
        plan(&padded_4x5(), 20, &[1, 2]).unwrap_err(),
        PermuteError::FillSize { fill: 2, elem: 4 }
    );
    // Bounds over dims that are not the split of one dim, or out of range.
    let mut bad = padded_4x5();
    bad.bounds = vec![Bound {
        dims: vec![0, 1],
        valid: 0..20,
    }];
    bad.strides = vec![5, 2];
    assert!(matches!(
        plan(&bad, 20, &[0; 4]),
        Err(PermuteError::InvalidView(_))
    ));
    bad.bounds[0].dims = vec![2];
    assert!(matches!(
        plan(&bad, 20, &[0; 4]),
        Err(PermuteError::InvalidView(_))
    ));
    // Padding is allowed to start before the source: only existing positions count.
    assert!(plan(&padded_4x5(), 20, &[0; 4]).is_ok());
}

/// A random view of a contiguous source: per source dim a slice (start, length, step of
/// either sign), then padding, a permutation and a broadcast dim.
fn random_view() -> impl Strategy<Value = (View, usize, usize)> {
    let dims = prop::collection::vec((1usize..7, 0usize..3, 1isize..3, any::<bool>()), 1..4);
    (
        dims,
        prop::sample::select(vec![1usize, 2, 4, 8, 16]),
        any::<u64>(),
        prop::option::of((0usize..3, 0usize..3)),
        prop::option::of(1usize..4),
    )
        .prop_map(|(dims, elem, seed, pad, broadcast)| {
            let base: Vec<usize> = dims.iter().map(|d| d.0 + d.1 + 2).collect();
            let strides = view::row_major(&base);
            let mut shape = Vec::new();
            let mut vstrides = Vec::new();
            let mut offset = 0isize;
            for (i, &(len, start, step, reverse)) in dims.iter().enumerate() {
                let n = len.min((base[i] - start).div_ceil(step as usize));
                let s = strides[i] as isize * step;
                if reverse {
                    offset += (start + (n - 1) * step as usize) as isize * strides[i] as isize;
                    vstrides.push(-s);
                } else {
                    offset += (start * strides[i]) as isize;
                    vstrides.push(s);
                }
                shape.push(n);
            }
            let mut bounds = Vec::new();
            if let Some((lo, hi)) = pad {
                // Pad dim 0 by lo before and hi after.
                bounds.push(Bound {
                    dims: vec![0],
                    valid: lo..lo + shape[0],
                });
                offset -= lo as isize * vstrides[0];
                shape[0] += lo + hi;
            }
            if let Some(b) = broadcast {
                shape.push(b);
                vstrides.push(0);
            }
            // A permutation from the seed.
            let mut order: Vec<usize> = (0..shape.len()).collect();
            let mut x = seed | 1;
            for i in (1..order.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let rank_of: Vec<usize> = (0..order.len())
                .map(|d| order.iter().position(|&o| o == d).unwrap())
                .collect();
            let v = View {
                shape: order.iter().map(|&d| shape[d]).collect(),
                strides: order.iter().map(|&d| vstrides[d]).collect(),
                offset,
                bounds: bounds
                    .into_iter()
                    .map(|b| Bound {
                        dims: b.dims.iter().map(|&d| rank_of[d]).collect(),
                        valid: b.valid,
                    })
                    .collect(),
                dst_strides: None,
            };
            (v, elem, base.iter().product())
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_views_match_the_reference((v, elem, src_len) in random_view()) {
        let fill: Vec<u8> = (0..elem as u8).map(|b| 0xC0 | b).collect();
        check(&v, elem, src_len, &fill);
    }
}

/// On CPU devices the generic kernel moves runs of output units that step through the
/// source by the innermost dim's stride, whatever its sign: flipped, strided and broadcast
/// rows, of rank 1 and 2, match the reference.
#[test]
fn generic_runs_step_through_flipped_strided_and_broadcast_rows() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let views = [
        // x[::-1] of 64 elements.
        View {
            shape: vec![64],
            strides: vec![-1],
            offset: 63,
            ..View::contiguous(&[])
        },
        // x[:, ::-1] of a [6, 32] tensor (rows of whole runs of reversed units).
        View {
            shape: vec![6, 32],
            strides: vec![32, -1],
            offset: 31,
            ..View::contiguous(&[])
        },
        // x[:, ::2] of a [12, 16] tensor.
        View {
            shape: vec![12, 8],
            strides: vec![16, 2],
            offset: 0,
            ..View::contiguous(&[])
        },
        // A row of 32 broadcast to 12 rows.
        View {
            shape: vec![12, 32],
            strides: vec![0, 1],
            offset: 0,
            ..View::contiguous(&[])
        },
    ];
    for v in &views {
        for elem in [4, 8, 16] {
            let plan = plan::plan_view(&request(v, elem, 192, &[]), &cpu, &Default::default());
            let plan = plan.unwrap();
            assert!(plan.runs && plan.kernel == Kernel::Generic, "{plan}");
            assert!(!plan_of(v, elem, 192).runs, "runs are for CPU devices only");
            check(v, elem, 192, &[]);
        }
    }
}
