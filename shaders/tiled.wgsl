// tiled: a permute whose innermost dim moves, through workgroup memory (cuTT's "Tiled"
// method). The tile spans the input's innermost dim (C, the tile's columns) and the input
// dim that becomes the output's innermost (R, the tile's rows); all other dims are batch.
// A batch transpose (B, R, C) -> (B, C, R) is the case with one batch dim. A workgroup reads
// its tile row by row (coalesced), then writes it column by column as rows of the output
// (coalesced). Each tile row is padded by one unit so that reading a column of the tile
// touches a different bank per thread.
//
// 8- and 16-bit data moves packed, PACK elements per 32-bit word: a thread loads whole input
// words (PACK neighbouring columns), and each output word is assembled from PACK neighbouring
// input rows. Input rows are stored in PACK planes by row % PACK, so both phases stay
// conflict-free. Needs R and C divisible by PACK (the planner checks); then every other
// stride is too, and no word is split between tiles.
//
// Filled in by src/shaders/tiled.rs: the tile geometry (TILE_WORDS x TILE_ROWS threads, rows of
// PITCH units, TILE_LEN units of workgroup memory), BATCH_FN (the unrolled batch decode),
// OUT_WORD_FN (shaders/fragments/tiled_out_word*.wgsl) and TILE_ACCESS, the functions that
// read and write the tile (shaders/fragments/tile_access*.wgsl).

const TW: u32 = {{TILE_WORDS}};
const BY: u32 = {{TILE_ROWS}};
const PITCH: u32 = {{PITCH}};

var<workgroup> tile: array<{{STORE}}, {{TILE_LEN}}>;

{{TILE_ACCESS}}

// Input and output offsets (in units) of batch index `b`, unrolled over the batch dims.
{{BATCH_FN}}

{{OUT_WORD_FN}}

@compute @workgroup_size(TW, BY)
fn tiled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let wg = workgroup_index(wid, nwg, li);
    if wg >= param(TOTAL_WORKGROUPS) {
        return;
    }
    let tc = wg % param(TILES_C);
    let rest = wg / param(TILES_C);
    let tr = rest % param(TILES_R);
    let b = rest / param(TILES_R);

    let rows = param(ROWS);
    let cols = param(COLS);
    let in_words = cols / PACK;         // words across the tile's columns
    let out_words = rows / PACK;        // words across the tile's rows, in the output
    let in_row = param(IN_ROW) / PACK;  // words between input rows
    let out_row = param(OUT_ROW) / PACK; // words between output rows
    let bases = batch_bases(b);
    let in_base = param(SRC_OFF) + bases.x / PACK;
    let out_base = param(DST_OFF) + bases.y / PACK;

    // Load: TW * PACK input rows of TW words each.
    let row0 = tr * TW * PACK;
    // Narrow rows that lie end to end (the whole width in one tile, no gap between rows) are
    // read as one run, so every lane reads and every sector is whole; an odd row width as
    // the tile's pitch keeps both phases conflict-free. Unpacked data only: PACK planes
    // would put neighbouring rows on the same banks.
    let narrow = PACK == 1u && param(TILES_C) == 1u && in_row == in_words && (in_words & 1u) == 1u;
    let pitch = select(PITCH, in_words, narrow);
    if narrow {
        let run = min(TW * PACK, rows - row0) * in_words;
        for (var l = li; l < run; l += TW * BY) {
            let r = l / in_words;
            let at = ((r % PACK) * TW + r / PACK) * pitch + l % in_words;
            store_tile(at, load_src(in_base + row0 * in_row + l));
        }
    } else {
        let gw = tc * TW + lid.x;
        for (var r = lid.y; r < TW * PACK; r += BY) {
            let gr = row0 + r;
            if gr < rows && gw < in_words {
                store_tile(((r % PACK) * TW + r / PACK) * PITCH + lid.x, load_src(in_base + gr * in_row + gw));
            }
        }
    }
    workgroupBarrier();

    // Store: TW * PACK output rows (input columns) of TW words each.
    let col0 = tc * TW * PACK;
    let ow = tr * TW + lid.x;
    for (var c = lid.y; c < TW * PACK; c += BY) {
        let gc = col0 + c;
        if gc < cols && ow < out_words {
            store_dst(out_base + gc * out_row + ow, out_word(c, lid.x, pitch));
        }
    }
}
