//! Adapter and device set-up, and what the planner needs to know of a device.

use crate::PermuteError;
use crate::plan::DeviceCaps;

/// Reads what the planner needs from a device's limits, features and adapter type.
pub fn caps_of(device: &wgpu::Device) -> DeviceCaps {
    let limits = device.limits();
    DeviceCaps {
        max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
        max_workgroup_storage: limits.max_compute_workgroup_storage_size,
        max_invocations: limits.max_compute_invocations_per_workgroup,
        max_storage_binding: limits.max_storage_buffer_binding_size,
        storage_offset_alignment: limits.min_storage_buffer_offset_alignment,
        int64: device.features().contains(wgpu::Features::SHADER_INT64),
        cpu: device.adapter_info().device_type == wgpu::DeviceType::Cpu,
        // Measured by a `Permuter` (see `gpu::access`), not reported.
        access64_faster: false,
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
    // wgpu panics when it has no backend to make an instance with.
    if (wgpu::Instance::enabled_backend_features() & backends).is_empty() {
        return Err(PermuteError::NoBackend {
            requested: format!("{backends:?}"),
        });
    }
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
