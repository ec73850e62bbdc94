//! Criterion benchmarks over the default suite, grouped by the kernel the planner picks.
//! Each iteration is timed with GPU timestamps where the device has them (wall clock
//! otherwise), through the same `Bench` runner as `wgpu-permute bench`.
//!
//! `cargo bench --bench permute` (set WGPU_BACKEND=vulkan on a machine without a GPU).

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wgpu_permute::Permuter;
use wgpu_permute::bench::{Bench, default_suite};

fn permute(c: &mut Criterion) {
    let permuter = Permuter::new_default().expect("benchmarks need a GPU adapter");
    let bench = Bench::new(&permuter, 1).expect("bench set-up");
    let device = permuter.device();
    let mut cases = default_suite(1);
    let kernel_of = |case: &wgpu_permute::bench::Case| {
        permuter
            .plan(&case.request())
            .map(|p| p.kernel.name())
            .unwrap_or("refused")
    };
    cases.sort_by_key(|case| kernel_of(case));
    for kernel in ["copy", "generic", "tiled"] {
        let mut group = c.benchmark_group(kernel);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        for case in cases.iter().filter(|case| kernel_of(case) == kernel) {
            let size = case.bytes().next_multiple_of(16);
            let buffer = |usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("bench"),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let src = buffer(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
            let dst = buffer(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST);
            let req = case.request();
            group.throughput(Throughput::Bytes(2 * case.bytes()));
            group.bench_function(case.label(), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            bench
                                .time_once(&|e| {
                                    permuter.encode(e, &src, &dst, &req).expect("planned above");
                                })
                                .expect("GPU timing")
                        })
                        .sum()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, permute);
criterion_main!(benches);
