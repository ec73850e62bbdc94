//! The host's cost of a call, for a small permute whose GPU work is short: recording a
//! prepared operation into an encoder, the same recorded and submitted, and the one-call
//! `gpu_permute` (which plans and records on the device's shared permuter, then submits).
//! Only the calls are timed: after each one the GPU is waited for (or, for calls that only
//! record, an empty submission made every 64 calls so that their parameter blocks are
//! freed) with the clock
//! stopped, so that the device's work neither counts nor competes for the host's cores
//! (a CPU adapter's work runs on them).
//!
//! `cargo bench --features bench --bench calls` (set WGPU_BACKEND=vulkan on a machine
//! without a GPU).

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use wgpu_permute::{Permuter, Relayout, gpu_permute};

const SHAPE: [usize; 3] = [3, 1000, 7];
const PERM: [usize; 3] = [2, 0, 1];
/// Calls that only record between submissions that free their resources.
const BATCH: u64 = 64;

fn calls(c: &mut Criterion) {
    let permuter = Permuter::new_default().expect("benchmarks need a GPU adapter");
    let (device, queue) = (permuter.device(), permuter.queue());
    let bytes = (SHAPE.iter().product::<usize>() * 4) as u64;
    let buffer = || {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("calls"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (buffer(), buffer());
    let op = Relayout::permute(&SHAPE, &PERM, 4).expect("a valid permute");
    let prepared = permuter.prepare(&op).expect("planned");
    // Times `iters` calls of `call`, each alone: the clock stops while the GPU finishes
    // what it submitted (`submits`) or, every BATCH calls, while an empty submission
    // frees what was recorded.
    let timed = |iters: u64, submits: bool, call: &dyn Fn()| -> Duration {
        let mut total = Duration::ZERO;
        for i in 0..iters {
            let start = Instant::now();
            call();
            total += start.elapsed();
            if submits || i % BATCH == BATCH - 1 {
                // Recording writes each parameter block through the queue, which holds it
                // until the next submission.
                queue.submit([]);
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .expect("the GPU finishes");
            }
        }
        total
    };
    let record = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        permuter
            .record(&mut encoder, &src, &dst, &prepared)
            .expect("recorded");
        encoder.finish()
    };
    let mut group = c.benchmark_group("[3,1000,7] (2,0,1) 4B");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("record prepared", |b| {
        b.iter_custom(|iters| timed(iters, false, &|| drop(record())))
    });
    group.bench_function("record prepared and submit", |b| {
        b.iter_custom(|iters| {
            timed(iters, true, &|| {
                queue.submit([record()]);
            })
        })
    });
    group.bench_function("gpu_permute", |b| {
        b.iter_custom(|iters| {
            timed(iters, true, &|| {
                gpu_permute(device, queue, &src, &dst, &SHAPE, &PERM, 4).expect("permuted");
            })
        })
    });
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
