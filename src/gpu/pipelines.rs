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
}

impl Pipelines {
    /// The layouts of the kernels' bindings: source (read-only storage), destination
    /// (storage), parameters (uniform).
    pub(super) fn new(device: &wgpu::Device) -> Result<Self, PermuteError> {
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = |read_only| wgpu::BufferBindingType::Storage { read_only };
        captured(device, || {
            let bind_group_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("wgpu-permute"),
                    entries: &[
                        entry(0, storage(true)),
                        entry(1, storage(false)),
                        entry(2, wgpu::BufferBindingType::Uniform),
                    ],
                });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("wgpu-permute"),
                bind_group_layouts: &[Some(&bind_group_layout)],
                immediate_size: 0,
            });
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
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pipeline) = cache.get(&key) {
            return Ok(pipeline.clone());
        }
        let source = shaders::source(&variant)
            .map_err(|e| PermuteError::Validation(format!("shader generation: {e}")))?;
        let label = format!("wgpu-permute {variant}");
        let constants: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let pipeline = captured(device, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: Some(&self.layout),
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
}
