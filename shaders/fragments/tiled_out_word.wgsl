// The output word at tile column `c` (an output row) and tile word `q` (an output column).
fn out_word(c: u32, q: u32) -> {{STORE}} {
    return load_tile(q * PITCH + c);
}
