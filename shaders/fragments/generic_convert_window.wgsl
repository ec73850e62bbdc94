// Converting a box of the tensor (one binding window of each buffer): `w` is a word of the
// destination window (DST_PACK destination elements), and only the lanes inside the box
// are converted from their source elements (the others keep their bytes), so every word
// still has one owner. DST_OFF maps window elements to output positions (wrapping: a
// window may start before the tensor), which also name each element's channel.
fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    for (var l = 0u; l < DST_PACK; l++) {
        let o = iadd(iadd(imul(w, ix(DST_PACK)), ix(l)), ip(DST_OFF));
        var taken = false;
        if ilt(o, ip(N_UNITS)) {
            let at = window_source(o);
            if at.inside {
                let s = iadd(ip(SRC_OFF), at.s);
                let bits = lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK))));
                // Its own channel: `o` wraps before the tensor, a cursor would not.
                word |= converted_at(bits, channel_at(o)) << (l * DST_BITS);
                taken = true;
            }
        }
        if !taken {
            keep |= DST_MASK << (l * DST_BITS);
        }
    }
    if keep == 0xffffffffu {
        return; // no lane of this word is in the box: another dispatch owns it
    }
    let d = iu32(w);
    if keep != 0u {
        word |= load_dst(d) & keep;
    }
    store_dst(d, word);
}
