// A run (CPU adapters, whole tensors of unpacked units): the thread's RUN items are
// consecutive units of one innermost row (plan::select::choose_runs), so one decode gives
// the first's offset on the other side and the others step by that dim's stride there,
// STEP. A gather walks the output's rows and decodes source offsets; with SCATTER
// (plan::select::choose_scatter) the walk is the source's and `src_offset` decodes the
// destination's (the parameter block's dims and strides are the walk's, Plan::walk). A CPU
// adapter's lanes access memory one at a time: spacing the items buys nothing there, while
// every decode costs.
const RUN: u32 = {{RUN}};
const SCATTER: bool = {{SCATTER}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let step = {{STEP}};
    if SCATTER {
        let s = iadd(ip(SRC_OFF), first);
        let d = iadd(ip(DST_OFF), src_offset(first));
        for (var k = 0u; k < RUN; k++) {
            store_dst(iu32(iadd(d, imul(ix(k), step))), load_src(iu32(iadd(s, ix(k)))));
        }
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let d = iadd(ip(DST_OFF), first);
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, ix(k))), load_src(iu32(iadd(s, imul(ix(k), step)))));
    }
}
