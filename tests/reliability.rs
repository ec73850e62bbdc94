//! Large tensors, low device limits, bad states: never a panic, never a wrong answer.

mod common;

use common::adapter;
use common::{
    GENERIC, MICRO, TILED, buffer, case, check, check_many, device_on, encode, gpu, own_device,
    permutations, permute_bytes, submit,
};
use wgpu_permute::convert::{Conversion, Dtype};
use wgpu_permute::plan::ELEM_SIZES;
use wgpu_permute::{
    DeviceCaps, Kernel, Options, PermuteError, Permuter, Relayout, Request, View, diagnostics,
    read_buffer, reference,
};

/// A device on the same adapter with a tiny storage binding and buffer limit, so that
/// small tensors take the windowed path.
fn low_limit_permuter(binding: u64, buffer: u64) -> Permuter {
    let (device, queue) = own_device(|l| {
        l.max_storage_buffer_binding_size = binding;
        l.max_buffer_size = buffer;
    });
    Permuter::new(&device, &queue).unwrap()
}

#[test]
fn a_device_with_low_binding_limits_splits_every_permutation_correctly() {
    if gpu().is_none() {
        return;
    }
    let p = low_limit_permuter(1024, 1 << 20);
    assert_eq!(p.caps().max_storage_binding, 1024);
    let base = [9usize, 7, 6, 5];
    let mut cases = Vec::new();
    for rank in 1..=4 {
        for (i, perm) in permutations(rank).iter().enumerate() {
            for &elem in &ELEM_SIZES {
                let shape: Vec<usize> = if rank == 1 {
                    vec![777]
                } else {
                    base[..rank].to_vec()
                };
                let offsets = (4 * (i as u64 % 5), 8 * (i as u64 % 3));
                cases.push(case(&shape, perm, elem, Options::default(), offsets));
            }
        }
    }
    let total = cases.len();
    let results = check_many(&p, &cases);
    let split = results.iter().flatten().filter(|plan| plan.boxed()).count();
    let failures: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    assert!(
        failures.is_empty(),
        "{} of {total} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        split > total / 2,
        "only {split} of {total} cases were split"
    );
}

#[test]
fn a_tensor_above_the_devices_binding_limit_is_permuted_in_windows() {
    let Some(p) = gpu() else { return };
    let limit = p.caps().max_storage_binding;
    // Just above 128 MiB (lavapipe's and WebGPU's default binding limit).
    let cases: [(&[usize], &[usize], usize); 2] = [
        (&[6144, 5632], &[1, 0], 4),
        (&[3, 4800, 5000], &[2, 0, 1], 2),
    ];
    for (shape, perm, elem) in cases {
        let bytes = shape.iter().product::<usize>() as u64 * elem as u64;
        let plan = check(p, shape, perm, elem, Options::default(), (0, 0))
            .unwrap_or_else(|m| panic!("{m}"));
        eprintln!("{bytes} bytes: {plan}");
        if bytes > limit {
            assert!(plan.boxed(), "{plan}");
        }
    }
}

#[test]
fn impossible_requests_name_the_limit() {
    if gpu().is_none() {
        return;
    }
    let p = low_limit_permuter(1024, 4096);
    let data = vec![0u32; 2048]; // 8 KiB, over the 4 KiB buffer limit
    assert_eq!(
        p.permute_slice(&data, &[32, 64], &[1, 0]),
        Err(PermuteError::DeviceLimit {
            what: "a buffer holding the input",
            limit: "max_buffer_size",
            need: 8192,
            have: 4096
        })
    );
}

#[test]
fn a_destroyed_device_gives_errors_not_panics() {
    if gpu().is_none() {
        return;
    }
    // A caller's device: errors come back as captured wgpu errors.
    let p = low_limit_permuter(1 << 20, 1 << 20);
    p.device().destroy();
    let result = p.permute_slice(&[1u32, 2, 3, 4, 5, 6], &[2, 3], &[1, 0]);
    assert!(result.is_err(), "{result:?}");
    eprintln!("caller's device, after destroy: {}", result.unwrap_err());
    // A device the permuter made: reported as lost.
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
    let own = Permuter::new_on(backends).unwrap();
    own.device().destroy();
    let result = own.permute_slice(&[1u32, 2, 3, 4, 5, 6], &[2, 3], &[1, 0]);
    assert!(
        matches!(result, Err(PermuteError::DeviceLost(_))),
        "{result:?}"
    );
}

#[test]
fn permuter_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Permuter>();
    let Some(p) = gpu() else { return };
    std::thread::scope(|scope| {
        for t in 0..6usize {
            scope.spawn(move || {
                for i in 0..25usize {
                    let shape = [2 + t, 3 + i % 7, 5 + (t + i) % 4];
                    let perm = &permutations(3)[(t + i) % 6];
                    let data: Vec<u32> = (0..shape.iter().product::<usize>() as u32)
                        .map(|v| v * 7 + t as u32)
                        .collect();
                    let got = p.permute_slice(&data, &shape, perm).unwrap();
                    let want = wgpu_permute::reference::permute_slice(&data, &shape, perm).unwrap();
                    assert_eq!(got, want, "thread {t} case {i}");
                }
            });
        }
    });
}

/// One thread compiles pipelines nobody has compiled yet (ranks 9-16, every element size)
/// while others run small permutes on the same permuter. On GL, a cold compile holds wgpu's
/// context lock for seconds; without the crate's GL lock the others' calls gave up on it
/// and panicked ("Could not lock adapter context").
#[test]
fn threads_work_while_another_compiles_new_pipelines() {
    let Some(p) = gpu() else { return };
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let done = &done;
        scope.spawn(move || {
            for rank in 9..=16usize {
                for &elem in &ELEM_SIZES {
                    let shape: Vec<usize> = (0..rank).map(|d| 1 + (d + elem) % 2).collect();
                    let perm: Vec<usize> = (0..rank).rev().collect();
                    let n: usize = shape.iter().product();
                    let data: Vec<u8> = (0..n * elem).map(|i| (i * 31 + rank) as u8).collect();
                    let got = permute_bytes(p, &data, &shape, &perm, elem).unwrap();
                    let want = wgpu_permute::reference::permute_bytes(&data, &shape, &perm, elem);
                    assert_eq!(got, want.unwrap(), "{shape:?} {elem} B");
                }
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        for t in 0..2u32 {
            scope.spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let data: Vec<u32> = (0..24).map(|v| v * 3 + t).collect();
                    let got = p.permute_slice(&data, &[2, 3, 4], &[2, 0, 1]).unwrap();
                    let want =
                        wgpu_permute::reference::permute_slice(&data, &[2, 3, 4], &[2, 0, 1]);
                    assert_eq!(got, want.unwrap());
                }
            });
        }
    });
}

/// Dispatches of more workgroups than a grid side allows fold into 2-D and 3-D grids.
#[test]
fn grids_fold_into_two_and_three_dimensions() {
    if gpu().is_none() {
        return;
    }
    let (device, queue) = own_device(|l| l.max_compute_workgroups_per_dimension = 8);
    let p = Permuter::new(&device, &queue).unwrap();
    let cases = [
        // 1-D would need 40 workgroups: a 2-D grid.
        case(&[40 * 1024 / 40, 40], &[1, 0], 4, GENERIC, (0, 0)),
        // 400 workgroups: a 3-D grid, 8 x 8 x 7.
        case(&[200, 2048], &[1, 0], 4, GENERIC, (4, 0)),
        case(&[256, 256], &[1, 0], 4, TILED, (0, 0)),
        case(&[256, 512], &[1, 0], 2, MICRO, (0, 0)),
    ];
    let mut dims = Vec::new();
    for (case, result) in cases.iter().zip(check_many(&p, &cases)) {
        let plan = result.unwrap_or_else(|m| panic!("{m}"));
        let grid = plan.chunks()[0].workgroups;
        assert!(grid.iter().all(|&g| g <= 8), "{plan}");
        assert!(
            grid.iter().map(|&g| g as u64).product::<u64>() >= plan.chunks()[0].total_workgroups,
            "{plan}"
        );
        dims.push(grid.iter().filter(|&&g| g > 1).count());
        eprintln!("{:?}: {plan}", case.out_shape());
    }
    assert!(dims.contains(&2) && dims.contains(&3), "{dims:?}");
}

/// A permuter on a caller's device plans exactly as one that made its own device on the
/// same adapter: the device tells its adapter's type.
#[test]
fn own_device_plans_like_the_crates_device() {
    let Some(shared) = gpu() else { return };
    let (device, queue) = own_device(|_| {});
    let mine = Permuter::new(&device, &queue).unwrap();
    // As the crate's own device plans (the test pool's may plan as another device would).
    let shared = &Permuter::new(shared.device(), shared.queue()).unwrap();
    assert_eq!(mine.caps(), shared.caps());
    // The adapter's type reaches the planner: on lavapipe / llvmpipe (CPU devices) a
    // transpose plans micro-tiles, the CPU choice, through either constructor.
    let info = shared.device().adapter_info();
    if info.name.contains("llvmpipe") {
        assert_eq!(info.device_type, wgpu::DeviceType::Cpu, "{info:?}");
    }
    let transpose = Request::new(&[64, 512, 512], &[0, 2, 1], 4);
    let kernel = diagnostics::plan_request(&mine, &transpose)
        .unwrap()
        .kernel();
    let cpu = info.device_type == wgpu::DeviceType::Cpu;
    assert_eq!(
        kernel,
        if cpu { Kernel::Micro } else { Kernel::Tiled },
        "{info:?}"
    );
    for (shape, perm, elem) in [
        (&[64usize, 512, 512][..], &[0usize, 2, 1][..], 4),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 2),
        (&[3, 1000, 7], &[2, 0, 1], 4),
        (&[4096, 4096], &[1, 0], 1),
    ] {
        let req = Request::new(shape, perm, elem);
        assert_eq!(
            diagnostics::plan_request(&mine, &req).unwrap(),
            diagnostics::plan_request(shared, &req).unwrap()
        );
    }
}

/// A buffer of another device is the same typed error on the copy path as on the shader
/// path, at `encode`, not a panic in the caller's `finish()` later.
#[test]
fn buffers_of_another_device_are_refused_on_every_path() {
    if gpu().is_none() {
        return;
    }
    use wgpu::BufferUsages as U;
    // Two devices of one instance: their buffers have distinct ids.
    let adapter = adapter();
    let (device, queue) = device_on(&adapter, |_| {});
    let (other, _) = device_on(&adapter, |_| {});
    let p = Permuter::new(&device, &queue).unwrap();
    let usage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
    let src = buffer(&device, 256, usage);
    let foreign = buffer(&other, 256, usage);
    let mut encoder = p.device().create_command_encoder(&Default::default());
    for perm in [[0usize, 1], [1, 0]] {
        let req = Request::new(&[4, 8], &perm, 4);
        let result = encode(&p, &mut encoder, &src, &foreign, &req);
        assert_eq!(
            result,
            Err(PermuteError::ForeignBuffer {
                which: "destination"
            }),
            "{perm:?}"
        );
    }
    // The encoder is still usable: nothing bad was recorded into it.
    p.queue().submit([encoder.finish()]);
}

/// Buffers of two instances can share an id, so wgpu calls them equal: told apart by their
/// sizes, they are not reported as one buffer.
#[test]
fn buffers_of_another_instance_are_not_called_the_same_buffer() {
    if gpu().is_none() {
        return;
    }
    use wgpu::BufferUsages as U;
    let (a, a_queue) = own_device(|_| {});
    let (b, _) = own_device(|_| {});
    let p = Permuter::new(&a, &a_queue).unwrap();
    let mine = buffer(&a, 256, U::STORAGE);
    let theirs = buffer(&b, 512, U::STORAGE);
    assert!(
        mine == theirs,
        "the first buffers of two fresh devices share an id"
    );
    let req = Request::new(&[4, 8], &[1, 0], 4);
    assert_eq!(
        submit(&p, &mine, &theirs, &req),
        Err(PermuteError::ForeignBuffer {
            which: "destination"
        })
    );
    assert_eq!(
        submit(&p, &mine, &mine, &req),
        Err(PermuteError::SameBuffer)
    );
}

#[test]
fn read_buffer_refuses_what_it_cannot_map() {
    let Some(p) = gpu() else { return };
    use wgpu::BufferUsages as U;
    let device = p.device();
    let storage = buffer(device, 64, U::STORAGE | U::COPY_SRC);
    assert_eq!(
        read_buffer(device, &storage, 16),
        Err(PermuteError::MissingUsage {
            which: "readback",
            missing: "MAP_READ"
        })
    );
    let readback = buffer(device, 64, U::MAP_READ | U::COPY_DST);
    assert_eq!(
        read_buffer(device, &readback, 65),
        Err(PermuteError::BufferTooSmall {
            which: "readback",
            need: 65,
            have: 64
        })
    );
    assert_eq!(read_buffer(device, &readback, 6).unwrap(), [0u8; 6]);
}

/// A device too weak for the kernels' bindings (here: one storage buffer per stage) gets a
/// typed error from `Permuter::new`, not a panic while the layouts are made.
#[test]
fn a_device_that_cannot_bind_the_kernels_is_an_error_at_construction() {
    if gpu().is_none() {
        return;
    }
    let (device, queue) = own_device(|l| l.max_storage_buffers_per_shader_stage = 1);
    match Permuter::new(&device, &queue) {
        Err(PermuteError::Validation(message)) => eprintln!("refused: {message}"),
        other => panic!("expected a validation error, got {:?}", other.map(|_| ())),
    }
}

/// The smallest of a few binding limits under which `op` still plans (its forced kernel
/// fitting windows that small), every plan split: the most window edges it can cross.
fn smallest_split(op: &Relayout, caps: &DeviceCaps) -> Option<u64> {
    let bytes = (op.src_len() * op.elem_size()).max(op.dst_len() * op.dst_elem_size()) as u64;
    let room = caps.storage_offset_alignment.max(16) as u64 + 4;
    // From the smallest limit up.
    let fractions = [
        (1, 32),
        (1, 16),
        (1, 12),
        (1, 8),
        (1, 6),
        (1, 4),
        (1, 3),
        (1, 2),
    ];
    fractions
        .into_iter()
        .chain([(3, 4), (7, 8)])
        .map(|(n, d)| room + bytes * n / d)
        .find(|&limit| {
            let limited = op.clone().with_options(Options {
                binding_limit: Some(limit),
                ..op.options()
            });
            limited
                .plan(caps)
                .is_ok_and(|plans| plans.iter().all(|p| p.boxed()))
        })
}

/// Every kernel over binding windows: the tiled and micro kernels' permutes of every
/// element size, their conversions (the strips, the micro blocks), and views (flips,
/// stepped slices, broadcasts, padding, strided outputs) on each kernel that takes them, each under
/// the smallest binding limit its kernel still fits, against the reference with guard
/// bytes; each plan must split and run the kernel forced.
#[test]
fn every_kernel_splits_across_window_edges() {
    let Some(p) = gpu() else { return };
    let caps = p.caps().clone();
    let force = |kernel| Options {
        kernel: Some(kernel),
        ..Options::default()
    };
    let mut cases = Vec::new();
    let permutes: [(&[usize], &[usize]); 5] = [
        (&[96, 80], &[1, 0]),
        (&[66, 136], &[1, 0]),
        (&[3, 72, 100], &[0, 2, 1]),
        (&[5, 64, 48], &[2, 1, 0]),
        (&[2, 3, 36, 40], &[0, 3, 1, 2]),
    ];
    for kernel in [Kernel::Tiled, Kernel::Micro, Kernel::Generic] {
        for &elem in &ELEM_SIZES {
            for (i, (shape, perm)) in permutes.iter().enumerate() {
                let at = (16 * (i as u64 % 2), 32 * (i as u64 % 3));
                cases.push(case(shape, perm, elem, force(kernel), at));
            }
        }
        // Colour channels to planes and back, converted (the strips on the tiled kernel).
        let to_planes = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
        let to_pixels = Conversion::new(Dtype::F32, Dtype::U8).unwrap();
        let ops = [
            (
                Relayout::permute(&[2, 24, 64, 3], &[0, 3, 1, 2], 1),
                to_planes,
            ),
            (
                Relayout::permute(&[2, 3, 24, 64], &[0, 2, 3, 1], 4),
                to_pixels,
            ),
            (Relayout::permute(&[48, 64], &[1, 0], 2), to_half()),
        ];
        for (op, c) in ops {
            cases.push(
                op.unwrap()
                    .with_options(force(kernel))
                    .with_conversion(c)
                    .unwrap(),
            );
        }
        // Per-channel affines: normalised planes, pixels back, 48 channels over the rows
        // (each box's tables rotate to its first channel).
        let planes = Conversion::new(Dtype::U8, Dtype::F32)
            .and_then(|c| c.normalized(1, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225]))
            .unwrap();
        let pixels = Conversion::new(Dtype::F32, Dtype::U8)
            .and_then(|c| c.with_affine(3, &[200.0, 250.0, 255.0], &[1.0, 2.0, 3.0]))
            .unwrap();
        let scales: Vec<f32> = (0..48).map(|i| 1.0 + i as f32 / 8.0).collect();
        let rows = Conversion::new(Dtype::F32, Dtype::F16)
            .and_then(|c| c.with_affine(1, &scales, &[0.5; 48]))
            .unwrap();
        let affines = [
            (Relayout::permute(&[2, 24, 64, 3], &[0, 3, 1, 2], 1), planes),
            (Relayout::permute(&[2, 3, 24, 64], &[0, 2, 3, 1], 4), pixels),
            (Relayout::permute(&[48, 80], &[1, 0], 4), rows),
        ];
        for (op, c) in affines {
            let op = op.unwrap().with_options(force(kernel));
            cases.push(op.with_conversion(c).unwrap());
        }
        // Converted views: a flip (negative strides) and a stepped slice.
        let flip = View::contiguous(&[64, 96]).invert_axis(0).unwrap();
        let stepped = View::contiguous(&[64, 96]).slice(1, 1..96, 2).unwrap();
        for view in [flip, stepped] {
            let op = Relayout::view(view, 64 * 96, 4).unwrap();
            let narrow = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
            cases.push(
                op.with_options(force(kernel))
                    .with_conversion(narrow)
                    .unwrap(),
            );
        }
        // Views: a flip of the rows, a stepped slice, a broadcast, a strided output.
        let flip = View::permuted(&[64, 96], &[1, 0])
            .unwrap()
            .invert_axis(1)
            .unwrap();
        let stepped = View::contiguous(&[80, 120])
            .slice(1, 0..120, 2)
            .unwrap()
            .permuted_axes(&[1, 0])
            .unwrap();
        let broadcast = View::contiguous(&[1, 96])
            .broadcast(&[64, 96])
            .unwrap()
            .permuted_axes(&[1, 0])
            .unwrap();
        // Padded: both sides of both dims, transposed; a flip padded before its start.
        let padded = View::contiguous(&[40, 60])
            .pad(0, 3, 5)
            .and_then(|v| v.pad(1, 2, 6))
            .and_then(|v| v.permuted_axes(&[1, 0]))
            .unwrap();
        let flip_padded = View::contiguous(&[50, 64])
            .invert_axis(0)
            .and_then(|v| v.pad(0, 7, 1))
            .unwrap();
        for (view, src_len) in [
            (flip, 64 * 96),
            (stepped, 80 * 120),
            (broadcast, 96),
            (padded, 40 * 60),
            (flip_padded, 50 * 64),
        ] {
            for elem in [1, 4, 8] {
                let op = Relayout::view(view.clone(), src_len, elem).unwrap();
                let fill = vec![0x5Au8; elem];
                cases.push(
                    op.with_options(force(kernel))
                        .with_offsets(16, 0)
                        .with_fill(&fill),
                );
            }
        }
    }
    let mut split: Vec<Relayout> = Vec::new();
    let mut runs = std::collections::HashMap::new();
    for op in cases {
        if let Some(limit) = smallest_split(&op, &caps) {
            *runs.entry(op.options().kernel).or_insert(0) += 1;
            let options = Options {
                binding_limit: Some(limit),
                ..op.options()
            };
            split.push(op.with_options(options));
        }
    }
    eprintln!("split cases per forced kernel: {runs:?}");
    let failures: Vec<String> = check_many(p, &split)
        .into_iter()
        .zip(&split)
        .filter_map(|(result, op)| match result {
            Ok(plan) if plan.kernel() == op.options().kernel.unwrap() && plan.boxed() => None,
            Ok(plan) => Some(format!("ran unsplit or on another kernel: {plan}")),
            Err(e) => Some(e),
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A strided output (rows of 64 of 80): its gaps, never written, stay as they were.
    let mut strided = View::permuted(&[64, 200], &[1, 0]).unwrap();
    strided.dst_strides = Some(vec![80, 1]);
    for kernel in [Kernel::Tiled, Kernel::Micro, Kernel::Generic] {
        for elem in [1, 4, 8] {
            if kernel == Kernel::Generic && elem == 1 {
                continue; // packed words of a strided output: the padded mode, one binding
            }
            let op = Relayout::view(strided.clone(), 64 * 200, elem).unwrap();
            let op = op.with_options(force(kernel));
            let Some(limit) = smallest_split(&op, &caps) else {
                panic!("{kernel:?} {elem}: a strided output does not split");
            };
            let options = Options {
                binding_limit: Some(limit),
                ..force(kernel)
            };
            let data = common::test_bytes(64 * 200 * elem, elem as u64);
            let want =
                reference::materialize_bytes(&data, &strided, elem, &[], 199 * 80 + 64).unwrap();
            let got = common::materialize(p, &data, &strided, elem, &[], options).unwrap();
            assert!(
                got == want,
                "{kernel:?}, {elem} B: the strided output differs"
            );
        }
    }
    // Every kernel crossed window edges in many cases, conversions and views included.
    for kernel in [Kernel::Tiled, Kernel::Micro, Kernel::Generic] {
        let n = runs.get(&Some(kernel)).copied().unwrap_or(0);
        assert!(
            n >= 12,
            "only {n} cases split on the {} kernel",
            kernel.name()
        );
    }
}

fn to_half() -> Conversion {
    Conversion::new(Dtype::F16, Dtype::F32).unwrap()
}
