// The output word at tile column `c` (an output row) and tile word `q` (an output column),
// in a tile whose rows are `pitch` units apart.
fn out_word(c: u32, q: u32, pitch: u32) -> {{STORE}} {
    return load_tile(q * pitch + c);
}
