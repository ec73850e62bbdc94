//! The bind-group and pipeline layouts every kernel shares, and the cache of compiled
//! pipelines: one per shader variant, plus one per shape for shape-specialised plans. What
//! to specialise is the planner's decision; this only compiles what a plan asks for.

use std::collections::HashMap;
use std::sync::Mutex;

use super::captured;
use crate::PermuteError;
use crate::plan::{Plan, Variant};
use crate::shaders;

/// Cache key: the variant and, for shape-specialised plans, its pipeline constants.
type Key = (Variant, Vec<u64>);

pub(super) struct Pipelines {
    layout: wgpu::PipelineLayout,
    bind_group_layout: wgpu::BindGroupLayout,
    cache: Mutex<HashMap<Key, wgpu::ComputePipeline>>,
    /// Pipelines of shaders that are no kernel variant (the benchmark's shader copy), by
    /// entry point and a flag.
    #[cfg(feature = "bench")]
    others: Mutex<HashMap<(&'static str, bool), wgpu::ComputePipeline>>,
}

/// The bindings of every kernel: source (read-only storage), destination (storage),
/// parameters (uniform).
pub(super) const KERNEL_BINDINGS: [wgpu::BufferBindingType; 3] = [
    wgpu::BufferBindingType::Storage { read_only: true },
    wgpu::BufferBindingType::Storage { read_only: false },
    wgpu::BufferBindingType::Uniform,
];

/// The bindings of trace mode: the kernels' three, the trace (storage) and the traced
/// workgroups (read-only storage).
pub(super) const TRACE_BINDINGS: [wgpu::BufferBindingType; 5] = [
    KERNEL_BINDINGS[0],
    KERNEL_BINDINGS[1],
    KERNEL_BINDINGS[2],
    wgpu::BufferBindingType::Storage { read_only: false },
    wgpu::BufferBindingType::Storage { read_only: true },
];

/// A bind-group layout of compute-stage buffers, binding `i` of type `bindings[i]`, and the
/// pipeline layout of that one group.
pub(super) fn layouts(
    device: &wgpu::Device,
    label: &str,
    bindings: &[wgpu::BufferBindingType],
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .enumerate()
        .map(|(i, &ty)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, pipeline)
}

/// Compiles `source`'s entry point `entry` with these pipeline constants (call under
/// [`captured`]).
pub(super) fn compile(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    label: &str,
    source: String,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            zero_initialize_workgroup_memory: false,
        },
        cache: None,
    })
}

impl Pipelines {
    /// The kernels' layouts ([`KERNEL_BINDINGS`]) and an empty cache.
    pub(super) fn new(device: &wgpu::Device) -> Result<Self, PermuteError> {
        captured(device, || {
            let (bind_group_layout, layout) = layouts(device, "wgpu-permute", &KERNEL_BINDINGS);
            Pipelines {
                layout,
                bind_group_layout,
                cache: Mutex::new(HashMap::new()),
                #[cfg(feature = "bench")]
                others: Mutex::new(HashMap::new()),
            }
        })
    }

    pub(super) fn bind_group_layout(&self) -> &wgpu::BindGroupLayout {
        &self.bind_group_layout
    }

    /// Number of compiled pipelines.
    pub(super) fn len(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// The plan's pipeline, compiled on first use.
    pub(super) fn get(
        &self,
        device: &wgpu::Device,
        plan: &Plan,
    ) -> Result<wgpu::ComputePipeline, PermuteError> {
        let variant = plan.variant().ok_or(PermuteError::ForcedChoice {
            what: "shader",
            why: "this kernel runs no shader",
        })?;
        let constants = shaders::constants(plan);
        let key = (variant, constants.iter().map(|c| c.1 as u64).collect());
        // Before the cache's lock: the GL work lock comes first everywhere.
        let _serial = super::serial(device);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipeline) = cache.get(&key) {
            return Ok(pipeline.clone());
        }
        let source = shaders::source(&variant)
            .map_err(|e| PermuteError::Internal(format!("shader generation: {e}")))?;
        let label = format!("wgpu-permute {variant}");
        let constants: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let pipeline = captured(device, || {
            compile(
                device,
                &self.layout,
                &label,
                source,
                variant.kernel().name(),
                &constants,
            )
        })?;
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// The pipeline of entry point `key.0` of the shader `source` makes, compiled on first
    /// use and kept by `key`.
    #[cfg(feature = "bench")]
    pub(super) fn get_with(
        &self,
        device: &wgpu::Device,
        key: (&'static str, bool),
        source: impl FnOnce() -> Result<String, shaders::TemplateError>,
    ) -> Result<wgpu::ComputePipeline, PermuteError> {
        let _serial = super::serial(device);
        let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipeline) = others.get(&key) {
            return Ok(pipeline.clone());
        }
        let source =
            source().map_err(|e| PermuteError::Internal(format!("shader generation: {e}")))?;
        let pipeline = captured(device, || {
            compile(device, &self.layout, key.0, source, key.0, &[])
        })?;
        others.insert(key, pipeline.clone());
        Ok(pipeline)
    }
}
