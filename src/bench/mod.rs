//! Benchmark runner, shared by `wgpu-permute bench` and `benches/permute.rs`. For each case
//! (a permute, or a view materialised: [`default_suite`], [`view_suite`]) it measures, in
//! the same run on the same device: the case's work, `copy_buffer_to_buffer` of its output's
//! bytes, a vectorised WGSL copy of the same bytes (the shader ceiling), both in a pair of
//! buffers every case shares ([`Bench`]), and, for context, the CPU reference. Each case is
//! checked against the reference before it is timed. GPU timestamps where the device has
//! them, wall clock otherwise.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::gpu::timing::Timer;
pub use crate::gpu::timing::{Clock, Stats};
use crate::gpu::wait_for;
use crate::plan::{Options, Plan, SpecializeReason};
use crate::{PermuteError, Permuter, Prepared, Relayout, captured, reference, upload};
use thiserror::Error;

mod convert;
mod pair;
mod suite;
pub use convert::{
    ConvertCase, ConvertResult, convert_suite, convert_suite_sized, convert_suite_to, convert_table,
};
use pair::CopyPair;
pub use pair::{CopyPlacement, DST_OFFSETS};
pub use suite::{Case, default_suite, default_suite_sized, view_suite, view_suite_sized};

/// Measurements of one case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub case: Case,
    /// What ran: one plan, or the parts of a permute that runs in parts
    /// (`plan::with_edges`), the body's first.
    pub plans: Vec<Plan>,
    /// The case's own work: the permute, or the view's materialisation.
    pub permute: Stats,
    pub buffer_copy: Stats,
    pub shader_copy: Stats,
    /// One run of the CPU reference, for context.
    pub cpu_reference: Duration,
    /// The first call in a fresh [`Permuter`] on the same device, wall clock from planning
    /// to the GPU's finish: what a program pays once per shape (a pipeline compile where
    /// the shape needs its own, first-use timing or tracing where those are on).
    pub cold: Duration,
}

/// The many-shapes workload's outcome (see [`Bench::many_shapes`]).
#[derive(Clone, Debug)]
pub struct ShapesResult {
    /// Distinct shapes, one call each.
    pub count: usize,
    /// Bytes of all the tensors together.
    pub bytes: u64,
    /// End to end with the planner's choices.
    pub chosen: Duration,
    /// End to end with every shape on the uniform kernel.
    pub uniform: Duration,
    /// Shapes the planner gave their own pipeline.
    pub specialized: usize,
}

impl std::fmt::Display for ShapesResult {
    /// One line for the bench's report.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "many shapes: {} head splits [1,s,16,64] (0,2,1,3) 4B, s = 8..{} ({:.0} MiB), first calls: \
             {:.0} ms as planned ({} with their own pipeline), {:.0} ms all on the uniform kernel ({:.2}x)",
            self.count,
            8 * self.count,
            self.bytes as f64 / (1 << 20) as f64,
            self.chosen.as_secs_f64() * 1e3,
            self.specialized,
            self.uniform.as_secs_f64() * 1e3,
            self.chosen.as_secs_f64() / self.uniform.as_secs_f64(),
        )
    }
}

impl CaseResult {
    /// The kernels that ran, in order without repeats (`micro+generic` for a permute in
    /// parts).
    pub fn kernels(&self) -> String {
        crate::plan::kernel_names(&self.plans)
    }

    /// The plans that ran, each as `Display` shows it, `; ` between parts.
    pub fn plan_text(&self) -> String {
        let text: Vec<String> = self.plans.iter().map(Plan::to_string).collect();
        text.join("; ")
    }

    /// Bytes read plus bytes written, counted as a copy of the output moves them: twice the
    /// output's bytes. Exact for a permute. A view may read less than it writes (a broadcast
    /// reads one row, padding reads nothing) but is counted the same way, so for a view the
    /// GB/s and the ratios to the copies (which move the output's bytes too) read as "speed
    /// relative to a copy of the output".
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
///
/// Every case's copies run in one pair of buffers, not in the case's own, at the fastest of
/// a few placements in it (`pair`: on lavapipe a copy's speed follows where its two
/// buffers lie).
pub struct Bench<'a> {
    permuter: &'a Permuter,
    timer: Timer,
    pair: Mutex<Option<CopyPair>>,
    pub warmups: usize,
    pub runs: usize,
}

impl<'a> Bench<'a> {
    pub fn new(permuter: &'a Permuter, runs: usize) -> Result<Self, PermuteError> {
        let device = permuter.device();
        // On a CPU device recording is part of the work's cost (see `Timer::counting_recording`).
        let timer = Timer::new(device, permuter.queue())?.counting_recording(permuter.caps().cpu);
        Ok(Bench {
            permuter,
            timer,
            pair: Mutex::new(None),
            warmups: 2,
            runs: runs.max(1),
        })
    }

    pub fn clock(&self) -> Clock {
        self.timer.clock()
    }

    /// Time of one submission of the work `record` puts in an encoder, and its device part
    /// (`Timer::time_once`).
    pub fn time_once(
        &self,
        record: &dyn Fn(&mut wgpu::CommandEncoder),
    ) -> Result<(Duration, Duration), PermuteError> {
        self.timer.time_once(record)
    }

    /// The pair every case's copies run in, at least `bytes` each: made at first (at least
    /// `pair::MIN_BYTES`, and its placement chosen, `pair::make`), and made again, larger,
    /// for a case that needs more.
    fn copy_pair(&self, bytes: u64) -> Result<CopyPair, PermuteError> {
        let mut pair = self.pair.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(made) = pair.as_ref().filter(|p| p.placement.bytes >= bytes) {
            return Ok(made.clone());
        }
        // The old pair goes first, so that the two never hold memory at once.
        *pair = None;
        Ok(pair.insert(pair::make(self, bytes)?).clone())
    }

    /// Where the copies of the cases run so far ran (the last pair's, if a case needed a
    /// larger one): `None` before the first case.
    pub fn copy_placement(&self) -> Option<CopyPlacement> {
        let pair = self.pair.lock().unwrap_or_else(|p| p.into_inner());
        pair.as_ref().map(|p| p.placement.clone())
    }

    /// Median and minimum over the runs, after the warm-ups.
    pub fn time(&self, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Result<Stats, PermuteError> {
        self.timer.time(record, self.warmups, self.runs)
    }

    /// The many-shapes workload: `count` attention head splits `[1, s, 16, 64] (0,2,1,3)`
    /// of f32, one per sequence length `s = 8, 16, ..`, each the first call of its shape,
    /// submitted one by one as a program would, in a fresh permuter; wall clock from the
    /// first call until the GPU is done. Measured with the planner's choices and with every
    /// shape on the uniform (unspecialised) kernel, which compiles once for all: per-shape
    /// pipelines must pay back their compile within the workload.
    pub fn many_shapes(&self, count: usize) -> Result<ShapesResult, BenchError> {
        let device = self.permuter.device();
        let queue = self.permuter.queue();
        let shape = |k: usize| [1, 8 * k, 16, 64];
        let largest = 4 * 8 * count as u64 * 16 * 64;
        let (src, dst) = captured(device, || {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let src = upload(
                device,
                queue,
                "shapes src",
                &bench_bytes(largest as usize),
                usage,
            );
            let dst = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("shapes dst"),
                size: largest,
                usage,
                mapped_at_creation: false,
            });
            (src, dst)
        })?;
        let run = |specialize: Option<bool>| -> Result<(Duration, usize), BenchError> {
            let fresh = Permuter::new(device, queue)?;
            wait_for(device)?;
            let start = Instant::now();
            let mut own = 0;
            for k in 1..=count {
                let options = Options {
                    specialize,
                    ..Options::default()
                };
                let op = Relayout::permute(&shape(k), &[0, 2, 1, 3], 4)?.with_options(options);
                let op = fresh.prepare(&op)?;
                let mut encoder = device.create_command_encoder(&Default::default());
                fresh.record(&mut encoder, &src, &dst, &op)?;
                own += usize::from(op.plans()[0].specialized);
                captured(device, || queue.submit([encoder.finish()]))?;
            }
            wait_for(device)?;
            Ok((start.elapsed(), own))
        };
        let (chosen, specialized) = run(None)?;
        let (uniform, _) = run(Some(false))?;
        Ok(ShapesResult {
            count,
            bytes: (1..=count).map(|k| 4 * 8 * k as u64 * 16 * 64).sum(),
            chosen,
            uniform,
            specialized,
        })
    }

    /// Measures one case (with `options` forcing choices, for kernel comparisons).
    pub fn run_case(&self, case: &Case, options: Options) -> Result<CaseResult, BenchError> {
        let permuter = self.permuter;
        let device = permuter.device();
        let op = case.with_options(options);
        // Refuses a bad case before allocating for it.
        permuter.prepare(&op)?;
        let (bytes, source_bytes) = (case.bytes(), case.source_bytes());
        // The copies move the output's bytes in whole 16-byte units, in the pair every case
        // shares (`copy_pair`).
        let size = bytes.next_multiple_of(16).max(16);
        let src_size = source_bytes.next_multiple_of(16).max(16);
        let data = bench_bytes(src_size as usize);
        let source = &data[..source_bytes as usize];

        let start = Instant::now();
        let want = reference::run(&case.op, source)?;
        let cpu_reference = start.elapsed();

        // Correct first: the library's own round trip, compared with the reference.
        if permuter.run::<_, u8>(&op, source)? != want {
            return Err(BenchError::Mismatch(case.label()));
        }

        let (src, dst) = captured(device, || {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let src = upload(device, permuter.queue(), "bench src", &data, usage);
            let dst = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bench dst"),
                size,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (src, dst)
        })?;

        // Cold: the first call of a fresh permuter, planning and compiling included.
        let fresh = Permuter::new(device, permuter.queue())?;
        wait_for(device)?;
        let start = Instant::now();
        self.submit(&fresh, &fresh.prepare(&op)?, &src, &dst)?;
        wait_for(device)?;
        let cold = start.elapsed();
        drop(fresh);

        let prepared = self.steady(permuter, &op, &src, &dst)?;

        let permute = self.time(&|e| {
            // Prepared and recorded successfully above; the same call cannot fail now.
            let _ = permuter.record(e, &src, &dst, &prepared);
        })?;
        let pair = self.copy_pair(size)?;
        let (copy_src, copy_dst, at) = (&pair.src, &pair.dst, pair.placement.dst_offset);
        let buffer_copy =
            self.time(&|e| e.copy_buffer_to_buffer(copy_src, 0, copy_dst, at, size))?;
        // Recorded (and its pipeline compiled) when the pair was made: cannot fail now.
        let shader_copy = self.time(&|e| {
            let _ = permuter.record_shader_copy(e, copy_src, copy_dst, size, at);
        })?;

        Ok(CaseResult {
            case: case.clone(),
            plans: prepared.plans().to_vec(),
            permute,
            buffer_copy,
            shader_copy,
            cpu_reference,
            cold,
        })
    }

    /// `op` prepared as it runs in a steady state: a recurring shape earns its own pipeline
    /// once it has moved enough bytes on the uniform kernel, and the warm figures are those
    /// of the kernel it keeps. Row copies never run that kernel on the bench's buffers (which
    /// allow copies), so they earn nothing and wait for nothing.
    fn steady(
        &self,
        permuter: &Permuter,
        op: &Relayout,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
    ) -> Result<Prepared, PermuteError> {
        let mut prepared = permuter.prepare(op)?;
        let unpaid = |p: &Prepared| {
            p.plans().iter().any(|plan| {
                plan.reasons.specialize == Some(SpecializeReason::Unpaid)
                    && plan.copied_rows().is_none()
            })
        };
        while unpaid(&prepared) {
            self.submit(permuter, &prepared, src, dst)?;
            wait_for(permuter.device())?;
            prepared = permuter.prepare(op)?;
        }
        Ok(prepared)
    }

    /// Records a prepared operation and submits it.
    fn submit(
        &self,
        permuter: &Permuter,
        op: &Prepared,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
    ) -> Result<(), PermuteError> {
        let device = permuter.device();
        let mut encoder = device.create_command_encoder(&Default::default());
        permuter.record(&mut encoder, src, dst, op)?;
        captured(device, || permuter.queue().submit([encoder.finish()])).map(drop)
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

/// A plain-text table of results, with the device and clock in the heading, the permutes
/// first, then the views, and a summary of each.
pub fn table(device: &str, clock: Clock, results: &[CaseResult]) -> String {
    let mut out = format!(
        "device: {device}\ntiming: {}; median (min) of the runs; GB/s = (bytes read + written) / median\n\n",
        clock.describe()
    );
    let width = results
        .iter()
        .map(|r| r.case.label().len())
        .fold(36, usize::max);
    out += &format!(
        "{:<width$} {:>6} {:>13} {:>17} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "case", "MiB", "kernel", "time ms", "cold ms", "GB/s", "/ copy", "/ shader", "CPU ms"
    );
    let (views, permutes): (Vec<&CaseResult>, Vec<&CaseResult>) =
        results.iter().partition(|r| r.case.view.is_some());
    let mut summary = String::new();
    for (what, group) in [("permute", permutes), ("view", views)] {
        if group.is_empty() {
            continue;
        }
        if what == "view" {
            out +=
                "views (MiB, GB/s and ratios count the output's bytes, as its copy moves them):\n";
        }
        for r in &group {
            out += &format!(
                "{:<width$} {:>6.1} {:>13} {:>8.3} ({:>6.3}) {:>8.1} {:>8.2} {:>8.2} {:>8.2} {:>8.1}\n",
                r.case.label(),
                r.case.bytes() as f64 / (1 << 20) as f64,
                r.kernels(),
                r.permute.median.as_secs_f64() * 1e3,
                r.permute.min.as_secs_f64() * 1e3,
                r.cold.as_secs_f64() * 1e3,
                r.gbps(),
                r.vs_buffer_copy(),
                r.vs_shader_copy(),
                r.cpu_reference.as_secs_f64() * 1e3,
            );
        }
        let ratios = |f: fn(&CaseResult) -> f64| {
            let v: Vec<f64> = group.iter().map(|r| f(r)).collect();
            (
                median(v.clone()),
                v.into_iter().fold(f64::INFINITY, f64::min),
            )
        };
        let (copy_med, copy_min) = ratios(CaseResult::vs_buffer_copy);
        let (shader_med, shader_min) = ratios(CaseResult::vs_shader_copy);
        summary += &format!(
            "{what} / buffer copy: median {copy_med:.2}, min {copy_min:.2}\n\
             {what} / shader copy: median {shader_med:.2}, min {shader_min:.2}\n"
        );
    }
    if !results.is_empty() {
        let copy_gbps = results.iter().map(|r| r.buffer_copy.gbps(r.traffic()));
        let shader_gbps = results.iter().map(|r| r.shader_copy.gbps(r.traffic()));
        out += &format!(
            "\n{summary}buffer copy {:.2} GB/s, shader copy {:.2} GB/s (medians over the cases)\n",
            median(copy_gbps.collect()),
            median(shader_gbps.collect())
        );
    }
    out
}

/// The median of at least one value: of an even count, the mean of the middle two (the
/// suite has 16 permutes; the upper one of them would flatter the summary).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{DeviceCaps, Kernel};

    #[test]
    fn median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![0.9, 0.5, 0.7]), 0.7);
        assert_eq!(median(vec![0.9, 0.5, 0.8, 0.7]), 0.75);
        assert_eq!(median(vec![2.0]), 2.0);
    }

    fn plan_of(case: &Case, caps: &DeviceCaps) -> Plan {
        case.op.plan(caps).unwrap().remove(0)
    }

    #[test]
    fn view_cases_are_valid_views_with_distinct_labels() {
        let mut labels = Vec::new();
        for case in view_suite(1) {
            let [(view, 0)] = case.op.views() else {
                panic!("one view from the start")
            };
            view.check(case.op.src_len(), view.len()).unwrap();
            assert!(case.view.is_some() && case.perm.is_empty());
            assert!(case.label().starts_with("view: "), "{}", case.label());
            labels.push(case.label());
        }
        assert!(labels.contains(&"view: slice ::2 [8192,4096]->[4096,4096] 4B".to_string()));
        labels.dedup();
        assert_eq!(labels.len(), view_suite(1).len());
        // Scaling multiplies the outermost dim of the source and of the view.
        let big = &view_suite(2)[0];
        assert_eq!(big.bytes(), 2 * view_suite(1)[0].bytes());
        assert_eq!(big.source_bytes(), 2 * big.bytes());
    }

    #[test]
    fn the_head_split_view_plans_exactly_as_its_permute() {
        let cpu = DeviceCaps {
            cpu: true,
            max_invocations: 1024,
            max_workgroup_storage: 32768,
            ..DeviceCaps::default()
        };
        let split = view_suite(1)
            .into_iter()
            .find(|c| c.label().contains("head split"))
            .unwrap();
        let permute = Case::new(&[8, 512, 16, 64], &[0, 2, 1, 3], 4);
        assert!(default_suite(1).contains(&permute));
        for caps in [DeviceCaps::default(), cpu] {
            let req = crate::Request::new(&[8, 512, 16, 64], &[0, 2, 1, 3], 4);
            let want = crate::plan::plan(&req, &caps).unwrap();
            assert_eq!(plan_of(&split, &caps), want);
            assert_eq!(plan_of(&permute, &caps), want);
        }
    }

    #[test]
    fn the_other_views_plan_as_views() {
        for case in view_suite(1) {
            let plan = plan_of(&case, &DeviceCaps::default());
            if !case.label().contains("head split") {
                assert!(plan.view.is_some(), "{}", case.label());
                assert_eq!(plan.kernel, Kernel::Generic, "{}", case.label());
            }
        }
    }
}
