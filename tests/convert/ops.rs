//! Permutes that convert, run by a permuter on the GPU, against the reference: every pair
//! of types bit for bit, the affine within its bound, and the refusals.

use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::{DeviceCaps, Kernel, Options};
use wgpu_permute::{PermuteError, Relayout, View, reference};

use super::{common, gpu::ulp, same};

/// Elements of `dtype` from `bytes`, as bits.
fn elements(dtype: Dtype, bytes: &[u8]) -> Vec<u32> {
    super::bits_of(dtype, bytes)
}

#[test]
fn permutes_convert_every_pair_as_the_reference_does() {
    let Some(p) = common::gpu() else { return };
    // The last two end in output rows of 8: runs on CPU adapters.
    let shapes: [(&[usize], &[usize]); 6] = [
        (&[5, 7, 3], &[2, 0, 1]),
        (&[4, 9], &[1, 0]),
        (&[2, 3, 4, 5], &[0, 2, 3, 1]),
        (&[13], &[0]),
        (&[3, 16, 8], &[1, 0, 2]),
        (&[24, 16], &[1, 0]),
    ];
    let mut checked = 0;
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            for (i, (shape, perm)) in shapes.into_iter().enumerate() {
                let n: usize = shape.iter().product();
                let op = Relayout::permute(shape, perm, from.size())
                    .unwrap()
                    .with_offsets(4 * i as u64, 8 * i as u64)
                    .with_conversion(Conversion::new(from, to).unwrap())
                    .unwrap();
                let src = common::test_bytes(n * from.size(), (checked + i) as u64);
                let got = p.run::<u8, u8>(&op, &src).unwrap();
                let want = reference::run(&op, &src).unwrap();
                assert_eq!(got.len(), n * to.size());
                for (k, (g, w)) in elements(to, &got)
                    .into_iter()
                    .zip(elements(to, &want))
                    .enumerate()
                {
                    assert!(
                        same(to, g, w),
                        "{} -> {} {shape:?} {perm:?}, element {k}: GPU {g:#x}, reference {w:#x}",
                        from.name(),
                        to.name()
                    );
                }
                checked += n;
            }
        }
    }
    eprintln!("{checked} elements permuted and converted, bit for bit");
}

#[test]
fn images_normalise_and_heads_narrow_within_the_bound() {
    let Some(p) = common::gpu() else { return };
    let mean = [0.485, 0.456, 0.406];
    let std = [0.229, 0.224, 0.225];
    let normalise = |from, to| {
        Conversion::new(from, to)
            .unwrap()
            .normalized(1, &mean, &std)
            .unwrap()
    };
    let heads = Conversion::new(Dtype::F32, Dtype::F16)
        .unwrap()
        .with_affine(1, &[1.0, 0.5, 0.25, 0.125], &[0.0; 4])
        .unwrap();
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .unwrap()
        .with_affine(2, &[255.0, 200.0, 100.0], &[0.5, 0.0, -3.0])
        .unwrap();
    let nhwc: (&[usize], &[usize]) = (&[2, 6, 5, 3], &[0, 3, 1, 2]);
    let cases: Vec<(&str, &[usize], &[usize], Conversion)> = vec![
        // NHWC u8 images -> NCHW normalised planes.
        (
            "u8 NHWC -> f32 NCHW",
            nhwc.0,
            nhwc.1,
            normalise(Dtype::U8, Dtype::F32),
        ),
        (
            "u8 NHWC -> f16 NCHW",
            nhwc.0,
            nhwc.1,
            normalise(Dtype::U8, Dtype::F16),
        ),
        (
            "u8 NHWC -> bf16 NCHW",
            nhwc.0,
            nhwc.1,
            normalise(Dtype::U8, Dtype::BF16),
        ),
        // And back: planes of floats to interleaved, rounded, clamped bytes.
        ("f32 CHW -> u8 HWC", &[3, 8, 8], &[1, 2, 0], to_bytes),
        // Attention heads: [b, s, h, d] f32 -> [b, h, s, d] f16, scaled per head.
        (
            "f32 -> f16 head split",
            &[2, 16, 4, 8],
            &[0, 2, 1, 3],
            heads,
        ),
    ];
    for (label, shape, perm, c) in cases {
        let (from, to) = (c.from(), c.to());
        let plain = Relayout::permute(shape, perm, from.size()).unwrap();
        let op = plain.clone().with_conversion(c.clone()).unwrap();
        // Finite sources of moderate size: images' bytes, floats in [-8, 8).
        let src: Vec<u8> = (0..op.src_len())
            .flat_map(|i| {
                let bits = match from {
                    Dtype::F32 => (((i * 37) % 256) as f32 / 16.0 - 8.0).to_bits(),
                    _ => ((i * 37) % 256) as u32,
                };
                bits.to_le_bytes()[..from.size()].to_vec()
            })
            .collect();
        let got = elements(to, &p.run::<u8, u8>(&op, &src).unwrap());
        let moved = elements(from, &reference::run(&plain, &src).unwrap());
        let want = elements(to, &reference::run(&op, &src).unwrap());
        let affine = c.affine().unwrap();
        let out = op.out_shape();
        let inner: usize = out[affine.axis + 1..].iter().product();
        for (k, ((&g, &w), &x)) in got.iter().zip(&want).zip(&moved).enumerate() {
            let ch = k / inner % out[affine.axis];
            let (scale, bias) = (affine.scale[ch], affine.bias[ch]);
            let v = from.value(x);
            let exact = v * f64::from(scale) + f64::from(bias);
            let bound =
                4.0 * (-24f64).exp2() * ((v * f64::from(scale)).abs() + f64::from(bias).abs())
                    + ulp(to, exact)
                    + (-126f64).exp2() * (1.0 + f64::from(scale).abs());
            let (g, w) = (to.value(g), to.value(w));
            assert!(
                (g - w).abs() <= bound,
                "{label}, element {k}: GPU {g}, reference {w} (bound {bound})"
            );
        }
    }
}

#[test]
fn conversions_that_cannot_run_are_refused() {
    let f32_to_f16 = || Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let invalid = |r: Result<Relayout, PermuteError>| match r {
        Err(PermuteError::InvalidConversion(why)) => why,
        other => panic!("{other:?}"),
    };
    // The element size is the source type's.
    let op = Relayout::permute(&[4, 4], &[1, 0], 2).unwrap();
    assert!(invalid(op.with_conversion(f32_to_f16())).contains("has 4 bytes"));
    // A channel axis the output lacks, or a count that does not match it.
    let op = Relayout::permute(&[4, 3], &[1, 0], 4).unwrap();
    let affine = |axis, n| {
        f32_to_f16()
            .with_affine(axis, &vec![1.0; n], &vec![0.0; n])
            .unwrap()
    };
    assert!(invalid(op.clone().with_conversion(affine(2, 3))).contains("does not exist"));
    assert!(invalid(op.clone().with_conversion(affine(1, 3))).contains("3 channel values"));
    assert!(op.clone().with_conversion(affine(0, 3)).is_ok());
    // A padded view's fill is a destination element.
    let padded = wgpu_permute::View::contiguous(&[4, 3])
        .pad(1, 1, 1)
        .unwrap();
    let view = Relayout::view(padded, 12, 4).unwrap().with_fill(&[0; 4]);
    assert!(matches!(
        view.with_conversion(f32_to_f16())
            .unwrap()
            .plan(&DeviceCaps::webgpu()),
        Err(PermuteError::FillSize { fill: 4, elem: 2 })
    ));
    // Per-channel values over several parts (a crop of merged axes) do not convert yet.
    let crop = Relayout::rearrange_cropped(
        "n cb h w c -> n (cb c) h w",
        &[1, 2, 2, 2, 4],
        &[],
        4,
        &[1, 6, 2, 2],
    )
    .unwrap();
    assert!(crop.views().len() > 1);
    assert!(invalid(crop.with_conversion(affine(1, 6))).contains("several parts"));
    // Another kernel cannot be forced.
    let forced = Relayout::permute(&[64, 64], &[1, 0], 4)
        .unwrap()
        .with_options(Options {
            kernel: Some(Kernel::Tiled),
            ..Options::default()
        })
        .with_conversion(f32_to_f16())
        .unwrap();
    assert!(matches!(
        forced.plan(&DeviceCaps::webgpu()),
        Err(PermuteError::ForcedChoice { .. })
    ));
    // Past one binding: boxes over windows (576 MB of f32 into 288 MB of f16), each
    // within WebGPU's 128 MiB; a padded view past it is a limit.
    let big = Relayout::permute(&[12_000, 12_000], &[1, 0], 4)
        .unwrap()
        .with_conversion(f32_to_f16())
        .unwrap();
    let plans = big.plan(&DeviceCaps::webgpu()).unwrap();
    let limit = DeviceCaps::webgpu().max_storage_binding;
    assert!(plans[0].chunks().len() > 4, "{}", plans[0]);
    for chunk in plans[0].chunks() {
        assert!(chunk.src_window.1 <= limit && chunk.dst_window.1 <= limit);
    }
    let padded = View::contiguous(&[12_000, 12_000]).pad(0, 1, 1).unwrap();
    let view = Relayout::view(padded, 144_000_000, 4)
        .unwrap()
        .with_conversion(f32_to_f16())
        .unwrap()
        .with_fill(&[0, 0]);
    assert!(matches!(
        view.plan(&DeviceCaps::webgpu()),
        Err(PermuteError::DeviceLimit { .. })
    ));
    // A small one at the end of a large buffer: one box, its windows where it lies.
    let padded = View::contiguous(&[64, 64]).pad(0, 1, 1).unwrap();
    let view = Relayout::view(padded, 64 * 64, 4)
        .unwrap()
        .with_offsets(200 << 20, 300 << 20)
        .with_conversion(f32_to_f16())
        .unwrap()
        .with_fill(&[0, 0]);
    let plans = view.plan(&DeviceCaps::webgpu()).unwrap();
    let [chunk] = plans[0].chunks() else {
        panic!("{}", plans[0])
    };
    assert!(
        chunk.src_window.0 >= limit && chunk.dst_window.0 >= limit,
        "{chunk:?}"
    );
    assert!(
        chunk.src_window.1 <= 1 << 20 && chunk.dst_window.1 <= 1 << 20,
        "{chunk:?}"
    );
}

#[test]
fn views_and_rearrangements_convert_as_the_reference_does() {
    let Some(p) = common::gpu() else { return };
    let pairs = [
        (Dtype::U8, Dtype::F32),
        (Dtype::F16, Dtype::F32),
        (Dtype::F32, Dtype::F16),
        (Dtype::F32, Dtype::BF16),
        (Dtype::I16, Dtype::U8),
        (Dtype::U16, Dtype::F16),
    ];
    let mut checked = 0;
    for (k, (from, to)) in pairs.into_iter().enumerate() {
        let elem = from.size();
        let base = View::contiguous(&[12, 16]);
        let views = [
            (
                "slice",
                base.clone()
                    .slice(0, 1..11, 3)
                    .unwrap()
                    .slice(1, 2..16, 2)
                    .unwrap(),
            ),
            (
                "flip",
                base.clone()
                    .invert_axis(1)
                    .unwrap()
                    .permuted_axes(&[1, 0])
                    .unwrap(),
            ),
            (
                "broadcast",
                View::contiguous(&[1, 16]).broadcast(&[5, 16]).unwrap(),
            ),
        ];
        let mut ops: Vec<(String, Relayout)> = views
            .into_iter()
            .map(|(name, view)| {
                let src_len = if name == "broadcast" { 16 } else { 12 * 16 };
                (
                    name.to_string(),
                    Relayout::view(view, src_len, elem).unwrap(),
                )
            })
            .collect();
        let rearrange =
            |pattern: &str| Relayout::rearrange(pattern, &[2, 6, 8, 3], &[("h", 6)], elem).unwrap();
        ops.push(("b h w c -> b c h w".into(), rearrange("b h w c -> b c h w")));
        ops.push((
            "b h w c -> b c (h w)".into(),
            rearrange("b h w c -> b c (h w)"),
        ));
        let c = Conversion::new(from, to).unwrap();
        // The channel axis of the rearranged image, normalised.
        let normalise = c
            .clone()
            .normalized(1, &[0.5, 0.25, 0.75], &[0.5, 2.0, 0.25])
            .unwrap();
        for (label, op) in ops {
            let conversion = if label.contains("->") {
                normalise.clone()
            } else {
                c.clone()
            };
            let op = op.with_conversion(conversion).unwrap();
            let src = common::test_bytes(op.src_len() * elem, (k * 10 + checked) as u64);
            let got = p.run::<u8, u8>(&op, &src).unwrap();
            assert_eq!(
                reference::first_mismatch(&op, &src, &got).unwrap(),
                None,
                "{} -> {} {label}",
                from.name(),
                to.name()
            );
            checked += 1;
        }
    }
    eprintln!("{checked} views and rearrangements converted as the reference does");
}

/// Quads (an innermost dim that stays, moved 4 elements per access on each side), alone
/// and in runs: every pair, plain conversions (rank 1) and head splits, at offsets of
/// whole quads; the affine's channel inside a quad and across rows; with guard bytes. On
/// CPU adapters whose copies run faster as 64-bit components the quads of 8 and 16 bytes
/// move so; forced on (devices with `SHADER_INT64`, whatever their timing chose) too, and
/// forced off, as 32-bit ones.
#[test]
fn quads_convert_every_pair() {
    let Some(p) = common::gpu() else { return };
    let caps = p.caps();
    let wide_quads = caps.cpu && caps.int64 && caps.access64_faster;
    let mut ops = Vec::new();
    let mut wide = Vec::new();
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            let c = Conversion::new(from, to).unwrap();
            let at = |k: u64| (4 * from.size() as u64 * k, 4 * to.size() as u64 * k);
            // The last two in runs of quads on CPU adapters (rows of 32).
            let shapes: [(&[usize], &[usize]); 4] = [
                (&[36], &[0]),
                (&[3, 5, 8], &[1, 0, 2]),
                (&[64], &[0]),
                (&[3, 2, 32], &[1, 0, 2]),
            ];
            let narrow = Options {
                access64: Some(false),
                ..Options::default()
            };
            let quad_wide = from.size().max(to.size()) >= 2;
            let pairs_wide = wide_quads && quad_wide;
            let forced = Options {
                access64: Some(true),
                ..Options::default()
            };
            for (k, (shape, perm)) in shapes.into_iter().enumerate() {
                let (s, d) = at(k as u64 + 1);
                let op = Relayout::permute(shape, perm, from.size())
                    .unwrap()
                    .with_offsets(s, d);
                let on = (caps.int64 && quad_wide).then(|| (op.clone().with_options(forced), true));
                let kinds = [(op.clone(), pairs_wide), (op.with_options(narrow), false)];
                for (op, wide_here) in kinds.into_iter().chain(on) {
                    ops.push(op.with_conversion(c.clone()).unwrap());
                    wide.push(wide_here);
                }
            }
            // Channels: the innermost axis (4 per quad), and the head axis.
            for (axis, n) in [(3, 8), (1, 3)] {
                let scale: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 / 8.0).collect();
                let bias: Vec<f32> = (0..n).map(|i| i as f32 - 2.0).collect();
                ops.push(
                    Relayout::permute(&[2, 3, 3, 8], &[0, 2, 1, 3], from.size())
                        .unwrap()
                        .with_conversion(c.clone().with_affine(axis, &scale, &bias).unwrap())
                        .unwrap(),
                );
                wide.push(pairs_wide);
            }
            // Runs of quads scattered (CPU adapters): channels along the rows and across.
            let scatter = Options {
                scatter: Some(true),
                ..Options::default()
            };
            // Rows of two runs; offsets that differ on each side.
            for (axis, n) in [(2, 64), (0, 2)].into_iter().filter(|_| p.caps().cpu) {
                let scale: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 / 8.0).collect();
                let bias: Vec<f32> = (0..n).map(|i| i as f32 - 2.0).collect();
                let (s, d) = (at(5 + axis as u64).0, at(6 + axis as u64).1);
                ops.push(
                    Relayout::permute(&[3, 2, 64], &[1, 0, 2], from.size())
                        .unwrap()
                        .with_options(scatter)
                        .with_offsets(s, d)
                        .with_conversion(c.clone().with_affine(axis, &scale, &bias).unwrap())
                        .unwrap(),
                );
                wide.push(pairs_wide);
            }
        }
    }
    let (mut runs, mut scattered) = (0, 0);
    for ((op, result), wide) in ops.iter().zip(common::check_many(p, &ops)).zip(wide) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert!(plan.quads(), "{op:?}: {plan}");
        assert_eq!(plan.cpu().access64, wide, "{op:?}: {plan}");
        runs += plan.cpu().runs as usize;
        scattered += plan.cpu().scatter as usize;
    }
    // Runs on the last two shapes, and the channels' scatters; 34 pairs have wide quads.
    let (cpu, int64) = (caps.cpu as usize, caps.int64 as usize);
    assert_eq!(
        (runs, scattered),
        ((6 * 36 + 2 * 34 * int64) * cpu, 2 * 36 * cpu),
        "runs of quads"
    );
}

/// Padding (NCHW -> NCHW4c, the fill a destination element written as it is), crops back
/// (several parts), and a destination layout of its own (images spaced apart), each
/// converting, on every kernel they plan for, with guard bytes.
#[test]
fn padding_crops_and_strided_outputs_convert() {
    let Some(p) = common::gpu() else { return };
    let mut ops = Vec::new();
    for (from, to) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::F32, Dtype::F16),
        (Dtype::F16, Dtype::BF16),
        (Dtype::F32, Dtype::U8),
        (Dtype::I16, Dtype::F32),
    ] {
        let c = Conversion::new(from, to).unwrap();
        // -1 in the destination type (255 for u8).
        let fill: Vec<u8> = match to {
            Dtype::F32 => (-1f32).to_le_bytes().to_vec(),
            Dtype::F16 => vec![0x00, 0xbc],
            Dtype::BF16 => vec![0x80, 0xbf],
            _ => vec![0xff],
        };
        let blocked = Relayout::rearrange_padded(
            "n (cb c) h w -> n cb h w c",
            &[2, 6, 3, 4],
            &[("c", 4)],
            from.size(),
            &fill,
        )
        .unwrap();
        ops.push(blocked.with_conversion(c.clone()).unwrap());
        // Interleaved channels padded to 4, the fill in the innermost dim.
        let quads = Relayout::rearrange_padded(
            "b h w (cb c) -> b cb h w c",
            &[2, 6, 5, 3],
            &[("c", 4)],
            from.size(),
            &fill,
        )
        .unwrap();
        ops.push(quads.with_conversion(c.clone()).unwrap());
        let scaled = c.clone().with_affine(0, &[0.5], &[1.0]).unwrap();
        let crop = Relayout::rearrange_cropped(
            "n cb h w c -> n (cb c) h w",
            &[2, 2, 3, 4, 4],
            &[],
            from.size(),
            &[2, 6, 3, 4],
        )
        .unwrap();
        ops.push(crop.with_conversion(scaled).unwrap());
        // [n, hw, 3] -> [n, 3, hw], images 8 elements apart in the destination (rows of
        // whole words of any destination type).
        let (n, hw) = (2, 40);
        let spaced = View {
            dst_strides: Some(vec![3 * hw + 8, hw, 1]),
            ..View::permuted(&[n, hw, 3], &[0, 2, 1]).unwrap()
        };
        let op = Relayout::view(spaced, n * 3 * hw, from.size())
            .unwrap()
            .with_conversion(c.clone())
            .unwrap();
        // The gaps between images are not written: run (zeroed), not check_many (guard
        // bytes).
        let src = common::test_bytes(n * 3 * hw * from.size(), 7);
        let got = p.run::<u8, u8>(&op, &src).unwrap();
        let mismatch = reference::first_mismatch(&op, &src, &got).unwrap();
        assert_eq!(mismatch, None, "{} -> {} spaced", from.name(), to.name());
    }
    for result in common::check_many(p, &ops) {
        result.unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Past a binding (a limit of 1 KiB here): boxes of the tensor over windows of both
/// buffers, each side's window in its own elements, converted lane by lane into whole
/// destination words; one pair per pair of element sizes, and an affine over channels.
#[test]
fn conversions_split_into_binding_windows() {
    let Some(p) = common::gpu() else { return };
    let small = Options {
        binding_limit: Some(1024),
        ..Options::default()
    };
    let mut ops = Vec::new();
    let mut sizes = Vec::new();
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            if sizes.contains(&(from.size(), to.size())) {
                continue;
            }
            sizes.push((from.size(), to.size()));
            let c = Conversion::new(from, to).unwrap();
            let cases: [(&[usize], &[usize]); 3] = [
                (&[40, 48], &[1, 0]),
                (&[6, 10, 24], &[2, 0, 1]),
                (&[1500], &[0]),
            ];
            for (k, (shape, perm)) in cases.into_iter().enumerate() {
                let op = Relayout::permute(shape, perm, from.size())
                    .unwrap()
                    .with_options(small)
                    .with_offsets(4 * k as u64, 8 * k as u64);
                ops.push(op.with_conversion(c.clone()).unwrap());
            }
            let normalise = c
                .normalized(1, &[0.5, 0.25, 0.75], &[0.5, 2.0, 0.25])
                .unwrap();
            let image = Relayout::permute(&[2, 24, 10, 3], &[0, 3, 1, 2], from.size())
                .unwrap()
                .with_options(small);
            ops.push(image.with_conversion(normalise).unwrap());
        }
    }
    for (op, result) in ops.iter().zip(common::check_many(p, &ops)) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert!(plan.chunks().len() > 1, "{op:?}: {plan}");
    }
}

/// Past a binding, outputs the windows do not split (a padded converted view; a padded view
/// of 8-bit rows that are not whole words) run in one box wherever they lie in the buffers:
/// every output element written (the box takes as many workgroups as one binding's plan:
/// its destination words in 1024 items each, not its source units' words), against the
/// reference with guard bytes.
#[test]
fn outputs_in_one_box_past_a_binding_are_written_whole() {
    let Some(p) = common::gpu() else { return };
    let small = Options {
        binding_limit: Some(24 << 10),
        ..Options::default()
    };
    let padded = View::contiguous(&[64, 64]).pad(0, 1, 1).unwrap();
    let normalise = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
    let converted = Relayout::view(padded, 64 * 64, 1)
        .unwrap()
        .with_options(small)
        .with_offsets(40 << 10, 48 << 10)
        .with_conversion(normalise)
        .unwrap()
        .with_fill(&[0; 4]);
    let row = View::contiguous(&[4095]).pad(0, 1, 1).unwrap();
    let bytes = Relayout::view(row, 4095, 1)
        .unwrap()
        .with_options(small)
        .with_offsets(40 << 10, 48 << 10)
        .with_fill(&[7]);
    let ops = [converted, bytes];
    // 66 x 64 f32 words; 4097 bytes in 1025 words.
    let workgroups = [5, 2];
    for ((op, result), want) in ops.iter().zip(common::check_many(p, &ops)).zip(workgroups) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let [chunk] = plan.chunks() else {
            panic!("{plan}")
        };
        assert!(chunk.dst_window.0 > 0, "{plan}");
        assert_eq!(chunk.total_workgroups, want, "{plan}");
    }
}
