//! Choices a permuter learns on its device: autotuning's races (kernels alone, and a
//! permute in parts against them), the measured access width and the pipelines compiled
//! for shapes, each run against the CPU reference; and the timer they race with.

mod common;

use common::{check, gpu};
use std::time::Duration;
use wgpu_permute::plan::{Measured, OrderReason, SpecializeReason, tuning::MAX_SPECIALIZED};
use wgpu_permute::timing::Timer;
use wgpu_permute::{Kernel, Options, Relayout, View, diagnostics, reference};

#[test]
fn autotuning_picks_a_kernel_per_shape_class_and_stays_correct() {
    let Some(shared) = gpu() else { return };
    let p = common::fresh(shared).with_autotune(true);
    let cases: [(&[usize], &[usize], usize); 4] = [
        (&[4, 96, 160], &[0, 2, 1], 4),
        (&[128, 128], &[1, 0], 2),
        (&[16, 24, 32], &[2, 1, 0], 8),
        (&[30, 40, 8], &[1, 0, 2], 4), // the innermost dim stays: one candidate, no race
    ];
    for (shape, perm, elem) in cases {
        check(&p, shape, perm, elem, Options::default(), (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    }
    let tuned = diagnostics::tuned(&p);
    assert_eq!(tuned.len(), 3, "{tuned:?}");
    // A shape of the same class reuses the winner without racing again.
    let winner = tuned
        .iter()
        .find(|(class, _)| class.dims_perm == [0, 2, 1] && class.unit == 4)
        .map(|(_, m)| match m {
            Measured::Fastest(k) => *k,
            other => panic!("{other:?}"),
        });
    let plan = check(
        &p,
        &[4, 100, 152],
        &[0, 2, 1],
        4,
        Options::default(),
        (0, 0),
    )
    .unwrap();
    assert_eq!(diagnostics::tuned(&p).len(), 3);
    assert_eq!(Some(plan.kernel()), winner, "{plan}");
    // One the winner cannot serve (a side not divisible by 4) still permutes correctly.
    check(
        &p,
        &[4, 100, 150],
        &[0, 2, 1],
        4,
        Options::default(),
        (0, 0),
    )
    .unwrap_or_else(|m| panic!("{m}"));
}

/// Whether a CPU device moves data as 64-bit components is measured (a copy timed both
/// ways), once per adapter and process; plans follow the outcome, and only CPU devices with
/// `SHADER_INT64` can have it.
#[test]
fn the_access_width_is_measured_once_and_plans_follow_it() {
    let Some(shared) = gpu() else { return };
    let p = common::fresh(shared);
    let caps = p.caps();
    assert_eq!(caps.access64_faster, shared.caps().access64_faster);
    assert!(caps.cpu && caps.int64 || !caps.access64_faster, "{caps:?}");
    // 16-byte units on the generic kernel: 64-bit components apply here.
    let plan = check(
        &p,
        &[512, 64, 16],
        &[1, 0, 2],
        4,
        Options::default(),
        (0, 0),
    )
    .unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(plan.cpu().access64, caps.access64_faster, "{plan}");
    let other = !caps.access64_faster;
    if caps.int64 {
        let forced = Options {
            access64: Some(other),
            ..Options::default()
        };
        let plan = check(&p, &[512, 64, 16], &[1, 0, 2], 4, forced, (0, 0))
            .unwrap_or_else(|m| panic!("{m}"));
        assert_eq!(plan.cpu().access64, other, "{plan}");
    }
}

/// Odd sides on a CPU device race the parts (body on micro blocks, edges generic) against
/// each kernel alone; whichever wins, the permute is correct, and it runs in parts exactly
/// where the parts won.
#[test]
fn autotuning_races_a_permute_in_parts_against_each_kernel() {
    let Some(shared) = gpu() else { return };
    let p = common::fresh(shared).with_autotune(true);
    // Past `EDGE_SPLIT_BYTES` (256 KiB), sides odd.
    let (shape, perm) = ([513usize, 515], [1usize, 0]);
    // Before the first run, a CPU device's plan has the parts among its contenders.
    let req = wgpu_permute::Request::new(&shape, &perm, 4);
    let pending = diagnostics::plan_request(&p, &req).unwrap();
    assert_eq!(pending.pending_parts(), p.caps().cpu, "{pending}");
    check(&p, &shape, &perm, 4, Options::default(), (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    let tuned = diagnostics::tuned(&p);
    assert_eq!(tuned.len(), 1, "{tuned:?}");
    let op = Relayout::permute(&shape, &perm, 4).unwrap();
    let plans = p.prepare(&op).unwrap().plans().len();
    match (&tuned[0].1, p.caps().cpu) {
        (Measured::Parts, true) => assert_eq!(plans, 3),
        (Measured::Fastest(_), _) => assert_eq!(plans, 1),
        other => panic!("{other:?} on {:?}", p.caps()),
    }
    println!("autotuned {shape:?}: {:?} ({plans} plans)", tuned[0].1);
}

/// Where column runs apply (a CPU device), autotuning times the micro kernel in both
/// orders and the faster serves the class whenever micro runs it, even where another
/// kernel won the race or micro is forced; both orders are correct.
#[test]
fn autotuning_times_the_micro_kernels_two_orders() {
    let Some(shared) = common::cpu_family() else {
        return;
    };
    let p = common::cpu_planned(shared).with_autotune(true);
    let (shape, perm) = ([8usize, 8, 8, 8, 8, 32], [2usize, 5, 0, 4, 1, 3]);
    let micro = Options {
        kernel: Some(Kernel::Micro),
        ..Options::default()
    };
    let cpu = p.caps().cpu;
    let rule = check(shared, &shape, &perm, 4, micro, (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    // Both orders apply on CPU devices only (square blocks).
    assert_eq!(
        rule.reasons().order,
        cpu.then_some(OrderReason::Rule),
        "{rule}"
    );
    let plan =
        check(&p, &shape, &perm, 4, Options::default(), (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    let forced = check(&p, &shape, &perm, 4, micro, (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    // 4 MiB: the race timed its contenders compiled for the shape, which plans then use.
    for timed in [&plan, &forced] {
        assert!(
            matches!(
                timed.reasons().specialize,
                None | Some(SpecializeReason::Compiled)
            ),
            "{timed}"
        );
    }
    let autotuned = cpu.then_some(OrderReason::Autotuned);
    assert_eq!(forced.reasons().order, autotuned, "{forced}");
    if plan.kernel() == Kernel::Micro {
        assert_eq!(plan.cpu().column_runs, forced.cpu().column_runs, "{plan}");
    }
    // The other order, forced, is correct too.
    let other = Options {
        column_runs: Some(!forced.cpu().column_runs),
        ..micro
    };
    if cpu {
        check(&p, &shape, &perm, 4, other, (0, 0)).unwrap_or_else(|m| panic!("{m}"));
    }
    println!(
        "autotuned {shape:?} {perm:?}: {} ({}), micro with column runs: {}",
        plan.kernel().name(),
        match plan.cpu().column_runs {
            true => "column runs",
            false => "usual order",
        },
        forced.cpu().column_runs
    );
}

/// A permuter compiles at most `MAX_SPECIALIZED` pipelines for shapes, however many views
/// of one shape with other strides ask for their own: each view is a shape of its own.
#[test]
fn views_of_one_shape_with_other_strides_share_the_pipeline_budget() {
    let Some(shared) = gpu() else { return };
    let p = common::fresh(shared);
    let options = Options {
        kernel: Some(Kernel::Micro),
        specialize: Some(true),
        ..Options::default()
    };
    let (rows, cols) = (8, 16);
    let mut specialized = 0;
    for k in 0..MAX_SPECIALIZED + 4 {
        // The transpose of a source of `cols` rows, `pitch` elements apart.
        let pitch = rows + 4 * k;
        let v = View {
            shape: vec![rows, cols],
            strides: vec![1, pitch as isize],
            offset: 0,
            bounds: vec![],
            dst_strides: None,
        };
        let src_len = cols * pitch;
        let data = common::test_bytes(src_len * 4, k as u64);
        let op = Relayout::view(v.clone(), src_len, 4)
            .and_then(|op| p.prepare(&op.with_options(options)))
            .unwrap();
        let plan = &op.plans()[0];
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        specialized += usize::from(plan.specialized());
        let want = reference::materialize_bytes(&data, &v, 4, &[], v.dst_span().unwrap()).unwrap();
        assert_eq!(p.run::<_, u8>(&op, &data).unwrap(), want, "{plan}");
    }
    assert_eq!(specialized, MAX_SPECIALIZED);
    // The budget's pipelines and the uniform one that serves the rest.
    assert_eq!(diagnostics::cached_pipelines(&p), MAX_SPECIALIZED + 1);
}

#[test]
fn the_timer_reports_the_devices_part_apart_from_the_hosts_recording() {
    let Some(p) = gpu() else { return };
    let op = p
        .prepare(&Relayout::permute(&[3, 1000, 7], &[2, 0, 1], 4).unwrap())
        .unwrap();
    let buffer = || {
        p.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("test"),
            size: 84000,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (buffer(), buffer());
    let record = |e: &mut wgpu::CommandEncoder| p.record(e, &src, &dst, &op).unwrap();
    let timer = || Timer::new(p.device(), p.queue()).unwrap();
    // Each run's recording takes some time, so each total exceeds its device part, and so
    // does every order statistic of the totals.
    let counted = timer()
        .counting_recording(true)
        .time(&record, 1, 5)
        .unwrap();
    assert!(counted.device_median < counted.median, "{counted:?}");
    assert!(counted.device_median > Duration::ZERO, "{counted:?}");
    let plain = timer().time(&record, 1, 5).unwrap();
    assert_eq!(plain.device_median, plain.median);
}
