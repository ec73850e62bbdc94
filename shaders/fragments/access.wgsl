// Every global-memory access of a kernel goes through these functions, so that trace mode
// can record it (shaders/fragments/access_trace.wgsl); here they only access.
fn load_src(i: u32) -> {{STORE}} {
    return {{SRC_UNIT}};
}

fn load_dst(i: u32) -> {{DST_STORE}} {
    return dst[i];
}

fn store_dst(i: u32, value: {{DST_STORE}}) {
    dst[i] = value;
}

// The workgroup's index in a grid folded into up to three dimensions (dispatches larger
// than max_compute_workgroups_per_dimension); the grid's extra workgroups return early.
// `lid` (the flat local invocation index) is for trace mode.
fn workgroup_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}
