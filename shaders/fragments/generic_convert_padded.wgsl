// Converting a view with bounds or a strided output: the thread owns destination word `w`
// (DST_PACK elements) and converts each lane inside the view's bounds from its source
// element; a lane outside takes the fill element (lane 0 of word FILL), which is already a
// destination element and is written as it is. The word lies where its first lane's
// destination says: a strided output's rows are whole destination words, so the lanes
// after it follow in the same word. Lanes past the tensor's end keep the bytes already in
// the destination.
fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    var d = ix(0u);
    var ch = channel_at(imul(w, ix(DST_PACK)));
    for (var l = 0u; l < DST_PACK; l++) {
        let o = iadd(imul(w, ix(DST_PACK)), ix(l));
        if ilt(o, ip(N_UNITS)) {
            let at = padded_source(o);
            if l == 0u {
                d = at.d;
            }
            var value = param(FILL) & DST_MASK;
            if at.inside {
                let s = iadd(ip(SRC_OFF), at.s);
                let bits = lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK))));
                value = converted_at(bits, ch);
            }
            word |= value << (l * DST_BITS);
        } else {
            keep |= DST_MASK << (l * DST_BITS);
        }
        ch = channel_next(ch);
    }
    let at = iu32(idiv(iadd(ip(DST_OFF), d), ix(DST_PACK)));
    if keep != 0u {
        word |= load_dst(at) & keep;
    }
    store_dst(at, word);
}
