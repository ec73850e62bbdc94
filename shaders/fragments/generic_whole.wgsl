// One dispatch over the whole tensor: item `o` is output unit `o`.
fn move_item(o: Idx) {
    dst[iu32(iadd(ip(DST_OFF), o))] = src[iu32(iadd(ip(SRC_OFF), src_offset(o)))];
}
