// A run (CPU adapters, whole tensors of unpacked units): the thread's RUN items are
// consecutive output units of one innermost output row (plan::select::choose_runs), so one
// decode gives the first source offset and the others step by that dim's source stride,
// STEP. A CPU adapter's lanes access memory one at a time: spacing the items buys nothing
// there, while every decode costs.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let d = iadd(ip(DST_OFF), first);
    let step = {{STEP}};
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, ix(k))), load_src(iu32(iadd(s, imul(ix(k), step)))));
    }
}
