// The output word at tile column `c` (an output row) and tile word `q` (an output column),
// assembled from PACK neighbouring input rows, which live in PACK planes by row % PACK, in a
// tile whose rows are `pitch` units apart.
fn out_word(c: u32, q: u32, pitch: u32) -> u32 {
    var w = 0u;
    for (var p = 0u; p < PACK; p++) {
        w |= lane(load_tile((p * TW + q) * pitch + c / PACK), c % PACK) << (p * BITS);
    }
    return w;
}
