// A run of a walk in tiles (CPU adapters, plan::walk::choose_walk_tiles), or of a box over
// binding windows: the thread's RUN items are units of the walk's (the box's) innermost dim,
// the output's innermost, so one decode over the walk's dims (Plan::walk_tile_dims; a box's
// extents) gives where the first comes from and goes, and the others follow UNIT_STEP units
// on, STEP apart in the source and DST_STEP in the output.
// Runs start (cpu/generic_run_start.wgsl) and step as in cpu/generic_runs.wgsl.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = run_start(wg, lid);
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let at = box_offsets(first);
    let s = iadd(ip(SRC_OFF), at.s);
    let d = iadd(ip(DST_OFF), at.d);
    let unit_step = ix(UNIT_STEP);
    let step = imul(unit_step, {{STEP}});
    let dst_step = imul(unit_step, {{DST_STEP}});
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, imul(ix(k), dst_step))), load_src(iu32(iadd(s, imul(ix(k), step)))));
    }
}
