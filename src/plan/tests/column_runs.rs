//! The micro kernel's column runs and its bands' span: where they are chosen, where forcing
//! them is refused, and their binding windows' boxes; and its runs over short input rows.

use super::*;
use crate::Relayout;
use crate::convert::{Conversion, Dtype};
use crate::plan::tuning::{MICRO_BAND_MAX_SPAN, MICRO_COLUMN_RUN_MIN_BAND};
use crate::plan::{BatchTiles, OrderReason, View};

fn planned(
    shape: &[usize],
    perm: &[usize],
    elem: usize,
    options: Options,
    caps: &DeviceCaps,
) -> Result<crate::Plan, PermuteError> {
    plan::plan(&Request::new(shape, perm, elem).with_options(options), caps)
}

/// The planner's choices, but micro forced for 16-byte units (which plan generic on CPU
/// devices).
fn micro_for_16_bytes(elem: usize) -> Options {
    Options {
        kernel: (elem == 16).then_some(Kernel::Micro),
        ..Options::default()
    }
}

fn block(p: &crate::Plan) -> crate::plan::Block {
    p.variant().and_then(|v| v.block()).unwrap()
}

/// Column runs forced on or off, the rest the planner's.
fn forced(on: bool) -> Options {
    Options {
        column_runs: Some(on),
        ..Options::default()
    }
}

fn cpu64() -> DeviceCaps {
    DeviceCaps {
        int64: true,
        access64_faster: true,
        ..cpu()
    }
}

/// Output rows shorter than a run (`MICRO_RUN` blocks) and apart: the usual run would be
/// as short as they are, so square blocks run along the columns where a longer run divides
/// them; output rows back to back, or long, keep the usual order.
#[test]
fn short_output_rows_apart_run_along_the_columns() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        for (shape, perm) in [
            // Output rows of 8 units 16 KiB apart (two row blocks).
            (&[8usize, 8, 8, 8, 8, 32][..], &[2usize, 5, 0, 4, 1, 3][..]),
            // One row block, output rows 4 KiB apart.
            (&[32, 4, 256, 32], &[0, 3, 2, 1]),
            // Three row blocks.
            (&[10, 12, 256, 32], &[0, 3, 2, 1]),
            // Rows far apart on both sides, two row blocks (one band would hold them).
            (&[8, 128, 64, 64], &[3, 2, 1, 0]),
        ] {
            let p = planned(shape, perm, 4, auto, caps).unwrap();
            let b = block(&p);
            assert!(p.cpu.column_runs && b.column_runs && b.run == 4, "{p}");
        }
        // Output rows back to back (one span per block), or of four row blocks: the usual.
        for (shape, perm) in [
            (&[32usize, 8, 3136][..], &[0usize, 2, 1][..]),
            (&[64, 4, 3136], &[0, 2, 1]),
            (&[8, 16, 256, 32], &[0, 3, 2, 1]),
        ] {
            let p = planned(shape, perm, 4, auto, caps).unwrap();
            assert!(!p.cpu.column_runs, "{p}");
        }
    }
    // Two row blocks and two column blocks: no run along the columns is longer.
    let p = planned(&[16, 8, 64, 8], &[0, 3, 2, 1], 4, auto, &cpu()).unwrap();
    assert!(!p.cpu.column_runs, "{p}");
}

/// Output rows a page or more apart and input rows close (NHWC -> NCHW and its kin), in
/// 4- or 8-byte units: column runs. Rows close on both sides, input rows 1 KiB apart or
/// more, output rows closer than a page, or 8/16-bit data: the usual order.
#[test]
fn far_output_rows_near_input_rows_run_along_the_columns() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        for (shape, perm, elem) in [
            (&[32usize, 56, 56, 64][..], &[0usize, 3, 1, 2][..], 4),
            (&[32, 56, 56, 64], &[0, 3, 1, 2], 8),
            (&[96, 1024, 64], &[0, 2, 1], 4),
            (&[16, 3136, 128], &[0, 2, 1], 4),
        ] {
            let p = planned(shape, perm, elem, auto, caps).unwrap();
            assert!(p.cpu.column_runs && block(&p).column_runs, "{p}");
            assert_eq!(p.reasons.order, Some(OrderReason::Rule), "{p}");
            let why = p.explain().join("\n");
            assert!(
                why.contains("output rows far apart and input rows close"),
                "{why}"
            );
        }
        for (shape, perm, elem) in [
            (&[64usize, 512, 512][..], &[0usize, 2, 1][..], 4),
            (&[4, 4096, 256], &[0, 2, 1], 4),
            (&[96, 512, 64], &[0, 2, 1], 4),
            (&[32, 56, 56, 64], &[0, 3, 1, 2], 2),
            (&[32, 56, 56, 64], &[0, 3, 1, 2], 1),
        ] {
            let p = planned(shape, perm, elem, auto, caps).unwrap();
            assert!(!p.cpu.column_runs, "{p}");
        }
    }
    // GPUs have no runs.
    let p = planned(
        &[32, 56, 56, 64],
        &[0, 3, 1, 2],
        4,
        auto,
        &DeviceCaps::default(),
    )
    .unwrap();
    assert!(!p.cpu.column_runs, "{p}");
}

/// Short output rows back to back (32 to 96 units of 4 bytes) and input rows 2 KiB or more
/// apart (NCHW -> NHWC with few channels), moved as 64-bit components: bands one run tall.
#[test]
fn short_output_rows_far_input_rows_band_by_one_run() {
    let band = |shape: &[usize], elem: usize, caps: &DeviceCaps| {
        let p = planned(shape, &[0, 2, 1], elem, Options::default(), caps).unwrap();
        (p.micro_band(), p)
    };
    for shape in [
        &[32usize, 64, 3136][..],
        &[32, 32, 3136],
        &[16, 96, 3136],
        &[128, 64, 512],
    ] {
        let (b, p) = band(shape, 4, &cpu64());
        assert_eq!(b, Some(block(&p).run as u64), "{p}");
        let why = p.explain().join("\n");
        assert!(
            why.contains(&format!("bands of {}, one run", b.unwrap())),
            "{why}"
        );
    }
    // 128 channels, input rows 1 KiB apart, other units, 32-bit components: the usual bands.
    for (shape, elem, caps) in [
        (&[16usize, 128, 3136][..], 4, cpu64()),
        (&[256, 64, 256], 4, cpu64()),
        (&[16, 64, 3136], 8, cpu64()),
        (&[32, 64, 3136], 2, cpu64()),
        (&[32, 64, 3136], 4, cpu()),
        (&[64, 512, 512], 4, cpu64()),
        (&[2, 36, 1000], 4, cpu64()),
        (&[2, 100, 1000], 4, cpu64()),
    ] {
        let (b, p) = band(shape, elem, &caps);
        assert!(b.unwrap() >= MICRO_COLUMN_RUN_MIN_BAND, "{p}");
    }
}

/// With autotuning on, the order measured faster for a shape class decides over the rule
/// (in the class's other shapes too), and says so; without it, or where the request
/// forces an order, the measurement is not used.
#[test]
fn a_measured_order_decides_over_the_rule() {
    let req = Request::new(&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], 4);
    let rule = plan::plan(&req, &cpu()).unwrap();
    assert!(
        rule.cpu.column_runs && rule.reasons.order == Some(OrderReason::Rule),
        "{rule}"
    );
    let mut learned = Learned {
        autotune: true,
        ..Learned::default()
    };
    let pending = plan::plan_with(&req, &cpu(), &learned).unwrap();
    assert!(pending.pending_race().contains(&Kernel::Micro), "{pending}");
    let class = pending.shape_class();
    learned
        .winners
        .insert(class.clone(), Measured::Fastest(Kernel::Micro));
    learned.column_runs.insert(class, false);
    for shape in [&[8usize, 8, 8, 8, 8, 32][..], &[7, 8, 8, 8, 6, 32]] {
        let p = plan::plan_with(
            &Request::new(shape, &[2, 5, 0, 4, 1, 3], 4),
            &cpu(),
            &learned,
        )
        .unwrap();
        assert_eq!(p.kernel, Kernel::Micro, "{p}");
        assert!(!p.cpu.column_runs && !block(&p).column_runs, "{p}");
        assert_eq!(p.reasons.order, Some(OrderReason::Autotuned), "{p}");
        assert!(p.explain().join(" ").contains("timed faster"), "{p}");
    }
    let forced = plan::plan_with(&req.with_options(forced(true)), &cpu(), &learned).unwrap();
    assert!(
        forced.cpu.column_runs && forced.reasons.order == Some(OrderReason::Forced),
        "{forced}"
    );
    assert!(forced.explain().join(" ").contains("is forced"), "{forced}");
    learned.autotune = false;
    let off = plan::plan_with(&req, &cpu(), &learned).unwrap();
    assert!(
        off.cpu.column_runs && off.reasons.order == Some(OrderReason::Rule),
        "{off}"
    );
}

/// Square blocks of 2- or 4-byte units whose input rows hold at most
/// `MICRO_SHORT_ROW_BYTES` run at most the row blocks of one column of blocks over a SIMD
/// group (batches of small matrices over at most two batch dims, CPU devices); longer input
/// rows, bytes' 16x16 blocks and more batch dims keep the usual run, and GPUs have no runs.
#[test]
fn short_input_rows_run_within_one_column_of_blocks() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        for (shape, elem, run) in [
            (&[4096usize, 64, 64][..], 4, 2), // 16 row blocks
            (&[8192, 32, 64], 4, 1),          // 8
            (&[7000, 48, 48], 4, 1),          // 12
            (&[8192, 64, 32], 4, 2),          // 128-byte input rows
            (&[4096, 64, 64], 2, 1),          // 8x8 blocks: 8 row blocks
            (&[2048, 96, 128], 4, 3),         // 24 row blocks of 512-byte rows
            (&[64, 256, 64], 4, 4),           // 64 row blocks: the usual run
            (&[256, 64, 1024], 4, 4),         // input rows past 512 bytes
            (&[64, 64, 4096], 4, 4),
            (&[4096, 64, 64], 1, 4), // bytes
        ] {
            let p = planned(shape, &[0, 2, 1], elem, auto, caps).unwrap();
            assert_eq!(block(&p).run, run, "{p}");
            let why = p.explain();
            let said = why.iter().any(|w| w.contains("so that a SIMD group's"));
            assert_eq!(said, run < 4, "{why:?}");
        }
        // 5 row blocks run one at a time anyway (the plan does not say so), 28 in runs of 2
        // (3 does not divide them).
        for (rows, run, said) in [(20, 1, false), (112, 2, true)] {
            let p = planned(&[4096, rows, 64], &[0, 2, 1], 4, auto, caps).unwrap();
            let why = p.explain();
            let says = why.iter().any(|w| w.contains("so that a SIMD group's"));
            assert_eq!((block(&p).run, says), (run, said), "{why:?}");
        }
        // Input rows 32 KiB apart (a batch dim between them), not back to back: the usual run.
        let p = planned(&[64, 128, 64], &[2, 1, 0], 4, auto, caps).unwrap();
        assert_eq!(block(&p).run, 4, "{p}");
    }
    // Three batch dims (unmeasured): the usual run.
    let p = planned(&[4, 8, 16, 64, 64], &[2, 1, 0, 4, 3], 4, auto, &cpu()).unwrap();
    assert_eq!((p.batch_dims().len(), block(&p).run), (3, 4), "{p}");
    let p = planned(&[4096, 64, 64], &[0, 2, 1], 4, auto, &DeviceCaps::default()).unwrap();
    assert!(!p.cpu.runs, "{p}");
}

/// Bands keep their input rows within `MICRO_BAND_MAX_SPAN` bytes; where that would take
/// fewer than `MICRO_COLUMN_RUN_MIN_BAND` row blocks, the output's rows lie as far apart
/// and there are more row blocks than fit, square blocks run along the columns instead
/// (CPU devices); forcible either way.
#[test]
fn far_apart_rows_shorten_bands_or_run_along_the_columns() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        // Rows 64 KiB apart: bands of at most 16 MiB of rows, still the usual order.
        let p = planned(&[1024, 16384], &[1, 0], 4, auto, caps).unwrap();
        let fit = MICRO_BAND_MAX_SPAN / (64 << 10) / 4;
        assert!(!p.cpu.column_runs && p.micro_band().unwrap() <= fit, "{p}");
        // Input rows 1 MiB apart, output rows 256 bytes: the usual order in short bands (of
        // one run with 64-bit components, `Plan::one_run_bands`).
        let p = planned(&[64, 262144], &[1, 0], 4, auto, caps).unwrap();
        let short = match caps.access64_faster {
            true => crate::plan::tuning::MICRO_RUN as u64,
            false => MICRO_COLUMN_RUN_MIN_BAND,
        };
        assert!(!p.cpu.column_runs && p.micro_band() == Some(short), "{p}");
        let band = Some(MICRO_COLUMN_RUN_MIN_BAND);
        // Rows 1 MiB and 256 KiB apart on both sides: column runs, no bands.
        for (shape, perm) in [
            (&[64usize, 64, 64, 64][..], &[3usize, 2, 1, 0][..]),
            (&[256, 256, 256], &[2, 1, 0]),
        ] {
            let p = planned(shape, perm, 4, auto, caps).unwrap();
            let b = block(&p);
            assert!(p.cpu.column_runs && b.column_runs && b.run == 4, "{p}");
            assert_eq!(p.micro_band(), None, "{p}");
            // Forced off: the usual order, in bands of a SIMD group's rows per column block.
            let p = planned(shape, perm, 4, forced(false), caps).unwrap();
            assert!(!block(&p).column_runs, "{p}");
            assert_eq!(p.micro_band(), band, "{p}");
        }
        // Rows close enough: the usual order.
        let p = planned(&[4096, 4096], &[1, 0], 4, auto, caps).unwrap();
        assert!(!p.cpu.column_runs, "{p}");
    }
    // GPUs have no runs, so no column runs; nor does the traced form of a CPU plan.
    let reversal = |caps: &DeviceCaps| planned(&[64, 64, 64, 64], &[3, 2, 1, 0], 4, auto, caps);
    assert!(!reversal(&DeviceCaps::default()).unwrap().cpu.column_runs);
    assert!(!reversal(&cpu()).unwrap().on_gpu().unwrap().cpu.column_runs);
    // Forced on: a small square transpose takes them (runs of 3 where 4 does not divide
    // its column blocks).
    let p = planned(&[64, 64], &[1, 0], 4, forced(true), &cpu()).unwrap();
    assert!(block(&p).column_runs && block(&p).run == 4, "{p}");
    let p = planned(&[64, 48], &[1, 0], 4, forced(true), &cpu()).unwrap();
    assert!(block(&p).column_runs && block(&p).run == 4, "{p}");
    let p = planned(&[64, 36], &[1, 0], 4, forced(true), &cpu()).unwrap();
    assert!(block(&p).column_runs && block(&p).run == 3, "{p}");
}

/// Forcing column runs where they do not apply is refused: strips, a GPU (no runs), column
/// blocks no run divides, a conversion, a padded view.
#[test]
fn forced_column_runs_are_refused_where_they_do_not_apply() {
    let refused = |r: Result<crate::Plan, PermuteError>| {
        assert!(
            matches!(
                r,
                Err(PermuteError::ForcedChoice {
                    what: "column runs",
                    ..
                })
            ),
            "{r:?}"
        )
    };
    refused(planned(
        &[32, 224, 224, 3],
        &[0, 3, 1, 2],
        1,
        forced(true),
        &cpu(),
    ));
    refused(planned(
        &[64, 64],
        &[1, 0],
        4,
        forced(true),
        &DeviceCaps::default(),
    ));
    // 5 column blocks of 4: no run of 4, 3 or 2 divides them.
    refused(planned(&[64, 20], &[1, 0], 4, forced(true), &cpu()));
    // Forced off there, the usual order runs, and no order is said to be forced.
    let off = planned(&[64, 20], &[1, 0], 4, forced(false), &cpu()).unwrap();
    assert!(!off.cpu.column_runs && off.reasons.order.is_none(), "{off}");
    let to_f16 = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let mut req = Request::new(&[64, 64], &[1, 0], 4).with_options(forced(true));
    req.conversion = Some(&to_f16);
    refused(plan::plan(&req, &cpu()));
    // NCHW -> NCHW4c with 6 channels padded to 8.
    let (n, ch, y, x) = (2, 6, 8, 8);
    let view = View {
        shape: vec![n, 2, y, x, 4],
        strides: [ch * y * x, 4 * y * x, x, 1, y * x]
            .map(|s| s as isize)
            .to_vec(),
        offset: 0,
        bounds: vec![Bound {
            dims: vec![1, 4],
            valid: 0..ch,
        }],
        dst_strides: None,
    };
    let fill = [0u8; 4];
    let req = ViewRequest {
        view: &view,
        elem_size: 4,
        src_offset: 0,
        dst_offset: 0,
        src_len: n * ch * y * x,
        dst_len: view.len(),
        fill: &fill,
        options: Options {
            kernel: Some(Kernel::Micro),
            ..forced(true)
        },
        conversion: None,
    };
    refused(plan::plan_view(&req, &cpu(), &Default::default()));
    // The same view without forcing: micro blocks in the usual order.
    let req = ViewRequest {
        options: Options {
            kernel: Some(Kernel::Micro),
            ..Options::default()
        },
        ..req
    };
    let p = plan::plan_view(&req, &cpu(), &Default::default()).unwrap();
    assert!(!p.cpu.column_runs && p.kernel == Kernel::Micro, "{p}");
}

/// Across binding windows, each box of a column-run plan holds whole runs of column blocks
/// (and whole blocks of rows), and the boxes cover the tensor once within their windows;
/// where whole runs cannot fit a window, forcing them is refused.
#[test]
fn column_runs_split_into_boxes_of_whole_runs() {
    for caps in [cpu(), cpu64()] {
        for (shape, perm, limit) in [
            (&[256usize, 256, 256][..], &[2usize, 1, 0][..], 16u64 << 20),
            (&[64, 64, 64, 64], &[3, 2, 1, 0], 32 << 20),
            (&[4096, 48], &[1, 0], 512 << 10),
        ] {
            let options = Options {
                binding_limit: Some(limit),
                ..forced(true)
            };
            let p = planned(shape, perm, 4, options, &caps)
                .unwrap_or_else(|e| panic!("{shape:?} {perm:?} {limit}: {e}"));
            let b = block(&p);
            assert!(b.column_runs && p.chunks.len() > 1, "{p}");
            let (a, last) = (p.row_dim().unwrap(), p.dims.len() - 1);
            for c in &p.chunks {
                let cols = c.hi[last] - c.lo[last];
                assert_eq!(cols % (b.cols() * b.run) as u64, 0, "{p}: {c:?}");
                assert_eq!((c.hi[a] - c.lo[a]) % b.rows() as u64, 0, "{p}: {c:?}");
            }
            check_chunks(&p, &caps, limit);
        }
    }
    // All 32 columns of u8 are one run of 2 blocks: an output window of 16 rows' 32
    // columns needs 128 KiB.
    let options = Options {
        binding_limit: Some(64 << 10),
        ..forced(true)
    };
    let r = planned(&[4096, 32], &[1, 0], 1, options, &cpu());
    assert!(matches!(r, Err(PermuteError::ForcedChoice { .. })), "{r:?}");
}

/// Short output rows (at most `LANE_GROUP` row blocks) continued by a batch dim a page or
/// more away in the input decode that dim innermost (`Plan::row_continuation`), in every
/// element size, and 4-byte column runs take it before the columns; a nearer continuation,
/// longer rows, a forced order of blocks and GPUs (no micro kernel) keep the input's order.
#[test]
fn short_rows_continued_far_away_decode_their_continuation_innermost() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        // Output rows of 8 units, continued by dim 1 (64 KiB away for 4-byte units).
        // (16-byte units plan generic on CPU devices unless micro is forced.)
        for elem in [1, 2, 4, 8, 16] {
            let options = micro_for_16_bytes(elem);
            let p = planned(
                &[8, 8, 8, 8, 8, 32],
                &[2, 5, 0, 4, 1, 3],
                elem,
                options,
                caps,
            );
            let p = p.unwrap();
            assert_eq!(p.kernel, Kernel::Micro, "{p}");
            assert_eq!(p.row_continuation(), Some(1), "{p}");
            assert_eq!(p.box_batch_dims(), [0, 2, 4, 1], "{p}");
            // Column runs take it before the columns in 4-byte units only.
            assert_eq!(block(&p).batch_before_columns, elem == 4, "{p}");
            assert!(
                p.explain()
                    .iter()
                    .any(|w| w.contains("decodes dim 1 innermost")),
                "{p}"
            );
        }
        for (shape, perm) in [
            // Rows of 16 units continued by dim 3, 128 units away.
            (
                &[16usize, 16, 16, 16, 4, 32][..],
                &[2usize, 4, 1, 5, 3, 0][..],
            ),
            // Rows of 64 units (16 row blocks), batch dims not swapped.
            (&[64, 64, 64, 64], &[3, 1, 2, 0]),
            // The continuation already innermost.
            (&[8, 32, 8, 32], &[0, 3, 2, 1]),
        ] {
            let p = planned(shape, perm, 4, auto, caps).unwrap();
            assert_eq!(p.kernel, Kernel::Micro, "{p}");
            assert_eq!(p.row_continuation(), None, "{p}");
            assert!(!block(&p).batch_before_columns, "{p}");
            assert_eq!(
                (p.box_batch_dims(), p.cpu.batch_tiles),
                (p.batch_dims(), None),
                "{p}"
            );
        }
    }
    let gpu = planned(
        &[8, 8, 8, 8, 8, 32],
        &[2, 5, 0, 4, 1, 3],
        4,
        auto,
        &Default::default(),
    );
    assert_eq!(gpu.unwrap().row_continuation(), None);
}

/// Micro plans on CPU devices whose innermost batch dim lies a page or more away in the
/// output and another batch dim less than a page, where the input's order writes 2,048
/// pages of output rows or more before it comes back to them, decode the batch in tiles
/// ([`BatchTiles`]): the first dim split at 2 KiB of the input, the other between its
/// halves, ahead of a row continuation; the dims then split, the permute the same. Nearer
/// output neighbours, fewer pages, batch dims that are not swapped, views, plans past one
/// binding and GPUs keep the input's order.
#[test]
fn swapped_batch_dims_decode_in_tiles() {
    let auto = Options::default();
    for caps in [&cpu(), &cpu64()] {
        // Rows of 16 units (continued by dim 1), dim 2 1024 units from its neighbour in the
        // output, dim 1 16: tiles where 1024 units are a page or more; 64 output rows of a
        // page each, 32 times before dim 1 moves on.
        for elem in [1, 2, 4, 8, 16] {
            let options = micro_for_16_bytes(elem);
            let p = planned(&[16, 64, 32, 64], &[3, 2, 1, 0], elem, options, caps).unwrap();
            assert_eq!(p.kernel, Kernel::Micro, "{p}");
            if elem < 4 {
                assert_eq!(p.cpu.batch_tiles, None, "{p}");
                continue;
            }
            let inner = 2048 / (64 * elem as u64);
            let tiles = BatchTiles {
                outer: 2,
                inner,
                across: 1,
            };
            assert_eq!(p.cpu.batch_tiles, Some(tiles), "{p}");
            assert_eq!(p.dims, [16, 64, 32 / inner, inner, 64], "{p}");
            assert_eq!(p.dims_perm, [4, 2, 3, 1, 0], "{p}");
            assert_eq!(p.box_batch_dims(), [2, 1, 3], "{p}");
            assert_eq!(p.row_continuation(), None, "{p}");
            let said = format!("decodes in tiles: dim 2 split at {inner}");
            assert!(p.explain().iter().any(|w| w.contains(&said)), "{p}");
        }
        // The suite's 4-D reversal: 8 units of 4 bytes' rows in 2 KiB; an extent that 8
        // does not divide splits at its largest divisor below. Its shape keys (autotuning,
        // shape constants) and its GPU form are the permute's, unsplit.
        for (shape, inner) in [([64, 64, 64, 64], 8), ([64, 64, 36, 64], 6)] {
            let p = planned(&shape, &[3, 2, 1, 0], 4, auto, caps).unwrap();
            let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
            let tiles = BatchTiles {
                outer: 2,
                inner,
                across: 1,
            };
            assert_eq!(p.cpu.batch_tiles, Some(tiles), "{p}");
            let key = p.shape_key();
            assert_eq!(
                (&key.dims[..], &key.dims_perm[..]),
                (&shape[..], &[3, 2, 1, 0][..])
            );
            assert_eq!(p.shape_class().dims, [64, 64, 64, 64]);
            let gpu = p.on_gpu().unwrap();
            assert_eq!(
                (&gpu.dims[..], gpu.cpu.batch_tiles),
                (&shape[..], None),
                "{gpu}"
            );
            assert_eq!(gpu.chunks[0].hi, shape, "{gpu}");
        }
        // A split never takes a plan past the largest rank.
        let mut shape = vec![16, 4, 16];
        shape.splice(1..1, [2; 13]);
        let perm: Vec<usize> = (0..16).rev().collect();
        let p = planned(&shape, &perm, 4, auto, caps).unwrap();
        assert!(p.dims.len() <= MAX_RANK, "{p}");
        let limited = Options {
            binding_limit: Some(48 << 20),
            ..auto
        };
        for (shape, perm, options) in [
            // Not swapped; fewer pages (12 * 64); a row continuation alone; windows.
            (&[64usize, 64, 64, 64][..], &[3usize, 1, 2, 0][..], auto),
            (&[64, 64, 12, 64], &[3, 2, 1, 0], auto),
            (&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], auto),
            (&[64, 64, 64, 64], &[3, 2, 1, 0], limited),
        ] {
            let p = planned(shape, perm, 4, options, caps).unwrap();
            assert_eq!((p.kernel, p.cpu.batch_tiles), (Kernel::Micro, None), "{p}");
        }
        let view = View::permuted(&[64, 64, 64, 64], &[3, 2, 1, 0])
            .unwrap()
            .invert_axis(3)
            .unwrap();
        let op = Relayout::view(view, 64 << 18, 4).unwrap();
        let p = op.plan(caps).unwrap().remove(0);
        assert_eq!((p.kernel, p.cpu.batch_tiles), (Kernel::Micro, None), "{p}");
    }
    let gpu = planned(
        &[64, 64, 64, 64],
        &[3, 2, 1, 0],
        4,
        auto,
        &Default::default(),
    );
    assert_eq!(gpu.unwrap().cpu.batch_tiles, None);
}
