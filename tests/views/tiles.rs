//! Views that are not permutes on the tiled and micro kernels, flips, broadcasts, slices, and
//! flipped rows moved in whole units.

use super::*;

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
            (gpu.kernel(), gpu.reasons().kernel),
            (Kernel::Tiled, KernelReason::GpuTiled),
            "{v:?}"
        );
        assert_eq!(
            (cpu.kernel(), cpu.reasons().kernel),
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
    assert_eq!(plan.kernel(), Kernel::Generic);
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
                // Packed data reads its rows forwards.
                if reversed && elem < 4 {
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
        let layout = p.view().unwrap();
        assert_eq!(
            (p.unit(), layout.reversed),
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
        assert!(!p.view().unwrap().reversed);
        check(&padded, elem, 120, &fill);
    }
}
