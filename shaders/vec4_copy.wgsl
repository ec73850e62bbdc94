// vec4_copy: the shader ceiling for benchmarks. Copies 16-byte units with the thread layout
// of the generic kernel (WORKGROUP threads, ITEMS units each, a workgroup apart), so a
// permute can be compared with the fastest a plain shader moves the same bytes on the same
// device. Filled in by src/shaders/mod.rs: ITEMS.

const ITEMS: u32 = {{ITEMS}};

@compute @workgroup_size(WORKGROUP)
fn vec4_copy(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    if wg >= param(TOTAL_WORKGROUPS) {
        return;
    }
    for (var k = 0u; k < ITEMS; k++) {
        let i = wg * WORKGROUP * ITEMS + k * WORKGROUP + lid;
        if i < param(UNITS) {
            store_dst(i, load_src(i));
        }
    }
}
