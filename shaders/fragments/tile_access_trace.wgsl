// Trace mode: tile accesses are recorded like global ones (fragments/access_trace.wgsl).
fn load_tile(i: u32) -> {{STORE}} {
    record(TRACE_TILE_LOAD, i, UNIT_BYTES);
    return tile[i];
}

fn store_tile(i: u32, value: {{STORE}}) {
    record(TRACE_TILE_STORE, i, UNIT_BYTES);
    tile[i] = value;
}
