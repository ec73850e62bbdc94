// The thread's ITEMS items are a workgroup apart, so neighbouring threads move neighbouring
// items: on a GPU their accesses coalesce.
fn move_items(wg: u32, lid: u32) {
    let first = imul(ix(wg), ix(WORKGROUP * ITEMS));
    for (var k = 0u; k < ITEMS; k++) {
        let item = iadd(first, ix(k * WORKGROUP + lid));
        if ilt(item, ip(N_ITEMS)) {
            move_item(item);
        }
    }
}
