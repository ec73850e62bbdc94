// Converting (src/convert.rs has the numbers): the thread owns destination word `w`
// (DST_PACK elements of the destination type) and converts each element from its source
// element (PACK to a source word) with shaders/convert.wgsl's functions; with AFFINE,
// y = x * scale[c] + bias[c] in f32 for the element's channel c, from the words at
// CONVERT_WORDS: the output elements per channel step, the channel count, then the scales
// and the biases. Lanes past the tensor's end keep the bytes already in the destination.
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

fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    for (var l = 0u; l < DST_PACK; l++) {
        let o = iadd(imul(w, ix(DST_PACK)), ix(l));
        if ilt(o, ip(N_UNITS)) {
            let s = iadd(ip(SRC_OFF), src_offset(o));
            let bits = lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK))));
            word |= converted(bits, o) << (l * DST_BITS);
        } else {
            keep |= DST_MASK << (l * DST_BITS);
        }
    }
    let d = iu32(iadd(idiv(ip(DST_OFF), ix(DST_PACK)), w));
    if keep != 0u {
        word |= load_dst(d) & keep;
    }
    store_dst(d, word);
}
