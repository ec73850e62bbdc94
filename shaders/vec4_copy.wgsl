// vec4_copy: the shader ceiling for benchmarks. Copies 16-byte units with the thread layout
// of the generic kernel (256 threads, 4 units each, a workgroup apart), so a permute can be
// compared with the fastest a plain shader moves the same bytes on the same device.

struct Params {
    total_workgroups: u32,
    units: u32,
}

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

const WORKGROUP: u32 = 256u;
const ITEMS: u32 = 4u;

@compute @workgroup_size(256)
fn vec4_copy(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    if wg >= params.total_workgroups {
        return;
    }
    for (var k = 0u; k < ITEMS; k++) {
        let i = wg * WORKGROUP * ITEMS + k * WORKGROUP + lid;
        if i < params.units {
            dst[i] = src[i];
        }
    }
}
