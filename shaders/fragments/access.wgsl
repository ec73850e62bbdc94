// Global-memory accesses (trace mode records each), and the workgroup's index in a grid
// folded into up to three dimensions (`lid` is trace mode's).
fn load_src(i: u32) -> {{STORE}} { return {{SRC_UNIT}}; }
fn load_dst(i: u32) -> {{DST_STORE}} { return dst[i]; }
fn store_dst(i: u32, value: {{DST_STORE}}) { dst[i] = value; }
fn workgroup_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}
