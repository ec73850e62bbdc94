//! The bind-group and pipeline layouts every kernel shares, and the cache of compiled
//! pipelines: one per [`Shader`] (a variant, plus its constants for shape-specialised
//! plans). What to specialise is the planner's decision; this only compiles what a plan's
//! work names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::captured;
use crate::PermuteError;
use crate::work::Shader;

pub(super) struct Pipelines {
    layout: wgpu::PipelineLayout,
    bind_group_layout: wgpu::BindGroupLayout,
    /// A slot per shader: a thread that needs another shader, or one already compiled, does
    /// not wait for a compile (a CPU driver's take seconds).
    cache: Mutex<HashMap<Shader, Arc<Slot>>>,
}

/// A shader's pipeline, set once it compiled; the lock is held while it compiles, so that
/// threads asking for the same shader meanwhile wait rather than compile it again.
#[derive(Default)]
struct Slot {
    pipeline: OnceLock<wgpu::ComputePipeline>,
    compiling: Mutex<()>,
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
            }
        })
    }

    pub(super) fn bind_group_layout(&self) -> &wgpu::BindGroupLayout {
        &self.bind_group_layout
    }

    /// Number of compiled pipelines (one still compiling is not counted, nor waited for).
    pub(super) fn len(&self) -> usize {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .values()
            .filter(|slot| slot.pipeline.get().is_some())
            .count()
    }

    /// The pipeline of `shader`, compiled on first use; a thread asking for it meanwhile
    /// waits for that compile rather than compiling it again.
    pub(super) fn get(
        &self,
        device: &wgpu::Device,
        shader: &Shader,
    ) -> Result<wgpu::ComputePipeline, PermuteError> {
        // Before the cache's locks: the GL work lock comes first everywhere.
        let _serial = super::serial(device);
        let slot = {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            cache.entry(shader.clone()).or_default().clone()
        };
        if let Some(pipeline) = slot.pipeline.get() {
            return Ok(pipeline.clone());
        }
        let _compiling = slot.compiling.lock().unwrap_or_else(|p| p.into_inner());
        // Compiled by another thread while this one waited.
        if let Some(pipeline) = slot.pipeline.get() {
            return Ok(pipeline.clone());
        }
        // A failed compile leaves the slot empty: the next request tries again.
        let source = shader.wgsl()?;
        let pipeline = captured(device, || {
            compile(
                device,
                &self.layout,
                &shader.label(),
                source,
                shader.entry(),
                &shader.constants(),
            )
        })?;
        Ok(slot.pipeline.get_or_init(|| pipeline).clone())
    }
}
