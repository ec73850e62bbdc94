// Scattered runs of quads (CPU adapters, plan::walk::choose_scatter): the thread's RUN
// quads are consecutive source quads of one innermost row, a dim that stays innermost, so
// one decode (over the source's dims, with their destination strides: Plan::walk) gives
// the first's output quad and the others follow it (see generic_scatter.wgsl for why).
const RUN: u32 = {{RUN}};

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), imul(first, ix(4u)));
    let q = idiv(dst_offset(imul(first, ix(4u))), ix(4u));
    for (var k = 0u; k < RUN; k++) {
        move_quad(iadd(q, ix(k)), iadd(s, ix(4u * k)));
    }
}
