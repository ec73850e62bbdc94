// One dispatch over the whole tensor: item `o` is output unit `o`.
fn move_item(o: Idx) {
    store_dst(iu32(iadd(ip(DST_OFF), o)), load_src(iu32(iadd(ip(SRC_OFF), src_offset(o)))));
}
