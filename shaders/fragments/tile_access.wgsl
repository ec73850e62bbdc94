// Tile accesses (trace mode records each).
fn load_tile(i: u32) -> {{STORE}} { return tile[i]; }
fn store_tile(i: u32, value: {{STORE}}) { tile[i] = value; }
