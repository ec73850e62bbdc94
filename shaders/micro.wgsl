// micro: a permute whose innermost dim moves, in register micro-tiles. Each invocation
// moves one 4x4 block of elements between the input's innermost dim (the block's columns)
// and the input dim that becomes the output's innermost (its rows): it reads the block's 4
// input rows as whole 32-bit words, transposes in registers, and writes 4 output rows as
// whole words. No workgroup memory and no barrier, which suits devices where those are
// costly (lavapipe); 8- and 16-bit data is packed PACK to a word, so a block row is
// 4 / PACK words. Needs both block sides (R and C, in elements) divisible by 4.
//
// Placeholders (names in double braces) are filled in by src/shaders.rs.

struct Params {
    v: array<vec4<u32>, {{PARAM_VEC4S}}>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

fn param(i: u32) -> u32 {
    return params.v[i >> 2u][i & 3u];
}

// Parameter words, as for the tiled kernel; the batch dims follow from word 12.
const TOTAL_WORKGROUPS: u32 = 0u;
const BLOCKS_C: u32 = 1u;
const BLOCKS_R: u32 = 2u;
const BLOCKS: u32 = 3u;
const SRC_OFF: u32 = 6u;  // in words
const DST_OFF: u32 = 7u;  // in words
const IN_ROW: u32 = 8u;   // input stride of the row dim, in elements
const OUT_ROW: u32 = 9u;  // output stride of the column dim, in elements

const PACK: u32 = {{PACK_VALUE}};
const BITS: u32 = 32u / PACK;
const MASK: u32 = 0xffffffffu >> (32u - BITS);
const K: u32 = 4u / PACK; // words per block row

// Input and output offsets (in elements) of batch index `b`, unrolled over the batch dims.
{{BATCH_FN}}

@compute @workgroup_size(256)
fn micro(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    let g = wg * 256u + lid;
    if wg >= param(TOTAL_WORKGROUPS) || g >= param(BLOCKS) {
        return;
    }
    // Neighbouring invocations take neighbouring row blocks: their writes are contiguous.
    let br = g % param(BLOCKS_R);
    let rest = g / param(BLOCKS_R);
    let bc = rest % param(BLOCKS_C);
    let b = rest / param(BLOCKS_C);
    let bases = batch_bases(b);
    let in_row = param(IN_ROW) / PACK;
    let out_row = param(OUT_ROW) / PACK;
    let first_in = param(SRC_OFF) + (bases.x + 4u * bc) / PACK + 4u * br * in_row;
    let first_out = param(DST_OFF) + (bases.y + 4u * br) / PACK + 4u * bc * out_row;

    var w: array<u32, 16>; // w[r * K + k]: word k of block row r
    for (var r = 0u; r < 4u; r++) {
        for (var k = 0u; k < K; k++) {
            w[r * K + k] = src[first_in + r * in_row + k];
        }
    }
    for (var c = 0u; c < 4u; c++) {
        for (var k = 0u; k < K; k++) {
            // Output word k of output row c: elements of block rows k*PACK.. at column c.
            var word = 0u;
            for (var i = 0u; i < PACK; i++) {
                let r = k * PACK + i;
                word |= ((w[r * K + c / PACK] >> (BITS * (c % PACK))) & MASK) << (BITS * i);
            }
            dst[first_out + c * out_row + k] = word;
        }
    }
}
