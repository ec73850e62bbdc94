// prelude: shared by every kernel. The bindings, the parameter block and its named words,
// the packing of 8/16-bit data into 32-bit words, and the functions through which kernels
// touch global memory and find their workgroup. src/shaders/ fills the placeholders (names in double braces) from the Rust
// constants, and puts this text before each kernel's own.

struct Params {
    v: array<vec4<u32>, {{PARAM_VEC4S}}>,
}

@group(0) @binding(0) var<storage, read> src: array<{{STORE}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{{DST_STORE}}>;
@group(0) @binding(2) var<uniform> params: Params;

// Word `i` of the parameter block.
fn param(i: u32) -> u32 {
    return params.v[i >> 2u][i & 3u];
}

// The parameter block's words (or, for the generic kernel, index values), named as in
// src/shaders/mod.rs. Word 0 is always the dispatch's workgroup count.
{{PARAM_WORDS}}

// Invocations per workgroup of the one-dimensional kernels.
const WORKGROUP: u32 = {{WORKGROUP}};

// Elements per 32-bit storage word (1 unless 8/16-bit data is packed), their width in
// bits, and the mask of one element.
const PACK: u32 = {{PACK}};
const BITS: u32 = 32u / PACK;
const MASK: u32 = 0xffffffffu >> (32u - BITS);

// Element `i` of a packed word.
fn lane(word: u32, i: u32) -> u32 {
    return (word >> (i * BITS)) & MASK;
}

// The global-memory accesses and the workgroup's index: plain here
// (shaders/fragments/access.wgsl), recorded in trace mode (shaders/fragments/access_trace.wgsl).
{{ACCESS}}
