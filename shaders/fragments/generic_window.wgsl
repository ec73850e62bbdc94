// A box of packed 8/16-bit data: `w` is a word of the destination window, and only the
// lanes inside the box are gathered (the others keep their bytes), so every word still has
// one owner. DST_OFF maps window units to tensor positions (wrapping: a window may start
// before the tensor).
fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    for (var l = 0u; l < PACK; l++) {
        let o = iadd(iadd(imul(w, ix(PACK)), ix(l)), ip(DST_OFF));
        var taken = false;
        if ilt(o, ip(N_UNITS)) {
            let at = window_source(o);
            if at.inside {
                let s = iadd(ip(SRC_OFF), at.s);
                word |= lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK)))) << (l * BITS);
                taken = true;
            }
        }
        if !taken {
            keep |= MASK << (l * BITS);
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
