// Runs of quads (CPU adapters): the thread's RUN quads are consecutive in one output row
// (plan::select::choose_runs), so one decode gives the first's source offset and the
// others follow it, a quad apart.
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(imul(first, ix(4u))));
    for (var k = 0u; k < RUN; k++) {
        move_quad(iadd(first, ix(k)), iadd(s, ix(4u * k)));
    }
}
