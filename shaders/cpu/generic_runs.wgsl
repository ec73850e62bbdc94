// A run (CPU adapters, whole tensors of unpacked units): the thread's RUN items are units of
// one innermost output row (plan::select::choose_runs), so one decode gives the first
// source offset and the others step by that dim's source stride, STEP. A CPU adapter's
// lanes access memory one at a time: spacing the items buys nothing there, while every
// decode costs. A SIMD group of LANES invocations moves LANES * RUN neighbouring units:
// each its own RUN in a row, or, where rows hold whole groups, lane-major (each access of
// the group is LANES neighbouring units; Plan::lane_major_runs): run_start,
// cpu/generic_run_start.wgsl.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = run_start(wg, lid);
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let d = iadd(ip(DST_OFF), first);
    let unit_step = ix(UNIT_STEP);
    let step = imul(unit_step, {{STEP}});
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, imul(ix(k), unit_step))), load_src(iu32(iadd(s, imul(ix(k), step)))));
    }
}
