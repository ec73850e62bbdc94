// Every access to the tile goes through these functions, so that trace mode can record it
// (shaders/fragments/tile_access_trace.wgsl); here they only access.
fn load_tile(i: u32) -> {{STORE}} {
    return tile[i];
}

fn store_tile(i: u32, value: {{STORE}}) {
    tile[i] = value;
}
