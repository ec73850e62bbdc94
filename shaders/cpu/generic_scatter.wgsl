// A scattered run (CPU adapters, plan::walk::choose_scatter): the thread's RUN items are
// consecutive source units of one innermost row, a dim that stays innermost, so one decode
// (over the source's dims, with their destination strides: Plan::walk) gives where the
// first goes and the others follow it, STEP apart. Where the output's rows come from
// source rows far apart, gathering them reads a new page per row, which a CPU's
// prefetchers do not follow; walking the source keeps the reads in order and the writes in
// few sequential streams.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), first);
    let d = iadd(ip(DST_OFF), dst_offset(first));
    let step = {{STEP}};
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, imul(ix(k), step))), load_src(iu32(iadd(s, ix(k)))));
    }
}
