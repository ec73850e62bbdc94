// generic: the permute that handles every case. Each thread writes ITEMS output items; an
// item is one movement unit or, for 8/16-bit data, one whole 32-bit output word (PACK
// elements), so no two threads ever write parts of the same word.
const ITEMS: u32 = {{ITEMS}};

{{INDEX_MATH}}

{{DECODE_FN}}

{{MOVE_FN}}

{{ITEMS_FN}}

{{REVERSE_FN}}

@compute @workgroup_size(WORKGROUP)
fn generic(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    if wg >= param(TOTAL_WORKGROUPS) {
        return;
    }
    move_items(wg, lid);
}
