// micro: a permute whose innermost dim moves, in register micro-tiles. Each invocation
// moves one SIDE x SIDE block of elements between the input's innermost dim (the block's
// columns) and the input dim that becomes the output's innermost (its rows): it reads the
// block's SIDE input rows as whole 32-bit words, transposes in registers, and writes SIDE
// output rows as whole words. No workgroup memory and no barrier, which suits devices where
// those are costly (lavapipe); 8- and 16-bit data is packed PACK to a word, so a block row
// is SIDE / PACK words. Needs both block sides (R and C, in elements) divisible by SIDE.
// The parameter words are those of the tiled kernel, counted in blocks.
//
// Filled in by src/shaders.rs: SIDE (plan::MICRO_SIDE) and BATCH_FN (the unrolled batch
// decode).

const SIDE: u32 = {{SIDE}};
const K: u32 = SIDE / PACK; // words per block row

// Input and output offsets (in elements) of batch index `b`, unrolled over the batch dims.
{{BATCH_FN}}

@compute @workgroup_size(WORKGROUP)
fn micro(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    let g = wg * WORKGROUP + lid;
    if wg >= param(TOTAL_WORKGROUPS) || g >= param(TILES) {
        return;
    }
    // Neighbouring invocations take neighbouring row blocks: their writes are contiguous.
    let br = g % param(TILES_R);
    let rest = g / param(TILES_R);
    let bc = rest % param(TILES_C);
    let b = rest / param(TILES_C);
    let bases = batch_bases(b);
    let in_row = param(IN_ROW) / PACK;
    let out_row = param(OUT_ROW) / PACK;
    let first_in = param(SRC_OFF) + (bases.x + SIDE * bc) / PACK + SIDE * br * in_row;
    let first_out = param(DST_OFF) + (bases.y + SIDE * br) / PACK + SIDE * bc * out_row;

    var w: array<u32, SIDE * K>; // w[r * K + k]: word k of block row r
    for (var r = 0u; r < SIDE; r++) {
        for (var k = 0u; k < K; k++) {
            w[r * K + k] = load_src(first_in + r * in_row + k);
        }
    }
    for (var c = 0u; c < SIDE; c++) {
        for (var k = 0u; k < K; k++) {
            // Output word k of output row c: elements of block rows k*PACK.. at column c.
            var word = 0u;
            for (var i = 0u; i < PACK; i++) {
                word |= lane(w[(k * PACK + i) * K + c / PACK], c % PACK) << (BITS * i);
            }
            store_dst(first_out + c * out_row + k, word);
        }
    }
}
