// A run with wide stores (CPU adapters; plan::select::choose_wide_stores): as
// generic_runs.wgsl, but the run's 4 or 8-byte units are gathered PER at a time and written
// as one 16-byte store (the destination is bound as 16-byte units; the run starts on one).
// A CPU adapter pays per access, whatever its width: a quarter or half of the stores.
const RUN: u32 = {{RUN}};
const PER: u32 = 16u / {{UNIT_BYTES}}u; // units per store

fn move_items(wg: u32, lid: u32) {
    let first = imul(iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid)), ix(RUN));
    if !ilt(first, ip(N_ITEMS)) {
        return;
    }
    let s = iadd(ip(SRC_OFF), src_offset(first));
    let d = iu32(iadd(ip(DST_OFF), first)) / PER;
    let step = {{STEP}};
    for (var k = 0u; k < RUN / PER; k++) {
        let at = s + k * PER * step;
{{GATHER}}        store_dst(d + k, {{WIDE}});
    }
}
