// Output word `q` of tile column `c`: PACK neighbouring input rows, one from each plane.
fn out_word(c: u32, q: u32, pitch: u32) -> u32 {
    var w = 0u;
    for (var p = 0u; p < PACK; p++) {
        w |= lane(load_tile((p * TW + q) * pitch + c / PACK), c % PACK) << (p * BITS);
    }
    return w;
}
