//! The kernels' conversion functions on the GPU, against the reference.

use wgpu_permute::convert::{Dtype, convert};
use wgpu_permute::{read_buffer, shaders, upload};

use super::{common, same, values};

/// Runs `src_to_f32`, the affine if given, then `f32_to_dst` on each element (one per
/// word): the functions the kernels call, in a harness of their own.
const HARNESS: &str = "
struct Params { n: u32, affine: u32, scale: f32, bias: f32 }
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 64u * 1024u;
    if i >= params.n {
        return;
    }
    var b = src_to_f32(src[i]);
    if params.affine == 1u {
        b = affine_f32(b, params.scale, params.bias);
    }
    dst[i] = f32_to_dst(b);
}
";

/// `from` -> `to` of every value on the GPU, with `affine` (scale, bias) if given.
fn on_gpu(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    from: Dtype,
    to: Dtype,
    input: &[u32],
    affine: Option<(f32, f32)>,
) -> Vec<u32> {
    let source = shaders::convert_source(from, to).unwrap() + HARNESS;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("convert harness"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("convert harness"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let (scale, bias) = affine.unwrap_or((1.0, 0.0));
    let params = [
        input.len() as u32,
        affine.is_some() as u32,
        scale.to_bits(),
        bias.to_bits(),
    ];
    let storage = wgpu::BufferUsages::STORAGE;
    let src = upload(device, queue, "src", bytemuck::cast_slice(input), storage);
    let uniform = upload(
        device,
        queue,
        "params",
        bytemuck::cast_slice(&params),
        wgpu::BufferUsages::UNIFORM,
    );
    let bytes = (input.len() * 4) as u64;
    let dst = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("dst"),
        size: bytes,
        usage: storage | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
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
                resource: uniform.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        let groups = (input.len() as u32).div_ceil(64);
        pass.dispatch_workgroups(groups.min(1024), groups.div_ceil(1024), 1);
    }
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, bytes);
    queue.submit([encoder.finish()]);
    bytemuck::pod_collect_to_vec(&read_buffer(device, &readback, bytes).unwrap())
}

#[test]
fn the_wgsl_conversions_match_the_reference_bit_for_bit() {
    let Some(p) = common::gpu() else { return };
    let mut checked = 0;
    for from in Dtype::ALL {
        let input = values(from);
        for to in Dtype::DESTINATIONS {
            let got = on_gpu(p.device(), p.queue(), from, to, &input, None);
            let wrong: Vec<String> = input
                .iter()
                .zip(&got)
                .filter(|&(&x, &g)| !same(to, g, convert(from, to, x, None)))
                .take(8)
                .map(|(&x, &g)| {
                    format!(
                        "{x:#x}: GPU {g:#x}, reference {:#x}",
                        convert(from, to, x, None)
                    )
                })
                .collect();
            assert!(
                wrong.is_empty(),
                "{} -> {} on {}:\n{}",
                from.name(),
                to.name(),
                p.device().adapter_info().name,
                wrong.join("\n")
            );
            checked += input.len();
        }
    }
    eprintln!("{checked} conversions on the GPU, bit for bit");
}

/// One unit in the last place of `to` at `value` (at least the smallest step of `to`).
pub(crate) fn ulp(to: Dtype, value: f64) -> f64 {
    let (mantissa, min_exp) = match to {
        Dtype::F32 => (23, -126),
        Dtype::F16 => (10, -14),
        Dtype::BF16 => (7, -126),
        _ => return 1.0,
    };
    let exp = value.abs().log2().floor().max(min_exp as f64);
    (exp - mantissa as f64).exp2()
}

#[test]
fn the_affine_is_within_the_documented_bound() {
    let Some(p) = common::gpu() else { return };
    let affines = [
        (1.0 / 255.0 / 0.229, -0.485 / 0.229),
        (-3.5f32, 10.0f32),
        (0.017, 0.0),
    ];
    let mut checked = 0;
    for from in Dtype::ALL {
        // Finite values of moderate size: near the top of a type's range the bound is
        // about overflow, not rounding.
        let input: Vec<u32> = values(from)
            .into_iter()
            .filter(|&x| from.value(x).is_finite() && from.value(x).abs() <= 1e4)
            .collect();
        for to in Dtype::DESTINATIONS {
            for (scale, bias) in affines {
                let got = on_gpu(p.device(), p.queue(), from, to, &input, Some((scale, bias)));
                for (&x, &g) in input.iter().zip(&got) {
                    let v = from.value(x);
                    let exact = v * f64::from(scale) + f64::from(bias);
                    let want = to.value(to.encode(exact));
                    // WGSL lets f32 arithmetic flush subnormal inputs and results to zero
                    // (SwiftShader does): the bound allows the smallest normal f32 more,
                    // times 1 + |scale|.
                    let bound = 4.0
                        * (-24f64).exp2()
                        * ((v * f64::from(scale)).abs() + f64::from(bias).abs())
                        + ulp(to, exact)
                        + (-126f64).exp2() * (1.0 + f64::from(scale).abs());
                    let got = to.value(g);
                    assert!(
                        (got - want).abs() <= bound,
                        "{} {x:#x} * {scale} + {bias} -> {}: GPU {got}, reference {want} (bound {bound})",
                        from.name(),
                        to.name()
                    );
                }
                checked += input.len();
            }
        }
    }
    eprintln!("{checked} affine conversions within the bound");
}
