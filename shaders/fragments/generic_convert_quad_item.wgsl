// A quad as an item a workgroup apart (GPUs): its source offset from the decode.
fn move_item(q: Idx) {
    move_quad(q, iadd(ip(SRC_OFF), src_offset(imul(q, ix(4u)))));
}
