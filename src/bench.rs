//! Benchmark runner, shared by `wgpu-permute bench` and `benches/permute.rs`. For each case
//! it measures, in the same run on the same device: the permute, `copy_buffer_to_buffer` of
//! the same bytes, a vectorised WGSL copy of the same bytes (the shader ceiling), and, for
//! context, the CPU reference. Each permute is checked against the reference before it is
//! timed. GPU timestamps where the device has them, wall clock otherwise.

use std::time::{Duration, Instant};

use crate::plan::{GENERIC_ITEMS, GENERIC_WORKGROUP, Options, Plan, Request, fold_grid};
use crate::shaders::{self, CopyWord};
use crate::timing::Timer;
pub use crate::timing::{Clock, Stats};
use crate::{PermuteError, Permuter, captured, read_buffer, reference, upload};
use thiserror::Error;

/// One benchmark case: a permute of a contiguous tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub shape: Vec<usize>,
    pub perm: Vec<usize>,
    pub elem_size: usize,
}

impl Case {
    pub fn new(shape: &[usize], perm: &[usize], elem_size: usize) -> Self {
        Case {
            shape: shape.to_vec(),
            perm: perm.to_vec(),
            elem_size,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.shape.iter().product::<usize>() as u64 * self.elem_size as u64
    }

    pub fn request(&self) -> Request<'_> {
        Request::new(&self.shape, &self.perm, self.elem_size)
    }

    /// `[64,512,512] (0,2,1) 4B`.
    pub fn label(&self) -> String {
        let list = |v: &[usize], sep| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(sep)
        };
        format!(
            "[{}] ({}) {}B",
            list(&self.shape, ","),
            list(&self.perm, ","),
            self.elem_size
        )
    }
}

/// The default suite: real-model permutes of 16-64 MiB each at `scale` 1 (plus a few small
/// odd ones for variety). `scale` multiplies the outermost dim, for GPUs that finish these
/// too quickly to time well.
pub fn default_suite(scale: usize) -> Vec<Case> {
    let cases: [(&[usize], &[usize], usize); 14] = [
        (&[4096, 4096], &[1, 0], 4),
        (&[64, 512, 512], &[0, 2, 1], 4),
        (&[64, 512, 512], &[0, 2, 1], 2),
        (&[64, 512, 512], &[0, 2, 1], 1),
        (&[512, 512, 64], &[1, 0, 2], 4),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 4),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 2),
        (&[32, 64, 56, 56], &[0, 2, 3, 1], 4),
        (&[32, 56, 56, 64], &[0, 3, 1, 2], 4),
        (&[64, 64, 64, 64], &[3, 2, 1, 0], 4),
        (&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], 4),
        (&[32, 512, 512], &[0, 2, 1], 8),
        (&[2048, 2048], &[1, 0], 16),
        (&[3, 1000, 7], &[2, 0, 1], 4),
    ];
    cases
        .iter()
        .map(|(shape, perm, elem)| {
            let mut shape = shape.to_vec();
            shape[0] *= scale.max(1);
            Case::new(&shape, perm, *elem)
        })
        .collect()
}

/// Measurements of one case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub case: Case,
    pub plan: Plan,
    pub permute: Stats,
    pub buffer_copy: Stats,
    pub shader_copy: Stats,
    /// One run of the CPU reference, for context.
    pub cpu_reference: Duration,
}

impl CaseResult {
    /// Bytes read plus bytes written.
    pub fn traffic(&self) -> u64 {
        2 * self.case.bytes()
    }

    pub fn gbps(&self) -> f64 {
        self.permute.gbps(self.traffic())
    }

    /// Permute bandwidth over `copy_buffer_to_buffer` bandwidth (median times).
    pub fn vs_buffer_copy(&self) -> f64 {
        self.buffer_copy.median.as_secs_f64() / self.permute.median.as_secs_f64().max(1e-12)
    }

    /// Permute bandwidth over the WGSL vec4 copy's bandwidth (median times).
    pub fn vs_shader_copy(&self) -> f64 {
        self.shader_copy.median.as_secs_f64() / self.permute.median.as_secs_f64().max(1e-12)
    }
}

/// Why a benchmark case could not be measured.
#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Permute(#[from] PermuteError),
    #[error("{0}: the GPU result differs from the CPU reference")]
    Mismatch(String),
}

/// Runs benchmark cases on one permuter's device.
pub struct Bench<'a> {
    permuter: &'a Permuter,
    timer: Timer,
    copy_pipeline: wgpu::ComputePipeline,
    pub warmups: usize,
    pub runs: usize,
}

impl<'a> Bench<'a> {
    pub fn new(permuter: &'a Permuter, runs: usize) -> Result<Self, PermuteError> {
        let device = permuter.device();
        let timer = Timer::new(device, permuter.queue())?;
        let source = shaders::vec4_copy_source()
            .map_err(|e| PermuteError::Validation(format!("shader generation: {e}")))?;
        let copy_pipeline = captured(device, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("vec4_copy"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("vec4_copy"),
                layout: None,
                module: &module,
                entry_point: Some("vec4_copy"),
                compilation_options: Default::default(),
                cache: None,
            })
        })?;
        Ok(Bench {
            permuter,
            timer,
            copy_pipeline,
            warmups: 2,
            runs: runs.max(1),
        })
    }

    pub fn clock(&self) -> Clock {
        self.timer.clock()
    }

    /// Time of one submission of the work `record` puts in an encoder.
    pub fn time_once(
        &self,
        record: &dyn Fn(&mut wgpu::CommandEncoder),
    ) -> Result<Duration, PermuteError> {
        self.timer.time_once(record)
    }

    /// Median and minimum over the runs, after the warm-ups.
    pub fn time(&self, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Result<Stats, PermuteError> {
        self.timer.time(record, self.warmups, self.runs)
    }

    /// Measures one case (with `options` forcing choices, for kernel comparisons).
    pub fn run_case(&self, case: &Case, options: Options) -> Result<CaseResult, BenchError> {
        let permuter = self.permuter;
        let device = permuter.device();
        let req = case.request().with_options(options);
        permuter.plan(&req)?; // refuse a bad case before allocating for it
        let bytes = case.bytes();
        // Buffers padded to whole 16-byte units so the vec4 copy moves every byte.
        let size = bytes.next_multiple_of(16).max(16);
        let mut data = bench_bytes(size as usize);

        let start = Instant::now();
        let want = reference_permute(&data[..bytes as usize], case)?;
        let cpu_reference = start.elapsed();

        data.resize(size as usize, 0);
        let (src, dst, readback, params) = captured(device, || {
            let src = upload(
                device,
                permuter.queue(),
                "bench src",
                &data,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let buffer = |usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("bench"),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let dst = buffer(
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            );
            let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
            let units = size / 16;
            let total = units.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
            let mut words = [0u32; 4];
            words[CopyWord::TotalWorkgroups as usize] = total as u32;
            words[CopyWord::Units as usize] = units as u32;
            let params = upload(
                device,
                permuter.queue(),
                "bench vec4_copy params",
                bytemuck::cast_slice(&words),
                wgpu::BufferUsages::UNIFORM,
            );
            (src, dst, readback, (params, total))
        })?;

        // Correct first: one permute, read back, compared with the reference. Its plan is
        // the one that runs (autotuning may choose another kernel than `plan` above).
        let mut encoder = device.create_command_encoder(&Default::default());
        let plan = permuter.encode(&mut encoder, &src, &dst, &req)?;
        encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
        captured(device, || permuter.queue().submit([encoder.finish()]))?;
        if read_buffer(device, &readback, bytes)? != want {
            return Err(BenchError::Mismatch(case.label()));
        }

        let permute = self.time(&|e| {
            // Planned and recorded successfully above; the same call cannot fail now.
            let _ = permuter.encode(e, &src, &dst, &req);
        })?;
        let buffer_copy = self.time(&|e| e.copy_buffer_to_buffer(&src, 0, &dst, 0, size))?;

        let (params, total) = params;
        let grid = fold_grid(total, permuter.caps().max_workgroups_per_dim)?;
        let bind_group = captured(device, || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("bench vec4_copy"),
                layout: &self.copy_pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: src.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: dst.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: params.as_entire_binding(),
                    },
                ],
            })
        })?;
        let shader_copy = self.time(&|e| {
            let mut pass = e.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.copy_pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        })?;

        Ok(CaseResult {
            case: case.clone(),
            plan,
            permute,
            buffer_copy,
            shader_copy,
            cpu_reference,
        })
    }
}

/// Pseudo-random bytes, so that a misplaced element shows in the check.
fn bench_bytes(len: usize) -> Vec<u8> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The CPU reference on typed elements (much faster than on byte chunks).
fn reference_permute(data: &[u8], case: &Case) -> Result<Vec<u8>, PermuteError> {
    fn typed<T: bytemuck::Pod>(data: &[u8], case: &Case) -> Result<Vec<u8>, PermuteError> {
        let elems: Vec<T> = bytemuck::pod_collect_to_vec(data);
        let out = reference::permute_slice(&elems, &case.shape, &case.perm)?;
        Ok(bytemuck::cast_slice(&out).to_vec())
    }
    match case.elem_size {
        1 => typed::<u8>(data, case),
        2 => typed::<u16>(data, case),
        4 => typed::<u32>(data, case),
        8 => typed::<u64>(data, case),
        16 => typed::<u128>(data, case),
        other => Err(PermuteError::ElemSize(other)),
    }
}

/// A plain-text table of results, with the device and clock in the heading and a summary.
pub fn table(device: &str, clock: Clock, results: &[CaseResult]) -> String {
    let mut out = format!(
        "device: {device}\ntiming: {}; median (min) of the runs; GB/s = (bytes read + written) / median\n\n",
        clock.describe()
    );
    out += &format!(
        "{:<36} {:>6} {:>8} {:>17} {:>8} {:>8} {:>8} {:>8}\n",
        "case", "MiB", "kernel", "permute ms", "GB/s", "/ copy", "/ shader", "CPU ms"
    );
    for r in results {
        out += &format!(
            "{:<36} {:>6.1} {:>8} {:>8.3} ({:>6.3}) {:>8.2} {:>8.2} {:>8.2} {:>8.1}\n",
            r.case.label(),
            r.case.bytes() as f64 / (1 << 20) as f64,
            r.plan.kernel.name(),
            r.permute.median.as_secs_f64() * 1e3,
            r.permute.min.as_secs_f64() * 1e3,
            r.gbps(),
            r.vs_buffer_copy(),
            r.vs_shader_copy(),
            r.cpu_reference.as_secs_f64() * 1e3,
        );
    }
    if !results.is_empty() {
        let summary = |f: fn(&CaseResult) -> f64| {
            let mut v: Vec<f64> = results.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            (v[0], v[v.len() / 2])
        };
        let (copy_min, copy_med) = summary(CaseResult::vs_buffer_copy);
        let (shader_min, shader_med) = summary(CaseResult::vs_shader_copy);
        let copy_gbps: Vec<f64> = results
            .iter()
            .map(|r| r.buffer_copy.gbps(r.traffic()))
            .collect();
        let shader_gbps: Vec<f64> = results
            .iter()
            .map(|r| r.shader_copy.gbps(r.traffic()))
            .collect();
        out += &format!(
            "\npermute / buffer copy: median {copy_med:.2}, min {copy_min:.2}\n\
             permute / shader copy: median {shader_med:.2}, min {shader_min:.2}\n\
             buffer copy {:.2} GB/s, shader copy {:.2} GB/s (medians over the cases)\n",
            median(copy_gbps),
            median(shader_gbps)
        );
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
