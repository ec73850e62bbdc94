//! Micro blocks and strips, and every plan running a variant the naga test validates.

use super::*;

/// Micro blocks are wide (a 16-byte access per block row) where the sides divide by the
/// elements in 16 bytes and the offsets are whole 16 bytes, narrow (4x4, 32-bit accesses)
/// where only 4 divides them or the offsets are whole words, and absent otherwise.
#[test]
fn micro_blocks_are_wide_where_sides_and_offsets_allow() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let block = |shape: &[usize], elem: usize, offsets: (u64, u64)| {
        let mut req = Request::new(shape, &[1, 0], elem);
        (req.src_offset, req.dst_offset) = offsets;
        let p = plan::plan(&req, &cpu).unwrap();
        (p.kernel == Kernel::Micro)
            .then(|| p.variant().and_then(|v| v.block()))
            .flatten()
            .map(|b| (b.side, b.access_bytes))
    };
    for (elem, side) in [(1, 16), (2, 8), (4, 4), (8, 2)] {
        assert_eq!(
            block(&[2 * side, 3 * side], elem, (0, 0)),
            Some((side as u32, 16))
        );
        assert_eq!(
            block(&[2 * side, 3 * side], elem, (16, 48)),
            Some((side as u32, 16))
        );
        // Offsets of whole words only: narrow, where the unit has narrow blocks.
        let narrow = (elem <= 4).then_some((4, 4));
        assert_eq!(block(&[2 * side, 3 * side], elem, (4, 0)), narrow);
        assert_eq!(block(&[2 * side, 3 * side], elem, (0, 8)), narrow);
    }
    // Row blocks that divide by MICRO_RUN: that many blocks per invocation; else by 3, else
    // by 2, else one at a time.
    let run = |shape: &[usize], elem: usize| {
        let p = plan::plan(&Request::new(shape, &[1, 0], elem), &cpu).unwrap();
        p.variant().and_then(|v| v.block()).map(|b| b.run)
    };
    assert_eq!(run(&[64, 12], 1), Some(MICRO_RUN));
    assert_eq!(run(&[48, 32], 1), Some(3));
    assert_eq!(run(&[32, 32], 1), Some(2));
    assert_eq!(run(&[80, 32], 1), Some(1));
    // (Input rows longer than `MICRO_SHORT_ROW_BYTES`, whose runs are the usual ones.)
    assert_eq!(run(&[16, 256], 4), Some(MICRO_RUN));
    assert_eq!(run(&[12, 256], 4), Some(3));
    assert_eq!(run(&[4092, 4092], 4), Some(3));
    assert_eq!(run(&[4088, 4088], 4), Some(2));
    assert_eq!(run(&[20, 256], 4), Some(1));
    // Sides that divide by 4 but not by the wide side.
    assert_eq!(block(&[20, 36], 1, (0, 0)), Some((4, 4)));
    assert_eq!(block(&[20, 36], 2, (0, 0)), Some((4, 4)));
    assert_eq!(block(&[6, 10], 8, (0, 0)), Some((2, 16)));
    // 5 rows are a strip (`strips_take_short_dims_whole`); 9 rows by 5 columns nothing.
    assert_eq!(block(&[9, 5], 8, (0, 0)), None);
    // 16-byte units: 2x2 blocks of one access per element.
    assert_eq!(block(&[4, 4], 16, (0, 0)), Some((2, 16)));
    assert_eq!(block(&[9, 13], 16, (0, 0)), None);
}

/// A short dim that square blocks cannot take (extent below 9, not a multiple of the wide
/// side) is a strip's whole side where it is contiguous on its side of the move: the
/// columns of input rows that lie back to back (`[H*W, 3] -> [3, H*W]`), the rows of output
/// rows that do (`[3, H*W] -> [H*W, 3]`); the other side in whole wide blocks, offsets and
/// strides in whole 16 bytes.
#[test]
fn strips_take_short_dims_whole() {
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::default()
    };
    let strip = |shape: &[usize], perm: &[usize], elem: usize, offsets: (u64, u64)| {
        let mut req = Request::new(shape, perm, elem);
        (req.src_offset, req.dst_offset) = offsets;
        let p = plan::plan(&req, &cpu).unwrap();
        // Aligned strips only (flat strips take more: `flat_strips_take_images_of_any_size`).
        p.variant()
            .and_then(|v| v.block())
            .filter(|b| !b.flat)
            .and_then(|b| b.strip)
    };
    assert_eq!(strip(&[3000, 7], &[1, 0], 4, (0, 0)), Some(Strip::Cols(7)));
    assert_eq!(strip(&[7, 3000], &[1, 0], 4, (0, 0)), Some(Strip::Rows(7)));
    assert_eq!(strip(&[5, 10], &[1, 0], 8, (0, 0)), Some(Strip::Rows(5)));
    assert_eq!(
        strip(&[4, 224, 224, 3], &[0, 3, 1, 2], 1, (0, 0)),
        Some(Strip::Cols(3))
    );
    assert_eq!(
        strip(&[4, 3, 224, 224], &[0, 2, 3, 1], 1, (16, 0)),
        Some(Strip::Rows(3))
    );
    for (elem, n) in [(1, 8), (2, 7), (4, 6), (8, 5)] {
        let long = 16 / elem * 3;
        assert_eq!(
            strip(&[long, n], &[1, 0], elem, (0, 0)),
            Some(Strip::Cols(n as u32))
        );
        assert_eq!(
            strip(&[n, long], &[1, 0], elem, (0, 0)),
            Some(Strip::Rows(n as u32))
        );
        // The long side not in whole blocks, the offsets not in whole 16 bytes.
        assert_eq!(strip(&[long + 1, n], &[1, 0], elem, (0, 0)), None);
        assert_eq!(strip(&[n, long], &[1, 0], elem, (0, 8)), None);
    }
    // Too long, or a multiple of the side (square blocks take it).
    assert_eq!(strip(&[3000, 9], &[1, 0], 4, (0, 0)), None);
    assert_eq!(strip(&[3000, 8], &[1, 0], 4, (0, 0)), None);
    // Rows whose columns are not back to back: (B1, R, B2, C) -> (B2, B1, C, R).
    assert_eq!(strip(&[2, 16, 3, 7], &[2, 0, 3, 1], 4, (0, 0)), None);
    // Nor output rows: (B1, R, B2, C) -> (B1, C, B2, R)... with R short.
    assert_eq!(strip(&[2, 7, 3, 16], &[0, 3, 2, 1], 4, (0, 0)), None);
}

proptest::proptest! {
    /// Whatever the request, device and forced choices, a plan's shader is one of the
    /// variants the naga test validates (`shaders::all_variants`).
    #[test]
    fn every_plan_runs_a_validated_variant(
        shape in proptest::collection::vec(1usize..40, 1..6),
        seed in 0u64..1 << 20,
        elem in proptest::sample::select(ELEM_SIZES.to_vec()),
        offsets in (0u64..8, 0u64..8),
        cpu: bool,
        int64: bool,
        kernel in 0usize..4,
        index in 0usize..4,
        specialize in 0usize..3,
        access64 in 0usize..3,
        wide_stores in 0usize..3,
        scatter in 0usize..3,
        column_runs in 0usize..3,
    ) {
        let all = validated();
        let perm = perm_from_seed(shape.len(), seed);
        let caps = DeviceCaps { cpu, int64, access64_faster: int64, ..DeviceCaps::default() };
        let tri = [None, Some(false), Some(true)];
        let options = Options {
            kernel: [None, Some(Kernel::Generic), Some(Kernel::Tiled), Some(Kernel::Micro)][kernel],
            index: [None, Some(IndexMath::U32), Some(IndexMath::U64), Some(IndexMath::U32Pair)][index],
            specialize: tri[specialize],
            access64: tri[access64],
            wide_stores: tri[wide_stores],
            scatter: tri[scatter],
            column_runs: tri[column_runs],
            ..Options::default()
        };
        let mut req = Request::new(&shape, &perm, elem).with_options(options);
        (req.src_offset, req.dst_offset) = (4 * offsets.0, 4 * offsets.1);
        if let Ok(p) = plan::plan(&req, &caps)
            && let Some(v) = p.variant()
        {
            proptest::prop_assert!(all.contains(&v), "{} is not validated: {}", v, p);
        }
    }

}

proptest::proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
    /// Likewise for views: permuted, with dims flipped (the innermost too), starting a few
    /// elements into the source, padded along one dim or two, on CPU devices and GPUs.
    #[test]
    // Sides of whole blocks half the time; each forced choice a quarter of the time.
    fn every_view_plan_runs_a_validated_variant(
        shape in proptest::collection::vec(
            prop_oneof![1usize..24, (1usize..7).prop_map(|k| 4 * k)], 1..5),
        seed in 0u64..1 << 20,
        flips in proptest::collection::vec(proptest::bool::ANY, 4),
        pads in proptest::collection::vec(0usize..8, 2),
        elem in proptest::sample::select(ELEM_SIZES.to_vec()),
        lead in 0usize..5,
        cpu: bool,
        int64: bool,
        kernel in 0usize..12,
        index in 0usize..12,
        access64 in 0usize..8,
        wide_stores in 0usize..8,
        column_runs in 0usize..8,
    ) {
        let pick = |i: usize, n: usize| if i < n { i } else { 0 };
        let (kernel, index) = (pick(kernel, 4), pick(index, 4));
        let (access64, wide_stores) = (pick(access64, 3), pick(wide_stores, 3));
        let column_runs = pick(column_runs, 3);
        let all = validated();
        let perm = perm_from_seed(shape.len(), seed);
        let mut v = View::permuted(&shape, &perm).unwrap();
        v.offset = lead as isize;
        for (d, &flip) in flips.iter().enumerate().take(v.shape.len()) {
            if flip {
                v.offset += v.strides[d] * (v.shape[d] as isize - 1);
                v.strides[d] = -v.strides[d];
            }
        }
        // Padding before and after the first pads.len() dims, the innermost included.
        let mut bounds = Vec::new();
        for (k, &pad) in pads.iter().enumerate() {
            let d = [0, v.shape.len() - 1][k];
            let pad = if pad < 4 { pad } else { 0 };
            if pad == 0 || bounds.iter().any(|b: &Bound| b.dims == [d]) {
                continue;
            }
            v.offset -= v.strides[d] * pad as isize;
            v.shape[d] += 2 * pad;
            bounds.push(Bound { dims: vec![d], valid: pad..v.shape[d] - pad });
        }
        v.bounds = bounds;
        let caps = DeviceCaps { cpu, int64, access64_faster: int64, ..DeviceCaps::default() };
        let tri = [None, Some(false), Some(true)];
        let fill = vec![0; elem];
        let req = ViewRequest {
            view: &v,
            elem_size: elem,
            src_offset: 0,
            dst_offset: 0,
            src_len: shape.iter().product::<usize>() + lead,
            dst_len: v.len(),
            fill: &fill,
            options: Options {
                kernel: [None, Some(Kernel::Generic), Some(Kernel::Tiled), Some(Kernel::Micro)][kernel],
                index: [None, Some(IndexMath::U32), Some(IndexMath::U64), Some(IndexMath::U32Pair)][index],
                access64: tri[access64],
                wide_stores: tri[wide_stores],
                column_runs: tri[column_runs],
                ..Options::default()
            },
            conversion: None,
        };
        if let Ok(p) = plan::plan_view(&req, &caps, &Default::default())
            && let Some(v) = p.variant()
        {
            proptest::prop_assert!(all.contains(&v), "{} is not validated: {}", v, p);
        }
    }
}

/// Without walks in tiles (which these plans take: `super::walk`), the generic kernel's runs
/// scatter on CPU devices where gathering them would read a new page per output row
/// (`[8,512,16,64] (0,2,1,3)`: source rows 4 KiB apart), not where both sides' rows are as
/// far apart (`[512,512,64] (1,0,2)`), nor on GPUs; forcing it where runs cannot scatter is
/// refused.
#[test]
fn runs_scatter_where_gathering_reads_a_page_per_row() {
    let untiled = Options {
        walk_tiles: Some(false),
        ..Options::default()
    };
    let plan_on = |shape: &[usize], perm: &[usize], elem, caps: &DeviceCaps| {
        plan::plan(&Request::new(shape, perm, elem).with_options(untiled), caps).unwrap()
    };
    for elem in [2, 4] {
        let head = plan_on(&[8, 512, 16, 64], &[0, 2, 1, 3], elem, &cpu());
        assert!(head.cpu.runs && head.cpu.scatter, "{head}");
        // Rows of 16-byte units: the source's dims [8, 512, 16, u], each with its stride in
        // the output [8, 16, 512, u].
        let u = 64 * elem as u64 / 16;
        let walk = (vec![8, 512, 16, u], vec![16 * 512 * u, u, 512 * u, 1]);
        assert_eq!(head.walk(), walk, "{head}");
        assert_eq!(head.walk_of(false).0, vec![8, 16, 512, u], "{head}");
        let on_gpu = plan_on(
            &[8, 512, 16, 64],
            &[0, 2, 1, 3],
            elem,
            &DeviceCaps::default(),
        );
        assert!(!on_gpu.cpu.scatter, "{on_gpu}");
        assert!(!head.on_gpu().unwrap().cpu.scatter);
    }
    // The head split converting to f16 (runs of quads) scatters too.
    let to_f16 =
        crate::convert::Conversion::new(crate::convert::Dtype::F32, crate::convert::Dtype::F16)
            .unwrap();
    let mut narrow = Request::new(&[8, 512, 16, 64], &[0, 2, 1, 3], 4).with_options(untiled);
    narrow.conversion = Some(&to_f16);
    let narrow = plan::plan(&narrow, &cpu()).unwrap();
    assert!(
        narrow.quads && narrow.cpu.runs && narrow.cpu.scatter,
        "{narrow}"
    );
    // Forced on 4-byte units that would take wide stores: the scatter, without them.
    let mut req = Request::new(&[2, 3, 8], &[1, 0, 2], 4).with_options(Options {
        scatter: Some(true),
        ..Options::default()
    });
    req.src_offset = 4;
    let forced = plan::plan(&req, &cpu()).unwrap();
    assert!(
        forced.cpu.scatter && !forced.cpu.wide_stores && forced.unit == 4,
        "{forced}"
    );
    let square = plan_on(&[512, 512, 64], &[1, 0, 2], 4, &cpu());
    assert!(square.cpu.runs && !square.cpu.scatter, "{square}");
    assert_eq!(
        square.walk().0,
        square.out_dims(),
        "a gather walks the output"
    );
    // A transpose's runs (CPU) gather; a GPU has no runs.
    let cases = [
        (&[64, 64][..], &[1, 0][..], cpu()),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], DeviceCaps::default()),
    ];
    for (shape, perm, caps) in cases {
        let forced = Options {
            kernel: Some(Kernel::Generic),
            scatter: Some(true),
            ..Options::default()
        };
        let req = Request::new(shape, perm, 4).with_options(forced);
        let refused = plan::plan(&req, &caps);
        assert!(
            matches!(
                refused,
                Err(PermuteError::ForcedChoice {
                    what: "scatter",
                    ..
                })
            ),
            "{refused:?}"
        );
    }
}

/// A CPU plan's GPU form (what the memory model traces) drops the runs and 64-bit accesses
/// and sizes its dispatch as a GPU plan of the same request does.
#[test]
fn a_cpu_plan_on_a_gpu_is_sized_as_the_gpu_plans_it() {
    let req = Request::new(&[512, 512, 64], &[1, 0, 2], 4);
    let cpu = DeviceCaps {
        cpu: true,
        int64: true,
        access64_faster: true,
        ..DeviceCaps::default()
    };
    let on_cpu = plan::plan(&req, &cpu).unwrap();
    assert!(on_cpu.cpu.runs && on_cpu.cpu.access64, "{on_cpu}");
    let on_gpu = plan::plan(&req, &DeviceCaps::default()).unwrap();
    let traced = on_cpu.on_gpu().unwrap();
    assert!(!traced.cpu.runs && !traced.cpu.access64);
    assert_eq!(traced.chunks, on_gpu.chunks);
    assert_eq!(traced.variant(), on_gpu.variant());
}

/// Micro bands, a plan decision: short where input rows alias in L1 sets, long where they
/// spread or lie close, in whole runs; none for other kernels.
#[test]
fn micro_bands_follow_the_row_pitch() {
    use crate::plan::tuning::{
        MICRO_BAND_BLOCKS, MICRO_BAND_BLOCKS_16B, MICRO_BAND_BLOCKS_SPREAD, MICRO_BAND_SPAN,
    };
    let band = |shape: &[usize], perm: &[usize], elem: usize, caps: &DeviceCaps| {
        plan::plan(&Request::new(shape, perm, elem), caps)
            .unwrap()
            .micro_band()
    };
    let cpu = cpu();
    // 16 KiB rows alias; 16000-byte rows spread; 16-byte units have their own.
    assert_eq!(
        band(&[4096, 4096], &[1, 0], 4, &cpu),
        Some(MICRO_BAND_BLOCKS as u64)
    );
    assert_eq!(
        band(&[4096, 4000], &[1, 0], 4, &cpu),
        Some(MICRO_BAND_BLOCKS_SPREAD as u64)
    );
    // (16-byte units on micro blocks where forced: a walk in tiles is the planner's choice.)
    let micro = Options {
        kernel: Some(Kernel::Micro),
        ..Options::default()
    };
    let square = Request::new(&[2048, 2048], &[1, 0], 16).with_options(micro);
    assert_eq!(
        plan::plan(&square, &cpu).unwrap().micro_band(),
        Some(MICRO_BAND_BLOCKS_16B as u64)
    );
    // Rows 128 bytes apart: enough blocks for MICRO_BAND_SPAN bytes of rows (in the usual
    // order: the planner runs this one along the columns, its output rows being far apart).
    let usual = Options {
        column_runs: Some(false),
        ..Options::default()
    };
    let close = Request::new(&[32, 56, 56, 32], &[0, 3, 1, 2], 4).with_options(usual);
    let close = plan::plan(&close, &cpu).unwrap().micro_band();
    assert_eq!(close, Some(MICRO_BAND_SPAN / 128 / 4));
    // Runs of 3 (1503 row blocks): bands in whole runs.
    let runs = band(&[6012, 4000], &[1, 0], 4, &cpu).unwrap();
    assert_eq!(runs % 3, 0, "{runs}");
    // The tiled kernel has no bands.
    assert_eq!(
        band(&[4096, 4096], &[1, 0], 4, &DeviceCaps::default()),
        None
    );
}

/// Runs of micro blocks are a CPU device's choice: a GPU's micro plan moves one block per
/// invocation (runs spread neighbouring lanes' accesses), and a CPU plan's GPU form, what
/// the memory model traces, is the GPU's plan, in one binding and over windows alike.
#[test]
fn micro_runs_are_for_cpu_devices_and_the_traced_form_drops_them() {
    let micro = Options {
        kernel: Some(Kernel::Micro),
        ..Options::default()
    };
    let windowed = Options {
        binding_limit: Some(1 << 20),
        ..micro
    };
    for options in [micro, windowed] {
        let req = Request::new(&[1024, 1024], &[1, 0], 4).with_options(options);
        let run = |p: &plan::Plan| p.variant().and_then(|v| v.block()).map(|b| b.run);
        let on_cpu = plan::plan(&req, &cpu()).unwrap();
        let on_gpu = plan::plan(&req, &DeviceCaps::default()).unwrap();
        assert_eq!(run(&on_cpu), Some(4), "{on_cpu}");
        assert_eq!(run(&on_gpu), Some(1), "{on_gpu}");
        assert_eq!(on_gpu.boxed(), options.binding_limit.is_some());
        let traced = on_cpu.on_gpu().unwrap();
        assert_eq!(traced.variant(), on_gpu.variant());
        assert_eq!(traced.chunks, on_gpu.chunks, "{options:?}");
    }
}
