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

// Output element `o`, whose source element's bits are `bits`, converted.
fn converted(bits: u32, o: Idx) -> u32 {
    var b = src_to_f32(bits);
    if AFFINE {
        let c = iu32(imod(idiv(o, ix(param(CONVERT_WORDS))), ix(param(CONVERT_WORDS + 1u))));
        let scale = bitcast<f32>(param(CONVERT_WORDS + 4u + c));
        let bias = bitcast<f32>(param(CONVERT_WORDS + 4u + MAX_CHANNELS + c));
        b = affine_f32(b, scale, bias);
    }
    return f32_to_dst(b);
}
