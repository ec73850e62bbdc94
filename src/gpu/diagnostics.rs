//! What a [`Permuter`] knows and chooses, for tools and tests rather than for moving data:
//! plans without first-use work, the memory model's figures and traces, autotuning
//! outcomes, the pipeline count, and planning as for another device.
//!
//! Trace mode runs a plan's kernel, generated with every memory access recorded
//! ([`shaders::traced_source`]), on a few of its workgroups, and reads the records back for
//! the memory model ([`crate::model`]). Runs on any adapter, lavapipe included.

use super::pipelines::{TRACE_BINDINGS, compile, layouts};
use super::{Permuter, binding, captured, upload};
use crate::PermuteError;
use crate::model::{self, Figures, Trace, Warp};
use crate::plan::{DeviceCaps, Kernel, Measured, Options, Plan, Request, ShapeKey, fold_grid};
use crate::relayout::Relayout;
use crate::shaders;

/// Bytes of the scratch buffers bound when only the addresses matter: a trace records each
/// access's index before making it, and no kernel's control flow depends on the data, so
/// the addresses are those of a run on full-size buffers (out-of-range accesses are clamped
/// or dropped by wgpu's bounds checks).
const SCRATCH_BYTES: u64 = 1 << 16;

/// The plans `permuter` would record for `op`, with what it has learnt of its device, but
/// without first-use work: with autotuning on (or the memory model, on GPUs) a plan may
/// still have kernels to time or trace ([`Plan::pending_first_use`]); it then comes alone,
/// whole, and [`Permuter::prepare`] does that work first.
pub fn plan(permuter: &Permuter, op: &Relayout) -> Result<Vec<Plan>, PermuteError> {
    crate::plan::plan_op(op, permuter.caps(), &permuter.learned())
}

/// The whole plan of one permute request as `permuter` plans it (no parts, no first-use
/// work): for tests of the planner's choices on a device. Not API.
#[doc(hidden)]
pub fn plan_request(permuter: &Permuter, req: &Request) -> Result<Plan, PermuteError> {
    permuter.plan_request(req)
}

/// Timing outcomes so far, per shape class ([`Permuter::with_autotune`]).
pub fn tuned(permuter: &Permuter) -> Vec<(ShapeKey, Measured)> {
    permuter.tuned()
}

/// Number of compiled pipelines `permuter` holds (one still compiling on another thread is
/// not counted).
pub fn cached_pipelines(permuter: &Permuter) -> usize {
    permuter.cached_pipelines()
}

#[doc(hidden)]
/// `permuter` choosing among kernels by the GPU memory model ([`crate::model`]), or not:
/// the first request of each shape traces every kernel that applies on a few workgroups
/// and the best predicted time serves the shape from then on. On by default on GPU
/// adapters; off on CPU adapters, whose speed the model does not describe. Autotuning,
/// when on, wins over the model.
pub fn with_model(permuter: Permuter, on: bool) -> Permuter {
    permuter.with_model(on)
}

/// `permuter` planning as for a device with these capabilities instead of its own (the
/// memory model on where `caps` is not a CPU's): for planning and modelling GPUs on any
/// adapter (`wgpu-permute plan --no-device`, tests of the GPU path on lavapipe). `caps`
/// must not exceed the device's limits and features, or dispatches fail.
pub fn with_caps(permuter: Permuter, caps: DeviceCaps) -> Permuter {
    permuter.with_caps(caps)
}

impl Permuter {
    /// The memory-model figures of `plan`'s kernel on a GPU: its first dispatch traced on a
    /// sample of workgroups ([`model::sample`]) and scored for warps of `warp` lanes.
    /// `padding: false` drops the tiled kernel's padding column (to model what it
    /// prevents). A CPU device's choices (generic runs, 64-bit accesses) are traced as a GPU
    /// would run the plan.
    pub(crate) fn model(
        &self,
        plan: &Plan,
        warp: Warp,
        padding: bool,
    ) -> Result<Figures, PermuteError> {
        let plan = &plan.on_gpu()?;
        let trace = self
            .trace(plan, &model::sample(plan, false), padding, None)?
            .0;
        Ok(model::analyse(
            &trace,
            warp,
            plan.bytes + plan.bytes_written(),
        ))
    }

    /// The memory-model figures of each of `kernels` that can run `req` (the others are left
    /// out), each planned as if forced.
    pub(crate) fn model_kernels(
        &self,
        req: &Request,
        kernels: &[Kernel],
        warp: Warp,
        padding: bool,
    ) -> Result<Vec<Figures>, PermuteError> {
        let mut figures = Vec::new();
        for &kernel in kernels {
            let options = Options {
                kernel: Some(kernel),
                ..req.options
            };
            match self.plan_request(&req.with_options(options)) {
                Ok(plan) if plan.variant().is_some() => {
                    figures.push(self.model(&plan, warp, padding)?)
                }
                Ok(_) | Err(PermuteError::ForcedChoice { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(figures)
    }

    /// Runs `plan`'s first dispatch in trace mode on the workgroups `sampled` lists (with
    /// the weight each stands for). With `input`, on full-size buffers holding it, and the
    /// destination's bytes are returned too; without, on small scratch buffers (addresses
    /// only).
    pub(crate) fn trace(
        &self,
        plan: &Plan,
        sampled: &[(u32, f64)],
        padding: bool,
        input: Option<&[u8]>,
    ) -> Result<(Trace, Option<Vec<u8>>), PermuteError> {
        let variant = plan.variant().ok_or(PermuteError::ForcedChoice {
            what: "trace",
            why: "this kernel runs no shader",
        })?;
        let Some(chunk) = plan.chunks.first() else {
            return Err(PermuteError::ForcedChoice {
                what: "trace",
                why: "the plan has no dispatch",
            });
        };
        let invocations = model::invocations(plan);
        let trace_bytes = model::trace_words(sampled.len(), invocations) * 4;
        let limit = self.device.limits().max_storage_buffer_binding_size;
        if trace_bytes > limit {
            return Err(PermuteError::DeviceLimit {
                what: "the trace buffer",
                limit: "max_storage_buffer_binding_size",
                need: trace_bytes,
                have: limit,
            });
        }
        let source = shaders::traced_source(&variant, padding)
            .map_err(|e| PermuteError::Internal(format!("shader generation: {e}")))?;
        let constants = shaders::constants(plan);
        let constants: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let listed: Vec<u32> = sampled.iter().map(|s| s.0).collect();
        let params = shaders::params(plan, chunk);
        let workgroups = fold_grid(sampled.len() as u64, self.caps().max_workgroups_per_dim)?;
        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_SRC;
        let (encoder, dst, dst_bytes, trace) = captured(&self.device, || {
            let (layout, pipeline_layout) =
                layouts(&self.device, "wgpu-permute trace", &TRACE_BINDINGS);
            let pipeline = compile(
                &self.device,
                &pipeline_layout,
                "wgpu-permute trace",
                source,
                variant.kernel().name(),
                &constants,
            );
            let (src, src_window, dst, dst_window) = match input {
                Some(data) => (
                    upload(&self.device, &self.queue, "trace input", data, storage),
                    chunk.src_window,
                    self.buffer("trace output", chunk.dst_window.1, storage | copy),
                    (0, chunk.dst_window.1),
                ),
                None => (
                    self.buffer("trace scratch", SCRATCH_BYTES, storage),
                    (0, SCRATCH_BYTES),
                    self.buffer("trace scratch", SCRATCH_BYTES, storage | copy),
                    (0, SCRATCH_BYTES),
                ),
            };
            let params = upload(
                &self.device,
                &self.queue,
                "trace params",
                bytemuck::cast_slice(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let list = upload(
                &self.device,
                &self.queue,
                "trace list",
                bytemuck::cast_slice(&listed),
                storage,
            );
            let trace = self.buffer("trace", trace_bytes, storage | copy);
            let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-permute trace"),
                layout: &layout,
                entries: &[
                    binding(0, &src, src_window),
                    binding(1, &dst, dst_window),
                    binding(2, &params, (0, params.size())),
                    binding(3, &trace, (0, trace_bytes)),
                    binding(4, &list, (0, list.size())),
                ],
            });
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let [x, y, z] = workgroups;
                pass.dispatch_workgroups(x, y, z);
            }
            (encoder, dst, dst_window.1, trace)
        })?;
        let mut outputs = vec![(&trace, 0, trace_bytes)];
        if input.is_some() {
            outputs.push((&dst, 0, dst_bytes));
        }
        let (mut words, mut output) = (Vec::new(), None);
        self.read_back(encoder, &outputs, |i, got| match i {
            0 => words = got.to_vec(),
            _ => output = Some(got.to_vec()),
        })?;
        let trace = model::decode(
            plan.kernel,
            bytemuck::cast_slice(&words),
            sampled,
            invocations,
        )
        .map_err(|e| PermuteError::Internal(format!("trace: {e}")))?;
        Ok((trace, output))
    }
}

#[doc(hidden)]
/// The memory-model figures of `plan`'s kernel on a GPU: its first dispatch traced on a
/// sample of workgroups ([`model::sample`]) and scored for warps of `warp` lanes.
/// `padding: false` drops the tiled kernel's padding column (to model what it prevents).
pub fn model(
    permuter: &Permuter,
    plan: &Plan,
    warp: Warp,
    padding: bool,
) -> Result<Figures, PermuteError> {
    permuter.model(plan, warp, padding)
}

/// The memory-model figures of each of `kernels` that can run the permute `op` is (the
/// others are left out), each planned whole as if forced; `ForcedChoice` for an operation
/// that is not one permute.
pub fn model_kernels(
    permuter: &Permuter,
    op: &Relayout,
    kernels: &[Kernel],
    warp: Warp,
    padding: bool,
) -> Result<Vec<Figures>, PermuteError> {
    match op.requests()?.as_slice() {
        [crate::plan::PartRequest::Permute(req)] => {
            permuter.model_kernels(req, kernels, warp, padding)
        }
        _ => Err(PermuteError::ForcedChoice {
            what: "the memory model",
            why: "it models permutes (one part, of a contiguous tensor)",
        }),
    }
}

#[doc(hidden)]
/// Runs `plan`'s first dispatch in trace mode on the workgroups `sampled` lists (with the
/// weight each stands for). With `input`, on full-size buffers holding it, and the
/// destination's bytes are returned too; without, on small scratch buffers (addresses
/// only).
pub fn trace(
    permuter: &Permuter,
    plan: &Plan,
    sampled: &[(u32, f64)],
    padding: bool,
    input: Option<&[u8]>,
) -> Result<(Trace, Option<Vec<u8>>), PermuteError> {
    permuter.trace(plan, sampled, padding, input)
}
