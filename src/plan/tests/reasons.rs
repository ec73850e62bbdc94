//! The reasons a plan records for each choice, and the facts learnt at run time (autotuning,
//! the memory model) as planner inputs.

use super::*;

/// Each kernel reason, from a request that leads to it; the explanation prints the
/// recorded reason.
#[test]
fn every_kernel_reason_is_recorded_and_explained() {
    let gpu = DeviceCaps::default();
    let forced = Options {
        kernel: Some(Kernel::Generic),
        ..Options::default()
    };
    let small_tiles = DeviceCaps {
        max_workgroup_storage: 1024,
        ..DeviceCaps::default()
    };
    let wide_index = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    let cases: Vec<(Request, DeviceCaps, Kernel, KernelReason)> = vec![
        (
            Request::new(&[0, 5], &[1, 0], 4),
            gpu.clone(),
            Kernel::Empty,
            KernelReason::NoElements,
        ),
        (
            Request::new(&[64, 48], &[1, 0], 4).with_options(forced),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::Forced,
        ),
        (
            Request::new(&[4, 6], &[0, 1], 4),
            gpu.clone(),
            Kernel::Copy,
            KernelReason::Identity,
        ),
        (
            Request::new(&[3], &[0], 2),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::IdentityOddBytes,
        ),
        (
            Request::new(&[64, 64, 64], &[1, 0, 2], 4),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::InnermostStays,
        ),
        (
            Request::new(&[(128 << 20) + 2], &[0], 1),
            cpu(),
            Kernel::Generic,
            KernelReason::Windowed { limit: 128 << 20 },
        ),
        (
            Request::new(&[8192, 8192], &[1, 0], 4),
            cpu(),
            Kernel::Micro,
            KernelReason::CpuMicro,
        ),
        (
            Request::new(&[64, 512, 512], &[0, 2, 1], 4),
            cpu(),
            Kernel::Micro,
            KernelReason::CpuMicro,
        ),
        (
            Request::new(&[64, 510, 512], &[0, 2, 1], 4),
            cpu(),
            Kernel::Generic,
            KernelReason::CpuNoMicro(Misfit::MicroSides),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 8),
            cpu(),
            Kernel::Micro,
            KernelReason::CpuMicro,
        ),
        (
            Request::new(&[64, 64], &[1, 0], 16),
            cpu(),
            Kernel::Generic,
            KernelReason::CpuWalkTiles,
        ),
        (
            Request::new(&[64, 512, 512], &[0, 2, 1], 4),
            gpu.clone(),
            Kernel::Tiled,
            KernelReason::GpuTiled,
        ),
        (
            Request::new(&[2, 4096], &[1, 0], 4),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::SmallTile {
                rows: 2,
                cols: 4096,
            },
        ),
        (
            Request::new(&[63, 64], &[1, 0], 2),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::PackedSides),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 4),
            small_tiles,
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::WorkgroupLimits),
        ),
        (
            Request::new(&[64, 64], &[1, 0], 4).with_options(wide_index),
            gpu.clone(),
            Kernel::Generic,
            KernelReason::GpuNoTiled(Misfit::Index64),
        ),
    ];
    for (req, caps, kernel, reason) in cases {
        let p = plan::plan(&req, &caps).unwrap();
        assert_eq!((p.kernel, p.reasons.kernel), (kernel, reason), "{p}");
        let text = p.explain().join("\n");
        assert!(text.contains(&reason.sentence()), "{text}");
        assert!(p.to_string().contains(&reason.sentence()), "{p}");
    }
}

/// A tensor beyond one binding runs the kernel its shape gets, over windows, and says so.
#[test]
fn a_windowed_plan_explains_its_windows() {
    let p = plan::plan(&Request::new(&[8192, 8192], &[1, 0], 4), &cpu()).unwrap();
    let text = p.explain().join("\n");
    assert!(
        text.contains("dispatches over windows of the buffers"),
        "{text}"
    );
    assert_eq!(p.kernel, Kernel::Micro, "{p}");
    assert!(p.boxed(), "{p}");
}

#[test]
fn index_reasons() {
    let caps64 = DeviceCaps {
        int64: true,
        ..DeviceCaps::default()
    };
    let huge = [1usize << 17, 1 << 16];
    let forced = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    for (req, caps, index, reason) in [
        (
            Request::new(&[64, 48], &[1, 0], 4),
            DeviceCaps::default(),
            IndexMath::U32,
            IndexReason::Fits32,
        ),
        (
            Request::new(&[64, 48], &[1, 0], 4).with_options(forced),
            DeviceCaps::default(),
            IndexMath::U32Pair,
            IndexReason::Forced,
        ),
        (
            Request::new(&huge, &[1, 0], 1),
            caps64,
            IndexMath::U64,
            IndexReason::Native64,
        ),
        (
            Request::new(&huge, &[1, 0], 1),
            DeviceCaps::default(),
            IndexMath::U32Pair,
            IndexReason::Pair64,
        ),
    ] {
        let p = plan::plan(&req, &caps).unwrap();
        assert_eq!((p.index, p.reasons.index), (index, reason), "{p}");
    }
}

#[test]
fn specialisation_reasons_follow_size_and_the_budget() {
    // 4 MiB, innermost dim stays: the generic kernel.
    let req = Request::new(&[1024, 16, 64], &[1, 0, 2], 4);
    let caps = DeviceCaps::default();
    let first = plan::plan(&req, &caps).unwrap();
    assert_eq!(first.kernel, Kernel::Generic);
    assert_eq!(
        (first.specialized, first.reasons.specialize),
        (false, Some(SpecializeReason::Unpaid))
    );
    // Ski rental: the shape's bytes on the uniform kernel count towards its own pipeline,
    // which it gets once they would pay for the compile.
    let mut moved = Learned::default();
    let calls = SPECIALIZE_PAYBACK_BYTES / first.bytes;
    for _ in 0..calls {
        let p = plan::plan_with(&req, &caps, &moved).unwrap();
        assert_eq!(p.reasons.specialize, Some(SpecializeReason::Unpaid));
        moved.count_uniform(&p);
    }
    let big = plan::plan_with(&req, &caps, &moved).unwrap();
    assert_eq!(
        (big.specialized, big.reasons.specialize),
        (true, Some(SpecializeReason::Large))
    );
    moved.count_uniform(&big); // counts only plans that wait
    assert_eq!(moved.uniform_bytes[&big.shape_key()], calls * first.bytes);

    let small = plan::plan(&Request::new(&[16, 16, 64], &[1, 0, 2], 4), &caps).unwrap();
    assert_eq!(
        (small.specialized, small.reasons.specialize),
        (false, Some(SpecializeReason::Small))
    );

    let off = Options {
        specialize: Some(false),
        ..Options::default()
    };
    let forced = plan::plan(&req.with_options(off), &caps).unwrap();
    assert_eq!(
        (forced.specialized, forced.reasons.specialize),
        (false, Some(SpecializeReason::Forced))
    );

    // The budget is a fact handed in: spent, new shapes get uniforms; a shape that has its
    // own pipeline keeps it.
    let mut learned = Learned {
        max_specialized: 0,
        ..Learned::default()
    };
    let spent = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (spent.specialized, spent.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent))
    );
    learned.specialized.insert(big.shape_key());
    let kept = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (kept.specialized, kept.reasons.specialize),
        (true, Some(SpecializeReason::Compiled))
    );

    // Forced on, the budget still bounds it.
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let forced_spent = plan::plan_with(
        &Request::new(&[16, 16, 64], &[1, 0, 2], 4).with_options(on),
        &caps,
        &learned,
    )
    .unwrap();
    assert_eq!(
        (forced_spent.specialized, forced_spent.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent))
    );

    let wide = Options {
        index: Some(IndexMath::U32Pair),
        ..Options::default()
    };
    let na = plan::plan(&req.with_options(wide), &caps).unwrap();
    assert_eq!(
        (na.specialized, na.reasons.specialize),
        (false, Some(SpecializeReason::NotApplicable))
    );
    // Other kernels have no specialisation to explain.
    assert_eq!(
        plan_of(&[64, 512, 512], &[0, 2, 1], 4).reasons.specialize,
        None
    );
}

#[test]
fn autotuning_outcomes_are_planner_inputs() {
    let req = Request::new(&[4, 96, 160], &[0, 2, 1], 4);
    let caps = DeviceCaps::default();
    let mut learned = Learned {
        autotune: true,
        ..Learned::default()
    };
    let pending = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        pending.pending_race(),
        [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
    );
    // A forced kernel is never raced.
    let forced = Options {
        kernel: Some(Kernel::Tiled),
        ..Options::default()
    };
    assert!(
        plan::plan_with(&req.with_options(forced), &caps, &learned)
            .unwrap()
            .pending_race()
            .is_empty()
    );

    let class = pending.shape_class();
    learned
        .winners
        .insert(class.clone(), Measured::Fastest(Kernel::Micro));
    let won = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (won.kernel, won.reasons.kernel),
        (Kernel::Micro, KernelReason::Measured)
    );
    assert_eq!(won.reasons.tuning, Tuning::Winner);

    // Same class, but a side micro-tiles cannot take: the heuristic decides, and says so.
    let odd = Request::new(&[4, 96, 158], &[0, 2, 1], 4);
    let misfit = plan::plan_with(&odd, &caps, &learned).unwrap();
    assert_eq!(misfit.shape_class(), class);
    assert_eq!(misfit.kernel, Kernel::Tiled);
    assert_eq!(misfit.reasons.tuning, Tuning::WinnerMisfits(Kernel::Micro));

    // A failed race is remembered: no race pending, the heuristic serves the class.
    learned
        .winners
        .insert(class, Measured::Failed("no timestamps".into()));
    let failed = plan::plan_with(&req, &caps, &learned).unwrap();
    assert!(failed.pending_race().is_empty());
    assert_eq!(
        (failed.kernel, failed.reasons.kernel),
        (Kernel::Tiled, KernelReason::GpuTiled)
    );
    assert!(failed.explain().join("\n").contains("no timestamps"));
}

#[test]
fn modelled_figures_are_planner_inputs() {
    let req = Request::new(&[4, 96, 160], &[0, 2, 1], 4);
    let caps = DeviceCaps::default();
    let mut learned = Learned {
        model: true,
        ..Learned::default()
    };
    // No figures yet: the candidates are to be traced, the heuristic stands meanwhile.
    let pending = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        pending.pending_model(),
        [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
    );
    assert_eq!(pending.reasons.kernel, KernelReason::GpuTiled);
    let figures = |kernel, load, store, ways| Figures {
        kernel,
        load_efficiency: load,
        store_efficiency: store,
        bank_conflict_ways: ways,
        bytes_moved: 2 * pending.bytes,
    };
    let key = pending.shape_key();
    // The best modelled ratio to a copy wins, whatever the heuristic would say.
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 0.5, 1.0, 1),
            figures(Kernel::Tiled, 0.4, 1.0, 1),
            figures(Kernel::Micro, 0.2, 0.2, 1),
        ],
    );
    let chosen = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(
        (chosen.kernel, chosen.reasons.kernel),
        (Kernel::Generic, KernelReason::Modelled)
    );
    assert!(chosen.pending_model().is_empty());
    assert!(
        chosen
            .explain()
            .iter()
            .any(|l| l.starts_with("modelled: generic"))
    );
    // Ties (to 1%) go to fewer bank conflicts, then to the simpler kernel.
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 1.0, 1.0, 1),
            figures(Kernel::Tiled, 1.0, 1.0, 1),
        ],
    );
    assert_eq!(
        plan::plan_with(&req, &caps, &learned).unwrap().kernel,
        Kernel::Generic
    );
    learned.modelled.insert(
        key.clone(),
        vec![
            figures(Kernel::Generic, 0.996, 1.0, 2),
            figures(Kernel::Tiled, 1.0, 1.0, 1),
        ],
    );
    assert_eq!(
        plan::plan_with(&req, &caps, &learned).unwrap().kernel,
        Kernel::Tiled
    );
    // A failed trace leaves no figures: the heuristic decides, and says so.
    learned.modelled.insert(key, Vec::new());
    let failed = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(failed.reasons.model, Modelling::Failed);
    assert_eq!(failed.reasons.kernel, KernelReason::GpuTiled);
    // Forced kernels, one-kernel shapes and a spent budget are not modelled.
    let forced = req.with_options(Options {
        kernel: Some(Kernel::Tiled),
        ..Options::default()
    });
    let stays = Request::new(&[96, 4, 160], &[1, 0, 2], 4);
    for r in [forced, stays] {
        assert_eq!(
            plan::plan_with(&r, &caps, &learned).unwrap().reasons.model,
            Modelling::Off
        );
    }
    learned.modelled.clear();
    for i in 0..plan::MAX_MODELLED {
        let mut k = pending.shape_key();
        k.dims[0] = 1000 + i as u64;
        learned.modelled.insert(k, Vec::new());
    }
    let spent = plan::plan_with(&req, &caps, &learned).unwrap();
    assert_eq!(spent.reasons.model, Modelling::BudgetSpent);
    assert!(spent.pending_model().is_empty());
}

/// Devices that report bindings beyond 2^32 words (wgpu's Metal backend reports
/// `maxBufferLength`) still get windows every u32 storage index can address.
#[test]
fn windows_stay_within_u32_storage_indices() {
    let caps = DeviceCaps {
        max_storage_binding: 1 << 40,
        int64: true,
        ..DeviceCaps::default()
    };
    let shape = [1usize << 18, 1 << 17]; // 2^35 bytes of u8
    let p = plan::plan(&Request::new(&shape, &[1, 0], 1), &caps).unwrap();
    assert!(p.boxed(), "{p}");
    // 2^35 units need 64-bit index math, which only the generic kernel has.
    assert_eq!(
        (p.kernel, p.reasons.kernel),
        (Kernel::Generic, KernelReason::GpuNoTiled(Misfit::Index64))
    );
    check_chunks(&p, &caps, plan::MAX_WINDOW_BYTES);
    for chunk in &p.chunks {
        assert!(chunk.src_window.1 / 4 <= u32::MAX as u64 + 1);
        assert!(chunk.dst_window.1 / 4 <= u32::MAX as u64 + 1);
    }
}

/// On a CPU device, square micro blocks of plain permutes may be compiled for their shape
/// (forced here; else once paid) in runs of every length (two row blocks' runs of 2, an
/// odd side's runs of 1); strips with neighbour runs and converting square blocks may not.
#[test]
fn square_micro_blocks_specialise_in_runs_of_any_length() {
    use crate::convert::{Conversion, Dtype};
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let plan_on = |shape: &[usize], perm: &[usize], unit| {
        plan::plan(&Request::new(shape, perm, unit).with_options(on), &cpu()).unwrap()
    };
    for (shape, perm, run) in [
        (&[32, 8, 3136][..], &[0, 2, 1][..], 2),
        (&[1020, 1024], &[1, 0], 3),
        (&[1028, 1024], &[1, 0], 1),
        (&[4096, 4096], &[1, 0], 4),
    ] {
        let p = plan_on(shape, perm, 4);
        let block = p.variant().and_then(|v| v.block()).unwrap();
        assert_eq!(
            (p.kernel, block.run, block.strip),
            (Kernel::Micro, run, None),
            "{p}"
        );
        assert_eq!(
            (p.specialized, p.reasons.specialize),
            (true, Some(SpecializeReason::Forced)),
            "{p}"
        );
    }
    // Planes to pixels: a row strip in neighbour runs.
    let p = plan_on(&[32, 3, 224, 224], &[0, 2, 3, 1], 4);
    assert!(
        p.variant().and_then(|v| v.block()).unwrap().strip.is_some(),
        "{p}"
    );
    assert_eq!(
        p.reasons.specialize,
        Some(SpecializeReason::NotApplicable),
        "{p}"
    );
    // A converting square block.
    let to_f16 = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let op = Request {
        conversion: Some(&to_f16),
        ..Request::new(&[4096, 4096], &[1, 0], 4).with_options(on)
    };
    let p = plan::plan(&op, &cpu()).unwrap();
    assert_eq!(p.kernel, Kernel::Micro, "{p}");
    assert_eq!(
        p.reasons.specialize,
        Some(SpecializeReason::NotApplicable),
        "{p}"
    );
}
