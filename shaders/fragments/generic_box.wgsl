// A box of 4/8/16-byte units: items enumerate the box, and one decode gives both offsets.
// SRC_OFF and DST_OFF already include the box's corner and the windows' starts.
fn move_item(o: Idx) {
    let at = box_offsets(o);
    store_dst(iu32(iadd(ip(DST_OFF), at.d)), load_src(iu32(iadd(ip(SRC_OFF), at.s))));
}
