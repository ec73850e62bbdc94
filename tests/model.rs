//! The GPU memory model: traces of the shipped kernels (run on the test adapter) scored by
//! the pure analyser. Checks the figures the kernels are designed for, that the checks can
//! fail (the unpadded tile conflicts), that a trace is the kernel's real run, and that GPU
//! permuters choose by the model.

mod common;

use common::{GENERIC, MICRO, SENTINEL, TILED, gpu, test_bytes};
use wgpu_permute::model::{self, Figures, Space, Warp};
use wgpu_permute::plan::{KernelReason, Modelling};
use wgpu_permute::{
    DeviceCaps, Kernel, Options, Permuter, Plan, Relayout, Request, bench, diagnostics, reference,
};

fn figures(p: &Permuter, req: &Request, kernel: Kernel, padding: bool) -> Option<Figures> {
    let options = Options {
        kernel: Some(kernel),
        ..req.options
    };
    let plan = diagnostics::plan_request(p, &req.with_options(options)).ok()?;
    Some(diagnostics::model(p, &plan, Warp::Wave32, padding).unwrap())
}

#[test]
fn suite_cases_tile_with_whole_sectors_and_no_bank_conflicts() {
    let Some(p) = gpu() else { return };
    for case in bench::default_suite(1) {
        let req = Request::new(&case.shape, &case.perm, case.op.elem_size());
        let label = case.label();
        let generic = figures(p, &req, Kernel::Generic, true).unwrap();
        assert_eq!(
            generic.bank_conflict_ways, 1,
            "{label}: generic uses no tile"
        );
        // Interleaved colour channels (a side of 3 units): a tile's rows are too short for
        // whole sectors, and the gather, writing whole sectors, is the better kernel.
        let plan = diagnostics::plan_request(p, &req).unwrap();
        if plan
            .batch_rows_cols()
            .is_some_and(|(_, r, c)| r.min(c) <= 3)
        {
            if let Some(tiled) = figures(p, &req, Kernel::Tiled, true) {
                assert!(tiled.ratio_to_copy() <= generic.ratio_to_copy(), "{label}");
            }
            assert!(generic.store_efficiency >= 0.9, "{label}: {generic:?}");
            continue;
        }
        let Some(tiled) = figures(p, &req, Kernel::Tiled, true) else {
            // The innermost dim stays: the generic kernel moves whole rows' units.
            assert!(
                generic.load_efficiency >= 0.9 && generic.store_efficiency >= 0.9,
                "{label}: {generic:?}"
            );
            continue;
        };
        assert!(
            tiled.load_efficiency >= 0.9 && tiled.store_efficiency >= 0.9,
            "{label}: {tiled:?}"
        );
        assert_eq!(tiled.bank_conflict_ways, 1, "{label}: {tiled:?}");
        // A transpose gathers: one element per sector on the generic kernel's loads.
        assert!(generic.load_efficiency < 0.6, "{label}: {generic:?}");
        assert!(tiled.ratio_to_copy() > generic.ratio_to_copy(), "{label}");
        let plan = diagnostics::plan_request(p, &req.with_options(TILED)).unwrap();
        let (_, rows, cols) = plan.batch_rows_cols().unwrap();
        // Rows narrower than a tile use their own odd width as the pitch, padded or not.
        if case.op.elem_size() == 4 && cols >= plan.tile().unwrap().extent() {
            // Without the padding column a tile column sits in one bank: as many ways as
            // the tile has rows (a tile over 8 rows, [8,8,8,8,8,32], has 8).
            let unpadded = figures(p, &req, Kernel::Tiled, false).unwrap();
            let want = 16.min(rows as u32);
            assert!(unpadded.bank_conflict_ways >= want, "{label}: {unpadded:?}");
        }
    }
}

#[test]
fn wave64_scores_like_wave32_for_the_tiled_kernel() {
    let Some(p) = gpu() else { return };
    let plan = diagnostics::plan_request(
        p,
        &Request::new(&[256, 256], &[1, 0], 4).with_options(TILED),
    )
    .unwrap();
    let f = diagnostics::model(p, &plan, Warp::Wave64, true).unwrap();
    assert_eq!((f.load_efficiency, f.store_efficiency), (1.0, 1.0));
}

/// Words of `bytes` that differ from the sentinel.
fn written_words(bytes: &[u8]) -> std::collections::BTreeSet<u64> {
    bytes
        .chunks(4)
        .enumerate()
        .filter(|(_, w)| w.iter().any(|&b| b != SENTINEL))
        .map(|(i, _)| i as u64)
        .collect()
}

/// The real run of `plan` into a destination full of the sentinel, read back whole.
fn real_run(p: &Permuter, plan: &Plan, input: &[u8]) -> Vec<u8> {
    let dst_len = plan.dst_extent();
    let src = wgpu_permute::upload(
        p.device(),
        p.queue(),
        "src",
        input,
        wgpu::BufferUsages::STORAGE,
    );
    let dst = wgpu_permute::upload(
        p.device(),
        p.queue(),
        "dst",
        &vec![SENTINEL; dst_len as usize],
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let readback = p.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: dst_len,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = p.device().create_command_encoder(&Default::default());
    let req = Request::new(plan.shape(), plan.perm(), plan.elem_size())
        .with_offsets(plan.src_offset(), plan.dst_offset())
        .with_options(Options {
            kernel: Some(plan.kernel()),
            index: Some(plan.index()),
            ..Options::default()
        });
    let op = Relayout::from_request(&req).unwrap();
    p.record(&mut encoder, &src, &dst, &op).unwrap();
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, dst_len);
    p.queue().submit([encoder.finish()]);
    wgpu_permute::read_buffer(p.device(), &readback, dst_len).unwrap()
}

#[test]
fn a_trace_stores_exactly_where_the_real_run_writes() {
    let Some(p) = gpu() else { return };
    // Each kernel, packed and wide units, partial tiles and workgroups, offsets.
    // Shape, permutation, element size, forced kernel, offsets.
    type Case<'a> = (&'a [usize], &'a [usize], usize, Options, (u64, u64));
    let cases: [Case; 9] = [
        (&[33, 65], &[1, 0], 4, TILED, (0, 0)),
        (&[3, 70, 7], &[2, 0, 1], 4, TILED, (0, 0)),
        (&[2, 66, 130], &[0, 2, 1], 2, TILED, (4, 8)),
        (&[132, 68], &[1, 0], 1, TILED, (0, 0)),
        (&[17, 33], &[1, 0], 16, TILED, (0, 0)),
        (&[36, 44], &[1, 0], 1, MICRO, (0, 4)),
        (&[5, 7, 9], &[2, 0, 1], 4, GENERIC, (4, 0)),
        (&[5, 7, 9], &[2, 0, 1], 1, GENERIC, (0, 0)),
        (&[6, 10, 3], &[1, 0, 2], 8, GENERIC, (8, 8)),
    ];
    for (shape, perm, elem, options, (so, d_o)) in cases {
        let req = Request::new(shape, perm, elem)
            .with_offsets(so, d_o)
            .with_options(options);
        let plan = diagnostics::plan_request(p, &req).unwrap();
        let input = test_bytes(plan.src_extent() as usize, shape.len() as u64 + elem as u64);
        let real = real_run(p, &plan, &input);
        let (trace, out) =
            diagnostics::trace(p, &plan, &model::sample(&plan, true), true, Some(&input)).unwrap();
        let out = out.unwrap();
        let label = format!("{shape:?} {perm:?} {elem} B {}", plan.kernel().name());
        // The traced kernel permutes as the shipped one does.
        let region = d_o as usize..(d_o + plan.bytes()) as usize;
        let input_region = &input[so as usize..(so + plan.bytes()) as usize];
        let want = reference::permute_bytes(input_region, shape, perm, elem).unwrap();
        assert_eq!(&real[region.clone()], &want[..], "{label}: real run");
        assert_eq!(&out[region], &want[..], "{label}: traced run");
        // Every word the real run wrote, and no other, was stored in the trace.
        let stored: std::collections::BTreeSet<u64> = trace
            .workgroups
            .iter()
            .flat_map(|w| &w.accesses)
            .filter(|a| a.space == Space::DstStore)
            .flat_map(|a| a.byte / 4..(a.byte + a.bytes as u64) / 4)
            .collect();
        assert_eq!(stored, written_words(&real), "{label}");
    }
}

#[test]
fn gpu_permuters_choose_by_the_model_and_cpu_ones_do_not() {
    let Some(shared) = gpu() else { return };
    let gpu_caps = DeviceCaps {
        cpu: false,
        ..shared.caps().clone()
    };
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
    let p = diagnostics::with_caps(Permuter::new_on(backends).unwrap(), gpu_caps);
    // A transpose: the tile reads and writes whole sectors, the gather does not.
    let req = Request::new(&[96, 80], &[1, 0], 4);
    let plan = p
        .prepare(&Relayout::from_request(&req).unwrap())
        .unwrap()
        .plans()[0]
        .clone();
    assert_eq!(plan.kernel(), Kernel::Tiled, "{plan}");
    assert_eq!(plan.reasons().kernel, KernelReason::Modelled);
    let Modelling::Figures(figures) = &plan.reasons().model else {
        panic!("no figures: {:?}", plan.reasons().model)
    };
    let kernels: Vec<Kernel> = figures.iter().map(|f| f.kernel).collect();
    assert_eq!(kernels, [Kernel::Generic, Kernel::Tiled, Kernel::Micro]);
    assert!(
        plan.explain()
            .iter()
            .any(|l| l.starts_with("modelled: tiled"))
    );
    // Rows of two elements: the tile's loads waste sectors, the gather's much less.
    let op = Relayout::permute(&[3, 1000, 2], &[2, 0, 1], 4).unwrap();
    let thin = p.prepare(&op).unwrap().plans()[0].clone();
    assert_eq!(thin.kernel(), Kernel::Generic, "{thin}");
    assert_eq!(thin.reasons().kernel, KernelReason::Modelled);
    // The modelled choice runs, and runs right.
    let data: Vec<u32> = (0..96 * 80).collect();
    let out = p.permute_slice(&data, &[96, 80], &[1, 0]).unwrap();
    assert_eq!(
        out,
        reference::permute_slice(&data, &[96, 80], &[1, 0]).unwrap()
    );
    // On its own CPU adapter the measured choice stands, with no model.
    if shared.caps().cpu {
        let plan = shared
            .prepare(&Relayout::from_request(&req).unwrap())
            .unwrap()
            .plans()[0]
            .clone();
        assert_eq!(plan.reasons().model, Modelling::Off);
        assert_eq!(plan.reasons().kernel, KernelReason::CpuMicro);
    }
}
