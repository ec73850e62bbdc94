//! Criterion benchmarks over the default suite, grouped by the kernel the planner picks, and
//! the views section as one more group. Each iteration is timed with GPU timestamps where
//! the device has them (wall clock otherwise), through the same `Bench` runner as
//! `wgpu-permute bench`.
//!
//! `cargo bench --features bench --bench permute` (set WGPU_BACKEND=vulkan on a machine
//! without a GPU).

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use wgpu_permute::Permuter;
use wgpu_permute::bench::{Bench, Case, default_suite, view_suite};
use wgpu_permute::plan::kernel_names;

fn permute(c: &mut Criterion) {
    let permuter = Permuter::new_default().expect("benchmarks need a GPU adapter");
    let bench = Bench::new(&permuter, 1).expect("bench set-up");
    let device = permuter.device();
    // Every part's kernel, as the bench's table names them (`micro+generic`).
    let kernel_of = |case: &Case| {
        permuter
            .prepare(&case.op)
            .map_or("refused".to_string(), |p| kernel_names(p.plans()))
    };
    // Throughput counts the output's bytes twice, as `CaseResult::traffic` does.
    let run = |group: &mut BenchmarkGroup<WallTime>, case: &Case| {
        let buffer = |size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bench"),
                size: size.next_multiple_of(16).max(16),
                usage,
                mapped_at_creation: false,
            })
        };
        let src = buffer(
            case.source_bytes(),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let dst = buffer(
            case.bytes(),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        let op = permuter.prepare(&case.op).expect("planned above");
        group.throughput(Throughput::Bytes(2 * case.bytes()));
        group.bench_function(case.label(), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        bench
                            .time_once(&|e| {
                                permuter.record(e, &src, &dst, &op).expect("planned above");
                            })
                            .expect("GPU timing")
                            .0
                    })
                    .sum()
            })
        });
    };
    let configure = |group: &mut BenchmarkGroup<WallTime>| {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
    };
    // One group per kernel (or kernels of a permute in parts) that the suite's cases run.
    let cases: Vec<(Case, String)> = default_suite(1)
        .into_iter()
        .map(|case| {
            let kernel = kernel_of(&case);
            (case, kernel)
        })
        .collect();
    let mut kernels: Vec<&str> = cases.iter().map(|(_, k)| k.as_str()).collect();
    kernels.sort_unstable();
    kernels.dedup();
    for kernel in kernels.into_iter().filter(|&k| k != "refused") {
        let mut group = c.benchmark_group(kernel);
        configure(&mut group);
        for (case, _) in cases.iter().filter(|(_, k)| k == kernel) {
            run(&mut group, case);
        }
        group.finish();
    }
    let mut group = c.benchmark_group("views");
    configure(&mut group);
    for case in view_suite(1)
        .iter()
        .filter(|case| kernel_of(case) != "refused")
    {
        run(&mut group, case);
    }
    group.finish();
}

criterion_group!(benches, permute);
criterion_main!(benches);
