// tiled: a tile of the input's innermost dim (columns) by the dim that becomes the output's
// innermost (rows), read in rows and written in columns through workgroup memory, its rows
// padded against bank conflicts; the other dims are the batch. Packed data keeps input
// rows in PACK planes (row % PACK), an output word taking a row from each.
const TW: u32 = {{TILE_WORDS}};
const BY: u32 = {{TILE_ROWS}};
const PITCH: u32 = {{PITCH}};
var<workgroup> tile: array<{{STORE}}, {{TILE_LEN}}>;

{{TILE_ACCESS}}

{{BATCH_FN}}

{{OUT_WORD_FN}}

@compute @workgroup_size(TW, BY)
fn tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let wg = workgroup_index(wid, nwg, li);
    if wg >= param(TOTAL_WORKGROUPS) { return; }
    let tc = wg % param(TILES_C);
    let tr = wg / param(TILES_C) % param(TILES_R);
    let b = wg / param(TILES_C) / param(TILES_R);
    // Rows, columns and strides in words; the batch index's offsets.
    let rows = param(ROWS);
    let cols = param(COLS);
    let in_words = cols / PACK;
    let out_words = rows / PACK;
    let in_row = param(IN_ROW) / PACK;
    let out_row = param(OUT_ROW) / PACK;
    let bases = batch_bases(b);
    let in_base = param(SRC_OFF) + bases.x / PACK;
    let out_base = param(DST_OFF) + bases.y / PACK;
    // Load TW * PACK input rows of TW words.
    let row0 = tr * TW * PACK;
{{LOAD}}
    workgroupBarrier();
    // Store TW * PACK output rows (input columns) of TW words.
    let col0 = tc * TW * PACK;
    let ow = tr * TW + lid.x;
    for (var c = lid.y; c < TW * PACK; c += BY) {
        let gc = col0 + c;
        if gc < cols && ow < out_words {
            store_dst(out_base + gc * out_row + ow, out_word(c, lid.x, pitch));
        }
    }
}
