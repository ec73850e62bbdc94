//! [`Permuter`]: plans with what it knows of its device, checks buffers against the plan,
//! records the plan's dispatches, and the host round trip.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard};

use super::pipelines::Pipelines;
use super::timing::Timer;
use super::{binding, caps_of, captured, device_on, serial, upload};
use crate::PermuteError;
use crate::plan::{self, DeviceCaps, Kernel, Learned, Measured, Plan, Request, ShapeKey};
use crate::relayout::Relayout;
use crate::work::{Shader, Step, Work};

/// A permute engine bound to one device and queue, caching a compute pipeline per shader
/// variant. `Send + Sync`: share one across threads.
pub struct Permuter {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    caps: DeviceCaps,
    pub(super) pipelines: Pipelines,
    /// Facts for the planner: autotuning winners, shapes with their own pipelines.
    learned: Mutex<Learned>,
    /// Set by the device-lost callback, for devices this crate made itself.
    lost: Arc<Mutex<Option<String>>>,
    pub(super) timer: Mutex<Option<Timer>>,
}

impl Permuter {
    /// Binds to the caller's device and queue. Plans suit the device's adapter (its limits,
    /// features and type, as the device reports them), exactly as for a permuter that made
    /// its own device on that adapter. On a CPU device with `SHADER_INT64` the first
    /// permuter of the process also times a copy (tens of milliseconds; see
    /// [`DeviceCaps::access64_faster`]).
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, PermuteError> {
        let caps = caps_of(device);
        let learned = Learned {
            model: !caps.cpu,
            ..Learned::default()
        };
        let mut permuter = Permuter {
            device: device.clone(),
            queue: queue.clone(),
            caps,
            pipelines: Pipelines::new(device)?,
            learned: Mutex::new(learned),
            lost: Arc::new(Mutex::new(None)),
            timer: Mutex::new(None),
        };
        if permuter.caps.cpu && permuter.caps.int64 {
            permuter.caps.access64_faster = permuter.access64_faster();
        }
        Ok(permuter)
    }

    /// Makes its own device on the default adapter (see [`super::default_device`]).
    pub fn new_default() -> Result<Self, PermuteError> {
        Self::new_on(wgpu::Backends::all().with_env())
    }

    /// Makes its own device on the default adapter among `backends` (see [`device_on`]).
    pub fn new_on(backends: wgpu::Backends) -> Result<Self, PermuteError> {
        let (_adapter, device, queue) = device_on(backends)?;
        let permuter = Permuter::new(&device, &queue)?;
        // Only on our own device: the callback of a caller's device is the caller's to set.
        let lost = permuter.lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *lost.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("{reason:?}: {message}"));
        });
        Ok(permuter)
    }

    /// Chooses kernels by measurement instead of the heuristic: the first request of each
    /// shape class (dims rounded up to powers of two, same simplified permutation and
    /// movement size) times every kernel that applies (generic, tiled, micro), and on a CPU
    /// device a permute with odd sides in parts too ([`Plan::pending_parts`]) and the micro
    /// kernel both along the output's rows and in column runs where those apply, on scratch
    /// buffers of its size, with GPU timestamps where the device has them, and the winner
    /// (and the micro kernel's faster order) serves the class from then on. Forced kernels are left alone; if timing fails, the
    /// heuristic serves the class (and timing is not tried again).
    pub fn with_autotune(self, on: bool) -> Self {
        self.learned().autotune = on;
        self
    }

    /// Chooses among kernels by the GPU memory model ([`crate::model`]): the first request of
    /// each shape traces every kernel that applies on a few workgroups (one small submission
    /// each, on scratch buffers) and the kernel with the best predicted time serves the shape
    /// from then on. On by default on GPU adapters; off on CPU adapters, whose speed the
    /// model does not describe (there the measured choice stands). Autotuning, when on, wins
    /// over the model.
    pub(crate) fn with_model(self, on: bool) -> Self {
        self.learned().model = on;
        self
    }

    /// Timing outcomes so far, per shape class.
    pub(crate) fn tuned(&self) -> Vec<(ShapeKey, Measured)> {
        let learned = self.learned();
        learned
            .winners
            .iter()
            .map(|(c, m)| (c.clone(), m.clone()))
            .collect()
    }

    pub(super) fn learned(&self) -> MutexGuard<'_, Learned> {
        self.learned.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The device this permuter records onto.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue this permuter's own round trips submit to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// What the planner knows of the device.
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// Plans a request for this device and what this permuter has learnt of it, without
    /// touching the GPU. With autotuning on, a plan may still have kernels to time
    /// ([`Plan::pending_race`]); [`Permuter::prepare`] times them first.
    pub(crate) fn plan_request(&self, req: &Request) -> Result<Plan, PermuteError> {
        plan::plan_with(req, &self.caps, &self.learned())
    }

    /// Plans as for a device with these capabilities instead of this one's (the memory model
    /// is on where `caps` is not a CPU's). For planning and modelling GPUs on any adapter
    /// (`wgpu-permute plan --no-device`, tests of the GPU path on lavapipe): `caps` must not
    /// exceed this device's limits and features, or dispatches fail.
    pub(crate) fn with_caps(mut self, caps: DeviceCaps) -> Self {
        self.learned().model = !caps.cpu;
        self.caps = caps;
        self
    }

    /// Number of compiled pipelines held in the cache.
    pub(crate) fn cached_pipelines(&self) -> usize {
        self.pipelines.len()
    }

    /// `Err(DeviceLost)` once the device this permuter made has been lost.
    pub(super) fn check_device(&self) -> Result<(), PermuteError> {
        match &*self.lost.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(reason) => Err(PermuteError::DeviceLost(reason.clone())),
            None => Ok(()),
        }
    }

    /// An error seen while the device was being lost is reported as the loss. Polling once
    /// runs a pending device-lost callback.
    pub(super) fn or_lost(&self, error: PermuteError) -> PermuteError {
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.device.poll(wgpu::PollType::Poll)
        }));
        if polled.is_err() {
            return PermuteError::DeviceLost("the device failed while polling".into());
        }
        self.check_device().err().unwrap_or(error)
    }

    /// Refuses, before anything is allocated, a buffer of `size` bytes that the device
    /// cannot make.
    pub(super) fn check_buffer_size(
        &self,
        what: &'static str,
        size: u64,
    ) -> Result<(), PermuteError> {
        let max_buffer = self.device.limits().max_buffer_size;
        if size > max_buffer {
            return Err(PermuteError::DeviceLimit {
                what,
                limit: "max_buffer_size",
                need: size,
                have: max_buffer,
            });
        }
        Ok(())
    }

    /// Checks the buffers against every plan: with the usages and sizes each needs (row
    /// copies' or, where the buffers do not allow copies, its kernel's), then usable and of
    /// this permuter's device ([`Permuter::check_owned`], once per buffer: it costs two
    /// formatted wgpu errors), and distinct.
    pub(super) fn check_buffers(
        &self,
        plans: &[Plan],
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
    ) -> Result<(), PermuteError> {
        let plans: Vec<&Plan> = plans.iter().filter(|p| p.kernel != Kernel::Empty).collect();
        if plans.is_empty() {
            return Ok(());
        }
        for (i, (which, buffer)) in [("source", src), ("destination", dst)]
            .into_iter()
            .enumerate()
        {
            for plan in &plans {
                let (usage, name) = match copies_run(plan, src, dst) {
                    true => [
                        (wgpu::BufferUsages::COPY_SRC, "COPY_SRC"),
                        (wgpu::BufferUsages::COPY_DST, "COPY_DST"),
                    ][i],
                    false => (wgpu::BufferUsages::STORAGE, "STORAGE"),
                };
                if !buffer.usage().contains(usage) {
                    return Err(PermuteError::MissingUsage {
                        which,
                        missing: name,
                    });
                }
                let extent = [plan.src_extent(), plan.dst_extent()][i];
                if buffer.size() < extent {
                    return Err(PermuteError::BufferTooSmall {
                        which,
                        need: extent,
                        have: buffer.size(),
                    });
                }
            }
            self.check_owned(which, buffer)?;
        }
        // Both are this device's, whose ids are unique.
        if src == dst {
            return Err(PermuteError::SameBuffer);
        }
        Ok(())
    }

    /// Refuses, before anything is recorded, a buffer that wgpu would only refuse when the
    /// caller submits (by panicking there): a mapped or destroyed one, and one of another
    /// device or `wgpu::Instance` (wgpu compares buffers by id, and ids of two instances
    /// coincide, so a foreign buffer would alias one of ours). The device a buffer belongs
    /// to is found through where it reports errors: unmapping a buffer that is not mapped
    /// is an error sent to the device that made it, which this permuter's error scope
    /// catches only if that device is its own. (A foreign device without an error scope or
    /// handler of its own panics on it; the panic is caught here, its message printed.)
    fn check_owned(&self, which: &'static str, buffer: &wgpu::Buffer) -> Result<(), PermuteError> {
        // Asked of the buffer alone: nothing is reported to any device. A buffer that is
        // not mapped says so (or that it was destroyed); any other answer is a mapping.
        if let Err(e) = buffer.slice(..).get_mapped_range().map(drop) {
            let e = e.to_string();
            if e.trim_end().ends_with("has been destroyed") {
                return Err(PermuteError::DestroyedBuffer { which });
            }
            if !e.trim_end().ends_with("Buffer is not mapped") {
                return Err(PermuteError::MappedBuffer { which });
            }
        } else {
            return Err(PermuteError::MappedBuffer { which });
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let unmapped = std::panic::catch_unwind(AssertUnwindSafe(|| buffer.unmap()));
        match (unmapped, pollster::block_on(scope.pop())) {
            (Ok(()), Some(e)) if e.to_string().contains("has been destroyed") => {
                Err(PermuteError::DestroyedBuffer { which })
            }
            (Ok(()), Some(e)) if e.to_string().contains("Buffer is not mapped") => Ok(()),
            (Ok(()), Some(e)) => Err(PermuteError::Validation(e.to_string())),
            _ => Err(PermuteError::ForeignBuffer { which }),
        }
    }

    /// Records a plan made by this permuter into buffers already passed by
    /// [`Permuter::check_buffers`]: its work ([`Work::of`]: the copy, the row copies, or one
    /// dispatch per chunk; the kernel's where the buffers do not allow the row copies).
    pub(super) fn record_plan(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        plan: &Plan,
    ) -> Result<(), PermuteError> {
        let _serial = serial(&self.device);
        let work = match copies_run(plan, src, dst) {
            true => Work::of(plan),
            false => Work::of_kernel(plan),
        };
        // What the kernel's shape moved counts towards compiling it for the shape.
        if let Some(Shader::Kernel { .. }) = work.shader {
            let mut learned = self.learned();
            if plan.specialized {
                learned.specialized.insert(plan.shape_key());
            }
            learned.count_uniform(plan);
        }
        self.record_work(encoder, src, dst, &work)
    }

    /// Records `work` into `encoder`: its buffer copies, or one compute pass of its
    /// shader's dispatches, each with its own windows and parameter block.
    pub(super) fn record_work(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        work: &Work,
    ) -> Result<(), PermuteError> {
        let Some(shader) = &work.shader else {
            for step in &work.steps {
                let &Step::Copy {
                    src_offset,
                    dst_offset,
                    bytes,
                } = step
                else {
                    return Err(PermuteError::Internal("a dispatch without a shader".into()));
                };
                encoder.copy_buffer_to_buffer(src, src_offset, dst, dst_offset, bytes);
            }
            return Ok(());
        };
        let dispatches = work
            .steps
            .iter()
            .map(|step| match step {
                Step::Dispatch {
                    params,
                    src_window,
                    dst_window,
                    workgroups,
                } => Ok((params, *src_window, *dst_window, *workgroups)),
                Step::Copy { .. } => Err(PermuteError::Internal(
                    "a buffer copy inside a compute pass".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pipeline = self.pipelines.get(&self.device, shader)?;
        // All parameter blocks in one uniform buffer, each at an aligned offset.
        let stride = (dispatches.iter().map(|d| d.0.len() * 4).max().unwrap_or(16) as u64)
            .next_multiple_of(self.device.limits().min_uniform_buffer_offset_alignment as u64);
        let mut bytes = vec![0u8; stride as usize * dispatches.len()];
        for (i, (params, ..)) in dispatches.iter().enumerate() {
            let at = i * stride as usize;
            bytes[at..at + params.len() * 4].copy_from_slice(bytemuck::cast_slice(params));
        }
        let bind_groups = captured(&self.device, || {
            let params = upload(
                &self.device,
                &self.queue,
                "wgpu-permute params",
                &bytes,
                wgpu::BufferUsages::UNIFORM,
            );
            dispatches
                .iter()
                .enumerate()
                .map(|(i, (block, src_window, dst_window, _))| {
                    self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("wgpu-permute"),
                        layout: self.pipelines.bind_group_layout(),
                        entries: &[
                            binding(0, src, *src_window),
                            binding(1, dst, *dst_window),
                            binding(2, &params, (i as u64 * stride, block.len() as u64 * 4)),
                        ],
                    })
                })
                .collect::<Vec<_>>()
        })?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgpu-permute"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        // wgpu puts a barrier between dispatches that write the same storage buffer, so the
        // windows of packed data may share edge words.
        for (dispatch, bind_group) in dispatches.iter().zip(&bind_groups) {
            pass.set_bind_group(0, bind_group, &[]);
            let [x, y, z] = dispatch.3;
            pass.dispatch_workgroups(x, y, z);
        }
        Ok(())
    }

    /// Host convenience: uploads `data`, permutes it on the GPU and reads the result back
    /// into a new vector (output dim `i` is input dim `perm[i]`, as in numpy). Element type
    /// `T` gives the element size. [`Permuter::run`] does the same for any [`Relayout`].
    pub fn permute_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        shape: &[usize],
        perm: &[usize],
    ) -> Result<Vec<T>, PermuteError> {
        self.run(&Relayout::permute(shape, perm, size_of::<T>())?, data)
    }
}

/// Whether `plan` runs as buffer copies on these buffers: an identity copy, or row copies
/// ([`Plan::row_copies`]) where the source allows `COPY_SRC` and the destination `COPY_DST`.
fn copies_run(plan: &Plan, src: &wgpu::Buffer, dst: &wgpu::Buffer) -> bool {
    let allowed = src.usage().contains(wgpu::BufferUsages::COPY_SRC)
        && dst.usage().contains(wgpu::BufferUsages::COPY_DST);
    plan.kernel == Kernel::Copy || (plan.copied_rows().is_some() && allowed)
}
