// tiled: batch transpose (B, R, C) -> (B, C, R) through workgroup memory. A workgroup reads
// a tile of the input row by row (coalesced), then writes it column by column as rows of the
// output (coalesced). Each tile row is padded by one unit so that reading a column of the
// tile touches a different bank per thread.
//
// 8- and 16-bit data moves packed, PACK elements per 32-bit word: a thread loads whole input
// words (PACK neighbouring columns), and each output word is assembled from PACK neighbouring
// input rows. Input rows are stored in PACK planes by row % PACK, so both phases stay
// conflict-free. Needs R and C divisible by PACK (the planner checks).
//
// Placeholders (names in double braces) are filled in by src/shaders.rs.

struct Params {
    total_workgroups: u32,
    tiles_c: u32,
    tiles_r: u32,
    batch: u32,
    rows: u32,
    cols: u32,
    src_off: u32,
    dst_off: u32,
}

@group(0) @binding(0) var<storage, read> src: array<{{STORE}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{{STORE}}>;
@group(0) @binding(2) var<uniform> params: Params;

const TW: u32 = {{TILE_WORDS}};
const BY: u32 = {{TILE_ROWS}};
const PACK: u32 = {{PACK_VALUE}};
const BITS: u32 = 32u / PACK;
const MASK: u32 = 0xffffffffu >> (32u - BITS);
const PITCH: u32 = TW + 1u;

var<workgroup> tile: array<{{STORE}}, {{TILE_LEN}}>;

// The output word at tile column `c` (an output row) and tile word `q` (an output column).
{{OUT_WORD_FN}}

@compute @workgroup_size({{TILE_WORDS}}, {{TILE_ROWS}})
fn tiled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let wg = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    if wg >= params.total_workgroups {
        return;
    }
    let tc = wg % params.tiles_c;
    let rest = wg / params.tiles_c;
    let tr = rest % params.tiles_r;
    let b = rest / params.tiles_r;

    let rows = params.rows;
    let cols = params.cols;
    let in_words = cols / PACK;  // words per input row
    let out_words = rows / PACK; // words per output row
    let in_base = params.src_off + b * rows * in_words;
    let out_base = params.dst_off + b * cols * out_words;

    // Load: TW * PACK input rows of TW words each.
    let row0 = tr * TW * PACK;
    let gw = tc * TW + lid.x;
    for (var r = lid.y; r < TW * PACK; r += BY) {
        let gr = row0 + r;
        if gr < rows && gw < in_words {
            tile[((r % PACK) * TW + r / PACK) * PITCH + lid.x] = src[in_base + gr * in_words + gw];
        }
    }
    workgroupBarrier();

    // Store: TW * PACK output rows (input columns) of TW words each.
    let col0 = tc * TW * PACK;
    let ow = tr * TW + lid.x;
    for (var c = lid.y; c < TW * PACK; c += BY) {
        let gc = col0 + c;
        if gc < cols && ow < out_words {
            dst[out_base + gc * out_words + ow] = out_word(c, lid.x);
        }
    }
}
