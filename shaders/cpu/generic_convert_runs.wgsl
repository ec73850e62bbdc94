// Converting runs (CPU adapters, plan::select::choose_runs): the thread's RUN elements are
// consecutive output elements of one innermost output row, so one decode gives the first
// source element and the others step by that dim's source stride, STEP; converted with
// `converted_at` (generic_convert.wgsl), the channel cursor moving on from the first, they
// fill RUN / DST_PACK whole destination words.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_UNITS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let step = {{STEP}};
    let d = iadd(idiv(ip(DST_OFF), ix(DST_PACK)), idiv(first, ix(DST_PACK)));
    var ch = channel_at(first);
    for (var w = 0u; w < RUN / DST_PACK; w++) {
        var word = 0u;
        for (var l = 0u; l < DST_PACK; l++) {
            let k = w * DST_PACK + l;
            let at = iadd(s, imul(ix(k), step));
            let bits = lane(load_src(iu32(idiv(at, ix(PACK)))), iu32(imod(at, ix(PACK))));
            word |= converted_at(bits, ch) << (l * DST_BITS);
            ch = channel_next(ch);
        }
        store_dst(iu32(iadd(d, ix(w))), word);
    }
}
