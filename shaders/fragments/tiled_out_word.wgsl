// Output unit `q` of tile column `c`.
fn out_word(c: u32, q: u32, pitch: u32) -> {{STORE}} { return load_tile(q * pitch + c); }
