//! Large tensors, low device limits, bad states: never a panic, never a wrong answer.

mod common;

use common::{check, gpu, permutations};
use wgpu_permute::plan::ELEM_SIZES;
use wgpu_permute::{Options, PermuteError, Permuter};

/// A device on the same adapter with a tiny storage binding and buffer limit, so that
/// small tensors take the windowed path.
fn low_limit_permuter(binding: u64, buffer: u64) -> Permuter {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let mut limits = adapter.limits();
    limits.max_storage_buffer_binding_size = binding;
    limits.max_buffer_size = buffer;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits,
        required_features: adapter.features() & wgpu_permute::WANTED_FEATURES,
        ..Default::default()
    }))
    .unwrap();
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
    let (mut failures, mut total, mut split) = (Vec::new(), 0, 0);
    for rank in 1..=4 {
        for (i, perm) in permutations(rank).iter().enumerate() {
            for &elem in &ELEM_SIZES {
                let shape: Vec<usize> = if rank == 1 {
                    vec![777]
                } else {
                    base[..rank].to_vec()
                };
                let offsets = (4 * (i as u64 % 5), 8 * (i as u64 % 3));
                total += 1;
                match check(&p, &shape, perm, elem, Options::default(), offsets) {
                    Ok(plan) => split += plan.boxed() as usize,
                    Err(m) => failures.push(m),
                }
            }
        }
    }
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
            what: "a buffer holding the tensor",
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
                    let want = wgpu_permute::reference::permute(&data, &shape, perm).unwrap();
                    assert_eq!(got, want, "thread {t} case {i}");
                }
            });
        }
    });
}
