//! Demo: permutes a real tensor on the default adapter, checks it against the CPU reference,
//! and prints the plan and the bandwidth next to a buffer copy of the same bytes.
//!
//! `cargo run --release --example demo` (the README's run command sets up Vulkan first).

use std::time::{Duration, Instant};

use wgpu::util::DeviceExt;
use wgpu_permute::{Permuter, Relayout, read_buffer, reference};

/// Median wall-clock time of `runs` submissions of `record`, each waited for, after a warm-up.
fn time_it(p: &Permuter, runs: usize, record: impl Fn(&mut wgpu::CommandEncoder)) -> Duration {
    let mut times: Vec<Duration> = (0..=runs)
        .map(|_| {
            let mut encoder = p.device().create_command_encoder(&Default::default());
            record(&mut encoder);
            let start = Instant::now();
            p.queue().submit([encoder.finish()]);
            p.device()
                .poll(wgpu::PollType::wait_indefinitely())
                .expect("GPU wait");
            start.elapsed()
        })
        .skip(1)
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let permuter = Permuter::new_default()?;
    let info = permuter.device().adapter_info();
    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );

    // A batch of 16 matrices of 512 x 512 f32 (16 MiB), transposed: (B, R, C) -> (B, C, R).
    let shape = [16usize, 512, 512];
    let perm = [0usize, 2, 1];
    let data: Vec<f32> = (0..shape.iter().product::<usize>())
        .map(|i| i as f32)
        .collect();
    let bytes = (data.len() * 4) as u64;
    // Planned, tuned and compiled once; recorded as often as wanted.
    let op = permuter.prepare(&Relayout::permute(&shape, &perm, 4)?)?;
    println!("plan: {}", op.plans()[0]);

    let device = permuter.device();
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("demo input"),
        contents: bytemuck::cast_slice(&data),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let buffer = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("demo"),
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let dst = buffer(
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);

    // Correctness first.
    let mut encoder = device.create_command_encoder(&Default::default());
    permuter.record(&mut encoder, &src, &dst, &op)?;
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, bytes);
    permuter.queue().submit([encoder.finish()]);
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&read_buffer(device, &readback, bytes)?);
    let want = reference::permute_slice(&data, &shape, &perm)?;
    if got != want {
        return Err("GPU result differs from the CPU reference".into());
    }
    println!(
        "check: GPU result equals the CPU reference ({} elements)",
        data.len()
    );

    // Then speed: wall clock around submit + wait, median of 9 runs.
    let gbps = |t: Duration| 2.0 * bytes as f64 / t.as_secs_f64() / 1e9;
    let permute = time_it(&permuter, 9, |e| {
        permuter
            .record(e, &src, &dst, &op)
            .expect("recorded once already");
    });
    let copy = time_it(&permuter, 9, |e| {
        e.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes)
    });
    println!(
        "permute: {:.2} ms, {:.2} GB/s (read + written)\nbuffer copy of the same {} MiB: {:.2} ms, {:.2} GB/s\npermute / copy bandwidth: {:.2}",
        permute.as_secs_f64() * 1e3,
        gbps(permute),
        bytes >> 20,
        copy.as_secs_f64() * 1e3,
        gbps(copy),
        gbps(permute) / gbps(copy)
    );
    Ok(())
}
