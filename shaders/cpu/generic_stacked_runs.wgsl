// Stacked runs (Plan::stacked_runs, CPU devices): neighbouring invocations (a SIMD group's
// lanes) take neighbouring units of an output row, and each moves RUN units down a stack of
// RUN rows, ROW units apart in the output and STACK_STEP apart in the source, so that a
// workgroup streams its rows a page or more apart on each side, as the shader copy streams
// its items a workgroup apart. Filled in by src/shaders/generic_runs.rs: RUN, ROW (the
// output's innermost extent) and STACK_STEP (the source stride of its second innermost dim).
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let at = iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid));
    let row = {{ROW}};
    // The stack's first unit: the invocation's column, in the stack's first row.
    let first = iadd(imul(idiv(at, row), imul(row, ix(RUN))), imod(at, row));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let d = iadd(ip(DST_OFF), first);
    let step = {{STACK_STEP}};
    for (var k = 0u; k < RUN; k++) {
        store_dst(iu32(iadd(d, imul(ix(k), row))), load_src(iu32(iadd(s, imul(ix(k), step)))));
    }
}
