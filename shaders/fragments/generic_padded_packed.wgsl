// A view of packed 8/16-bit data: the thread owns output word `w` (positions w * PACK..)
// and gathers its PACK lanes, from the source inside the view's bounds and from the fill
// element (lane 0 of word FILL) outside. The word lies where its first lane's destination
// says: a strided output's rows are whole words, so the lanes after it follow in the same
// word. Lanes past the tensor's end keep the bytes already in the destination.
fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    var d = ix(0u);
    for (var l = 0u; l < PACK; l++) {
        let o = iadd(imul(w, ix(PACK)), ix(l));
        if ilt(o, ip(N_UNITS)) {
            let at = padded_source(o);
            if l == 0u {
                d = at.d;
            }
            var value = lane(param(FILL), 0u);
            if at.inside {
                let s = iadd(ip(SRC_OFF), at.s);
                value = lane(load_src(iu32(idiv(s, ix(PACK)))), iu32(imod(s, ix(PACK))));
            }
            word |= value << (l * BITS);
        } else {
            keep |= MASK << (l * BITS);
        }
    }
    let at = iu32(idiv(iadd(ip(DST_OFF), d), ix(PACK)));
    if keep != 0u {
        word |= load_dst(at) & keep;
    }
    store_dst(at, word);
}
