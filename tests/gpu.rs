//! GPU output against the CPU reference, on a real device (lavapipe in CI).
//! Every failure message includes the plan of the failing case.

mod common;

use common::{
    GENERIC, MICRO, TILED, case, check, check_many, gpu, permutations, submit, test_bytes,
};
use proptest::prelude::*;
use wgpu::util::DeviceExt;
use wgpu_permute::plan::tuning::MICRO_SIDE;
use wgpu_permute::plan::{Block, ELEM_SIZES, Tile};
use wgpu_permute::{
    IndexMath, Kernel, Options, PermuteError, Relayout, Request, diagnostics, gpu_permute,
    read_buffer, reference, shaders,
};

/// Runs every case and fails once with all the messages, so one run shows every bad case.
fn expect_all_ok(failures: Vec<String>, total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs the cases in batches and fails once with every bad case's message; returns the plans.
fn expect_all_pass(p: &wgpu_permute::Permuter, cases: &[Relayout]) -> Vec<wgpu_permute::Plan> {
    let results = check_many(p, cases);
    let failures: Vec<String> = results.iter().filter_map(|r| r.clone().err()).collect();
    expect_all_ok(failures, cases.len());
    results.into_iter().map(Result::unwrap).collect()
}

/// The options among default, generic, tiled and micro that plan for this case.
fn applicable(p: &wgpu_permute::Permuter, case: &Relayout) -> Vec<Options> {
    [Options::default(), GENERIC, TILED, MICRO]
        .into_iter()
        .filter(|&o| case.clone().with_options(o).plan(p.caps()).is_ok())
        .collect()
}

#[test]
fn every_permutation_of_ranks_1_to_5_every_elem_size() {
    let Some(p) = gpu() else { return };
    // Odd extents, and even ones (so that packed 8/16-bit data can tile too).
    let mut cases = Vec::new();
    for base in [[5usize, 3, 7, 2, 3], [4, 6, 8, 2, 4]] {
        for rank in 1..=5 {
            for (i, perm) in permutations(rank).iter().enumerate() {
                for &elem in &ELEM_SIZES {
                    // Vary the offsets so that narrower movement sizes run too.
                    let offsets = (4 * (i as u64 % 3), 4 * ((i as u64 + 1) % 2));
                    let case = case(&base[..rank], perm, elem, Options::default(), offsets);
                    for options in applicable(p, &case) {
                        cases.push(case.clone().with_options(options));
                    }
                }
            }
        }
    }
    expect_all_pass(p, &cases);
}

/// Sides around each kernel's block, derived from its constants: 0, one step below, at and
/// above the block's extent, and twice it plus a step. A step is the elements per word for
/// the tiled kernel (packed data tiles only in whole words) and one element for the micro
/// kernel, around its wide block (whose sides must divide by its block: the other sides
/// fall to its narrow block or to the generic kernel, checked too).
fn edge_sizes(kernel: Kernel, elem: usize) -> Vec<usize> {
    let (extent, step) = match kernel {
        Kernel::Micro => (
            Block::wide(elem as u32).map_or(MICRO_SIDE, |b| b.side) as usize,
            1,
        ),
        _ => {
            let tile = Tile::for_unit(elem as u32);
            (tile.extent() as usize, tile.pack as usize)
        }
    };
    vec![0, extent - step, extent, extent + step, 2 * extent + step]
}

/// Colour channels between interleaved and planar layouts (`[N, H, W, 3] <-> [N, 3, H, W]`)
/// and `[3000, 7] -> [7, 3000]`, for every element size that has strips: on a CPU device
/// they run as strips, on GL too (32-bit accesses there, no `SHADER_INT64`).
#[test]
fn colour_channels_move_as_strips() {
    let Some(p) = gpu() else { return };
    let mut cases = Vec::new();
    for elem in [1, 2, 4, 8] {
        for (shape, perm) in [
            ([2, 40, 48, 3], [0, 3, 1, 2]),
            ([2, 3, 40, 48], [0, 2, 3, 1]),
        ] {
            cases.push(case(&shape, &perm, elem, Options::default(), (0, 0)));
        }
    }
    cases.push(case(&[3000, 7], &[1, 0], 4, Options::default(), (16, 32)));
    for plan in expect_all_pass(p, &cases) {
        if p.caps().cpu {
            let strip = plan.variant().and_then(|v| v.block()).and_then(|b| b.strip);
            assert!(strip.is_some(), "{plan}");
        }
    }
}

#[test]
fn edges_of_every_kernel_with_offsets_and_two_batch_dims() {
    let Some(p) = gpu() else { return };
    let mut cases = Vec::new();
    let mut forced = 0;
    for &elem in &ELEM_SIZES {
        for (kernel, options) in [(Kernel::Tiled, TILED), (Kernel::Micro, MICRO)] {
            let sizes = edge_sizes(kernel, elem);
            for &r in &sizes {
                for &c in &sizes {
                    // One batch dim, and two that cannot merge: (B1, R, B2, C) -> (B2, B1, C, R).
                    let shapes: [(&[usize], &[usize]); 2] =
                        [(&[3, r, c], &[0, 2, 1]), (&[2, r, 3, c], &[2, 0, 3, 1])];
                    for (shape, perm) in shapes {
                        for offsets in [(0, 0), (4, 8)] {
                            let case = case(shape, perm, elem, options, offsets);
                            for o in applicable(p, &case) {
                                if o == options {
                                    forced += 1;
                                } else if o != GENERIC && o != Options::default() {
                                    continue;
                                }
                                cases.push(case.clone().with_options(o));
                            }
                        }
                    }
                }
            }
        }
    }
    let plans = expect_all_pass(p, &cases);
    // The forced kernels really ran (an empty tensor runs nothing).
    let mut ran = 0;
    for (plan, case) in plans.iter().zip(&cases) {
        if let Some(k @ (Kernel::Tiled | Kernel::Micro)) = case.options().kernel {
            assert!(
                plan.kernel() == k || plan.kernel() == Kernel::Empty,
                "{plan}"
            );
            ran += (plan.kernel() == k) as usize;
        }
    }
    assert!(
        ran > 100 && forced >= ran,
        "only {ran} tiled/micro cases ran"
    );
}

#[test]
fn packed_tiled_refuses_sizes_it_cannot_pack_and_generic_handles_them() {
    let Some(p) = gpu() else { return };
    for (elem, r, c) in [(1, 33, 64), (1, 64, 66), (2, 31, 64), (2, 64, 65)] {
        let shape = [r, c];
        let req = Request::new(&shape, &[1, 0], elem).with_options(TILED);
        assert!(
            matches!(
                diagnostics::plan_request(p, &req),
                Err(PermuteError::ForcedChoice { .. })
            ),
            "{elem} {r} {c}"
        );
        let plan = check(p, &[r, c], &[1, 0], elem, Options::default(), (0, 0)).unwrap();
        assert_eq!(plan.kernel(), Kernel::Generic, "{plan}");
    }
}

#[test]
fn size_zero_and_size_one_dims() {
    let Some(p) = gpu() else { return };
    let cases: &[(&[usize], &[usize])] = &[
        (&[1], &[0]),
        (&[1, 1, 1], &[2, 0, 1]),
        (&[1, 7, 1, 5], &[3, 2, 1, 0]),
        (&[4, 1, 6], &[2, 1, 0]),
        (&[0], &[0]),
        (&[3, 0, 5], &[2, 0, 1]),
        (&[0, 1], &[1, 0]),
    ];
    let (mut failures, mut total) = (Vec::new(), 0);
    for (shape, perm) in cases {
        for &elem in &ELEM_SIZES {
            total += 1;
            match check(p, shape, perm, elem, Options::default(), (4, 4)) {
                Ok(plan) if shape.contains(&0) => assert_eq!(plan.kernel(), Kernel::Empty),
                Ok(_) => {}
                Err(m) => failures.push(m),
            }
        }
    }
    expect_all_ok(failures, total);
}

#[test]
fn forced_64_bit_index_math_on_common_permutes() {
    let Some(p) = gpu() else { return };
    let mut indices = vec![IndexMath::U32Pair];
    if p.caps().int64 {
        indices.push(IndexMath::U64);
    }
    let cases: &[(&[usize], &[usize])] = &[
        (&[8, 12, 5, 6], &[0, 2, 1, 3]),
        (&[6, 10, 7, 9], &[0, 2, 3, 1]),
        (&[33, 65], &[1, 0]),
        (&[4, 5, 6], &[2, 1, 0]),
    ];
    let (mut failures, mut total) = (Vec::new(), 0);
    for index in indices {
        for (shape, perm) in cases {
            for &elem in &ELEM_SIZES {
                let options = Options {
                    kernel: Some(Kernel::Generic),
                    index: Some(index),
                    binding_limit: None,
                    specialize: None,
                    access64: None,
                    wide_stores: None,
                    scatter: None,
                    walk_tiles: None,
                    column_runs: None,
                    row_copies: Some(false),
                };
                total += 1;
                if let Err(m) = check(p, shape, perm, elem, options, (4, 12)) {
                    failures.push(m);
                }
            }
        }
    }
    expect_all_ok(failures, total);
}

/// The 64-bit helpers are only reached past 2^32 on real tensors, far beyond what a test
/// can allocate; this runs them on large values directly and compares with host u64 math.
#[test]
fn index_math_64_bit_helpers_match_host_arithmetic() {
    let Some(p) = gpu() else { return };
    let pairs: [(u64, u64); 8] = [
        (0, 1),
        (7, 3),
        (u32::MAX as u64 + 5, 3),
        (1 << 40, 1_000_003),
        (0x1234_5678_9abc_def0, 0x1_0000_0001),
        ((1 << 62) + 12345, 1 << 33),
        (123_456_789_012, 123_456_789_013),
        ((1 << 63) - 1, 65_537),
    ];
    let mut indices = vec![IndexMath::U32Pair];
    if p.caps().int64 {
        indices.push(IndexMath::U64);
    }
    for index in indices {
        let source = format!(
            "@group(0) @binding(0) var<storage, read> input: array<u32>;
             @group(0) @binding(1) var<storage, read_write> output: array<u32>;
             fn param(i: u32) -> u32 {{ return input[i]; }}
             const VALUES: u32 = 4u;
             {}
             fn put(slot: u32, v: Idx) {{
                 output[2u * slot] = iu32(v);
                 let hi = idiv(v, imul(ix(65536u), ix(65536u)));
                 output[2u * slot + 1u] = iu32(hi);
             }}
             @compute @workgroup_size(1)
             fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
                 let a = ip(2u * id.x);
                 let b = ip(2u * id.x + 1u);
                 let base = 6u * id.x;
                 put(base, iadd(a, b));
                 put(base + 1u, imul(a, b));
                 put(base + 2u, idiv(a, b));
                 put(base + 3u, imod(a, b));
                 put(base + 4u, select(ix(0u), ix(1u), ilt(a, b)));
                 put(base + 5u, select(ix(0u), ix(1u), ilt(b, a)));
             }}",
            shaders::index_math(index)
        );
        let device = p.device();
        // ip(k) reads words 4 + 2k and 5 + 2k.
        let mut words = vec![0u32; 4];
        for (a, b) in pairs {
            for v in [a, b] {
                words.extend([v as u32, (v >> 32) as u32]);
            }
        }
        let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let out_size = (pairs.len() * 6 * 8) as u64;
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: out_size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: out_size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: input.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: output.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(pairs.len() as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, out_size);
        p.queue().submit([encoder.finish()]);
        let got: Vec<u64> =
            bytemuck::pod_collect_to_vec(&read_buffer(device, &readback, out_size).unwrap());
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            let want = [
                a.wrapping_add(b),
                a.wrapping_mul(b),
                a / b,
                a % b,
                (a < b) as u64,
                (b < a) as u64,
            ];
            assert_eq!(&got[6 * i..6 * i + 6], &want, "{index:?} on ({a}, {b})");
        }
    }
}

#[test]
fn permute_slice_on_typed_data() {
    let Some(p) = gpu() else { return };
    let m: Vec<f32> = (0..6).map(|v| v as f32 + 0.5).collect();
    assert_eq!(
        p.permute_slice(&m, &[2, 3], &[1, 0]).unwrap(),
        [0.5, 3.5, 1.5, 4.5, 2.5, 5.5]
    );
    let h: Vec<u16> = (0..24).collect();
    assert_eq!(
        p.permute_slice(&h, &[2, 3, 4], &[2, 0, 1]).unwrap(),
        reference::permute_slice(&h, &[2, 3, 4], &[2, 0, 1]).unwrap()
    );
    let b: Vec<u8> = (0..105).collect();
    assert_eq!(
        p.permute_slice(&b, &[3, 5, 7], &[1, 2, 0]).unwrap(),
        reference::permute_slice(&b, &[3, 5, 7], &[1, 2, 0]).unwrap()
    );
    let w: Vec<[u32; 4]> = (0..12).map(|i| [i, i + 100, i + 200, i + 300]).collect();
    assert_eq!(
        p.permute_slice(&w, &[3, 4], &[1, 0]).unwrap(),
        reference::permute_slice(&w, &[3, 4], &[1, 0]).unwrap()
    );
    let d: Vec<u64> = (0..30).map(|i| i * 0x1_0000_0001).collect();
    assert_eq!(
        p.permute_slice(&d, &[5, 6], &[1, 0]).unwrap(),
        reference::permute_slice(&d, &[5, 6], &[1, 0]).unwrap()
    );
    let empty: Vec<f32> = Vec::new();
    assert!(
        p.permute_slice(&empty, &[0, 3], &[1, 0])
            .unwrap()
            .is_empty()
    );
}

fn buffer(p: &wgpu_permute::Permuter, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    p.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn buffer_errors_are_typed_and_nothing_panics() {
    let Some(p) = gpu() else { return };
    use wgpu::BufferUsages as U;
    let storage = buffer(p, 256, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    let other = buffer(p, 256, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    let small = buffer(p, 64, U::STORAGE);
    let no_storage = buffer(p, 256, U::COPY_SRC | U::COPY_DST);
    let transpose = Request::new(&[4, 8], &[1, 0], 4);
    let identity = Request::new(&[4, 8], &[0, 1], 4);
    let run = |src: &wgpu::Buffer, dst: &wgpu::Buffer, req: &Request| submit(p, src, dst, req);

    assert_eq!(
        run(&storage, &storage, &transpose),
        Err(PermuteError::SameBuffer)
    );
    assert_eq!(
        run(&no_storage, &other, &transpose),
        Err(PermuteError::MissingUsage {
            which: "source",
            missing: "STORAGE"
        })
    );
    assert_eq!(
        run(&storage, &no_storage, &transpose),
        Err(PermuteError::MissingUsage {
            which: "destination",
            missing: "STORAGE"
        })
    );
    assert_eq!(
        run(&small, &other, &identity),
        Err(PermuteError::MissingUsage {
            which: "source",
            missing: "COPY_SRC"
        })
    );
    assert_eq!(
        run(&storage, &small, &transpose),
        Err(PermuteError::BufferTooSmall {
            which: "destination",
            need: 128,
            have: 64
        })
    );
    assert_eq!(
        run(&storage, &other, &transpose.with_offsets(192, 0)),
        Err(PermuteError::BufferTooSmall {
            which: "source",
            need: 320,
            have: 256
        })
    );
    assert_eq!(
        run(&storage, &other, &Request::new(&[4, 8], &[1, 1], 4)),
        Err(PermuteError::PermDuplicate { value: 1 })
    );
    assert_eq!(
        p.permute_slice(&[1u32, 2, 3], &[2, 2], &[1, 0]),
        Err(PermuteError::DataLength { need: 4, have: 3 })
    );
    assert_eq!(
        p.permute_slice(&[[0u8; 3]; 4], &[2, 2], &[1, 0]),
        Err(PermuteError::ElemSize(3))
    );
    assert_eq!(
        gpu_permute(p.device(), p.queue(), &storage, &other, &[4, 8], &[0], 4).map(drop),
        Err(PermuteError::PermLength {
            perm_len: 1,
            rank: 2
        })
    );
}

#[test]
fn gpu_permute_and_recording_into_the_callers_encoder() {
    let Some(p) = gpu() else { return };
    use wgpu::BufferUsages as U;
    let device = p.device();
    let shape = [6usize, 10, 14];
    let data: Vec<u32> = (0..(6 * 10 * 14) as u32).collect();
    let bytes = (data.len() * 4) as u64;
    let a = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&data),
        usage: U::STORAGE,
    });
    let b = buffer(p, bytes, U::STORAGE);
    let c = buffer(p, bytes, U::STORAGE | U::COPY_SRC);
    let readback = buffer(p, bytes, U::MAP_READ | U::COPY_DST);

    // The one-call entry, then a second permute recorded with other work in one encoder.
    gpu_permute(device, p.queue(), &a, &b, &shape, &[2, 0, 1], 4).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    let op = Relayout::permute(&[14, 6, 10], &[1, 0, 2], 4).unwrap();
    p.record(&mut encoder, &b, &c, &op).unwrap();
    encoder.copy_buffer_to_buffer(&c, 0, &readback, 0, bytes);
    p.queue().submit([encoder.finish()]);
    let got: Vec<u32> =
        bytemuck::pod_collect_to_vec(&read_buffer(device, &readback, bytes).unwrap());
    let once = reference::permute_slice(&data, &shape, &[2, 0, 1]).unwrap();
    assert_eq!(
        got,
        reference::permute_slice(&once, &[14, 6, 10], &[1, 0, 2]).unwrap()
    );
}

/// `gpu_permute` keeps one permuter per device: after the first call of a shape, calls
/// again (of that shape and of one it planned alike) compile no pipeline, and each lands
/// its result. Another device's calls get a permuter of their own.
#[test]
fn repeated_gpu_permute_calls_compile_nothing() {
    let Some(p) = gpu() else { return };
    use wgpu::BufferUsages as U;
    // A device of this test's own, so that no other test's calls share its permuter.
    let (_, device, queue) = wgpu_permute::device_on(p.device().adapter_info().backend.into())
        .expect("a second device on the test's adapter");
    let shape = [3usize, 100, 7];
    let data: Vec<u32> = (0..(3 * 100 * 7) as u32).collect();
    let bytes = (data.len() * 4) as u64;
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&data),
        usage: U::STORAGE,
    });
    let make = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let (dst, readback) = (
        make(U::STORAGE | U::COPY_SRC),
        make(U::MAP_READ | U::COPY_DST),
    );
    let shared = wgpu_permute::Permuter::shared(&device, &queue).unwrap();
    let compiled = || wgpu_permute::diagnostics::cached_pipelines(&shared);
    assert_eq!(compiled(), 0);
    gpu_permute(&device, &queue, &src, &dst, &shape, &[2, 0, 1], 4).unwrap();
    let after_first = compiled();
    assert!(after_first > 0, "the first call compiles its kernel");
    for _ in 0..5 {
        gpu_permute(&device, &queue, &src, &dst, &shape, &[2, 0, 1], 4).unwrap();
    }
    assert_eq!(compiled(), after_first, "repeated calls compiled pipelines");
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, bytes);
    queue.submit([encoder.finish()]);
    let got: Vec<u32> =
        bytemuck::pod_collect_to_vec(&read_buffer(&device, &readback, bytes).unwrap());
    assert_eq!(
        got,
        reference::permute_slice(&data, &shape, &[2, 0, 1]).unwrap()
    );
    // The test pool's device is another device: its permuter is not this one.
    let other = wgpu_permute::Permuter::shared(p.device(), p.queue()).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&other, &shared));
    assert!(wgpu_permute::Permuter::release_shared(&device));
    assert!(!wgpu_permute::Permuter::release_shared(&device));
    let fresh = wgpu_permute::Permuter::shared(&device, &queue).unwrap();
    assert_eq!(wgpu_permute::diagnostics::cached_pipelines(&fresh), 0);
}

/// A random tensor of rank 1..=8 with small dims (total at most a few thousand elements), a
/// random permutation of it, an element size and word-aligned offsets.
fn random_case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize, (u64, u64))> {
    (1usize..=8)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(1usize..=5, rank),
                Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
                proptest::sample::select(ELEM_SIZES.to_vec()),
                (0u64..5, 0u64..5),
            )
        })
        .prop_filter("keep GPU cases small", |(shape, ..)| {
            shape.iter().product::<usize>() <= 8192
        })
        .prop_map(|(shape, perm, elem, (a, b))| (shape, perm, elem, (4 * a, 4 * b)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_permutes_up_to_rank_8_match_the_reference(drawn in random_case()) {
        let Some(p) = gpu() else { return Ok(()) };
        let (shape, perm, elem, offsets) = drawn;
        let specialized = Options { specialize: Some(true), ..GENERIC };
        let cases = [Options::default(), GENERIC, specialized]
            .map(|options| case(&shape, &perm, elem, options, offsets));
        for result in check_many(p, &cases) {
            if let Err(m) = result {
                prop_assert!(false, "{}", m);
            }
        }
    }
}

#[test]
fn test_data_shows_misplaced_writes() {
    // The checker's data must make any two elements distinguishable, or a swapped pair of
    // elements would pass: neighbouring 4-byte elements never repeat in a long run.
    let data = test_bytes(4 * 4096, 7);
    let words: Vec<&[u8]> = data.chunks(4).collect();
    let distinct: std::collections::HashSet<_> = words.iter().collect();
    assert!(distinct.len() > 4000, "{}", distinct.len());
}
