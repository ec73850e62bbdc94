// Every kernel's bindings, parameter block and packing of 8/16-bit data into words.
struct Params { v: array<vec4<u32>, {{PARAM_VEC4S}}> }
@group(0) @binding(0) var<storage, read> src: array<{{STORE}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{{DST_STORE}}>;
@group(0) @binding(2) var<uniform> params: Params;
fn param(i: u32) -> u32 { return params.v[i >> 2u][i & 3u]; }

// The parameter block's words; word 0 is the dispatch's workgroup count.
{{PARAM_WORDS}}

// Invocations per workgroup.
const WORKGROUP: u32 = {{WORKGROUP}};

// Elements per 32-bit word (1 unless 8/16-bit data is packed), and element `i` of a word.
const PACK: u32 = {{PACK}};
const BITS: u32 = 32u / PACK;
const MASK: u32 = 0xffffffffu >> (32u - BITS);
fn lane(word: u32, i: u32) -> u32 { return (word >> (i * BITS)) & MASK; }

{{ACCESS}}
