// Converting (src/convert.rs has the numbers): each element converted from its source bits
// with shaders/convert.wgsl's functions; with AFFINE, y = x * scale[c] + bias[c] in f32 for
// the element's channel c, from the words at CONVERT_WORDS: the output elements per channel
// step, the channel count, then the scales and the biases. The items are
// generic_convert_item.wgsl's words, generic_convert_quad.wgsl's quads, or
// generic_convert_runs.wgsl's runs.
const DST_PACK: u32 = {{DST_PACK}};
const DST_BITS: u32 = 32u / DST_PACK;
const DST_MASK: u32 = 0xffffffffu >> (32u - DST_BITS);
const AFFINE: bool = {{AFFINE}};
const MAX_CHANNELS: u32 = {{MAX_CHANNELS}};

// The affine's channel cursor at output element `o`: its channel, `(o / step) % count`,
// and its place within the channel's step. Consecutive elements move it on with
// `channel_next`, without dividing: a CPU divides lane by lane, and the two divisions of
// each element took half the generic kernel's time on lavapipe (the 224-pixel image
// normalised, 15.2-16.2 ms against 7.9-8.0 without the affine).
fn channel_at(o: Idx) -> vec2<u32> {
    if !AFFINE {
        return vec2<u32>(0u, 0u);
    }
    // The place is below the step, which the words hold in 32 bits: exact modulo 2^32.
    let step = param(CONVERT_WORDS);
    let q = idiv(o, ix(step));
    return vec2<u32>(iu32(imod(q, ix(param(CONVERT_WORDS + 1u)))), iu32(o) - iu32(q) * step);
}

{{CHANNEL_NEXT}}

// An output element whose channel cursor is `at`, from its source element's bits.
fn converted_at(bits: u32, at: vec2<u32>) -> u32 {
    var b = src_to_f32(bits);
    if AFFINE {
        let scale = bitcast<f32>(param(CONVERT_WORDS + 4u + at.x));
        let bias = bitcast<f32>(param(CONVERT_WORDS + 4u + MAX_CHANNELS + at.x));
        b = affine_f32(b, scale, bias);
    }
    return f32_to_dst(b);
}
