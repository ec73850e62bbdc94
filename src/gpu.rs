//! The only module that talks to wgpu: device set-up, the pipeline cache, buffer checks,
//! error capture, encoding and readback. It executes plans; every choice is made in `plan`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::PermuteError;
use crate::bench::Timer;
use crate::plan::{self, DeviceCaps, Kernel, Options, Plan, Request, ShapeClass, Variant};
use crate::shaders;

/// Reads what the planner needs from a device's limits and features.
pub fn caps_of(device: &wgpu::Device) -> DeviceCaps {
    let limits = device.limits();
    DeviceCaps {
        max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
        max_workgroup_storage: limits.max_compute_workgroup_storage_size,
        max_invocations: limits.max_compute_invocations_per_workgroup,
        max_storage_binding: limits.max_storage_buffer_binding_size,
        storage_offset_alignment: limits.min_storage_buffer_offset_alignment,
        int64: device.features().contains(wgpu::Features::SHADER_INT64),
        cpu: false,
    }
}

/// Features worth having when this crate makes its own device: native 64-bit index math,
/// and GPU timestamps for honest benchmarks.
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Makes a device on the default adapter, honouring `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and
/// `WGPU_POWER_PREF`, with the adapter's own limits (not the WebGPU defaults, which cap
/// workgroups at 256 invocations and 16 KiB of workgroup memory).
pub fn default_device() -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), PermuteError> {
    device_on(wgpu::Backends::all().with_env())
}

/// [`default_device`] restricted to `backends` (tests pass Vulkan, so that a machine without
/// a Vulkan driver fails instead of silently falling back to a GL software adapter).
pub fn device_on(
    backends: wgpu::Backends,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), PermuteError> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(pick_adapter(&instance, backends))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("wgpu-permute"),
        required_features: adapter.features() & WANTED_FEATURES,
        required_limits: adapter.limits(),
        memory_hints: wgpu::MemoryHints::Performance,
        ..Default::default()
    }))
    .map_err(|e| PermuteError::RequestDevice(e.to_string()))?;
    Ok((adapter, device, queue))
}

async fn pick_adapter(
    instance: &wgpu::Instance,
    backends: wgpu::Backends,
) -> Result<wgpu::Adapter, PermuteError> {
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let adapters = instance.enumerate_adapters(backends).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| {
                a.get_info()
                    .name
                    .to_lowercase()
                    .contains(&wanted.to_lowercase())
            })
            .ok_or_else(|| {
                PermuteError::NoAdapter(format!(
                    "WGPU_ADAPTER_NAME={wanted:?} matches none of {names:?}"
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env()
                .unwrap_or(wgpu::PowerPreference::HighPerformance),
            ..Default::default()
        })
        .await
        .map_err(|e| PermuteError::NoAdapter(e.to_string()))
}

/// Runs `f` with wgpu's errors captured, so that a validation or out-of-memory error in this
/// crate's own calls comes back as a [`PermuteError`] instead of panicking the caller.
pub fn captured<R>(device: &wgpu::Device, f: impl FnOnce() -> R) -> Result<R, PermuteError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    let errors = [
        pollster::block_on(validation.pop()),
        pollster::block_on(internal.pop()),
        pollster::block_on(oom.pop()),
    ];
    match errors.into_iter().flatten().next() {
        None => Ok(result),
        Some(wgpu::Error::OutOfMemory { .. }) => Err(PermuteError::OutOfMemory(
            "a buffer or pipeline could not be allocated".into(),
        )),
        Some(e) => Err(PermuteError::Validation(e.to_string())),
    }
}

/// A buffer holding `contents`, padded with zeros to whole words. Made with `write_buffer`
/// rather than wgpu's `create_buffer_init`, which panics when the device is lost.
pub fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let size = (contents.len() as u64).next_multiple_of(4).max(4);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if contents.len() as u64 == size {
        queue.write_buffer(&buffer, 0, contents);
    } else {
        let mut padded = contents.to_vec();
        padded.resize(size as usize, 0);
        queue.write_buffer(&buffer, 0, &padded);
    }
    buffer
}

/// A bind-group entry for the `(offset, size)` window of `buffer`.
fn binding(binding: u32, buffer: &wgpu::Buffer, window: (u64, u64)) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: window.0,
            size: wgpu::BufferSize::new(window.1),
        }),
    }
}

/// Copies `len` bytes of a `MAP_READ` buffer back to the host, waiting for the GPU.
pub fn read_buffer(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    len: u64,
) -> Result<Vec<u8>, PermuteError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let slice = buffer.slice(..len.next_multiple_of(4));
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| PermuteError::Readback(e.to_string()))?;
    pollster::block_on(receiver.receive())
        .ok_or_else(|| PermuteError::Readback("the map callback never ran".into()))?
        .map_err(|e| PermuteError::Readback(e.to_string()))?;
    let bytes = slice
        .get_mapped_range()
        .map_err(|e| PermuteError::Readback(e.to_string()))?[..len as usize]
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}

/// Most shape-specialised pipelines a [`Permuter`] compiles; later shapes use the uniform
/// kernel, so a program permuting ever new shapes stays bounded in memory.
pub const MAX_SPECIALIZED: usize = 64;

/// A permute engine bound to one device and queue, caching a compute pipeline per shader
/// variant. `Send + Sync`: share one across threads.
pub struct Permuter {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_info: Option<wgpu::AdapterInfo>,
    caps: DeviceCaps,
    pipeline_layout: wgpu::PipelineLayout,
    bind_group_layout: wgpu::BindGroupLayout,
    /// Keyed by variant and, for shape-specialised ones, the constants' values.
    pipelines: Mutex<HashMap<(Variant, Vec<u64>), wgpu::ComputePipeline>>,
    /// Set by the device-lost callback, for devices this crate made itself.
    lost: Arc<Mutex<Option<String>>>,
    /// Time the candidate kernels on first use of each shape class (see `with_autotune`).
    autotune: bool,
    tuned: Mutex<HashMap<ShapeClass, Kernel>>,
    timer: Mutex<Option<Timer>>,
}

impl Permuter {
    /// Binds to the caller's device and queue.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgpu-permute"),
            entries: &[
                storage(0, true),
                storage(1, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("wgpu-permute"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        Permuter {
            device: device.clone(),
            queue: queue.clone(),
            adapter_info: None,
            caps: caps_of(device),
            pipeline_layout,
            bind_group_layout,
            pipelines: Mutex::new(HashMap::new()),
            lost: Arc::new(Mutex::new(None)),
            autotune: false,
            tuned: Mutex::new(HashMap::new()),
            timer: Mutex::new(None),
        }
    }

    /// Chooses between the generic and tiled kernels by measurement instead of the
    /// heuristic: the first request of each shape class (dims rounded to powers of two, same
    /// simplified permutation and movement size) times both on scratch buffers of its size,
    /// with GPU timestamps where the device has them, and the winner serves the class from
    /// then on. Forced kernels are left alone; if timing fails, the heuristic decides.
    pub fn with_autotune(mut self, on: bool) -> Self {
        self.autotune = on;
        self
    }

    /// The kernels autotuning chose so far, per shape class.
    pub fn tuned(&self) -> Vec<(ShapeClass, Kernel)> {
        let tuned = self.tuned.lock().unwrap_or_else(|p| p.into_inner());
        tuned.iter().map(|(c, k)| (c.clone(), *k)).collect()
    }

    /// The request with its kernel forced to the measured winner, when autotuning applies.
    fn tune<'r>(&self, req: &Request<'r>) -> Request<'r> {
        if !self.autotune || req.options.kernel.is_some() {
            return *req;
        }
        let force = |kernel| {
            req.with_options(Options {
                kernel: Some(kernel),
                ..req.options
            })
        };
        let candidates: Vec<(Kernel, Plan)> = [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
            .into_iter()
            .filter_map(|k| self.plan(&force(k)).ok().map(|p| (k, p)))
            .collect();
        if candidates.len() < 2 {
            return *req; // nothing to choose between
        }
        let class = candidates[0].1.shape_class();
        let remembered = self
            .tuned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&class)
            .copied();
        if let Some(kernel) = remembered {
            // The class's winner may not fit this very shape (say, a side not divisible by
            // 4 for micro-tiles): then the heuristic decides.
            return if candidates.iter().any(|(k, _)| *k == kernel) {
                force(kernel)
            } else {
                *req
            };
        }
        let reqs: Vec<(Kernel, Request)> =
            candidates.iter().map(|(k, _)| (*k, force(*k))).collect();
        match self.race(&reqs, &candidates[0].1) {
            Ok(kernel) => {
                self.tuned
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(class, kernel);
                force(kernel)
            }
            Err(_) => *req,
        }
    }

    /// Times forced requests on scratch buffers sized for `plan` (best of 3 after a warm-up
    /// each) and returns the fastest kernel.
    fn race(&self, reqs: &[(Kernel, Request)], plan: &Plan) -> Result<Kernel, PermuteError> {
        let mut timer = self.timer.lock().unwrap_or_else(|p| p.into_inner());
        if timer.is_none() {
            *timer = Some(Timer::new(&self.device, &self.queue)?);
        }
        let timer = timer.as_ref().expect("made above");
        let (src, dst) = captured(&self.device, || {
            let buffer = |size: u64| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-permute autotune"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            };
            (buffer(plan.src_extent()), buffer(plan.dst_extent()))
        })?;
        let mut best = Vec::new();
        for (kernel, req) in reqs {
            let failed = std::cell::Cell::new(false);
            let stats = timer.time(
                &|e| failed.set(failed.get() || self.encode(e, &src, &dst, req).is_err()),
                1,
                3,
            )?;
            if failed.get() {
                return Err(PermuteError::Validation("autotune candidate failed".into()));
            }
            best.push((stats.min, *kernel));
        }
        best.sort_by_key(|(time, _)| *time);
        Ok(best[0].1)
    }

    /// Makes its own device on the default adapter (see [`default_device`]).
    pub fn new_default() -> Result<Self, PermuteError> {
        Self::new_on(wgpu::Backends::all().with_env())
    }

    /// Makes its own device on the default adapter among `backends` (see [`device_on`]).
    pub fn new_on(backends: wgpu::Backends) -> Result<Self, PermuteError> {
        let (adapter, device, queue) = device_on(backends)?;
        let permuter = Permuter::new(&device, &queue).with_adapter_info(adapter.get_info());
        // Only on our own device: the callback of a caller's device is the caller's to set.
        let lost = permuter.lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *lost.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("{reason:?}: {message}"));
        });
        Ok(permuter)
    }

    /// Tells the permuter which adapter its device is on (a device does not say), so that
    /// plans can suit the kind of device; see [`plan::prefer_tiled`].
    pub fn with_adapter_info(mut self, info: wgpu::AdapterInfo) -> Self {
        self.caps.cpu = info.device_type == wgpu::DeviceType::Cpu;
        self.adapter_info = Some(info);
        self
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The adapter, when this permuter made its own device.
    pub fn adapter_info(&self) -> Option<&wgpu::AdapterInfo> {
        self.adapter_info.as_ref()
    }

    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// Plans a request for this device, without touching the GPU.
    pub fn plan(&self, req: &Request) -> Result<Plan, PermuteError> {
        plan::plan(req, &self.caps)
    }

    /// `Err(DeviceLost)` once the device this permuter made has been lost.
    fn check_device(&self) -> Result<(), PermuteError> {
        match &*self.lost.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(reason) => Err(PermuteError::DeviceLost(reason.clone())),
            None => Ok(()),
        }
    }

    /// An error seen while the device was being lost is reported as the loss. Polling once
    /// runs a pending device-lost callback.
    fn or_lost(&self, error: PermuteError) -> PermuteError {
        let _ = self.device.poll(wgpu::PollType::Poll);
        self.check_device().err().unwrap_or(error)
    }

    /// Number of compiled pipelines held in the cache.
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.lock().map(|p| p.len()).unwrap_or(0)
    }

    /// The plan's pipeline, compiled on first use. Once [`MAX_SPECIALIZED`] shapes have
    /// specialised pipelines, new shapes run the uniform kernel instead (and the plan says
    /// so): evicting would recompile forever, and some drivers never give back the memory
    /// of a destroyed pipeline.
    fn pipeline(&self, plan: &mut Plan) -> Result<wgpu::ComputePipeline, PermuteError> {
        let mut cache = self
            .pipelines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let no_shader = PermuteError::ForcedChoice {
            what: "shader",
            why: "this kernel runs no shader",
        };
        let key_of = |plan: &Plan| {
            let values = shaders::constants(plan)
                .iter()
                .map(|c| c.1 as u64)
                .collect();
            plan.variant().map(|v| (v, values))
        };
        let mut key: (Variant, Vec<u64>) = key_of(plan).ok_or(no_shader.clone())?;
        if let Some(pipeline) = cache.get(&key) {
            return Ok(pipeline.clone());
        }
        let specialized = cache.keys().filter(|(v, _)| v.specialized).count();
        if plan.specialized && specialized >= MAX_SPECIALIZED {
            plan.specialized = false;
            key = key_of(plan).ok_or(no_shader.clone())?;
            if let Some(pipeline) = cache.get(&key) {
                return Ok(pipeline.clone());
            }
        }
        let variant = key.0;
        let source = shaders::source(&variant).ok_or(no_shader)?;
        let label = format!(
            "wgpu-permute {} rank {} unit {} {}{}{}",
            variant.kernel.name(),
            variant.rank,
            variant.unit,
            variant.index.name(),
            if variant.boxed { " boxed" } else { "" },
            if variant.specialized {
                " specialized"
            } else {
                ""
            }
        );
        let constants = shaders::constants(plan);
        let constants: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let pipeline = captured(&self.device, || {
            let module = self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&label),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                });
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&label),
                    layout: Some(&self.pipeline_layout),
                    module: &module,
                    entry_point: Some(variant.kernel.name()),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: false,
                    },
                    cache: None,
                })
        })?;
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Checks the buffers against a plan: distinct, with the usages and sizes it needs.
    fn check_buffers(
        &self,
        plan: &Plan,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
    ) -> Result<(), PermuteError> {
        if src == dst {
            return Err(PermuteError::SameBuffer);
        }
        let (src_usage, dst_usage, usage_name) = match plan.kernel {
            Kernel::Empty => return Ok(()),
            Kernel::Copy => (
                wgpu::BufferUsages::COPY_SRC,
                wgpu::BufferUsages::COPY_DST,
                ["COPY_SRC", "COPY_DST"],
            ),
            Kernel::Generic | Kernel::Tiled | Kernel::Micro => (
                wgpu::BufferUsages::STORAGE,
                wgpu::BufferUsages::STORAGE,
                ["STORAGE", "STORAGE"],
            ),
        };
        let sides = [
            ("source", src, src_usage, usage_name[0], plan.src_extent()),
            (
                "destination",
                dst,
                dst_usage,
                usage_name[1],
                plan.dst_extent(),
            ),
        ];
        for (which, buffer, usage, missing, extent) in sides {
            if !buffer.usage().contains(usage) {
                return Err(PermuteError::MissingUsage { which, missing });
            }
            if buffer.size() < extent {
                return Err(PermuteError::BufferTooSmall {
                    which,
                    need: extent,
                    have: buffer.size(),
                });
            }
        }
        Ok(())
    }

    /// Records the permute into the caller's encoder, so it batches with other GPU work.
    /// Nothing runs until the caller submits. Returns the plan it recorded.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        req: &Request,
    ) -> Result<Plan, PermuteError> {
        let req = &self.tune(req);
        let mut plan = self.plan(req)?;
        self.check_device()?;
        self.check_buffers(&plan, src, dst)?;
        match plan.kernel {
            Kernel::Empty => {}
            Kernel::Copy => {
                encoder.copy_buffer_to_buffer(
                    src,
                    plan.src_offset,
                    dst,
                    plan.dst_offset,
                    plan.bytes,
                );
            }
            Kernel::Generic | Kernel::Tiled | Kernel::Micro => {
                let pipeline = self.pipeline(&mut plan)?;
                // All parameter blocks in one uniform buffer, each at an aligned offset.
                let blocks: Vec<Vec<u32>> = plan
                    .chunks
                    .iter()
                    .map(|chunk| shaders::params(&plan, chunk))
                    .collect();
                let stride = (blocks.iter().map(|b| b.len() * 4).max().unwrap_or(16) as u64)
                    .next_multiple_of(
                        self.device.limits().min_uniform_buffer_offset_alignment as u64,
                    );
                let mut bytes = vec![0u8; stride as usize * blocks.len()];
                for (i, block) in blocks.iter().enumerate() {
                    let at = i * stride as usize;
                    bytes[at..at + block.len() * 4].copy_from_slice(bytemuck::cast_slice(block));
                }
                let bind_groups = captured(&self.device, || {
                    let params = upload(
                        &self.device,
                        &self.queue,
                        "wgpu-permute params",
                        &bytes,
                        wgpu::BufferUsages::UNIFORM,
                    );
                    plan.chunks
                        .iter()
                        .zip(&blocks)
                        .enumerate()
                        .map(|(i, (chunk, block))| {
                            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                                label: Some("wgpu-permute"),
                                layout: &self.bind_group_layout,
                                entries: &[
                                    binding(0, src, chunk.src_window),
                                    binding(1, dst, chunk.dst_window),
                                    binding(
                                        2,
                                        &params,
                                        (i as u64 * stride, block.len() as u64 * 4),
                                    ),
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
                // wgpu puts a barrier between dispatches that write the same storage buffer,
                // so the windows of packed data may share edge words.
                for (chunk, bind_group) in plan.chunks.iter().zip(&bind_groups) {
                    pass.set_bind_group(0, bind_group, &[]);
                    let [x, y, z] = chunk.workgroups;
                    pass.dispatch_workgroups(x, y, z);
                }
            }
        }
        Ok(plan)
    }

    /// Records and submits the permute on this permuter's queue. Returns without waiting;
    /// later work on the queue sees the result.
    pub fn permute(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        req: &Request,
    ) -> Result<Plan, PermuteError> {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-permute"),
            });
        let plan = self.encode(&mut encoder, src, dst, req)?;
        captured(&self.device, || self.queue.submit([encoder.finish()]))
            .map_err(|e| self.or_lost(e))?;
        Ok(plan)
    }

    /// Host convenience: uploads `data`, permutes it on the GPU and reads the result back.
    pub fn permute_slice<T: bytemuck::Pod>(
        &self,
        data: &[T],
        shape: &[usize],
        perm: &[usize],
    ) -> Result<Vec<T>, PermuteError> {
        let bytes = self.permute_bytes(
            bytemuck::cast_slice(data),
            shape,
            perm,
            std::mem::size_of::<T>(),
        )?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// [`Permuter::permute_slice`] on raw bytes holding elements of `elem_size` bytes.
    pub fn permute_bytes(
        &self,
        data: &[u8],
        shape: &[usize],
        perm: &[usize],
        elem_size: usize,
    ) -> Result<Vec<u8>, PermuteError> {
        self.permute_host(data, &Request::new(shape, perm, elem_size))
    }

    /// Host round trip for a full request (its forced options apply; its offsets are
    /// ignored, since the buffers are made here).
    pub fn permute_host(&self, data: &[u8], req: &Request) -> Result<Vec<u8>, PermuteError> {
        self.check_device()?;
        self.host_round_trip(data, req).map_err(|e| self.or_lost(e))
    }

    fn host_round_trip(&self, data: &[u8], req: &Request) -> Result<Vec<u8>, PermuteError> {
        let req = req.with_offsets(0, 0);
        let plan = self.plan(&req)?;
        let n = plan::element_count(req.shape)?;
        if data.len() as u64 != plan.bytes {
            return Err(PermuteError::DataLength {
                need: n,
                have: data.len() / req.elem_size,
            });
        }
        if n == 0 {
            return Ok(Vec::new());
        }
        let size = plan.bytes.next_multiple_of(4);
        let max_buffer = self.device.limits().max_buffer_size;
        if size > max_buffer {
            return Err(PermuteError::DeviceLimit {
                what: "a buffer holding the tensor",
                limit: "max_buffer_size",
                need: size,
                have: max_buffer,
            });
        }
        let (src, dst, readback) = captured(&self.device, || {
            let src = upload(
                &self.device,
                &self.queue,
                "wgpu-permute input",
                data,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let buffer = |label, usage| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage,
                    mapped_at_creation: false,
                })
            };
            let dst = buffer(
                "wgpu-permute output",
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            );
            let readback = buffer(
                "wgpu-permute readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            );
            (src, dst, readback)
        })?;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-permute"),
            });
        self.encode(&mut encoder, &src, &dst, &req)?;
        encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
        captured(&self.device, || self.queue.submit([encoder.finish()]))?;
        read_buffer(&self.device, &readback, plan.bytes)
    }
}

/// One-call permute of `src` into `dst` (both contiguous row-major; output dim `i` is input
/// dim `perm[i]`). Submits on `queue` and returns without waiting. Compiles its pipeline on
/// every call: hold a [`Permuter`] for repeated use.
pub fn gpu_permute(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
) -> Result<(), PermuteError> {
    Permuter::new(device, queue)
        .permute(src, dst, &Request::new(shape, perm, elem_size))
        .map(|_| ())
}
