// generic: the permute that handles every case. Each thread writes ITEMS output items,
// spaced a workgroup apart so that neighbouring threads write neighbouring words. An item is
// one movement unit, or, for 8/16-bit data, one whole 32-bit output word (PACK elements), so
// no two threads ever write parts of the same word.
//
// Placeholders (names in double braces) are filled in by src/shaders.rs:
//   STORE          storage type of one unit: u32, vec2<u32> or vec4<u32>
//   PACK, BITS     elements per storage word and their width (PACK = 1 for 4/8/16-byte units)
//   PARAM_VEC4S    size of the parameter block
//   index math     alias Idx and ix/ip/iadd/imul/idiv/imod/ilt/iu32 (shaders/index_*.wgsl)
//   src_offset     the unrolled decode of an output position into an input offset

struct Params {
    v: array<vec4<u32>, {{PARAM_VEC4S}}>,
}

@group(0) @binding(0) var<storage, read> src: array<{{STORE}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{{STORE}}>;
@group(0) @binding(2) var<uniform> params: Params;

const WORKGROUP: u32 = 256u;
const ITEMS: u32 = {{ITEMS_PER_THREAD}};
const PACK: u32 = {{PACK_VALUE}};
const BITS: u32 = 32u / PACK;
const MASK: u32 = 0xffffffffu >> (32u - BITS);

// Word 0 of the parameters is the workgroup count; index values start at word 4.
fn param(i: u32) -> u32 {
    return params.v[i >> 2u][i & 3u];
}

// Index values, in the order src/shaders.rs writes them.
const N_UNITS: u32 = 0u;
const N_ITEMS: u32 = 1u;
const SRC_OFF: u32 = 2u;
const DST_OFF: u32 = 3u;

{{INDEX_MATH}}

// Input offset (in units, relative to the tensor) of output unit `o`.
{{SRC_OFFSET_FN}}

// Moves one output item.
{{MOVE_FN}}

@compute @workgroup_size(256)
fn generic(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    if wg >= param(0u) {
        return;
    }
    let first = imul(ix(wg), ix(WORKGROUP * ITEMS));
    for (var k = 0u; k < ITEMS; k++) {
        let item = iadd(first, ix(k * WORKGROUP + lid));
        if ilt(item, ip(N_ITEMS)) {
            move_item(item);
        }
    }
}
