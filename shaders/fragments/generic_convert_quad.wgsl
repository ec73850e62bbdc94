// Converting quads (plan::select::choose_quads): item `q` is output elements 4q to 4q + 3,
// which lie in one row of an innermost dim that stays, so their source elements are 4
// consecutive ones too: one source access of 4 elements (a word of bytes, two words of
// 16-bit elements, four of 32-bit ones), 4 conversions, one destination access likewise.
// `s` is the source offset of its first element, a whole quad. Items a workgroup apart
// (generic_convert_quad_item.wgsl) and runs of quads gathered or scattered call it.
fn move_quad(q: Idx, s: Idx) {
    let o = imul(q, ix(4u));
    let x = load_src(iu32(idiv(s, ix(4u))));
{{QUAD}}
    store_dst(iu32(iadd(idiv(ip(DST_OFF), ix(4u)), q)), y);
}
