// A view of 4/8/16-byte units: item `o` is position `o` of the view, written at its
// destination unit (`o` itself unless the output is strided); positions outside the view's
// bounds get the fill unit (words FILL..) instead of a source unit.
fn fill_unit() -> {{STORE}} {
    return {{FILL_UNIT}};
}

fn move_item(o: Idx) {
    let at = padded_source(o);
    var unit = fill_unit();
    if at.inside {
        unit = load_src(iu32(iadd(ip(SRC_OFF), at.s)));
    }
    store_dst(iu32(iadd(ip(DST_OFF), at.d)), unit);
}
