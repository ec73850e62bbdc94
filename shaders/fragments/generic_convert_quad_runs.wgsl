// Runs of quads (CPU adapters): the thread's RUN quads are consecutive in one row of the
// innermost dim, which stays (plan::select::choose_runs), so one decode gives the first's
// offset on the other side and the others follow it, a quad apart. A gather walks the
// output and decodes source offsets; with SCATTER (plan::select::choose_scatter) the walk
// is the source's and `src_offset` decodes output positions (the parameter block's dims
// and strides are the walk's, Plan::walk).
const RUN: u32 = {{RUN}};
const SCATTER: bool = {{SCATTER}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    if SCATTER {
        let s = iadd(ip(SRC_OFF), imul(first, ix(4u)));
        let q = idiv(src_offset(imul(first, ix(4u))), ix(4u));
        for (var k = 0u; k < RUN; k++) {
            move_quad(iadd(q, ix(k)), iadd(s, ix(4u * k)));
        }
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(imul(first, ix(4u))));
    for (var k = 0u; k < RUN; k++) {
        move_quad(iadd(first, ix(k)), iadd(s, ix(4u * k)));
    }
}
