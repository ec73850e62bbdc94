// Converting words: the thread owns destination word `w` (DST_PACK elements of the
// destination type) and converts each element from its source element (PACK to a source
// word). Lanes past the tensor's end keep the bytes already in the destination.
fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    var ch = channel_at(imul(w, ix(DST_PACK)));
    for (var l = 0u; l < DST_PACK; l++) {
        let o = iadd(imul(w, ix(DST_PACK)), ix(l));
        if ilt(o, ip(N_UNITS)) {
            let s = iadd(ip(SRC_OFF), src_offset(o));
            let bits = lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK))));
            word |= converted_at(bits, ch) << (l * DST_BITS);
        } else {
            keep |= DST_MASK << (l * DST_BITS);
        }
        ch = channel_next(ch);
    }
    let d = iu32(iadd(idiv(ip(DST_OFF), ix(DST_PACK)), w));
    if keep != 0u {
        word |= load_dst(d) & keep;
    }
    store_dst(d, word);
}
